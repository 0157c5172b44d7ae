"""The run lifecycle as a StateChart that drives the run.

Each phase is an ``on_enter_<state>`` callback of the run it drives (``model=``, the engine's
run): the callback does the phase's I/O and sends the event that ends it, with what it found
(the detection, the decision) and the facts the ledger needs (the action changed the screen,
a recovery handed an action back, the agent's ``recover`` was a step, the errors so far). The
machine's callbacks keep its ``Ledger`` from those facts (steps taken, recoveries since the
last action, restarts, actions in a row that changed nothing, the frozen app) and guards read
it with the event's data, so every limit is a guarded transition, checked where the phase
that reaches it ends: the run counts nothing itself. ``time_up``, ``abort`` and
``error.execution`` sit on the compound ``running`` state: whatever phase is under way, they
end the run.

A step is two events on its usual way, ``decided`` and ``acted``: acting performs the action,
waits for the app to settle and verifies what it did, and the settled screen it ends on is the
next step's observation, so ``acted`` goes straight back to ``reasoning`` when that screen shows
no fault. ``observing`` is for looks of their own: the first, and after a recovery. (Each event
costs python-statemachine ~100 µs of CPU whatever its callbacks do: docs/performance.md.)

    machine = RunMachine(run, max_steps=50, timeout_seconds=120)
    await machine.activate_initial_state()
    await machine.send("start")      # returns when a final state is reached
"""

from __future__ import annotations

from typing import Any

from attrs import define, field
from statemachine import State, StateChart

from orav.errors import OravError, ReplayedError
from orav.model import Action, show_action
from orav.perceive import Detection, frozen_app


@define
class Ledger:
    """What a run counts, as the machine's guards read it: kept by the machine's callbacks from
    the facts its phases send."""

    steps: int = 0  # actions performed (the step counter of the report)
    recoveries: int = 0  # recoveries since the last action
    restarts: int = 0  # times the goal started over after a relaunch
    ineffective: list[str] = field(factory=list)  # different actions in a row that did nothing
    unanswered: bool = False  # one of them was input every responsive app answers
    unproven: int = 0  # times the agent said done while the success criteria did not hold
    frozen: Detection | None = None  # the app no longer answers: for the next look to report

    def answered(self) -> None:
        """The screen answered (an action changed it, a recovery resolved): the ineffective
        actions in a row start over."""
        self.ineffective.clear()
        self.unanswered = False


class RunMachine(StateChart):
    """installing → launching → preparing → observing → reasoning ⇄ acting → goal_complete: acting verifies, and the screen it settles on is the next observation (two events a step).

    ``observing`` only looks when the run has no screen of its own to go on: at the start and
    after a recovery. Each event costs python-statemachine ~100 µs of CPU whatever its
    callbacks do, so a step is two (``decided``, ``acted``), not four.
    """

    # Recoveries allowed before the next action: faults can stack (a permission dialog, then
    # an alert, then a network banner), but one that comes back after every remedy ends the run.
    RECOVERIES_PER_STEP = 5
    # How often the goal may start over after the app was relaunched (the reference's "goal").
    GOAL_RESTARTS = 1
    # Different actions in a row that changed nothing (each retried first), one of them input
    # every responsive app answers (``perceive.always_answered``): the app is frozen.
    FROZEN_AFTER = 3
    # An agent that reconsiders (``orav.agents.reconsiders``) is told when its ``done`` is not
    # proven and goes on; this many unproven dones end the run, ``failed``.
    UNPROVEN_DONES = 3
    # The same action on the same screen with nothing new since it was last taken there: the
    # agent is told; this many repeats of one end the run, ``aborted``.
    REPEATS = 3

    idle = State(initial=True)

    class running(State.Compound):
        installing = State(initial=True)
        launching = State()
        preparing = State()
        observing = State()
        recovering = State()
        reasoning = State()
        acting = State()  # act, settle, verify: one event ends it
        goal_complete = State()

    passed = State(final=True)
    completed_with_errors = State(final=True)  # the goal met, with errors on the way (recovered)
    failed = State(final=True)
    step_limit = State(final=True)
    timed_out = State(final=True)
    aborted = State(final=True)

    start = idle.to(running)
    installed = running.installing.to(running.launching)
    launched = running.launching.to(running.preparing)
    prepared = running.preparing.to(running.observing)
    # Each phase's usual way on is listed first, under one guard: the rest are exceptions.
    observed = (
        running.observing.to(running.reasoning, cond="usable")
        | running.observing.to(timed_out, cond="out_of_time")
        | running.observing.to(aborted, cond="out_of_recoveries", on="too_many")
        | running.observing.to(running.recovering)  # a fault: recovery comes first
    )
    decided = (
        running.reasoning.to(aborted, cond="looping", on="stuck")  # before any other way
        | running.reasoning.to(running.acting, cond="clear_action")
        | running.reasoning.to(running.goal_complete, cond="agent_done", unless="fault_seen")
        | running.reasoning.to(aborted, cond="out_of_recoveries", on="too_many")
        | running.reasoning.to(running.recovering)  # blocked, keyboard, or asked for
    )
    acted = (
        running.acting.to(running.reasoning, cond="next_step")  # the settled screen is usable
        | running.acting.to(timed_out, cond=["verified", "out_of_time"])
        | running.acting.to(step_limit, cond=["verified", "out_of_steps"])
        # failed behind an interruption (not verified), no effect, a fault on the settled screen
        | running.acting.to(running.recovering)
    )
    recovered = (
        running.recovering.to(step_limit, cond="out_of_steps")  # the agent's recover was a step
        | running.recovering.to(aborted, cond=["restarted", "out_of_restarts"], on="no_restart")
        | running.recovering.to(running.preparing, cond="restarted")  # the goal starts over
        | running.recovering.to(running.observing)
    )
    unrecovered = running.recovering.to(aborted, on="keep_error")
    # The agent said done, the success criteria do not hold, and it reconsiders: told so, it
    # decides again (its done was a step), while dones and steps are left.
    unproven = (
        running.goal_complete.to(
            running.reasoning, unless=["out_of_dones", "last_step"], on="reopen"
        )
        | running.goal_complete.to(failed, cond="out_of_dones", on="no_proof")
        | running.goal_complete.to(failed)  # no step left to act on
    )
    checked = (
        running.goal_complete.to(passed, cond="goal_met", unless="had_errors")
        | running.goal_complete.to(completed_with_errors, cond="goal_met")
        | running.goal_complete.to(failed)
    )
    time_up = running.to(timed_out) | idle.to(timed_out)
    abort = running.to(aborted, on="keep_error") | idle.to(aborted, on="keep_error")
    error_execution = running.to(aborted, on="keep_error") | idle.to(aborted, on="keep_error")

    def __init__(
        self,
        model: Any = None,
        *,
        max_steps: int = 50,
        timeout_seconds: float = 120.0,
        **kwargs: Any,
    ) -> None:
        self.max_steps = max_steps
        self.timeout_seconds = timeout_seconds
        self.ledger = Ledger()
        self.error: str | None = None
        self.raised: BaseException | None = None  # what ended the run, if an exception
        self.limited = False  # a limit of the ledger ended the run (``error`` says which)
        super().__init__(model, **kwargs)

    # --- guards: the event's data and the ledger ---------------------------------------------

    def fault_seen(self, fault: object = None) -> bool:
        return fault is not None

    def usable(self, fault: object = None, elapsed: float = 0.0) -> bool:
        """Nothing to recover and time left: the agent reasons."""
        return fault is None and elapsed < self.timeout_seconds

    def clear_action(self, fault: object = None, done: bool = False) -> bool:
        """An action nothing stands in the way of."""
        return fault is None and not done

    def next_step(self, fault: object = None, elapsed: float = 0.0) -> bool:
        """The action did what it did, the screen it settled on shows no fault, and steps and
        time are left."""
        return (
            fault is None and elapsed < self.timeout_seconds and self.ledger.steps < self.max_steps
        )

    def verified(self, verified: bool = True) -> bool:
        """The action's effect was verified (not cut short by an interruption it failed behind)."""
        return verified

    def agent_done(self, done: bool = False) -> bool:
        return done

    def goal_met(self, met: bool = False) -> bool:
        return met

    def had_errors(self, errors: int = 0) -> bool:
        """The run met errors on its way (failed actions, recoveries): the goal met with them."""
        return errors > 0

    def restarted(self, restarted: bool = False) -> bool:
        return restarted

    def out_of_time(self, elapsed: float = 0.0) -> bool:
        return elapsed >= self.timeout_seconds

    def out_of_steps(self, asked: bool = False) -> bool:
        """No step left, counting the agent's ``recover`` (``asked``): a step that ends with
        its recovery, counted as the recovery ends (guards come before callbacks)."""
        return self.ledger.steps + asked >= self.max_steps

    def out_of_recoveries(self) -> bool:
        return self.ledger.recoveries >= self.RECOVERIES_PER_STEP

    def out_of_restarts(self) -> bool:
        return self.ledger.restarts >= self.GOAL_RESTARTS

    def out_of_dones(self) -> bool:
        """This unproven done is the last one allowed."""
        return self.ledger.unproven + 1 >= self.UNPROVEN_DONES

    def last_step(self) -> bool:
        """The unproven done would be the last step: none left to act on."""
        return self.ledger.steps + 1 >= self.max_steps

    def looping(self, repeats: int = 0) -> bool:
        """The decided action repeats itself on this screen once too often."""
        return repeats >= self.REPEATS

    def steps_left(self) -> int:
        return self.max_steps - self.ledger.steps

    # --- the ledger: kept by the transitions that change it, from the facts they carry ------

    def on_enter_recovering(self) -> None:
        self.ledger.recoveries += 1

    def on_enter_acting(self) -> None:
        """An action is a step as it is taken, so ``acted``'s guards count it."""
        self.ledger.steps += 1
        self.ledger.recoveries = 0

    def on_observed(self) -> None:
        self.ledger.frozen = None  # the look reported it

    def on_acted(self, changed: bool = False) -> None:
        if changed:
            self.ledger.answered()

    def on_recovered(
        self,
        resolved: bool = False,
        no_effect: Action | None = None,
        unanswered: bool = False,
        asked: bool = False,
    ) -> None:
        """What the recovery found: the agent's ``recover`` was a step; an action handed back
        (``no_effect``) still changed nothing, and ``FROZEN_AFTER`` different ones in a row,
        one of them input every responsive app answers (``unanswered``), make the app frozen;
        a resolved recovery is an answer."""
        if asked:
            self.ledger.steps += 1
            self.ledger.recoveries = 0
        if no_effect is None:
            if resolved:
                self.ledger.answered()
            return
        shown = show_action(no_effect)
        if shown not in self.ledger.ineffective:
            self.ledger.ineffective.append(shown)
        self.ledger.unanswered |= unanswered
        if len(self.ledger.ineffective) >= self.FROZEN_AFTER and self.ledger.unanswered:
            self.ledger.answered()  # counted afresh after the frozen app's recovery
            self.ledger.frozen = frozen_app(no_effect, self.FROZEN_AFTER)

    def on_enter_preparing(self, restarted: bool = False) -> None:
        if restarted:
            self.ledger.restarts += 1

    def reopen(self) -> None:
        """The unproven done counts, and as a step: the agent decides again."""
        self.ledger.unproven += 1
        self.ledger.steps += 1

    def no_proof(self) -> None:
        self.ledger.unproven += 1
        self.limited = True
        self.error = (
            f"the agent said done {self.ledger.unproven} times while the success criteria "
            f"did not hold (at most {self.UNPROVEN_DONES})"
        )

    def stuck(self, repeats: int = 0, action: str = "") -> None:
        self.limited = True
        self.error = (
            f"the agent took the same action ({action}) on the same screen {repeats + 1} "
            f"times with nothing new in between (at most {self.REPEATS} repeats)"
        )

    def too_many(self, fault: Any = None) -> None:
        self.limited = True
        last = f"; the last was {getattr(fault, 'kind', fault)}" if fault is not None else ""
        self.error = (
            f"{self.ledger.recoveries + 1} recoveries in a row without an action "
            f"(at most {self.RECOVERIES_PER_STEP}){last}"
        )

    def no_restart(self) -> None:
        self.limited = True
        times = "time" if self.GOAL_RESTARTS == 1 else "times"
        self.error = (
            f"the app had to be restarted {self.ledger.restarts + 1} times; the goal starts "
            f"over at most {self.GOAL_RESTARTS} {times}"
        )

    def keep_error(self, error: BaseException | str | None = None) -> None:
        """Keep what went wrong: the engine's own words, or an exception (an orav error by
        its message, anything else, a bug, with its type)."""
        if isinstance(error, str):
            self.error = error
            return
        self.raised = error
        if error is None:
            self.error = "internal error"
        elif isinstance(error, (OravError, ReplayedError)):
            self.error = str(error)  # a replayed bug reads as the recorded one did
        else:
            self.error = f"{type(error).__name__}: {error}"

    @property
    def state(self) -> str:
        """The innermost active state's id."""
        return list(self.configuration_values)[-1]
