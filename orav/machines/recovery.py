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

How it runs: ``recover`` builds the machine on its model (``orav.machines.attempt.Attempt``:
the detection, the entries each state spent, what was seen), sends the detection's kind and
waits for a final state. Entering a remedy state makes its remedy's one attempt (from
``orav.machines.remedies``) through the recovery's device (``orav.machines.recovery_device``);
then the state's verdict (from ``orav.machines.verdicts``, its last entry callback) looks at
the app and the state sends its next event (``cleared``, ``persists``, ``stalled``,
``running`` / ``not_running``). ``persists`` re-enters the same state while its budget
(``Attempt.RETRIES`` by ``Attempt.SPENDS``, the one guard ``budget_left``, read from the
model) lasts, then escalates, hands back or fails, so every path ends in ``resolved``,
``handed_back`` or ``failed`` within ``RecoveryMachine.max_events()`` events. Device calls are
bounded by the drivers' own timeouts, which are the ``LADDER``'s rungs (``dump`` per call,
``restart`` per launch); a re-dump that times out counts as an empty one. Any exception in a
remedy or a verdict (a device error, a remedy that cannot apply safely) is ``error.execution``,
which ends the recovery as ``failed`` with the error.

``handed_back`` means a retried action still changed nothing: no fault, the agent decides what
next. ``restarted`` says the app was relaunched, so the screen is back at the app's start.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any

from attrs import evolve
from statemachine import State, StateChart

from orav.device import Device
from orav.machines import remedies, verdicts
from orav.machines.attempt import Attempt, RecoveryOutcome
from orav.machines.recovery_device import OnAction, RecoveryDevice, Sleep
from orav.machines.verdicts import Verdict
from orav.model import Observation, Scenario
from orav.perceive import Detection

OnTransition = Callable[[str, str, str, str], Any]  # machine, source, event, target


def _then(verdict: Verdict) -> Callable[..., Awaitable[None]]:
    """``verdict`` as a state's last entry callback: after the remedy's attempt, the state
    sends the event its verdict answers."""

    async def send(machine: StateChart, attempt: Attempt) -> None:
        await machine.send(await verdict(attempt))

    send.__name__ = send.__qualname__ = verdict.__name__  # the diagram names the verdict
    return send


class RecoveryMachine(StateChart[Attempt]):
    """detected → one remedy state per fault → resolved | handed_back | failed.

    Its model is the ``Attempt``: the machine's callbacks record into it, its guard reads it.
    """

    detected = State(initial=True)
    # Each remedy state: its remedy's one attempt, then its verdict, which sends the next event.
    dismissing_alert = State(enter=[remedies.dismiss_alert, _then(verdicts.fault_gone)])
    answering_permission = State(enter=[remedies.answer_permission, _then(verdicts.fault_gone)])
    hiding_keyboard = State(enter=[remedies.hide_keyboard, _then(verdicts.target_free)])
    uncovering = State(enter=[remedies.uncover, _then(verdicts.target_free)])
    retrying_network = State(enter=[remedies.retry_network, _then(verdicts.fault_gone)])
    logging_in = State(enter=[remedies.log_in, _then(verdicts.fault_gone)])
    waiting_loading = State(enter=[remedies.wait_loading, _then(verdicts.loading_over)])
    refreshing = State(enter=[remedies.pull_to_refresh, _then(verdicts.loading_gone)])
    leaving = State(enter=[remedies.go_back, _then(verdicts.loading_gone)])
    checking_app = State(enter=_then(verdicts.app_state))  # asks only
    reloading_dump = State(enter=[remedies.wait_for_dump, _then(verdicts.dump_back)])
    relaunching = State(enter=[remedies.relaunch, _then(verdicts.app_back)])
    restarting = State(enter=[remedies.restart, _then(verdicts.app_back)])
    retrying_action = State(enter=[remedies.retry_action, _then(verdicts.screen_changed)])
    going_back = State(enter=[remedies.go_back, _then(verdicts.screen_changed)])
    scrolling = State(enter=[remedies.scroll, _then(verdicts.screen_changed)])
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

    # A verdict that answers an event its state does not take is a bug, not a hang.
    allow_event_without_transition = False

    def prepare_event(self) -> dict[str, Attempt]:
        """Every callback may ask for the ``attempt``, the model (remedies and verdicts do)."""
        return {"attempt": self.model}

    @classmethod
    def max_events(cls) -> int:
        """An upper bound on the events of any recovery: every state at its largest budget."""
        most = max(Attempt.RETRIES.values())
        loading = math.ceil(Attempt.LADDER["change"] / Attempt.LADDER["network"])
        return 2 + len(cls.states) * max(most, loading)

    def on_enter_state(self, target: State) -> None:
        """Count the entry (before the state's remedy runs: generic callbacks come first);
        past ``max_events`` the recovery fails, whatever its guards say."""
        if target.final or target.id == "detected":
            return
        self.model.entered(target.id)
        if sum(self.model.entries.values()) >= self.max_events():
            raise RuntimeError("recovery exceeded its budget")


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
    """Run the recovery for one detection to its end: start the machine and wait for its final
    state. Never raises for device trouble (a replay's divergence, which is no device trouble,
    is raised as it is)."""
    looks = RecoveryDevice(
        device,
        scenario,
        observation,
        sleep=sleep,
        on_action=on_action,
        settle=Attempt.LADDER["settle"],
        dump_tries=Attempt.RETRIES["dump"],
        dump_pause=Attempt.DUMP_PAUSE,
    )
    attempt = Attempt(detection, scenario, looks, before=observation)
    machine = RecoveryMachine(attempt)
    path: list[tuple[str, str, str]] = []
    await machine.activate_initial_state()
    machine.add_listener(_Transitions(path, on_transition))
    await machine.send(detection.kind)
    return evolve(attempt.outcome(), path=tuple(path))


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
