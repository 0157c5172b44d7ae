"""JUnit XML for CI: one testsuite, one testcase per recorded run.

A run that met its goal passes (``completed_with_errors`` too, said so in ``system-out`` with
its errors); any other status is a ``failure`` whose type is the status, whose message is the
first missed criterion with what was found (else what ended the run) and whose text lists the
report's errors and missed goals. A cassette without a report (the recording did not
finish) is an ``error``. Characters XML 1.0 cannot carry are replaced, so the file always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from orav.model import RunReport
from orav.report.files import write_text
from orav.report.timeline import RunView

SUITE = "orav"
# Everything outside XML 1.0's Char production.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_junit(
    runs: Sequence[RunView],
    out: Path,
    *,
    suite: str = SUITE,
    attempts: Mapping[Path, int] | None = None,
    facts: Mapping[Path, Mapping[str, str]] | None = None,
    unrun: Sequence[tuple[str, str]] = (),
) -> Path:
    """Write the JUnit XML of ``runs`` to ``out`` and return the path."""
    text = junit_xml(runs, suite=suite, attempts=attempts, facts=facts, unrun=unrun)
    return write_text(out, text)  # whole, never through a symlink


def junit_xml(
    runs: Sequence[RunView],
    *,
    suite: str = SUITE,
    attempts: Mapping[Path, int] | None = None,
    facts: Mapping[Path, Mapping[str, str]] | None = None,
    unrun: Sequence[tuple[str, str]] = (),
) -> str:
    """The JUnit XML document (``testsuites`` holding one ``testsuite``) as text.

    ``attempts``: how many recordings each cassette took (``--retries``); a run that passed
    after more than one is marked with the properties ``attempts`` and ``flaky``. ``facts``:
    more properties by cassette (a merged suite's shard and device); ``unrun``: runs that
    left no cassette, ``(name, why)``, each an ``error``."""
    names = Counter(run.header.scenario.name for run in runs)
    cases = [
        _testcase(
            run,
            unique=names[run.header.scenario.name] == 1,
            attempts=(attempts or {}).get(run.path, 1),
            facts=(facts or {}).get(run.path, {}),
        )
        for run in runs
    ]
    for name, why in unrun:
        case = ET.Element("testcase", {"classname": SUITE, "name": _text(name), "time": "0"})
        ET.SubElement(case, "error", {"type": "not run", "message": _text(why)})
        cases.append(case)
    totals = {
        "name": suite,
        "tests": str(len(cases)),
        "failures": str(sum(1 for c in cases if c.find("failure") is not None)),
        "errors": str(sum(1 for c in cases if c.find("error") is not None)),
        "skipped": "0",
        "time": f"{sum(_duration(run) for run in runs):.3f}",
    }
    root = ET.Element("testsuites", totals)
    testsuite = ET.SubElement(root, "testsuite", totals)
    if runs:
        # JUnit's schema wants a local ISO 8601 time without a zone.
        testsuite.set("timestamp", runs[0].header.created_at[:19])
    testsuite.extend(cases)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _testcase(
    run: RunView, *, unique: bool = True, attempts: int = 1, facts: Mapping[str, str] = {}
) -> ET.Element:
    """One run; when several runs share a scenario, the cassette's name tells them apart
    (CI tools fold test cases with the same class and name into one)."""
    header = run.header
    name = header.scenario.name if unique else f"{header.scenario.name} [{run.path}]"
    case = ET.Element(
        "testcase",
        {
            "classname": _text(header.scenario.app),
            "name": _text(name),
            "time": f"{_duration(run):.3f}",
            "file": _text(str(run.path)),
        },
    )
    _properties(case, run, attempts, facts)
    report = run.report
    if report is None:
        _unfinished(case, run)
        return case
    errors = [
        f"step {e.step}: {e.error}" + (" (resolved)" if e.resolved else "") for e in report.errors
    ]
    if not report.goal_met:
        _failure(case, report, errors)
    out = [report.summary] if report.summary else []
    if report.status == "completed_with_errors":
        count = f"{len(errors)} error" + ("" if len(errors) == 1 else "s")
        out = [f"completed with errors: the goal was met, with {count} on the way", *out]
    if report.goal_met:
        out += errors
    if out:
        ET.SubElement(case, "system-out").text = _text("\n".join(out))
    return case


def _properties(case: ET.Element, run: RunView, attempts: int, more: Mapping[str, str]) -> None:
    """The run's facts as the case's properties, those with a value only."""
    header, report = run.header, run.report
    facts = {
        "status": run.status,
        "run_id": header.run_id,
        "agent": header.agent,
        "model": header.model,
        "steps": str(report.total_steps if report else len(run.steps)),
        "recoveries": str(len(run.recoveries)),
        "attempts": str(attempts) if attempts > 1 else "",
        "flaky": "true" if attempts > 1 and report is not None and report.goal_met else "",
        **more,
    }
    properties = ET.SubElement(case, "properties")
    for name, value in facts.items():
        if value:
            ET.SubElement(properties, "property", {"name": name, "value": _text(value)})


def _unfinished(case: ET.Element, run: RunView) -> None:
    """A cassette without a report: an ``error`` with every error the run met."""
    cut = f"; the cassette was cut off at {run.truncated}" if run.truncated else ""
    error = ET.SubElement(
        case,
        "error",
        {"type": "incomplete", "message": _text(f"the recording did not finish{cut}")},
    )
    found = [*run.errors, *(f"step {s.number}: {e}" for s in run.steps for e in s.errors)]
    error.text = _text("\n".join(found))


def _failure(case: ET.Element, report: RunReport, errors: list[str]) -> None:
    """A run that missed its goal: a ``failure`` typed by its status, with its errors and the
    goals it missed (and what it found instead)."""
    seen = dict(zip(report.goals_missed, report.goals_found, strict=False))
    missed = [
        f"goal missed: {goal}" + (f"; found {seen[goal]}" if goal in seen else "")
        for goal in report.goals_missed
    ]
    unresolved = next((e.error for e in report.errors if not e.resolved), None)
    criterion = next((line for line in report.reasons() if line.startswith("expected ")), None)
    message = criterion or report.summary or unresolved or ", ".join(report.goals_missed)
    message = message or report.status
    failure = ET.SubElement(
        case,
        "failure",
        {"type": report.status, "message": _text(f"{report.status}: {message}")},
    )
    failure.text = _text("\n".join(errors + missed))


def _duration(run: RunView) -> float:
    return run.report.duration_seconds if run.report is not None else 0.0


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)
