"""One recovery's data, the model its machine owns: what was detected, what each state's
entries spent of its budget, what was seen, what went wrong; and the policy it spends (the
timeout ladder, the retry budgets, the waits), as tables.

The machine's callbacks record into it and its guard reads it (``budget_left``); remedies and
verdicts take it, and act through its device only. (python-statemachine calls a model's
methods named like callbacks: none is, ``keep_error`` aside, which the machine names.)
"""

from __future__ import annotations

import math
from typing import ClassVar

from attrs import Factory, define, field, frozen
from statemachine import State

from orav.errors import ReplayDivergence
from orav.machines.recovery_device import RecoveryDevice
from orav.model import Action, FaultKind, Observation, Scenario
from orav.perceive import Detection


@frozen
class RecoveryOutcome:
    """What a recovery did: the fault, whether it is gone, the remedies and what they cost.

    ``handed_back``: a retried action still changed nothing; not a failure, the agent's turn.
    """

    kind: FaultKind
    resolved: bool
    actions: tuple[Action, ...] = ()
    retries: int = 0
    crashes: int = 0
    restarted: bool = False
    handed_back: bool = False
    observation: Observation | None = None
    error: str | None = None
    path: tuple[tuple[str, str, str], ...] = ()


@define
class Attempt:
    """One recovery of ``detection`` on ``scenario``'s app, through ``device``; ``before`` is
    the screen it started on (the one an ineffective action failed to change)."""

    # The timeout escalation ladder, in seconds.
    LADDER: ClassVar[dict[str, float]] = {
        "floor": 0.05,  # the least wait after an action, and between two looks while settling
        "settle": 0.4,  # the most an action's settle waits; after a remedy, before looking
        "network": 2.0,  # network retry, animations, a loading re-check
        "dump": 5.0,  # one device call (the driver's own timeout): a longer one is a hang
        "change": 10.0,  # how long a spinner may keep changing before we intervene
        "restart": 30.0,  # one terminate or launch (the driver's launch timeout)
    }
    # Retry limits per kind of attempt, and the pause before each retry (seconds).
    RETRIES: ClassVar[dict[str, int]] = {
        "tap": 3,
        "text": 2,
        "swipe": 3,
        "launch": 3,
        "dump": 5,
        "goal": 1,  # the whole goal: read by the run's ledger, not by this machine
    }
    PAUSE: ClassVar[dict[str, float]] = {"tap": 0.1, "text": 0.0, "swipe": 0.0, "launch": 2.0}
    DUMP_PAUSE: ClassVar[float] = 1.0
    # Fixed waits of the reference: after a relaunch, before re-dumping, loading stuck.
    CRASH_WAIT: ClassVar[float] = 3.0
    EMPTY_DUMP_WAIT: ClassVar[float] = 2.0
    LOADING_STUCK: ClassVar[float] = 5.0
    # An action that changed nothing: how far each retry moves it, in points, attempt by attempt.
    NUDGES: ClassVar[tuple[tuple[float, float], ...]] = ((10, 0), (-10, 0), (0, 10), (0, -10))
    # Which budget each state spends per entry (states entered once per path spend nothing).
    SPENDS: ClassVar[dict[str, str]] = {
        "dismissing_alert": "tap",
        "answering_permission": "tap",
        "hiding_keyboard": "tap",
        "uncovering": "tap",
        "retrying_network": "tap",
        "logging_in": "text",
        "relaunching": "launch",
        "restarting": "launch",
    }
    # An ineffective action is retried on the budget of its kind; other kinds are retried once.
    ACTION_BUDGET: ClassVar[dict[str, str]] = {"tap": "tap", "swipe": "swipe", "type_text": "text"}

    detection: Detection
    scenario: Scenario
    device: RecoveryDevice
    before: Observation
    entries: dict[str, int] = field(factory=dict)  # entries per state: what budgets read
    tried: str | None = None  # the last state entered: what ran out when nothing said why
    crashes: int = 0
    restarted: bool = False
    error: str | None = None
    raised: BaseException | None = None  # what ended the recovery as failed
    # the last look while waiting for a spinner
    loading_seen: Observation = field(default=Factory(lambda self: self.before, takes_self=True))
    unchanged_for: float = 0.0
    state: str | None = None  # the machine's state: python-statemachine writes it

    @property
    def observation(self) -> Observation:
        """The latest look (the detection's observation until a remedy looks again)."""
        return self.device.observation

    def limit(self, state: str) -> int:
        """How many times ``state`` may be entered in one recovery."""
        if state == "waiting_loading":
            return math.ceil(self.LADDER["change"] / self.LADDER["network"])
        if state == "retrying_action":
            action = self.detection.action
            kind = self.ACTION_BUDGET.get(action.kind) if action is not None else None
            return self.RETRIES[kind] if kind else 1
        spends = self.SPENDS.get(state)
        return self.RETRIES[spends] if spends else 1

    def budget_left(self, source: State) -> bool:
        """The guard of ``persists``: the state may be entered again."""
        return self.entries.get(source.id, 0) < self.limit(source.id)

    def entered(self, state: str) -> int:
        """Count an entry of ``state``: its attempt number."""
        self.entries[state] = self.entries.get(state, 0) + 1
        self.tried = state
        return self.entries[state]

    def keep_error(self, error: BaseException | None = None) -> None:
        """What ended the recovery as failed (the machine's ``error.execution``)."""
        self.raised = error
        self.error = self.ran_out() if error is None else str(error) or type(error).__name__

    def ran_out(self) -> str:
        """Why a recovery failed when no remedy said: what it tried last, how often, and that
        the fault is still there ("relaunching 3 times; the fault (crash) is still there")."""
        kind = self.detection.kind.replace("_", " ")
        if self.tried is None:
            return f"no remedy ran; the fault ({kind}) is still there"
        times = self.entries.get(self.tried, 1)
        often = "once" if times == 1 else f"{times} times"
        return f"{self.tried.replace('_', ' ')} {often}; the fault ({kind}) is still there"

    def outcome(self) -> RecoveryOutcome:
        """What the recovery did, once its machine is in a final state; a replay's divergence,
        which is no failure of the recovery, is raised as it is."""
        if isinstance(self.raised, ReplayDivergence):
            raise self.raised
        ended = self.state in ("resolved", "handed_back")
        return RecoveryOutcome(
            kind=self.detection.kind,
            resolved=self.state == "resolved",
            actions=tuple(self.device.actions),
            retries=sum(max(0, count - 1) for count in self.entries.values()),
            crashes=self.crashes,
            restarted=self.restarted,
            handed_back=self.state == "handed_back",
            observation=self.observation,
            error=None if ended else (self.error or self.ran_out()),
        )
