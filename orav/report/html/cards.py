"""The cards of a run's page: one per step the agent acted on (before and after screenshots,
the decision, the action as performed, the verification, the accessibility tree it saw) and
one per recovery (the screen that showed the fault, the recovery machine's path, the remedy)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from orav.model import Decision, Observation, Point, Swipe, Tap, Verification, show_action
from orav.report.html.elements import (
    Child,
    Mark,
    Space,
    el,
    error_list,
    field,
    figure,
    seconds,
)
from orav.report.timeline import Performed, RecoveryView, RunView, StepView


def cards(run: RunView) -> Iterator[ET.Element]:
    """The step and recovery cards in order, each built when asked for; recovery K is
    ``#recovery-K``."""
    space = screen_space(run)
    recoveries = 0
    for block in run.timeline:
        if isinstance(block, StepView):
            yield _step(block, space)
            continue
        recoveries += 1
        card = _recovery(block)
        card.set("id", f"recovery-{recoveries}")
        yield card


def screen_space(run: RunView) -> Space | None:
    """The screen's size in the units actions are given in (points, or a terminal's cells)."""
    device = run.header.device
    return (device.width, device.height) if device is not None and device.width else None


def marks(step: StepView) -> list[Mark]:
    """Where the step's taps landed (as the device resolved them) and its swipes' paths."""
    found = []
    for performed in step.actions:
        action, result = performed.action, performed.result
        if isinstance(action, Tap):
            point = result.point if result is not None and result.point is not None else None
            if point is None and action.x is not None and action.y is not None:
                point = Point(action.x, action.y)
            found += [Mark(point)] if point is not None else []
        elif isinstance(action, Swipe):
            found.append(Mark(action.start, action.end))
    return found


def timings(step: StepView) -> str:
    """How long the step took: the agent deciding, the device acting, the app settling."""
    parts = [] if step.decide_seconds is None else [f"decide {seconds(step.decide_seconds)}"]
    parts += [f"act {seconds(step.act_seconds)}"] if step.actions else []
    settle = step.settle_seconds
    parts += [] if settle is None else [f"settle {seconds(settle)}"]
    return " · ".join(parts)


def _step(step: StepView, space: Space | None = None) -> ET.Element:
    decision = step.decision
    fields: list[Child] = [el("h3", None, f"Step {step.number}")]
    if step.reused:
        fields.append(field("decision", "reused from the earlier cassette (no model call)"))
    if decision is not None:
        fields += decision_fields(decision)
    for performed in step.actions:
        fields.append(field("result", performed_fields(performed)))
    if step.verification is not None:
        fields.append(field("verified", _verification(step.verification, step.crashed)))
    elif step.crashed:
        fields.append(field("verified", el("span", {"class": "chip bad crashed"}, CRASHED)))
    if timings(step):
        fields.append(field("took", el("span", {"class": "timings"}, timings(step))))
    if step.errors:
        fields.append(error_list(step.errors))
    if step.tree:
        fields.append(_tree(step))
    after = (
        "no screen was observed after it" if step.verification is not None else "no verification"
    )
    return el(
        "article",
        {
            "class": "card step" + (" failed" if step.failed else ""),
            "id": f"step-{step.number}",
            "data-failed": str(step.failed).lower(),
        },
        el(
            "div",
            {"class": "shots"},
            figure(
                step.before,
                "before",
                f"the screen the agent saw at step {step.number}",
                marks=marks(step),
                space=space,
            ),
            figure(
                step.after,
                "after",
                f"the screen after step {step.number}'s action",
                missing=after,
            ),
        ),
        el("div", None, fields),
    )


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
            el(
                "li",
                {"class": "target"} if marked else None,
                " ".join(parts),
                " ← target" if marked else "",
            )
        )
    return el(
        "details",
        {"class": "tree"},
        el("summary", None, f"accessibility tree ({len(step.tree)} elements)"),
        el("ul", None, items),
    )


def decision_fields(decision: Decision) -> list[Child]:
    """A decision's action, reasoning, expected outcome and model call, as card fields."""
    fields: list[Child] = [
        field("action", el("code", {"class": "action"}, show_action(decision.action)))
    ]
    if decision.reasoning:
        fields.append(field("reasoning", decision.reasoning))
    if decision.expected_outcome:
        fields.append(field("expected", decision.expected_outcome))
    if decision.call is not None:
        call = decision.call
        fields.append(
            field(
                "model call",
                f"{call.model}: {call.prompt_tokens} + {call.completion_tokens} tokens, "
                f"{seconds(call.latency_seconds)}"
                + (f", {call.attempts} attempts" if call.attempts > 1 else ""),
            )
        )
    return fields


def _where(recovery: RecoveryView) -> str:
    """Where a recovery ran, at the step the engine recorded for it."""
    n = recovery.step
    if recovery.fault == "no_effect":
        return f"after step {n}: its action changed nothing"
    if recovery.set_aside is not None:
        return f"at step {n}, before its action"
    return f"before step {n}"


def _recovery(recovery: RecoveryView) -> ET.Element:
    outcome = recovery.outcome or "unfinished: the cassette ends here"
    fault = recovery.fault or "a fault"
    fields: list[Child] = [
        el(
            "h3",
            None,
            el("span", {"class": "badge fault"}, fault),
            "Recovery",
            el("span", {"class": "where"}, _where(recovery)),
            el("span", {"class": "chip ok" if recovery.resolved else "chip bad"}, outcome),
        ),
    ]
    if recovery.set_aside is not None:
        fields.append(
            field(
                "set aside",
                el("code", None, show_action(recovery.set_aside.action)),
                f" (decided at step {recovery.step}; decided again after the recovery)",
            )
        )
    fields += [
        field(
            "path",
            el(
                "ol",
                {"class": "chain"},
                [
                    el(
                        "li",
                        {"class": "transition"},
                        el("code", None, f"{t.source} —{t.event}→ {t.target}"),
                    )
                    for t in recovery.transitions
                ],
            ),
        ),
        field("remedy", recovery.shown_remedy),
    ]
    fields += [field("device", performed_fields(p)) for p in recovery.actions]
    if recovery.errors:
        fields.append(error_list(recovery.errors))
    classes = "card recovery" + ("" if recovery.resolved else " failed")
    return el(
        "article",
        {
            "class": classes,
            "data-fault": recovery.fault,
            "data-outcome": recovery.outcome,
            "data-step": str(recovery.step),
        },
        el(
            "div",
            {"class": "shots"},
            figure(recovery.screenshot, "fault", f"the screen that showed the {fault} fault"),
        ),
        el("div", None, fields),
    )


# The headline of a run is its verdict: the same word as the badge beside it, always.


def performed_fields(performed: Performed) -> list[Child]:
    """An action as performed, with how it went (ok in how long, failed, raised)."""
    action = el("code", None, show_action(performed.action))
    if performed.error is not None:
        return [action, " ", el("span", {"class": "chip bad"}, f"raised: {performed.error}")]
    result = performed.result
    if result is None:
        return [action, " ", el("span", {"class": "chip ok"}, "ok")]
    if not result.ok:
        return [action, " ", el("span", {"class": "chip bad"}, f"failed: {result.error}")]
    took = f" in {result.seconds * 1000:.0f} ms" if result.seconds else ""
    return [action, " ", el("span", {"class": "chip ok"}, f"ok{took}")]


CRASHED = "the app crashed after it"


def _verification(verification: Verification, crashed: bool = False) -> list[Child]:
    if crashed:
        changed = el("span", {"class": "chip bad crashed"}, CRASHED)
    elif verification.changed:
        changed = el("span", {"class": "chip ok"}, "screen changed")
    else:
        changed = el("span", {"class": "chip gray"}, "screen unchanged")
    chips: list[Child] = [changed]
    if verification.expected_seen is True:
        chips.append(el("span", {"class": "chip ok"}, "expected outcome seen"))
    elif verification.expected_seen is False:
        chips.append(el("span", {"class": "chip bad"}, "expected outcome not seen"))
    else:
        chips.append(el("span", {"class": "chip gray"}, "expected outcome not checkable"))
    if verification.input_dropped:
        chips.append(el("span", {"class": "chip bad"}, "input dropped"))
    if verification.note:
        chips.append(verification.note)
    return chips
