"""The recovery StateChart, declared as its policy: one state per remedy; budgets, timeouts,
remedies and verdicts as tables the machine reads.

The engine calls one function when a fault is seen, when an interruption blocks the decided
action, or when an action changed nothing::

    outcome = await recover(
        detection,                      # orav.perceive.Detection
        device=device,                  # orav.device.Device: the only I/O
        observation=observation,        # the observation that showed it
        scenario=scenario,              # app bundle, credentials, permissions answer
        sleep=asyncio.sleep,            # injectable: replay and tests do not wait
        on_transition=None,             # (machine, source, event, target) for the cassette
    )
    outcome.resolved, outcome.handed_back, outcome.actions, outcome.retries, outcome.error

How it runs: the detection's kind is the first event; entering a state makes its remedy's one
attempt (its ``enter``, from ``orav.machines.remedies``) through the recovery's device
(``orav.machines.recovery_device``); then the state's verdict (``VERDICT``, in
``orav.machines.verdicts``) looks at the app and answers the next event (``cleared``,
``persists``, ``stalled``, ``running`` / ``not_running``). ``persists`` re-enters the same
state while its budget (``RETRIES`` by ``SPENDS``, the one guard ``budget_left``) lasts, then
escalates, hands back or fails, so every path ends in ``resolved``, ``handed_back`` or
``failed`` within ``RecoveryMachine.max_events()`` events. Device calls are bounded by the
drivers' own timeouts, which are the ``LADDER``'s rungs (``dump`` per call, ``restart`` per
launch); a re-dump that times out counts as an empty one. Any exception in a remedy or a
verdict (a device error, a remedy that cannot apply safely) is ``error.execution``, which ends
the recovery as ``failed`` with the error.

``handed_back`` means a retried action still changed nothing: no fault, the agent decides what
next. ``restarted`` says the app was relaunched, so the screen is back at the app's start.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, ClassVar

from attrs import evolve, frozen
from statemachine import State, StateChart

from orav.device import Device
from orav.errors import ReplayDivergence
from orav.machines import remedies, verdicts
from orav.machines.recovery_device import OnAction, RecoveryDevice, Sleep
from orav.machines.verdicts import Verdict
from orav.model import Action, FaultKind, Observation, Scenario
from orav.perceive import Detection

OnTransition = Callable[[str, str, str, str], Any]  # machine, source, event, target


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


class RecoveryMachine(StateChart):
    """detected → one remedy state per fault → resolved | handed_back | failed."""

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
    # Each state's verdict: what it asks the app after its attempt (``verdicts``).
    VERDICT: ClassVar[dict[str, Verdict]] = {
        "checking_app": verdicts.app_state,
        "relaunching": verdicts.app_back,
        "restarting": verdicts.app_back,
        "reloading_dump": verdicts.dump_back,
        "waiting_loading": verdicts.loading_over,
        "retrying_action": verdicts.screen_changed,
        "going_back": verdicts.screen_changed,
        "scrolling": verdicts.screen_changed,
        "hiding_keyboard": verdicts.target_free,
        "uncovering": verdicts.target_free,
        "refreshing": verdicts.loading_gone,
        "leaving": verdicts.loading_gone,
    }  # every other remedy state: ``verdicts.fault_gone``

    detected = State(initial=True)
    dismissing_alert = State(enter=remedies.dismiss_alert)
    answering_permission = State(enter=remedies.answer_permission)
    hiding_keyboard = State(enter=remedies.hide_keyboard)
    uncovering = State(enter=remedies.uncover)
    retrying_network = State(enter=remedies.retry_network)
    logging_in = State(enter=remedies.log_in)
    waiting_loading = State(enter=remedies.wait_loading)
    refreshing = State(enter=remedies.pull_to_refresh)
    leaving = State(enter=remedies.go_back)
    checking_app = State()  # asks only: its verdict
    reloading_dump = State(enter=remedies.wait_for_dump)
    relaunching = State(enter=remedies.relaunch)
    restarting = State(enter=remedies.restart)
    retrying_action = State(enter=remedies.retry_action)
    going_back = State(enter=remedies.go_back)
    scrolling = State(enter=remedies.scroll)
    resolved = State(final=True)
    handed_back = State(final=True)
    failed = State(final=True)

    alert = detected.to(dismissing_alert)
    permission = detected.to(answering_permission)
    keyboard = detected.to(hiding_keyboard)
    covered = detected.to(uncovering)
    network = detected.to(retrying_network)
    login = detected.to(logging_in)
    loading = detected.to(waiting_loading)
    empty_dump = detected.to(checking_app)
    crash = detected.to(relaunching)
    no_effect = detected.to(retrying_action)
    frozen = detected.to(going_back)

    cleared = resolved.from_(
        dismissing_alert,
        answering_permission,
        hiding_keyboard,
        uncovering,
        retrying_network,
        logging_in,
        waiting_loading,
        refreshing,
        leaving,
        reloading_dump,
        relaunching,
        restarting,
        retrying_action,
        going_back,
        scrolling,
    )
    persists = (
        dismissing_alert.to.itself(cond="budget_left")
        | dismissing_alert.to(failed)
        | answering_permission.to.itself(cond="budget_left")
        | answering_permission.to(failed)
        | hiding_keyboard.to.itself(cond="budget_left")
        | hiding_keyboard.to(failed)
        | uncovering.to.itself(cond="budget_left")
        | uncovering.to(failed)
        | retrying_network.to.itself(cond="budget_left")
        | retrying_network.to(failed)
        | logging_in.to.itself(cond="budget_left")
        | logging_in.to(failed)
        | waiting_loading.to.itself(cond="budget_left")
        | waiting_loading.to(refreshing)
        | refreshing.to(leaving)
        | leaving.to(failed)
        | reloading_dump.to(restarting)
        | relaunching.to.itself(cond="budget_left")
        | relaunching.to(failed)
        | restarting.to.itself(cond="budget_left")
        | restarting.to(failed)
        | retrying_action.to.itself(cond="budget_left")
        | retrying_action.to(handed_back)
        | going_back.to(scrolling)
        | scrolling.to(restarting)
    )
    stalled = waiting_loading.to(refreshing)
    running = checking_app.to(reloading_dump)
    not_running = checking_app.to(relaunching)
    error_execution = failed.from_.any(on="keep_error")

    def __init__(
        self,
        detection: Detection,
        *,
        device: Device,
        observation: Observation,
        scenario: Scenario,
        sleep: Sleep = asyncio.sleep,
        on_action: OnAction | None = None,
        **kwargs: Any,
    ) -> None:
        self.detection = detection
        self.scenario = scenario
        self.device = RecoveryDevice(
            device,
            scenario,
            observation,
            sleep=sleep,
            on_action=on_action,
            settle=self.LADDER["settle"],
            dump_tries=self.RETRIES["dump"],
            dump_pause=self.DUMP_PAUSE,
        )
        self.before = observation  # the screen an ineffective action failed to change
        self.attempts: dict[str, int] = {}  # entries per state: what ``budget_left`` reads
        self.crashes = 0
        self.restarted = False
        self.error: str | None = None
        self.raised: BaseException | None = None  # what ended the recovery as failed
        self.loading_seen = observation  # the last look while waiting for a spinner
        self.unchanged_for = 0.0
        super().__init__(**kwargs)

    @property
    def observation(self) -> Observation:
        """The latest look (the detection's observation until a remedy looks again)."""
        return self.device.observation

    # --- the one guard: budgets from the tables above ------------------------------------------

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
        return self.attempts.get(source.id, 0) < self.limit(source.id)

    @classmethod
    def max_events(cls) -> int:
        """An upper bound on the events of any recovery: every state at its largest budget."""
        most = max(cls.RETRIES.values())
        loading = math.ceil(cls.LADDER["change"] / cls.LADDER["network"])
        return 2 + len(cls.states) * max(most, loading)

    # --- bookkeeping, the verdict, the outcome ------------------------------------------------

    def on_enter_state(self, target: State) -> None:
        """Count the entry (before the state's remedy runs: generic callbacks come first)."""
        if target.final or target.id == "detected":
            return
        self.attempts[target.id] = self.attempts.get(target.id, 0) + 1

    def keep_error(self, error: BaseException | None = None) -> None:
        self.raised = error
        if error is None:
            self.error = "recovery failed"
        else:
            self.error = str(error) or type(error).__name__

    @property
    def state(self) -> str:
        return next(iter(self.configuration_values))

    async def assess(self) -> str:
        """Look at the app after the current state's attempt; the name of the verdict event."""
        verdict = self.VERDICT.get(self.state, verdicts.fault_gone)
        return await verdict(self)

    def outcome(self) -> RecoveryOutcome:
        spent = sum(max(0, count - 1) for count in self.attempts.values())
        state = self.state
        return RecoveryOutcome(
            kind=self.detection.kind,
            resolved=state == "resolved",
            actions=tuple(self.device.actions),
            retries=spent,
            crashes=self.crashes,
            restarted=self.restarted,
            handed_back=state == "handed_back",
            observation=self.observation,
            error=None if state in ("resolved", "handed_back") else (self.error or "failed"),
        )


async def recover(
    detection: Detection,
    *,
    device: Device,
    observation: Observation,
    scenario: Scenario,
    sleep: Sleep = asyncio.sleep,
    on_transition: OnTransition | None = None,
    on_action: OnAction | None = None,
) -> RecoveryOutcome:
    """Run the recovery for one detection to its end; never raises for device trouble (a
    replay's divergence, which is no device trouble, is raised as it is)."""
    machine = RecoveryMachine(
        detection,
        device=device,
        observation=observation,
        scenario=scenario,
        sleep=sleep,
        on_action=on_action,
    )
    path: list[tuple[str, str, str]] = []
    await machine.activate_initial_state()
    machine.add_listener(_Transitions(path, on_transition))
    await machine.send(detection.kind)
    _raise_through(machine.raised)
    for _ in range(machine.max_events()):
        if machine.is_terminated:
            break
        try:
            event = await machine.assess()
        except Exception as exc:  # noqa: BLE001 - every failure ends the recovery, with its text
            await machine.send("error.execution", error=exc)
        else:
            await machine.send(event)
        _raise_through(machine.raised)
    if not machine.is_terminated:
        await machine.send("error.execution", error=RuntimeError("recovery exceeded its budget"))
    return evolve(machine.outcome(), path=tuple(path))


def _raise_through(error: BaseException | None) -> None:
    """Raise what is no failure of the recovery: a replay's divergence."""
    if isinstance(error, ReplayDivergence):
        raise error


class _Transitions:
    """Listener: keeps the path taken and hands each transition to the engine's callback, as
    it is taken: before the remedy of the state it enters acts, so the cassette reads in the
    order things happened (``on_transition``: python-statemachine runs ``on`` callbacks in
    turn, where it gathers ``after`` ones as tasks)."""

    def __init__(self, path: list[tuple[str, str, str]], callback: OnTransition | None) -> None:
        self.path = path
        self.callback = callback

    async def on_transition(self, event: str, source: State, target: State) -> None:
        self.path.append((source.id, str(event), target.id))
        if self.callback is not None:
            returned = self.callback("recovery", source.id, str(event), target.id)
            if asyncio.iscoroutine(returned):
                await returned
