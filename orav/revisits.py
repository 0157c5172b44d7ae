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
from orav.codec import decode_json
from orav.errors import InputError
from orav.model import Screenshot

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
        lines += [
            f"  healed step {h.step}: {h.recorded} is now {h.live} (by {h.by})" for h in self.heals
        ]
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
    from orav.report.files import write_text

    data = {
        "run_id": run_id,
        "revisits": [_revisit_data(r) for r in check.revisits],
        "not_goldens": [str(p) for p in check.not_goldens],
    }
    return write_text(revisits_path(cassette), json.dumps(data, indent=1) + "\n")


def read_revisits(cassette: Path, run_id: str | None = None) -> RegressionCheck | None:
    """The regression check written beside ``cassette`` (None: the run had none, or, given
    the cassette's ``run_id``, it followed an earlier run of it); a file orav cannot read is an
    InputError naming it."""
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
    try:
        if run_id is not None and data.get("run_id") != run_id:
            return None
        revisits = tuple(_revisit_of(item) for item in data["revisits"])
        return RegressionCheck(revisits, tuple(Path(p) for p in data["not_goldens"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a regression check orav wrote: {exc}", str(path)) from None


def _revisit_data(revisit: Revisit) -> dict[str, Any]:
    return {
        "cassette": str(revisit.cassette),
        "scenario": revisit.scenario,
        "status": revisit.status,
        "reason": revisit.reason,
        "steps": revisit.steps,
        "seconds": round(revisit.seconds, 3),
        "heals": [[h.step, h.recorded, h.live, h.by] for h in revisit.heals],
        "regressions": [
            {
                "step": r.step,
                "kind": r.kind,
                "expected": r.expected,
                "found": r.found,
                "recorded": _shot_data(r.recorded),
                "live": _shot_data(r.live),
            }
            for r in revisit.regressions
        ],
    }


def _revisit_of(data: dict[str, Any]) -> Revisit:
    return Revisit(
        Path(data["cassette"]),
        str(data["scenario"]),
        str(data["status"]),
        str(data["reason"]),
        int(data["steps"]),
        float(data["seconds"]),
        tuple(Heal(int(s), str(r), str(live), str(by)) for s, r, live, by in data["heals"]),
        tuple(
            Regression(
                int(r["step"]),
                str(r["kind"]),
                str(r["expected"]),
                str(r["found"]),
                _shot_of(r["recorded"]),
                _shot_of(r["live"]),
            )
            for r in data["regressions"]
        ),
    )


def _shot_data(shot: Screenshot | None) -> dict[str, Any] | None:
    if shot is None or not shot.data:
        return None
    return {
        "width": shot.width,
        "height": shot.height,
        "format": shot.format,
        "scale": shot.scale,
        "base64": base64.b64encode(shot.data).decode("ascii"),
    }


def _shot_of(data: dict[str, Any] | None) -> Screenshot | None:
    if data is None:
        return None
    raw = base64.b64decode(data["base64"], validate=True)
    return Screenshot.of(
        raw, int(data["width"]), int(data["height"]), str(data["format"]), float(data["scale"])
    )


def add_to_junit(check: RegressionCheck, junit: Path, *, app: str = "") -> Path:
    """Add a testsuite ``orav regression check`` to the JUnit XML at ``junit`` (written by
    ``orav.report.junit``; a new file when there is none): one testcase per flow revisited, a
    ``failure`` when it regressed, ``skipped`` when unchecked, heals as properties."""
    from orav.report.files import write_text

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
