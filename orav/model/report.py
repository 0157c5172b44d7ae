"""The summary of one run, with the fields of the ORAV recovery reference."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from attrs import field, frozen

from orav.model.decision import ModelCall
from orav.model.deed import SideEffects
from orav.model.judgement import Judged

RunStatus = Literal[
    "passed",  # goal met, no errors on the way
    "completed_with_errors",  # goal met after recoveries or failed actions
    "failed",  # the agent gave up or the success criteria did not hold
    "step_limit",  # max_steps reached before the goal
    "timed_out",  # timeout_seconds passed before the goal
    "aborted",  # an error ended the run (device gone, agent error, unrecovered fault)
    "interrupted",  # SIGINT or SIGTERM ended the run (orav.session writes this report)
]
# The statuses of a run that met its goal: the CLI exits 0 on them.
GOAL_MET: tuple[RunStatus, ...] = ("passed", "completed_with_errors")


@frozen
class RunError:
    """One thing that went wrong at a step, and whether the run got past it."""

    step: int
    error: str
    action: str | None = None
    target: str | None = None
    resolved: bool = False
    crash_report: str | None = None  # a crash's report from the target: its name and text


@frozen
class Transition:
    """One transition a state machine took, for the cassette and the report."""

    machine: str
    source: str
    event: str
    target: str
    step: int = 0


@frozen
class Usage:
    """Model calls and tokens over a run; the cost when every call was priced."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    @classmethod
    def of(cls, calls: Iterable[ModelCall]) -> Usage:
        """Sum over calls; the cost is None when any call is unpriced (a partial sum would
        understate it)."""
        calls = list(calls)
        costs = [call.cost for call in calls if call.cost is not None]
        return cls(
            calls=len(calls),
            prompt_tokens=sum(call.prompt_tokens for call in calls),
            completion_tokens=sum(call.completion_tokens for call in calls),
            cost=sum(costs) if len(costs) == len(calls) else None,
        )


@frozen
class RunReport:
    """What one run came to: its status, counts, errors, the goals met and missed, the
    screens visited, the machines' transitions and what the model calls cost."""

    run_id: str
    scenario: str
    status: RunStatus
    total_steps: int = 0
    successful_actions: int = 0
    failed_actions: int = 0
    retries: int = 0
    crashes_recovered: int = 0
    duration_seconds: float = 0.0
    errors: tuple[RunError, ...] = ()
    goals_achieved: tuple[str, ...] = ()
    goals_missed: tuple[str, ...] = ()
    # what the last screen showed for each missed goal, in the same order ("" when not a check)
    goals_found: tuple[str, ...] = ()
    screens_visited: tuple[str, ...] = ()
    elements_interacted: tuple[str, ...] = ()
    transitions: tuple[Transition, ...] = field(factory=tuple)
    usage: Usage | None = None
    summary: str = ""
    # the side-effect ledger: where the app ran, the deeds done, the files changed (None: a
    # world orav cannot see into and nothing done there that it knows of)
    side_effects: SideEffects | None = None
    # each claim in words a judge decided, with its evidence (docs/scenarios.md)
    judgements: tuple[Judged, ...] = ()
    # what the report's reader should know besides its status: a success criterion that
    # already held before the first action proves nothing the run did
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the run passed: the goal met with no error on the way. A run that
        ``completed_with_errors`` met its goal (``goal_met``) but is not ok."""
        return self.status == "passed"

    @property
    def goal_met(self) -> bool:
        """True when the goal was met, with errors on the way or without: the CLI exits 0."""
        return self.status in GOAL_MET

    def reasons(self) -> list[str]:
        """Why the run did not pass, a line each (nothing when it passed): its status and
        summary, each missed criterion with what the last screen showed (``goals_found``),
        the errors (those it got past too, when it completed with errors)."""
        if self.ok:
            return []
        status = self.status.replace("_", " ")
        lines = [f"{status}: {self.summary}" if self.summary else status]
        if self.status in ("failed", "step_limit", "timed_out"):  # else an error ended it
            found = dict(zip(self.goals_missed, self.goals_found, strict=False))
            for goal in self.goals_missed:
                actual = found.get(goal)
                lines.append(f"expected {goal}" + (f"; found {actual}" if actual else ""))
        for error in self.errors:
            if self.goal_met or (not error.resolved and error.error not in self.summary):
                resolved = " (resolved)" if error.resolved else ""
                lines.append(f"step {error.step}: {error.error}{resolved}")
        return lines

    def explain(self, *, cassette: str | Path | None = None, html: str | Path | None = None) -> str:
        """The run's outcome as a failed test shows it: the scenario, its status and steps,
        the ``reasons``, and where to look (the cassette and HTML report, when given)."""
        steps = f"{self.total_steps} step" + ("" if self.total_steps == 1 else "s")
        head = f"{self.scenario!r} {self.status.replace('_', ' ')} after {steps}"
        head += f": {self.summary}" if self.summary else ""
        lines = [head, *(f"  {line}" for line in self.reasons()[1:])]
        lines += [f"  warning: {warning}" for warning in self.warnings]
        if cassette is not None:
            lines.append(f"  cassette: {cassette}")
        if html is not None:
            lines.append(f"  html:     {html}")
        return "\n".join(lines)

    def assert_passed(
        self, *, cassette: str | Path | None = None, html: str | Path | None = None
    ) -> None:
        """Raise AssertionError with ``explain`` unless the run passed: the test's idiom
        (``report.assert_passed()``), so pytest shows the missed criteria and what was found."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        if not self.ok:
            raise AssertionError(self.explain(cassette=cassette, html=html))

    def __repr__(self) -> str:
        """Short, as pytest shows it under a failed ``assert report.ok``: the outcome, not
        every field."""
        steps = f"{self.total_steps} step" + ("" if self.total_steps == 1 else "s")
        why = "; ".join(self.reasons()[1:3])
        head = f"<RunReport {self.scenario!r} {self.status} after {steps}"
        return head + (f": {why}>" if why else ">")
