"""Regression check in a run: the seed's fourth decision heuristic, "revisit previously working
flows to detect regressions", as a behaviour (docs/goldens.md).

Once a run has reached its goal, or an exploration has ended, each previously passing flow
(a golden cassette of the same app, named by file or folder) is rerun live on the same device
(``orav.golden.rerun``), and what no longer works is reported: the flow, the step, what was
expected and what is there, both screenshots, and what was healed on the way::

    flows = find_flows(["recordings"])            # bad input is said before anything runs
    check = await check_regressions(flows, app=scenario.app, device="sim", skip=[out])
    check.regressed                              # the flows that no longer work
    print(check.explain())
    write_revisits(check, out)                   # out.regressions.json, for the reports
    add_to_junit(check, Path("junit.xml"))       # one testcase per flow revisited

Bounded: ``max_steps`` steps and ``timeout`` seconds in all; each flow runs with its own limits
capped by what is left, and a flow the budget did not let finish is ``unchecked`` (said, never
silently dropped, never called a regression). It never acts against the test: it starts after
the run's verdict and never changes it; each flow runs in a device session of its own; no agent
improvises: only the recorded decisions of a flow that passed are played, and a flow stops at
its first regression.
"""

from __future__ import annotations

import base64
import json
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from orav.cassette.rerun import Heal, Regression
from orav.errors import InputError, OravError
from orav.model import Screenshot

if TYPE_CHECKING:
    from orav.cassette import Cassette

MAX_STEPS = 200  # steps of all the flows revisited together
TIMEOUT = 600.0  # seconds of all the flows revisited together
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


def find_flows(paths: Iterable[str | Path]) -> list[Path]:
    """The cassettes ``paths`` name (files, folders of ``*.cassette``, globs); one that names
    nothing is an InputError, said before any run starts."""
    from orav.suite import expand

    found = expand(paths, suffixes=(".cassette",))
    missing = next((path for path in found if not path.is_file()), None)
    if missing is not None:
        raise InputError("no such cassette or folder of cassettes", str(missing))
    return found


async def check_regressions(
    flows: Sequence[Path],
    *,
    app: str | None,
    device: str | None = None,
    skip: Iterable[Path] = (),
    scenarios: Sequence[Path] = (),
    max_steps: int = MAX_STEPS,
    timeout: float = TIMEOUT,
    seed: int = 0,
) -> RegressionCheck:
    """Rerun live each of ``flows`` that is a golden of ``app`` (None: any app) and not one of
    ``skip`` (the cassettes the run itself just wrote), on ``device`` (by default the one its
    scenario runs on, as ``orav.golden.default_device``), within ``max_steps`` steps and
    ``timeout`` seconds in all. A flow's scenario file (needed when it types a secret) is
    looked up by name under ``scenarios`` and beside the cassette."""
    from orav.cassette import read_cassette

    skipped = {Path(p).resolve() for p in skip}
    revisits: list[Revisit] = []
    not_goldens: list[Path] = []
    steps_left, deadline = max_steps, time.monotonic() + timeout
    for cassette in flows:
        if cassette.resolve() in skipped:
            continue
        try:
            recorded = read_cassette(cassette)
            report = recorded.report()
        except (InputError, OSError) as exc:
            revisits.append(Revisit(cassette, "?", "unchecked", f"unreadable: {exc}"))
            continue
        scenario = recorded.header.scenario
        if app is not None and scenario.app != app:
            continue  # another app's flow: not this run's to revisit
        if report is None or not report.ok:
            not_goldens.append(cassette)
            continue
        seconds_left = deadline - time.monotonic()
        if steps_left < 1 or seconds_left < 1:
            spent = "steps" if steps_left < 1 else "time"
            revisits.append(
                Revisit(cassette, scenario.name, "unchecked", f"the check's {spent} ran out")
            )
            continue
        revisit = await _revisit(
            cassette,
            recorded,
            device,
            [cassette.parent, *scenarios],
            steps_left,
            seconds_left,
            seed,
        )
        steps_left -= revisit.steps
        revisits.append(revisit)
    return RegressionCheck(tuple(revisits), tuple(not_goldens))


async def _revisit(
    cassette: Path,
    recorded: Cassette,
    device: str | None,
    folders: list[Path],
    steps_left: int,
    seconds_left: float,
    seed: int,
) -> Revisit:
    """One flow rerun live, its limits capped by the check's budget; ending on a limit the
    budget set (not the flow's own) is ``unchecked``, not a regression."""
    from orav.golden import rerun, scenario_of

    started = time.monotonic()
    name = recorded.header.scenario.name
    try:
        homes = [f for f in folders if f.is_dir()]
        scenario = scenario_of(cassette, recorded.header.scenario, homes)
        capped = evolve(
            scenario,
            max_steps=min(scenario.max_steps, steps_left),
            timeout_seconds=min(scenario.timeout_seconds, seconds_left),
        )
        result = await rerun(cassette, device=device, scenario=capped, seed=seed, recorded=recorded)
    except OravError as exc:  # a secret without its scenario file, a device that did not open
        return Revisit(cassette, name, "unchecked", str(exc))
    seconds = time.monotonic() - started
    report = result.report
    budget = (report.status == "step_limit" and capped.max_steps < scenario.max_steps) or (
        report.status == "timed_out" and capped.timeout_seconds < scenario.timeout_seconds
    )
    if budget and all(r.kind == "goal" for r in result.regressions):
        spent = "steps" if report.status == "step_limit" else "time"
        why = f"the check's {spent} ran out at step {report.total_steps}"
        return Revisit(
            cassette, scenario.name, "unchecked", why, report.total_steps, seconds, result.heals
        )
    return Revisit(
        cassette,
        scenario.name,
        result.status,
        "",
        report.total_steps,
        seconds,
        result.heals,
        result.regressions,
    )


def revisit_after(
    flows: Sequence[Path],
    runs: Sequence[tuple[Path, str, bool]],
    *,
    device: str | None,
    seed: int = 0,
    scenarios: Sequence[Path] = (),
    junit: Path | None = None,
    say: Callable[[str], object] = print,
) -> bool:
    """What ``orav record`` and ``orav explore`` do with ``--regression-check`` once their
    ``runs`` (each cassette, its app, and whether it reached its goal) are done: for each app
    with a run that reached its goal, revisit its ``flows`` (not the runs' own cassettes) on
    ``device``; say each verdict, write the check beside each such run's cassette, add it to
    ``junit``. False when a flow regressed."""
    import asyncio

    wrote = [cassette for cassette, _, _ in runs]
    ok = True
    for app in dict.fromkeys(app for _, app, reached in runs if reached):
        check = asyncio.run(
            check_regressions(
                flows, app=app, device=device, skip=wrote, scenarios=scenarios, seed=seed
            )
        )
        say(check.explain())
        for cassette, of, reached in runs:
            if of == app and reached:
                say(f"regressions: {_beside(check, cassette)}")
        if junit is not None:
            add_to_junit(check, junit, app=app)
        ok = ok and check.ok
    return ok


def _beside(check: RegressionCheck, cassette: Path) -> Path:
    """Write ``check`` beside the run's cassette, and the run's HTML report again, which
    was written before the check and shows it."""
    from orav.report.html import write_html
    from orav.report.timeline import read_run

    run = read_run(cassette)
    written = write_revisits(check, cassette, run.header.run_id)
    write_html(run)
    return written


# --- where the reports find it --------------------------------------------------------------


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
        data = json.loads(path.read_text(encoding="utf-8"))
        if run_id is not None and data.get("run_id") != run_id:
            return None
        revisits = tuple(_revisit_of(item) for item in data["revisits"])
        return RegressionCheck(revisits, tuple(Path(p) for p in data["not_goldens"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
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
