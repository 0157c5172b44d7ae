"""The single-file HTML report of a run, and an index page linking several.

Everything is inline (CSS, screenshots as data URLs, SVG, a few lines of script to enlarge a
screenshot) so a report opens offline and can be attached to a CI job as one file. The page is
built as an ElementTree and serialised by it, so every recorded string is escaped. Each state
machine is drawn from its class as inline SVG (``orav.report.diagram``: mermaid would need a
script from a CDN) above a table of all its transitions, those the run took marked with how
often and at which steps they fired.
"""

from __future__ import annotations

import base64
import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from datetime import datetime
from itertools import groupby
from pathlib import Path

from statemachine import StateChart

from orav.machines import flat_transitions, machine_classes
from orav.model import (
    Decision,
    Observation,
    Screenshot,
    Transition,
    Verification,
    show_action,
)
from orav.report import coverage, diagram
from orav.report.console import reasons
from orav.report.files import write_text
from orav.report.run import Performed, RecoveryView, RunView, StepView, read_run

Child = ET.Element | str | None | Iterable["Child"]

STATUS_CLASS = {
    "passed": "ok",
    "completed_with_errors": "warn",
    "failed": "bad",
    "step_limit": "bad",
    "timed_out": "bad",
    "aborted": "bad",
    "incomplete": "gray",
}

CSS = (
    """
:root { --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --gray: #6e7781; --line: #d0d7de;
  --soft: #f6f8fa; --mark: #fff8c5; --blue: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328;
  margin: 0 auto; max-width: 1180px; padding: 24px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 12px;
  padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 8px; display: flex; align-items: center; gap: 8px;
  flex-wrap: wrap; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 12.5px; }
.status { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff;
  font-weight: 600; font-size: 13px; vertical-align: middle; }
.status.ok { background: var(--ok); } .status.warn { background: var(--warn); }
.status.bad { background: var(--bad); } .status.gray { background: var(--gray); }
.goal { color: #57606a; margin: 0 0 14px; }
table { border-collapse: collapse; }
.facts td, .facts th { padding: 3px 14px 3px 0; text-align: left; vertical-align: top; }
.facts th { color: #57606a; font-weight: 500; white-space: nowrap; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 0 0 14px;
  display: grid; grid-template-columns: auto 1fr; gap: 18px; align-items: start; }
.card.recovery { border-left: 7px solid var(--warn); background: #fffbf0; }
.card.recovery.failed { border-left-color: var(--bad); background: #fff5f5; }
.verdict { border-left: 7px solid var(--gray); padding: 4px 12px; margin: 8px 0; }
.verdict.ok { border-left-color: var(--ok); }
.verdict.warn { border-left-color: var(--warn); }
.verdict.bad { border-left-color: var(--bad); background: #fff5f5; }
.verdict ul { margin: 4px 0; }
details.tree ul { font: 12px ui-monospace, monospace; margin: 4px 0; padding-left: 18px; }
details.tree li.target { background: #fff3b0; font-weight: bold; }
a.noshot.same { display: flex; align-items: center; justify-content: center; text-align: center;
  font-size: 12px; }
.card.conclusion { border-left: 7px solid var(--gray); }
.card.conclusion.ok { border-left-color: var(--ok); background: #f6fff8; }
.card.conclusion.warn { border-left-color: var(--warn); }
.card.conclusion.bad { border-left-color: var(--bad); background: #fff5f5; }
.shots { display: flex; gap: 12px; }
figure.shot { margin: 0; width: 240px; }
figure.shot figcaption { font-size: 12px; color: #57606a; text-align: center; margin-top: 3px;
  text-transform: uppercase; letter-spacing: .06em; }
figure.shot .noshot { width: 240px; height: 120px; background: var(--soft); color: var(--gray);
  display: flex; align-items: center; justify-content: center; font-size: 12px;
  border-radius: 6px; border: 1px dashed var(--line); text-align: center; padding: 8px; }
img.shot { width: 240px; display: block; border: 1px solid var(--line); border-radius: 8px;
  cursor: zoom-in; box-shadow: 0 1px 3px rgba(31, 35, 40, .12); }
.field { margin: 3px 0; } .field > b { color: #57606a; font-weight: 500; margin-right: 6px; }
.action { font-size: 14px; background: var(--soft); border: 1px solid var(--line);
  border-radius: 6px; padding: 1px 7px; }
.chip { display: inline-block; border-radius: 10px; padding: 0 8px; margin: 0 4px 2px 0;
  font-size: 12px; border: 1px solid var(--line); background: var(--soft); }
.chip.ok { border-color: #8ddb9b; background: #dafbe1; color: #116329; }
.chip.bad { border-color: #ffaba8; background: #ffebe9; color: #a40e26; }
.chip.gray { color: var(--gray); }
.chip.warn { border-color: #e3b341; background: #fff8c5; color: #7d4e00; }
nav.timeline a.chip { text-decoration: none; }
.badge { display: inline-block; border-radius: 4px; padding: 1px 8px; font-size: 12px;
  font-weight: 700; letter-spacing: .04em; text-transform: uppercase; color: #fff;
  background: var(--warn); }
.failed .badge.fault { background: var(--bad); }
.where { color: #57606a; font-weight: 400; font-size: 14px; }
.errors { color: var(--bad); margin: 4px 0 0; padding-left: 18px; }
.errors .resolved { color: var(--warn); }
.path { margin: 4px 0; padding-left: 18px; }
ol.chain { list-style: none; padding: 0; margin: 6px 0; display: flex; flex-wrap: wrap;
  gap: 4px; }
ol.chain li { background: #fff; border: 1px solid #d4a72c; border-radius: 6px; padding: 1px 7px; }
.machine { margin-bottom: 26px; }
.machine figure { margin: 0 0 8px; overflow-x: auto; }
.machine figcaption { color: #57606a; font-size: 12.5px; max-width: 900px; }
.machine table { width: 100%; }
.machine th, .machine td { border-bottom: 1px solid var(--line); padding: 3px 8px;
  text-align: left; }
.machine th { background: var(--soft); font-weight: 600; }
tr.fired td { background: var(--mark); font-weight: 600; }
tr.fired td.count { color: var(--ok); }
tr.unknown td { background: #ffebe9; }
details summary { cursor: pointer; color: #57606a; margin: 6px 0; }
.warning { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px;
  border-radius: 6px; }
dialog { padding: 0; border: 0; background: transparent; }
dialog img { max-height: 92vh; max-width: 92vw; border-radius: 8px; }
dialog::backdrop { background: rgba(0, 0, 0, .7); }
.runs td, .runs th { padding: 6px 14px 6px 0; text-align: left;
  border-bottom: 1px solid var(--line); vertical-align: top; }
.runs .file { color: #57606a; }
"""
    + diagram.CSS
    + coverage.CSS
)

# Click a screenshot to see it full size (no script needs to load from anywhere).
ZOOM = """
const zoom = document.getElementById("zoom");
document.querySelectorAll("img.shot").forEach((img) => img.addEventListener("click", () => {
  zoom.querySelector("img").src = img.src; zoom.showModal();
}));
zoom.addEventListener("click", () => zoom.close());
"""


def write_html(run: RunView | Path, out: Path | None = None) -> Path:
    """Write the report of a run (or of the cassette at a path) and return the report's path.

    By default the report goes next to its cassette, with the suffix ``.html``.
    """
    if isinstance(run, Path):
        run = read_run(run)
    out = out or run.path.with_suffix(".html")
    return write_text(out, render_html(run))


def render_html(run: RunView) -> str:
    """The whole report page of one run."""
    name = run.header.scenario.name
    shown = _SHOWN.set({})
    try:
        body = _body(run)
    finally:
        _SHOWN.reset(shown)
    return _page(f"orav: {name} ({run.status})", body)


def _body(run: RunView) -> ET.Element:
    return _el(
        "body",
        None,
        _header(run),
        _setup(run),
        _el("h2", None, "Steps"),
        _timeline(run),
        _blocks(run) or _el("p", None, "No step was recorded."),
        _conclusion(run),
        _coverage(run),
        _machines(run),
        _el("dialog", {"id": "zoom"}, _el("img", {"alt": "screenshot, full size"})),
        _el("script", None, ZOOM),
    )


def write_index(runs: Sequence[tuple[RunView, Path]], out: Path) -> Path:
    """Write an index page linking each ``(run, its report's path)``; return its path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for run, report in runs:
        href = Path(os.path.relpath(report, out.parent)).as_posix()
        rows.append(
            _el(
                "tr",
                {"class": "run", "data-status": run.status},
                _el("td", None, _el("a", {"href": href}, run.header.scenario.name)),
                _el(
                    "td",
                    {"class": "file", "title": str(run.path)},
                    _el("code", None, run.path.name),
                ),
                _el("td", None, _status(run.status)),
                _el("td", {"class": "why"}, "; ".join(reasons(run.report)[:2]))
                if run.report is not None
                else _el("td", {"class": "why"}),
                _el("td", None, str(run.report.total_steps if run.report else len(run.steps))),
                _el("td", None, str(len(run.recoveries))),
                _el("td", None, _seconds(run.report.duration_seconds) if run.report else ""),
                _el("td", None, run.header.agent),
                _el(
                    "td",
                    {"class": "when", "title": run.header.created_at},
                    _when(run.header.created_at),
                ),
            )
        )
    passed = sum(1 for run, _ in runs if run.report is not None and run.report.ok)
    head = (
        "scenario",
        "cassette",
        "status",
        "why",
        "steps",
        "recoveries",
        "duration",
        "agent",
        "recorded",
    )
    body = _el(
        "body",
        None,
        _el("h1", None, "orav runs"),
        _el("p", {"class": "goal"}, f"{passed} of {len(runs)} met their goal."),
        _el(
            "table",
            {"class": "runs"},
            _el("tr", None, [_el("th", None, h) for h in head]),
            rows,
        ),
    )
    return write_text(out, _page("orav runs", body))


# --- sections ------------------------------------------------------------------------------


def _header(run: RunView) -> list[ET.Element]:
    header, report = run.header, run.report
    scenario = header.scenario
    facts: list[tuple[str, Child]] = [("agent", header.agent or "?")]
    if header.model:
        facts.append(("model", header.model))
    if header.device is not None:
        device = header.device
        size = f"{device.width:g}×{device.height:g} pt" if device.width else ""
        facts.append(("device", " · ".join(x for x in (device.name, device.os_version, size) if x)))
    facts.append(("recorded", f"{_when(header.created_at)} (orav {header.orav_version})"))
    facts.append(("cassette", _el("code", None, run.path.name)))
    facts.append(("run id", _el("code", None, header.run_id)))
    if report is not None:
        facts.append(("duration", _seconds(report.duration_seconds)))
        actions = f"{report.successful_actions} succeeded, {report.failed_actions} failed"
        facts.append(("steps", f"{report.total_steps} (actions: {actions})"))
        costs = f"{report.retries} retries, {report.crashes_recovered} crashes recovered"
        facts.append(("recoveries", f"{len(run.recoveries)} ({costs})"))
        if report.usage is not None:
            usage = report.usage
            tokens = (
                f"{usage.calls} model calls, {usage.prompt_tokens} prompt + "
                f"{usage.completion_tokens} completion tokens"
            )
            cost = f", ${usage.cost:.4f}" if usage.cost is not None else ""
            facts.append(("model usage", tokens + cost))
        if report.goals_achieved:
            facts.append(("goals met", _chips(report.goals_achieved, "ok")))
        if report.goals_missed:
            facts.append(("goals missed", _chips(report.goals_missed, "bad")))
        if report.summary:
            facts.append(("summary", report.summary))
    parts: list[Child] = [
        _el("h1", None, scenario.name, " ", _status(run.status)),
        _verdict(run),
        _el("p", {"class": "goal"}, scenario.goal),
        _el(
            "table",
            {"class": "facts"},
            [_el("tr", None, _el("th", None, k), _el("td", None, v)) for k, v in facts],
        ),
    ]
    if run.truncated:
        parts.append(
            _el("p", {"class": "warning"}, f"The cassette was cut off at {run.truncated}.")
        )
    if report is None:
        parts.append(
            _el(
                "p",
                {"class": "warning"},
                "The recording did not finish: the cassette has no report. "
                "The steps below are those recorded.",
            )
        )
    elif report.errors:
        parts.append(_el("h2", None, "Errors"))
        parts.append(
            _el(
                "ul",
                {"class": "errors", "id": "run-errors"},
                [
                    _el(
                        "li",
                        {"class": "resolved"} if e.resolved else None,
                        f"step {e.step}: {e.error}",
                        " (resolved)" if e.resolved else "",
                    )
                    for e in report.errors
                ],
            )
        )
    return [_el("header", None, parts)]


def _setup(run: RunView) -> ET.Element | None:
    if not run.setup:
        return None
    return _el(
        "section",
        {"id": "launch"},
        _el("h2", None, "Launch"),
        _el("ul", {"class": "path"}, [_el("li", None, _performed(p)) for p in run.setup]),
    )


def _block(block: StepView | RecoveryView) -> ET.Element:
    if isinstance(block, StepView):
        return _step(block)
    return _recovery(block)


def _step(step: StepView) -> ET.Element:
    decision = step.decision
    fields: list[Child] = [_el("h3", None, f"Step {step.number}")]
    if step.reused:
        fields.append(_field("decision", "reused from the earlier cassette (no model call)"))
    if decision is not None:
        fields += _decision(decision)
    for performed in step.actions:
        fields.append(_field("result", _performed(performed)))
    if step.verification is not None:
        fields.append(_field("verified", _verification(step.verification)))
    if step.errors:
        fields.append(_error_list(step.errors))
    if step.tree:
        fields.append(_tree(step))
    failed = bool(step.errors) or any(not p.ok for p in step.actions)
    after = (
        "no screen was observed after it" if step.verification is not None else "no verification"
    )
    return _el(
        "article",
        {"class": "card step", "id": f"step-{step.number}", "data-failed": str(failed).lower()},
        _el(
            "div",
            {"class": "shots"},
            _figure(step.before, "before", f"the screen the agent saw at step {step.number}"),
            _figure(
                step.after,
                "after",
                f"the screen after step {step.number}'s action",
                missing=after,
            ),
        ),
        _el("div", None, fields),
    )


def _blocks(run: RunView) -> list[ET.Element]:
    """The step and recovery cards in order; recovery K is ``#recovery-K``."""
    cards = [_block(block) for block in run.timeline]
    recoveries = (
        c for c, b in zip(cards, run.timeline, strict=True) if isinstance(b, RecoveryView)
    )
    for number, card in enumerate(recoveries, 1):
        card.set("id", f"recovery-{number}")
    return cards


def _timeline(run: RunView) -> ET.Element | None:
    """The run at a glance: a chip per step (green, red when it failed) and per recovery
    (amber, red when it failed), each a link to its card."""
    chips: list[Child] = []
    recovery = 0
    for block in run.timeline:
        if isinstance(block, StepView):
            failed = bool(block.errors) or any(not p.ok for p in block.actions)
            href, kind, text = f"#step-{block.number}", "bad" if failed else "ok", str(block.number)
        else:
            recovery += 1
            href, kind = f"#recovery-{recovery}", "warn" if block.resolved else "bad"
            text = f"⟲ {block.fault}"
        chips.append(_el("a", {"class": f"chip {kind}", "href": href}, text))
    if not chips:
        return None
    return _el("nav", {"class": "timeline", "id": "timeline"}, chips)


def _tree(step: StepView) -> ET.Element:
    """The accessibility tree the agent saw, folded: each element with its type, label, id,
    value and frame; the one the decision targeted is marked."""
    from orav.perceive.targets import target_element

    target = getattr(step.decision.action, "target", None) if step.decision else None
    aimed = target_element(Observation(elements=step.tree), target) if target else None
    items = []
    for element in step.tree:
        frame = element.frame
        parts = [element.type]
        parts += [repr(element.label)] if element.label else []
        parts += [f"#{element.unique_id}"] if element.unique_id else []
        parts += [f"value {element.value!r}"] if element.value is not None else []
        parts += ["disabled"] if not element.enabled else []
        parts.append(f"at {frame.x:g},{frame.y:g} {frame.width:g}×{frame.height:g}")
        marked = element is aimed
        items.append(
            _el(
                "li",
                {"class": "target"} if marked else None,
                " ".join(parts),
                " ← target" if marked else "",
            )
        )
    return _el(
        "details",
        {"class": "tree"},
        _el("summary", None, f"accessibility tree ({len(step.tree)} elements)"),
        _el("ul", None, items),
    )


def _decision(decision: Decision) -> list[Child]:
    fields: list[Child] = [
        _field("action", _el("code", {"class": "action"}, show_action(decision.action)))
    ]
    if decision.reasoning:
        fields.append(_field("reasoning", decision.reasoning))
    if decision.expected_outcome:
        fields.append(_field("expected", decision.expected_outcome))
    if decision.call is not None:
        call = decision.call
        fields.append(
            _field(
                "model call",
                f"{call.model}: {call.prompt_tokens} + {call.completion_tokens} tokens, "
                f"{_seconds(call.latency_seconds)}"
                + (f", {call.attempts} attempts" if call.attempts > 1 else ""),
            )
        )
    return fields


def _where(recovery: RecoveryView) -> str:
    """Where a recovery ran, by the step number the report's errors give it."""
    n = recovery.step
    match recovery.entered_from:
        case "verifying":
            return f"after step {n}: its action changed nothing"
        case "reasoning":
            return f"at step {n}, before its action"
        case _:
            return f"before step {n}"


def _recovery(recovery: RecoveryView) -> ET.Element:
    outcome = recovery.outcome or "unfinished: the cassette ends here"
    fault = recovery.fault or "a fault"
    fields: list[Child] = [
        _el(
            "h3",
            None,
            _el("span", {"class": "badge fault"}, fault),
            "Recovery",
            _el("span", {"class": "where"}, _where(recovery)),
            _el("span", {"class": "chip ok" if recovery.resolved else "chip bad"}, outcome),
        ),
    ]
    if recovery.set_aside is not None:
        fields.append(
            _field(
                "set aside",
                _el("code", None, show_action(recovery.set_aside.action)),
                f" (decided at step {recovery.step}; decided again after the recovery)",
            )
        )
    fields += [
        _field(
            "path",
            _el(
                "ol",
                {"class": "chain"},
                [
                    _el(
                        "li",
                        {"class": "transition"},
                        _el("code", None, f"{t.source} —{t.event}→ {t.target}"),
                    )
                    for t in recovery.transitions
                ],
            ),
        ),
        _field("remedy", recovery.remedy or "none"),
    ]
    fields += [_field("device", _performed(p)) for p in recovery.actions]
    if recovery.errors:
        fields.append(_error_list(recovery.errors))
    classes = "card recovery" + ("" if recovery.resolved else " failed")
    return _el(
        "article",
        {
            "class": classes,
            "data-fault": recovery.fault,
            "data-outcome": recovery.outcome,
            "data-step": str(recovery.step),
        },
        _el(
            "div",
            {"class": "shots"},
            _figure(recovery.screenshot, "fault", f"the screen that showed the {fault} fault"),
        ),
        _el("div", None, fields),
    )


# The headline of a run is its verdict: the same word as the badge beside it, always.
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


def _verdict(run: RunView) -> ET.Element:
    """The verdict under the title, and for a run that did not pass, why: the missed criteria
    with what the last screen showed, the unresolved errors (as the terminal says it)."""
    why = reasons(run.report) if run.report is not None else []
    first = next(
        (
            f"step-{block.number}"
            for block in run.steps
            if block.errors or any(not p.ok for p in block.actions)
        ),
        None,
    )
    return _el(
        "div",
        {"id": "verdict", "class": f"verdict {STATUS_CLASS.get(run.status, 'gray')}"},
        _el("strong", None, VERDICTS.get(run.status, run.status)),
        _el("ul", None, [_el("li", None, line) for line in why]) if why else None,
        _el(
            "p",
            None,
            _el(
                "a",
                {"href": f"#{first}", "class": "first-failure"},
                "jump to the first failed step",
            ),
            " · ",
            _el("a", {"href": "#conclusion"}, "the conclusion"),
        )
        if first
        else None,
    )


def _conclusion(run: RunView) -> ET.Element:
    """How the run ended: the agent's done decision is its conclusion, not one more step."""
    end, report = run.conclusion, run.report
    steps = report.total_steps if report is not None else len(run.steps)
    tally = f"after {steps} step{'s' if steps != 1 else ''}"
    if run.recoveries:
        tally += f" and {len(run.recoveries)} recover{'ies' if len(run.recoveries) != 1 else 'y'}"
    done = end.done
    fields: list[Child] = [
        _el("h3", None, VERDICTS.get(run.status, run.status), _status(run.status)),
        _field("after", tally.removeprefix("after ")),
    ]
    if done is not None:  # what the agent said, under the verdict that weighs it
        said = "the goal is reached" if done.success else "the goal cannot be reached"
        fields.append(_field("the agent said", said))
        if done.summary:
            fields.append(_field("summary", done.summary))
        if end.decision is not None and end.decision.reasoning:
            fields.append(_field("reasoning", end.decision.reasoning))
    else:
        if end.decision is not None:
            fields.append(_field("last decision", _decision(end.decision), " (not acted on)"))
        if report is not None and report.summary:
            fields.append(_field("why", report.summary))
    if report is not None:
        if report.goals_achieved:
            fields.append(_field("goals met", _chips(report.goals_achieved, "ok")))
        if report.goals_missed:
            fields.append(_field("goals missed", _chips(report.goals_missed, "bad")))
    elif run.truncated or not end.state:
        fields.append(_field("ended", "the recording stops here: the cassette has no report"))
    if run.errors:
        fields.append(_error_list(run.errors))
    return _el(
        "section",
        {"id": "conclusion"},
        _el("h2", None, "Conclusion"),
        _el(
            "article",
            {"class": f"card conclusion {STATUS_CLASS.get(run.status, 'gray')}"},
            _el(
                "div",
                {"class": "shots"},
                _figure(end.screenshot, "final screen", "the last screen recorded"),
            ),
            _el("div", None, fields),
        ),
    )


def _coverage(run: RunView) -> ET.Element | None:
    """An exploration's coverage graph, when ``orav explore`` wrote one beside the cassette."""
    found = coverage.read_coverage(run.path)
    return coverage.coverage_section(found) if found is not None else None


def _machines(run: RunView) -> ET.Element:
    return _el(
        "section",
        {"id": "machines"},
        _el("h2", None, "State machines"),
        _el(
            "p",
            {"class": "goal"},
            "Each machine drawn from its class, the transitions this run took in bold blue "
            "with how often; below each, the table of every transition with the steps it "
            "fired at.",
        ),
        [_machine(cls, run.transitions) for cls in _in_order_of_use(run.transitions)],
    )


def _in_order_of_use(taken: Sequence[Transition]) -> list[type[StateChart]]:
    """The machine classes, those the run used first (in the order it did), then the rest."""
    first = {t.machine: i for i, t in reversed(list(enumerate(taken)))}
    return sorted(machine_classes(), key=lambda cls: first.get(_machine_name(cls), len(taken)))


def _machine_name(cls: type[StateChart]) -> str:
    """The name transitions are recorded under: ``run`` for RunMachine."""
    return cls.__name__.removesuffix("Machine").lower()


def _machine(cls: type[StateChart], taken: Sequence[Transition]) -> ET.Element:
    name = _machine_name(cls)
    fired: Counter[tuple[str, str, str]] = Counter()
    steps: dict[tuple[str, str, str], list[int]] = {}
    for t in taken:
        if t.machine == name:
            key = (t.source, t.event, t.target)
            fired[key] += 1
            steps.setdefault(key, []).append(t.step)
    rows_fired: list[ET.Element] = []
    rows_idle: list[ET.Element] = []
    for source, names, target in flat_transitions(cls):
        key = next(((source, n, target) for n in names if (source, n, target) in fired), None)
        if key is None:
            event = names[-1] if names else "(automatic)"  # an eventless transition
            rows_idle.append(_transition_row(name, source, event, target, 0, []))
        else:
            rows_fired.append(_transition_row(name, *key, fired.pop(key), steps[key]))
    for key, count in fired.items():  # recorded by an older machine: show, flagged
        rows_fired.append(_transition_row(name, *key, count, steps[key], unknown=True))
    drawing = diagram.draw_machine(cls, name, taken)
    head = _el("tr", None, [_el("th", None, h) for h in ("from", "event", "to", "fired", "steps")])
    return _el(
        "div",
        {"class": "machine", "id": f"machine-{name}", "data-machine": name},
        _el("h3", None, f"{cls.__name__} ", _el("span", {"class": "chip"}, name)),
        _el("figure", None, drawing.svg, _el("figcaption", None, drawing.caption)),
        _el("table", {"class": "fired"}, head, rows_fired)
        if rows_fired
        else _el("p", None, "Not run."),
        _el(
            "details",
            None,
            _el("summary", None, f"{len(rows_idle)} transitions not taken"),
            _el("table", {"class": "idle"}, head, rows_idle),
        ),
    )


def _transition_row(
    machine: str,
    source: str,
    event: str,
    target: str,
    count: int,
    steps: list[int],
    *,
    unknown: bool = False,
) -> ET.Element:
    attrs = {
        "class": "transition" + (" fired" if count else "") + (" unknown" if unknown else ""),
        "data-machine": machine,
        "data-source": source,
        "data-event": event,
        "data-target": target,
        "data-count": str(count),
    }
    note = " (not in this machine any more)" if unknown else ""
    return _el(
        "tr",
        attrs,
        _el("td", None, source),
        _el("td", None, _el("code", None, event)),
        _el("td", None, target + note),
        _el("td", {"class": "count"}, f"×{count}" if count else ""),
        _el("td", None, _step_ranges(steps)),
    )


# --- pieces ---------------------------------------------------------------------------------


def _page(title: str, body: ET.Element) -> str:
    html = _el(
        "html",
        {"lang": "en"},
        _el(
            "head",
            None,
            _el("meta", {"charset": "utf-8"}),
            _el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
            _el("title", None, title),
            _el("style", None, CSS),
        ),
        body,
    )
    return "<!DOCTYPE html>\n" + ET.tostring(html, encoding="unicode", method="html") + "\n"


def _el(tag: str, attrs: dict[str, str] | None, *children: Child) -> ET.Element:
    """An element with text and child elements in order; None children are skipped."""
    element = ET.Element(tag, attrs or {})
    for child in _flatten(children):
        if isinstance(child, str):
            if len(element):
                element[-1].tail = (element[-1].tail or "") + child
            else:
                element.text = (element.text or "") + child
        else:
            element.append(child)
    return element


def _flatten(children: Iterable[Child]) -> Iterable[ET.Element | str]:
    for child in children:
        if child is None:
            continue
        if isinstance(child, (str, ET.Element)):
            yield child
        else:
            yield from _flatten(child)


def _status(status: str) -> ET.Element:
    label = status.replace("_", " ")
    return _el("span", {"class": f"status {STATUS_CLASS.get(status, 'gray')}"}, label)


def _field(name: str, *value: Child) -> ET.Element:
    return _el("div", {"class": "field"}, _el("b", None, name), value)


def _chips(items: Iterable[str], kind: str) -> list[ET.Element]:
    return [_el("span", {"class": f"chip {kind}"}, item) for item in items]


def _error_list(errors: Iterable[str]) -> ET.Element:
    return _el("ul", {"class": "errors"}, [_el("li", {"class": "error"}, e) for e in errors])


# The screenshots a page has shown so far (sha256 -> where): an identical screen is stored
# once, and every later figure of it links to the first (a step's *before* is usually the
# step before's *after*; a long run revisits its screens). Set by ``render_html``.
_SHOWN: ContextVar[dict[str, str] | None] = ContextVar("_SHOWN", default=None)


def _figure(
    screenshot: Screenshot | None, label: str, alt: str, *, missing: str = "no screenshot"
) -> ET.Element:
    """A labelled screenshot, full size on click; a screen shown before links to it."""
    shown_before = _SHOWN.get()
    anchor = f"shot-{screenshot.sha256[:16]}" if screenshot is not None else ""
    if screenshot is None or not screenshot.data:
        shown = _el("div", {"class": "noshot"}, missing)
    elif shown_before is not None and screenshot.sha256 in shown_before:
        shown = _el(
            "a",
            {"class": "noshot same", "href": f"#{anchor}", "data-sha256": screenshot.sha256},
            f"the same screen as {shown_before[screenshot.sha256]}",
        )
    else:
        if shown_before is not None:
            shown_before[screenshot.sha256] = alt
        data = base64.b64encode(screenshot.data).decode("ascii")
        shown = _el(
            "img",
            {
                "class": "shot",
                "src": f"data:image/{screenshot.format};base64,{data}",
                "alt": alt,
                "title": f"{label}: {screenshot.width}×{screenshot.height} px (click to enlarge)",
                "id": anchor,
                "data-sha256": screenshot.sha256,
            },
        )
    return _el(
        "figure",
        {"class": f"shot {label.replace(' ', '-')}"},
        shown,
        _el("figcaption", None, label),
    )


def _performed(performed: Performed) -> list[Child]:
    action = _el("code", None, show_action(performed.action))
    if performed.error is not None:
        return [action, " ", _el("span", {"class": "chip bad"}, f"raised: {performed.error}")]
    result = performed.result
    if result is None:
        return [action, " ", _el("span", {"class": "chip ok"}, "ok")]
    if not result.ok:
        return [action, " ", _el("span", {"class": "chip bad"}, f"failed: {result.error}")]
    took = f" in {result.seconds * 1000:.0f} ms" if result.seconds else ""
    return [action, " ", _el("span", {"class": "chip ok"}, f"ok{took}")]


def _verification(verification: Verification) -> list[Child]:
    chips: list[Child] = [
        _el("span", {"class": "chip ok"}, "screen changed")
        if verification.changed
        else _el("span", {"class": "chip gray"}, "screen unchanged")
    ]
    if verification.expected_seen is True:
        chips.append(_el("span", {"class": "chip ok"}, "expected outcome seen"))
    elif verification.expected_seen is False:
        chips.append(_el("span", {"class": "chip bad"}, "expected outcome not seen"))
    else:
        chips.append(_el("span", {"class": "chip gray"}, "expected outcome not checkable"))
    if verification.input_dropped:
        chips.append(_el("span", {"class": "chip bad"}, "input dropped"))
    if verification.note:
        chips.append(verification.note)
    return chips


def _when(created_at: str) -> str:
    """``2026-11-22 07:06:44 UTC`` from the header's ISO time (as recorded if it is not one)."""
    try:
        when = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    zone = when.strftime("%z")
    zone = " UTC" if zone in ("+0000", "") else f" {zone[:3]}:{zone[3:]}"
    return when.strftime("%Y-%m-%d %H:%M:%S") + zone


def _seconds(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1000:.0f} ms"


def _step_ranges(steps: Sequence[int]) -> str:
    """``1–6, 9``: the steps a transition fired at (the step under way, as in the report)."""
    parts = []
    for _, run in groupby(enumerate(sorted(set(steps))), key=lambda pair: pair[1] - pair[0]):
        first, *rest = [n for _, n in run]
        parts.append(f"{first}–{rest[-1]}" if rest else f"{first}")
    return ", ".join(parts)
