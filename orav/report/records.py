"""The seeds' own records of a run, beside orav's report (seed 000): a verify record per step
(``verification``, ``observation``, ``state_change``, ``next_action``) and the running state
at the end (``orav.model.RunningState``). Read from the cassette, as every report is."""

from __future__ import annotations

from typing import Any

from orav.codec import unstructure
from orav.model import Observation, RunningState, show_action
from orav.perceive.screens import screen_name
from orav.report.timeline import RecoveryView, RunView, StepView


def seed_records(run: RunView) -> dict[str, Any]:
    """``steps`` (a verify record each) and ``state``, as plain JSON data."""
    return {"steps": verify_records(run), "state": unstructure(running_state(run))}


def _screens(run: RunView) -> list[str]:
    """The screen each step started on, then the one the run ended on."""
    trees = [step.tree for step in run.steps] + [run.conclusion.tree]
    return [screen_name(Observation(elements=tree)) if tree else "" for tree in trees]


def running_state(run: RunView) -> RunningState:
    report = run.report
    errors = [f"step {e.step}: {e.error}" for e in report.errors] if report else []
    return RunningState.of(
        _screens(run),
        steps=report.total_steps if report else len(run.steps),
        errors=errors if report else [f"step {s.number}: {e}" for s in run.steps for e in s.errors],
        elements=len(report.elements_interacted) if report else 0,
    )


def verify_records(run: RunView) -> list[dict[str, Any]]:
    """One record a step: did its action do what the agent expected, what the check saw, how
    the screen changed (by name), and what the run did next."""
    screens = _screens(run)
    records = []
    blocks = list(run.timeline)
    for index, step in enumerate(run.steps):
        later = blocks[blocks.index(step) + 1 :]
        records.append(
            {
                "step": step.number,
                "action": show_action(step.decision.action) if step.decision else "",
                "verification": _verdict(step),
                "observation": _observation(step),
                "state_change": _change(screens[index], screens[index + 1], step),
                "next_action": _next(run, later),
            }
        )
    return records


def _verdict(step: StepView) -> str:
    """``failure``: an error, a failed call, a crash, the expected outcome not seen or the input
    dropped; ``unverified``: nothing was checked; else ``success``."""
    check = step.verification
    if step.failed or (check is not None and (check.expected_seen is False or check.input_dropped)):
        return "failure"
    return "unverified" if check is None else "success"


def _observation(step: StepView) -> str:
    if step.crashed:
        return "The app was not running after the action."
    if step.errors:
        return "; ".join(step.errors)
    check = step.verification
    if check is None:
        return "No screen was checked after the action."
    said = "The screen changed" if check.changed else "The screen did not change"
    if check.expected_seen is not None:
        seen = "was seen" if check.expected_seen else "was not seen"
        expected = step.decision.expected_outcome if step.decision else ""
        said += f"; the expected outcome {seen}" + (f": {expected.rstrip('.')}" if expected else "")
    if check.input_dropped:
        said += "; the input was dropped"
    return said + (f" ({check.note})" if check.note else "") + "."


def _change(before: str, after: str, step: StepView) -> str:
    if step.crashed:
        return f"{before or 'the screen'} → the app stopped"
    if before and after and before != after:
        return f"{before} → {after}"
    changed = step.verification is not None and step.verification.changed
    return f"{before or 'the screen'} changed in place" if changed else "no change"


def _next(run: RunView, later: list[StepView | RecoveryView]) -> str:
    """The next step's action, a recovery's fault, or how the run ended."""
    for block in later:
        if isinstance(block, RecoveryView):
            return f"recover: {block.fault}"
        if block.decision is not None:
            return show_action(block.decision.action)
    done = run.conclusion.done
    if done is not None:
        return "done" + (f": {done.summary}" if done.summary else "")
    return f"end: {run.status.replace('_', ' ')}"
