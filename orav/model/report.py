"""The summary of one run, with the fields of the ORAV recovery reference."""

from __future__ import annotations

from collections.abc import Iterable
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
        """True when the goal was met: the CLI exits 0."""
        return self.status in ("passed", "completed_with_errors")
