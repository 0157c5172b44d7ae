"""A regression check's verdicts and where they are kept: ``Revisit`` (one flow revisited)
and ``RegressionCheck`` (all of them), written beside the run's cassette
(``NAME.regressions.json``, with both screenshots) for the reports to read back, and added
to a JUnit XML file as a testsuite. ``orav.regression_check`` runs the check.
"""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from attrs import frozen

from orav.cassette.rerun import Heal, Regression
from orav.codec import converter, decode_json
from orav.codec.converter import raise_structure_error
from orav.errors import InputError
from orav.model import Screenshot
from orav.report.files import write_text

SUFFIX = ".regressions.json"  # beside the run's cassette


@frozen
class Revisit:
    """One previously passing flow, revisited: its verdict (``passed``, ``healed``,
    ``regressed``, or ``unchecked`` with the ``reason``), its heals and regressions."""

    cassette: Path
    scenario: str
    status: str
    reason: str = ""
    steps: int = 0
    seconds: float = 0.0
    heals: tuple[Heal, ...] = ()
    regressions: tuple[Regression, ...] = ()

    def explain(self) -> str:
        head = f"{self.cassette.name} ({self.scenario}): {self.status}"
        lines = [head + (f": {self.reason}" if self.reason else "")]
        lines += [f"  {heal}" for heal in self.heals]
        lines += [f"  regression at {r}" for r in self.regressions]
        return "\n".join(lines)


@frozen
class RegressionCheck:
    """The flows revisited after a run, in order, and the golden-less cassettes passed over."""

    revisits: tuple[Revisit, ...]
    not_goldens: tuple[Path, ...] = ()  # cassettes of this app whose recorded run did not pass

    @property
    def regressed(self) -> tuple[Revisit, ...]:
        return tuple(r for r in self.revisits if r.status == "regressed")

    @property
    def ok(self) -> bool:
        """No flow that passed before fails now (unchecked ones are said, not failed)."""
        return not self.regressed

    def explain(self) -> str:
        counts = {s: sum(r.status == s for r in self.revisits) for s in _STATUSES}
        said = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no flow of this app"
        flows = f"{len(self.revisits)} passing flow" + ("" if len(self.revisits) == 1 else "s")
        lines = [f"regression check: {flows} revisited: {said}"]
        lines += [r.explain() for r in self.revisits]
        lines += [
            f"{p.name}: passed over (its recorded run did not pass)" for p in self.not_goldens
        ]
        return "\n".join(lines)


_STATUSES = ("passed", "healed", "regressed", "unchecked")


def revisits_path(cassette: Path) -> Path:
    """Where a run's regression check is written: beside its cassette."""
    return cassette.with_name(cassette.stem + SUFFIX)


def write_revisits(check: RegressionCheck, cassette: Path, run_id: str = "") -> Path:
    """Write ``check`` beside the run's ``cassette`` (``NAME.regressions.json``) for the
    reports: each flow's verdict, heals and regressions with both screenshots (base64), and
    the ``run_id`` of the run it followed (a later run of that cassette does not show it)."""
    data = _converter.unstructure(_File(run_id, check.revisits, check.not_goldens))
    return write_text(revisits_path(cassette), json.dumps(data, indent=1) + "\n")


def read_revisits(cassette: Path, run_id: str | None = None) -> RegressionCheck | None:
    """The regression check written beside ``cassette`` (None: the run had none, or, given
    the cassette's ``run_id``, it followed an earlier run of it); a file orav cannot read is an
    InputError naming it and the field."""
    path = revisits_path(cassette)
    if not path.exists():
        return None
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    data = decode_json(text, str(path))  # bounded: size, depth, numbers
    if not isinstance(data, dict):
        raise InputError("not a regression check orav wrote: expected a mapping", str(path))
    if run_id is not None and data.get("run_id", "") != run_id:
        return None
    try:
        kept = _converter.structure(data, _File)
    except Exception as exc:  # noqa: BLE001 - cattrs' errors, each one named by its field
        try:
            raise_structure_error(exc, data, str(path), lambda _: None)
        except InputError as error:
            what = f"not a regression check orav wrote: {error.what}"
            raise InputError(what, error.where) from None
    return RegressionCheck(kept.revisits, kept.not_goldens)


@frozen
class _File:
    """``NAME.regressions.json`` as written: the check, and the run it followed."""

    run_id: str = ""
    revisits: tuple[Revisit, ...] = ()
    not_goldens: tuple[Path, ...] = ()


@frozen
class _Shot:
    """A screenshot as the file keeps it: its bytes in base64 beside its fields."""

    base64: str
    width: int
    height: int
    format: str = "png"
    scale: float = 1.0


def _shot_data(shot: Screenshot) -> dict[str, Any] | None:
    if not shot.data:
        return None
    encoded = base64.b64encode(shot.data).decode("ascii")
    return _converter.unstructure(_Shot(encoded, shot.width, shot.height, shot.format, shot.scale))


def _shot_of(data: Any, _: type) -> Screenshot:
    shot = _converter.structure(data, _Shot)
    try:
        raw = base64.b64decode(shot.base64, validate=True)
    except ValueError:
        raise ValueError("expected the screenshot's bytes in base64") from None
    return Screenshot.of(raw, shot.width, shot.height, shot.format, shot.scale)


# The codec's converter, but a screenshot keeps its bytes: the reports show them, and the
# file is read back without the cassette whose blobs hold them.
_converter = converter.copy()
_converter.register_unstructure_hook(Screenshot, _shot_data)
_converter.register_structure_hook(Screenshot, _shot_of)


def add_to_junit(check: RegressionCheck, junit: Path, *, app: str = "") -> Path:
    """Add a testsuite ``orav regression check`` to the JUnit XML at ``junit`` (written by
    ``orav.report.junit``; a new file when there is none): one testcase per flow revisited, a
    ``failure`` when it regressed, ``skipped`` when unchecked, heals as properties."""
    root = ET.parse(junit).getroot() if junit.exists() else ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", {"name": "orav regression check"})
    for revisit in check.revisits:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": app or "regression check",
                "name": f"regression check: {revisit.scenario}",
                "time": f"{revisit.seconds:.3f}",
                "file": str(revisit.cassette),
            },
        )
        properties = ET.SubElement(case, "properties")
        ET.SubElement(properties, "property", {"name": "status", "value": revisit.status})
        for heal in revisit.heals:
            said = f"step {heal.step}: {heal.recorded} is now {heal.live} (by {heal.by})"
            ET.SubElement(properties, "property", {"name": "healed", "value": said})
        if revisit.status == "regressed":
            first = str(revisit.regressions[0]) if revisit.regressions else "regressed"
            failure = ET.SubElement(
                case, "failure", {"type": "regression", "message": f"regression at {first}"}
            )
            failure.text = revisit.explain()
        elif revisit.status == "unchecked":
            ET.SubElement(case, "skipped", {"message": revisit.reason})
    totals = {
        "tests": len(check.revisits),
        "failures": len(check.regressed),
        "errors": 0,
        "skipped": sum(r.status == "unchecked" for r in check.revisits),
        "time": sum(r.seconds for r in check.revisits),
    }
    for name, value in totals.items():
        suite.set(name, f"{value:.3f}" if name == "time" else str(value))
        before = float(root.get(name, "0"))
        root.set(name, f"{before + value:.3f}" if name == "time" else str(int(before) + value))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
    return write_text(junit, text)
