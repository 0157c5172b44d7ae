"""The report page of one run: the header and verdict, the timeline, a card per step and per
recovery (before and after screenshots, the decision, the result, the accessibility tree), the
conclusion, an exploration's coverage and the state machines.

Everything is inline (style, screenshots as data URLs, SVG, a few lines of script to enlarge a
screenshot) so a report opens offline and can be attached to a CI job as one file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from orav.errors import OravError
from orav.model import Judged, Observation, Point, RunReport, Screenshot, SideEffects
from orav.perceive.change import screen_digest
from orav.report.coverage import read_coverage
from orav.report.files import write_text
from orav.report.html.cards import (
    cards,
    decision_fields,
    marks,
    performed_fields,
    screen_space,
)
from orav.report.html.coverage_section import coverage_section
from orav.report.html.elements import (
    STATUS_CLASS,
    Child,
    Mark,
    chips,
    copy_of,
    el,
    error_list,
    field,
    figure,
    has_data,
    marked,
    page_parts,
    screens_shown_once,
    seconds,
    status,
    when,
    zoom,
)
from orav.report.html.machine_section import machines_section
from orav.report.html.regression_section import regression_check_section
from orav.report.revisits import RegressionCheck, read_revisits
from orav.report.timeline import RunView, StepView, read_run


def write_html(run: RunView | Path, out: Path | None = None) -> Path:
    """Write the report of a run (or of the cassette at a path) and return the report's path.

    By default the report goes next to its cassette, with the suffix ``.html``.
    """
    if isinstance(run, Path):
        run = read_run(run, screenshots=False)
    out = out or run.path.with_suffix(".html")
    return write_text(out, html_parts(run))


def render_html(run: RunView) -> str:
    """The whole report page of one run."""
    return "".join(html_parts(run))


def html_parts(run: RunView) -> Iterator[str]:
    """The report page of one run in parts, a section or a card at a time, each screenshot
    read from the cassette only as its card is written: a long run's page in bounded memory."""
    device = run.header.device
    body = {"class": f"screen-{device.unit if device is not None else 'pt'}"}
    title = f"orav: {run.header.scenario.name} ({run.status})"
    with screens_shown_once(run.blobs):
        yield from page_parts(title, body, _body(run))


def _body(run: RunView) -> Iterator[Child]:
    check, unreadable = _regression_check(run)
    regressed = len(check.regressed) if check is not None else 0
    yield _header(run, regressed)
    yield _setup(run)
    yield el("h2", None, "Steps")
    yield _timeline(run)
    yield _filmstrip(run)  # copies of the screens the cards and the conclusion hold
    yield cards(run) if run.timeline else el("p", None, "No step was recorded.")
    yield _conclusion(run)
    yield _judgements(run)
    yield regression_check_section(check) if check is not None else unreadable
    yield _coverage(run)
    yield machines_section(run.transitions)
    yield zoom()


# --- sections ------------------------------------------------------------------------------


def _header(run: RunView, regressed: int = 0) -> list[ET.Element]:
    report = run.report
    scenario = run.header.scenario
    parts: list[Child] = [
        el("h1", None, scenario.name, " ", status(run.status)),
        _verdict(run, regressed),
        el("p", {"class": "goal"}, scenario.goal),
        el(
            "table",
            {"class": "facts"},
            [el("tr", None, el("th", None, k), el("td", None, v)) for k, v in _facts(run)],
        ),
        *_run_errors(run),
    ]
    if report is not None and report.side_effects is not None:
        parts.append(_side_effects(report.side_effects))
    return [el("header", None, parts)]


def _facts(run: RunView) -> list[tuple[str, Child]]:
    """The header's table: who ran it, on what, when, from which cassette; then the report's."""
    header = run.header
    facts: list[tuple[str, Child]] = [("agent", header.agent or "?")]
    if header.model:
        facts.append(("model", header.model))
    if header.device is not None:
        device = header.device
        size = f"{device.width:g}×{device.height:g} {device.unit}" if device.width else ""
        facts.append(("device", " · ".join(x for x in (device.name, device.os_version, size) if x)))
    facts.append(("recorded", f"{when(header.created_at)} (orav {header.orav_version})"))
    facts.append(("cassette", el("code", None, run.path.name)))
    facts.append(("run id", el("code", None, header.run_id)))
    if run.report is not None:
        facts += _report_facts(run, run.report)
    return facts


def _report_facts(run: RunView, report: RunReport) -> list[tuple[str, Child]]:
    """What the report counts: time, steps, recoveries, model usage, goals, its summary."""
    actions = f"{report.successful_actions} succeeded, {report.failed_actions} failed"
    costs = f"{report.retries} retries, {report.crashes_recovered} crashes recovered"
    facts: list[tuple[str, Child]] = [
        ("duration", seconds(report.duration_seconds)),
        ("steps", f"{report.total_steps} (actions: {actions})"),
        ("recoveries", f"{len(run.recoveries)} ({costs})"),
    ]
    if report.usage is not None:
        usage = report.usage
        tokens = (
            f"{usage.calls} model calls, {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens"
        )
        cost = f", ${usage.cost:.4f}" if usage.cost is not None else ""
        facts.append(("model usage", tokens + cost))
    facts += _goals(report)
    if report.summary:
        facts.append(("summary", report.summary))
    return facts


def _goals(report: RunReport) -> list[tuple[str, Child]]:
    """The goals met and those missed, as chips (none: no line)."""
    goals: list[tuple[str, Child]] = []
    if report.goals_achieved:
        goals.append(("goals met", chips(report.goals_achieved, "ok")))
    if report.goals_missed:
        goals.append(("goals missed", chips(report.goals_missed, "bad")))
    return goals


def _run_errors(run: RunView) -> list[Child]:
    """Under the facts: a cassette cut off, a recording that did not finish, or the run's
    errors."""
    report = run.report
    parts: list[Child] = []
    if run.truncated:
        parts.append(el("p", {"class": "warning"}, f"The cassette was cut off at {run.truncated}."))
    if report is None:
        parts.append(
            el(
                "p",
                {"class": "warning"},
                "The recording did not finish: the cassette has no report. "
                "The steps below are those recorded.",
            )
        )
    elif report.errors:
        parts.append(el("h2", None, "Errors"))
        parts.append(
            el(
                "ul",
                {"class": "errors", "id": "run-errors"},
                [
                    el(
                        "li",
                        {"class": "resolved"} if e.resolved else None,
                        f"step {e.step}: {e.error}",
                        " (resolved)" if e.resolved else "",
                    )
                    for e in report.errors
                ],
            )
        )
    return parts


def _side_effects(ledger: SideEffects) -> ET.Element:
    """The ledger at a glance: where the app ran, each deed and who did it, each file."""
    items = [el("li", {"class": f"deed {d.kind}"}, str(d)) for d in ledger.deeds]
    items += [el("li", {"class": f"file {f.change}"}, str(f)) for f in ledger.files]
    said = el("ul", {"class": "side-effects"}, items) if items else el("p", None, "Nothing.")
    return el(
        "section",
        {"id": "side-effects"},
        el("h2", None, "Side effects"),
        el("p", None, f"The app ran in {ledger.world}."),
        said,
    )


def _setup(run: RunView) -> ET.Element | None:
    if not run.setup:
        return None
    return el(
        "section",
        {"id": "launch"},
        el("h2", None, "Launch"),
        el("ul", {"class": "path"}, [el("li", None, performed_fields(p)) for p in run.setup]),
    )


def _timeline(run: RunView) -> ET.Element | None:
    """The run at a glance: a chip per step (green, red when it failed) and per recovery
    (amber, red when it failed), each a link to its card."""
    chips: list[Child] = []
    recovery = 0
    for block in run.timeline:
        if isinstance(block, StepView):
            href, kind = f"#step-{block.number}", "bad" if block.failed else "ok"
            text = str(block.number)
        else:
            recovery += 1
            href, kind = f"#recovery-{recovery}", "warn" if block.resolved else "bad"
            text = f"⟲ {block.fault}"
        chips.append(el("a", {"class": f"chip {kind}", "href": href}, text))
    if not chips:
        return None
    return el("nav", {"class": "timeline", "id": "timeline"}, chips)


def _filmstrip(run: RunView) -> ET.Element | None:
    """The run as a strip of frames: the screen each step acted on, with where it tapped or
    swiped, each a link to its card (red when the step failed); then the last screen."""
    space = screen_space(run)
    frames: list[Child] = []
    for step in run.steps:
        if step.before is None or not has_data(step.before):
            continue
        alt = f"step {step.number}"
        image = marked(copy_of(step.before, "frame", alt), marks(step), space, step.before)
        frames.append(
            el(
                "a",
                {
                    "class": "frame" + (" failed" if step.failed else ""),
                    "href": f"#step-{step.number}",
                },
                image,
                el("span", None, alt),
            )
        )
    last = run.conclusion.screenshot
    if last is not None and has_data(last):
        frames.append(
            el(
                "a",
                {"class": "frame end", "href": "#conclusion"},
                copy_of(last, "frame", "the last screen"),
                el("span", None, "end"),
            )
        )
    if not frames:
        return None
    return el("div", {"class": "filmstrip", "id": "filmstrip"}, frames)


VERDICTS = {
    "passed": "Passed: the goal is reached",
    "completed_with_errors": "Passed with errors: the goal is reached, with errors on the way",
    "failed": "Failed: the goal is not reached",
    "step_limit": "Failed: the step budget ran out before the goal",
    "timed_out": "Failed: the time ran out before the goal",
    "aborted": "Aborted: an error ended the run",
    "interrupted": "Interrupted: a signal ended the run",
    "incomplete": "Incomplete: the recording did not finish",
}


def _verdict(run: RunView, regressed: int = 0) -> ET.Element:
    """The verdict under the title, and for a run that did not pass, why: the missed criteria
    with what the last screen showed, the unresolved errors (as the terminal says it); and
    how many earlier flows the regression check after it found regressed."""
    why = run.report.reasons() if run.report is not None else []
    warned = run.report.warnings if run.report is not None else ()
    first = next(
        (f"step-{block.number}" for block in run.steps if block.failed),
        None,
    )
    return el(
        "div",
        {"id": "verdict", "class": f"verdict {STATUS_CLASS.get(run.status, 'gray')}"},
        el("strong", None, VERDICTS.get(run.status, run.status)),
        el("ul", None, [el("li", None, line) for line in why]) if why else None,
        el("ul", {"class": "warnings"}, [el("li", None, f"warning: {w}") for w in warned])
        if warned
        else None,
        el(
            "p",
            None,
            el(
                "a",
                {"href": f"#{first}", "class": "first-failure"},
                "jump to the first failed step",
            ),
            " · ",
            el("a", {"href": "#conclusion"}, "the conclusion"),
        )
        if first
        else None,
        el(
            "p",
            {"class": "regressed"},
            el(
                "a",
                {"href": "#regression-check"},
                f"{regressed} previously passing flow{'s' if regressed != 1 else ''} regressed",
            ),
            " (the regression check after the run)",
        )
        if regressed
        else None,
    )


def _conclusion(run: RunView) -> ET.Element:
    """How the run ended: the agent's done decision is its conclusion, not one more step."""
    end, report = run.conclusion, run.report
    steps = report.total_steps if report is not None else len(run.steps)
    tally = f"after {steps} step{'s' if steps != 1 else ''}"
    if run.recoveries:
        tally += f" and {len(run.recoveries)} recover{'ies' if len(run.recoveries) != 1 else 'y'}"
    fields: list[Child] = [
        el("h3", None, VERDICTS.get(run.status, run.status), status(run.status)),
        field("after", tally.removeprefix("after ")),
        *_ending(run),
    ]
    if report is not None:
        fields += [field(name, value) for name, value in _goals(report)]
    elif run.truncated or not end.state:
        fields.append(field("ended", "the recording stops here: the cassette has no report"))
    if run.errors:
        fields.append(error_list(run.errors))
    return el(
        "section",
        {"id": "conclusion"},
        el("h2", None, "Conclusion"),
        el(
            "article",
            {"class": f"card conclusion {STATUS_CLASS.get(run.status, 'gray')}"},
            el(
                "div",
                {"class": "shots"},
                figure(end.screenshot, "final screen", "the last screen recorded"),
            ),
            el("div", None, fields),
        ),
    )


def _ending(run: RunView) -> list[Child]:
    """What the agent said when it was done, under the verdict that weighs it; else its last
    decision, never acted on, and why the run ended."""
    end, report = run.conclusion, run.report
    done = end.done
    fields: list[Child] = []
    if done is not None:
        said = "the goal is reached" if done.success else "the goal cannot be reached"
        fields.append(field("the agent said", said))
        if done.summary:
            fields.append(field("summary", done.summary))
        if end.decision is not None and end.decision.reasoning:
            fields.append(field("reasoning", end.decision.reasoning))
        return fields
    if end.decision is not None:
        fields.append(field("last decision", decision_fields(end.decision), " (not acted on)"))
    if report is not None and report.summary:
        fields.append(field("why", report.summary))
    return fields


def _judgements(run: RunView) -> ET.Element | None:
    """Each claim in words a judge decided: where, on which screen, its verdict, the evidence."""
    judged = run.report.judgements if run.report is not None else ()
    if not judged:
        return None
    rows = []
    for j in judged:
        verdict = "holds" if j.passed else ("unsure" if j.holds else "fails")
        rows.append(
            el(
                "tr",
                None,
                el("td", None, "precondition" if j.step == 0 else f"step {j.step}"),
                el("td", None, j.claim),
                el("td", None, chips([verdict], "ok" if j.passed else "bad")),
                el("td", None, f"{j.confidence:.2f}"),
                el("td", None, j.evidence or "(none given)"),
                el("td", None, el("code", None, j.screen)),
            )
        )
    head = ("when", "claim", "verdict", "confidence", "evidence", "screen")
    return el(
        "section",
        {"id": "judgements"},
        el("h2", None, "Judgements"),
        el(
            "table",
            {"class": "judgements"},
            el("tr", None, [el("th", None, name) for name in head]),
            rows,
        ),
        el("div", {"class": "shots"}, list(_evidence_shots(run, judged))),
    )


def _evidence_shots(run: RunView, judged: tuple[Judged, ...]) -> Iterator[ET.Element]:
    """Each judgement that points at something, on the screenshot of the screen it judged
    (found by the screen's digest among the steps' and the conclusion's): a box round what it
    points at, a dot where it points at a spot."""
    pointed = [j for j in judged if j.at is not None]
    if not pointed:
        return
    seen = [(step.tree, step.before) for step in run.steps]
    seen.append((run.conclusion.tree, run.conclusion.screenshot))
    shots: dict[str, Screenshot] = {}
    for tree, shot in seen:
        if tree and shot is not None:
            shots.setdefault(screen_digest(Observation(elements=tree)), shot)
    space = screen_space(run)
    for j in pointed:
        shot, at = shots.get(j.screen), j.at
        if shot is None or at is None:
            continue
        corner = Point(at.x + at.width, at.y + at.height)
        mark = Mark(Point(at.x, at.y), corner, area=True) if at.width else Mark(Point(at.x, at.y))
        when = "precondition" if j.step == 0 else f"step {j.step}"
        yield figure(shot, f"{when}: {j.claim}", j.evidence or j.claim, marks=[mark], space=space)


def _regression_check(run: RunView) -> tuple[RegressionCheck | None, ET.Element | None]:
    """The regression check written beside the cassette (``orav.regression_check``), if any;
    one orav cannot read is said in its section instead (the report is still written)."""
    try:
        return read_revisits(run.path, run.header.run_id), None
    except OravError as exc:
        said = el("p", {"class": "warning"}, f"The regression check could not be read: {exc}")
        return None, el(
            "section", {"id": "regression-check"}, el("h2", None, "Regression check"), said
        )


def _coverage(run: RunView) -> ET.Element | None:
    """An exploration's coverage graph, when ``orav explore`` wrote one beside the cassette."""
    found = read_coverage(run.path)
    return coverage_section(found) if found is not None else None
