"""The run lifecycle machine: under random event sequences (hypothesis stateful testing, on an
event loop as the engine drives it), and driven by a model whose phases send the events."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from orav.machines.run import Ledger, RunMachine
from orav.model import Tap, show_action
from orav.perceive import Detection, frozen_app, no_effect

FINAL = {s.id for s in RunMachine.states if s.final}
EVENTS = sorted(
    {e for s in RunMachine.states for t in s.transitions for e in t.events} - {"error.execution"}
)
PHASES = {s.id for s in RunMachine.running.states}
ALERT = Detection("alert", (), "an alert")


class Recorder:
    """A model with async phases that only note where the machine went (the test sends the
    events, as the engine's phases would): the machine runs its async engine."""

    def __init__(self) -> None:
        self.entered: list[str] = []

    async def on_enter_state(self, target, **kwargs) -> None:
        self.entered.append(target.id)


class RunMachineUnderRandomEvents(RuleBasedStateMachine):
    """Any event with any data in any order: limits hold, final states stay final."""

    def __init__(self) -> None:
        super().__init__()
        self.max_steps = 3
        self.timeout = 10.0
        self.loop = asyncio.new_event_loop()
        self.model = Recorder()
        self.machine = RunMachine(self.model, max_steps=self.max_steps, timeout_seconds=10.0)
        self.run(self.machine.activate_initial_state)

    def run(self, call):
        """Run one call of the machine to completion on the test's loop."""

        async def wrapped():
            result = call()
            return await result if inspect.isawaitable(result) else result

        return self.loop.run_until_complete(wrapped())

    def teardown(self) -> None:
        self.loop.close()

    @property
    def ledger(self) -> Ledger:
        return self.machine.ledger

    @rule(
        event=st.sampled_from(EVENTS),
        elapsed=st.floats(0, 20),
        fault=st.sampled_from([None, ALERT, no_effect(Tap(1, 2))]),
        done=st.booleans(),
        met=st.booleans(),
        restarted=st.booleans(),
        verified=st.booleans(),
    )
    def send(self, event, elapsed, fault, done, met, restarted, verified):
        before = self.machine.state
        ledger = (self.ledger.steps, self.ledger.recoveries, self.ledger.restarts)
        data = {"elapsed": elapsed, "fault": fault, "done": done, "met": met}
        data["restarted"] = restarted
        data["verified"] = verified
        if event in ("abort", "unrecovered"):
            data["error"] = "what went wrong"
        self.run(lambda: self.machine.send(event, **data))
        after = self.machine.state
        if before in FINAL:
            assert after == before, "a final state was left"
            return
        if event == "observed" and elapsed >= self.timeout and before != after:
            assert after == "timed_out"
        if event == "checked" and before == "goal_complete":
            assert after == ("passed" if met else "failed")
        if event in ("time_up", "abort") and before != "idle":
            assert after == ("timed_out" if event == "time_up" else "aborted")
        if after == "acting" and before != "acting":  # the action is a step as it is taken
            assert self.ledger.steps == ledger[0] + 1 and self.ledger.recoveries == 0
        if event == "observed" and before == "observing" and fault and elapsed < self.timeout:
            out = ledger[1] >= RunMachine.RECOVERIES_PER_STEP
            assert after == ("aborted" if out else "recovering")
        if event == "decided" and before == "reasoning":
            if fault is None:
                assert after == ("goal_complete" if done else "acting")
            else:  # blocked (an action or a done), the keyboard, or asked for: recovery
                out = ledger[1] >= RunMachine.RECOVERIES_PER_STEP
                assert after == ("aborted" if out else "recovering")
        if event == "acted" and before == "acting":
            assert self.ledger.steps == ledger[0]  # counted when acting began
            if not verified:
                assert after == "recovering"  # it failed behind an interruption
            elif elapsed >= self.timeout:
                assert after == "timed_out"
            elif ledger[0] >= self.max_steps:
                assert after == "step_limit"
            else:  # no effect, frozen or a fault on the settled screen: recovery, before the agent
                assert after == ("recovering" if fault is not None else "reasoning")
        if event == "recovered" and before == "recovering" and restarted:
            out = ledger[2] >= RunMachine.GOAL_RESTARTS
            assert after == ("aborted" if out else "preparing")
            if out:
                assert "restarted" in self.machine.error

    @rule()
    @precondition(lambda self: self.machine.state in PHASES)
    def a_callback_error_aborts_from_any_phase(self):
        self.run(lambda: self.machine.send("error.execution", error=RuntimeError("device on fire")))
        assert self.machine.state == "aborted"
        assert self.machine.error == "RuntimeError: device on fire"

    @invariant()
    def the_ledger_stays_within_the_limits(self):
        assert self.ledger.steps <= self.max_steps
        assert self.ledger.recoveries <= RunMachine.RECOVERIES_PER_STEP
        assert self.ledger.restarts <= RunMachine.GOAL_RESTARTS

    @invariant()
    def reaching_the_limit_ends_the_run_at_the_next_check(self):
        if self.ledger.steps >= self.max_steps and self.machine.state in ("observing", "reasoning"):
            raise AssertionError("a step past the limit was started")

    @invariant()
    def the_model_sees_every_phase_entered(self):
        if self.machine.state in PHASES:
            assert self.model.entered[-1] == self.machine.state


TestRunMachine = RunMachineUnderRandomEvents.TestCase
TestRunMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


class ScriptedRun:
    """A run as the engine's: each phase is an async ``on_enter_*`` that sends the event that
    ends it, with its data, from a script."""

    def __init__(self, script: list[tuple[str, dict]], **limits) -> None:
        self.script = list(script)
        self.machine = RunMachine(self, **limits)
        self.phases: list[str] = []

    async def next(self, phase: str) -> None:
        self.phases.append(phase)
        event, data = self.script.pop(0)
        await self.machine.send(event, **data)

    async def on_enter_installing(self):
        await self.machine.send("installed")  # nothing to install: straight on to the launch

    async def on_enter_launching(self):
        await self.next("launching")

    async def on_enter_preparing(self):
        await self.next("preparing")

    async def on_enter_observing(self):
        await self.next("observing")

    async def on_enter_reasoning(self):
        await self.next("reasoning")

    async def on_enter_acting(self):
        await self.next("acting")

    async def on_enter_recovering(self):
        await self.next("recovering")

    async def on_enter_goal_complete(self):
        await self.next("goal_complete")

    async def drive(self) -> RunMachine:
        await self.machine.activate_initial_state()
        await self.machine.send("start")
        return self.machine


STEP = [  # the usual step: two events, the settled screen is the next step's observation
    ("decided", {}),
    ("acted", {"elapsed": 1.0}),
]


async def test_the_phases_drive_the_happy_path_with_a_recovery():
    run = ScriptedRun(
        [
            ("launched", {}),
            ("prepared", {}),
            ("observed", {}),
            *STEP,
            ("decided", {}),
            ("acted", {"elapsed": 1.0, "fault": ALERT}),  # the alert is on the settled screen
            ("recovered", {}),
            ("observed", {}),
            ("decided", {"done": True}),
            ("checked", {"met": True}),
        ],
        max_steps=5,
    )
    machine = await run.drive()
    assert machine.state == "passed" and machine.is_terminated
    assert machine.ledger == Ledger(steps=2, recoveries=1, restarts=0)  # since the action
    assert run.phases == [
        "launching",
        "preparing",
        "observing",
        "reasoning",
        "acting",
        "reasoning",
        "acting",
        "recovering",
        "observing",
        "reasoning",
        "goal_complete",
    ]


async def test_a_blocked_decision_recovers_and_is_decided_again():
    run = ScriptedRun(
        [
            ("launched", {}),
            ("prepared", {}),
            ("observed", {}),
            ("decided", {"fault": ALERT}),  # the interruption blocks the decided action
            ("recovered", {}),
            ("observed", {}),
            ("decided", {"done": True}),
            ("checked", {"met": True}),
        ]
    )
    machine = await run.drive()
    assert machine.state == "passed"
    assert run.phases[3:6] == ["reasoning", "recovering", "observing"]
    assert machine.ledger.steps == 0


async def test_recoveries_without_an_action_are_bounded():
    n = RunMachine.RECOVERIES_PER_STEP
    script = [("launched", {}), ("prepared", {})]
    script += [("observed", {"fault": ALERT}), ("recovered", {})] * n
    script += [("observed", {"fault": ALERT})]
    machine = await ScriptedRun(script).drive()
    assert machine.state == "aborted"
    assert machine.error == (
        f"{n + 1} recoveries in a row without an action (at most {n}); the last was alert"
    )


async def test_the_goal_starts_over_after_a_restart_at_most_goal_restarts_times():
    script = [("launched", {}), ("prepared", {})]
    for _ in range(RunMachine.GOAL_RESTARTS + 1):
        script += [("observed", {"fault": ALERT}), ("recovered", {"restarted": True})]
        script += [("prepared", {})]
    run = ScriptedRun(script)
    machine = await run.drive()
    assert machine.state == "aborted"
    assert machine.ledger.restarts == RunMachine.GOAL_RESTARTS
    assert run.phases.count("preparing") == 1 + RunMachine.GOAL_RESTARTS
    assert "the app had to be restarted 2 times" in machine.error


async def test_an_action_with_no_effect_recovers_before_the_agent_and_counts_as_a_step():
    run = ScriptedRun(
        [
            ("launched", {}),
            ("prepared", {}),
            ("observed", {}),
            ("decided", {}),
            ("acted", {"elapsed": 1.0, "fault": no_effect(Tap(1, 2))}),
            ("recovered", {}),  # handed back
            ("observed", {}),
            ("decided", {"done": True}),
            ("checked", {"met": False}),
        ]
    )
    machine = await run.drive()
    assert machine.state == "failed" and machine.ledger.steps == 1
    assert run.phases[4:7] == ["acting", "recovering", "observing"]


async def test_an_action_failed_behind_an_interruption_recovers_whatever_the_limits():
    run = ScriptedRun(
        [
            ("launched", {}),
            ("prepared", {}),
            ("observed", {}),
            ("decided", {}),
            ("acted", {"fault": ALERT, "verified": False, "elapsed": 99.0}),
            ("recovered", {}),
        ],
        max_steps=1,
        timeout_seconds=10.0,
    )
    machine = await run.drive()
    assert run.phases[-2:] == ["acting", "recovering"]
    assert machine.state == "step_limit"  # the failed action was a step: checked on recovery


async def test_the_step_limit_ends_the_run_at_verification():
    machine = await ScriptedRun(
        [("launched", {}), ("prepared", {}), ("observed", {}), *STEP, *STEP], max_steps=2
    ).drive()
    assert machine.state == "step_limit" and machine.ledger.steps == 2


async def test_time_up_at_verification_times_out_even_with_a_fault_on_screen():
    script = [("launched", {}), ("prepared", {}), ("observed", {}), ("decided", {})]
    script += [("acted", {"elapsed": 11.0, "fault": ALERT})]
    machine = await ScriptedRun(script, timeout_seconds=10.0).drive()
    assert machine.state == "timed_out"


class Counting:
    """A listener that counts the machine's events (each costs ~100 µs of CPU)."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def on_transition(self, event: str) -> None:
        self.events.append(str(event))


@settings(max_examples=25, deadline=None)
@given(steps=st.integers(1, 8))
def test_a_usual_step_is_two_events(steps):
    """Whatever the number of steps, each costs ``decided`` and ``acted``, nothing more."""
    counting = Counting()
    run = ScriptedRun(
        [("launched", {}), ("prepared", {}), ("observed", {})]
        + STEP * steps
        + [("decided", {"done": True}), ("checked", {"met": True})],
        max_steps=steps + 1,
    )
    run.machine = RunMachine(run, max_steps=steps + 1, listeners=[counting])
    machine = asyncio.run(run.drive())
    assert machine.state == "passed"
    start = counting.events.index("observed") + 1
    assert counting.events[start : start + 2 * steps] == ["decided", "acted"] * steps
    assert len(counting.events) == start + 2 * steps + 2  # the done's decided, checked


@pytest.mark.parametrize("phase", ["launching", "observing", "reasoning", "recovering"])
async def test_an_exception_in_any_phase_aborts_with_the_error(phase):
    class Boom(ScriptedRun):
        async def next(self, where):
            if where == phase:
                raise RuntimeError("device on fire")
            await super().next(where)

    script = [("launched", {}), ("prepared", {}), ("observed", {"fault": ALERT})]
    script += [("recovered", {}), ("observed", {}), ("decided", {})]
    machine = await Boom(script).drive()
    assert machine.state == "aborted"
    assert machine.error == "RuntimeError: device on fire"
    assert isinstance(machine.raised, RuntimeError)


async def test_time_up_and_abort_end_the_run_from_inside_any_phase():
    for event, final in (("time_up", "timed_out"), ("abort", "aborted")):
        run = ScriptedRun([("launched", {}), ("prepared", {}), ("observed", {}), (event, {})])
        machine = await run.drive()
        assert machine.state == final and run.phases[-1] == "reasoning"


class Looking(ScriptedRun):
    """A scripted run that notes what the ledger holds for each look of its own."""

    def __init__(self, script, **limits) -> None:
        super().__init__(script, **limits)
        self.frozen: list[Detection | None] = []

    async def on_enter_observing(self):
        self.frozen.append(self.machine.ledger.frozen)
        await super().on_enter_observing()


def handed_back(tap: Tap, unanswered: bool = False, changed: bool = False) -> list:
    """A step whose action changed nothing, retried and handed back to the agent."""
    return [
        ("decided", {}),
        ("acted", {"elapsed": 1.0, "fault": no_effect(tap), "changed": changed}),
        ("recovered", {"no_effect": tap, "unanswered": unanswered}),
        ("observed", {}),
    ]


START = [("launched", {}), ("prepared", {}), ("observed", {})]
END = [("decided", {"done": True}), ("checked", {"met": True})]


@settings(max_examples=40, deadline=None)
@given(
    taps=st.lists(st.sampled_from([Tap(1, 2), Tap(3, 4), Tap(5, 6), Tap(7, 8)]), max_size=6),
    unanswered=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_the_app_is_frozen_after_frozen_after_different_actions_one_unanswered(taps, unanswered):
    """The machine keeps the facts the run sends: the app is frozen (the next look reports
    it) once ``FROZEN_AFTER`` different actions in a row were handed back, one of them input
    every responsive app answers; then the count starts over."""
    script = list(START)
    for tap, silent in zip(taps, unanswered):
        script += handed_back(tap, silent)
    run = Looking(script + END, max_steps=10)
    asyncio.run(run.drive())
    expected, seen, silent_seen = [None], [], False
    for tap, silent in zip(taps, unanswered):
        seen += [tap] if tap not in seen else []
        silent_seen |= silent
        if len(seen) >= RunMachine.FROZEN_AFTER and silent_seen:
            expected.append(frozen_app(tap, RunMachine.FROZEN_AFTER))
            seen, silent_seen = [], False
        else:
            expected.append(None)
    assert run.frozen == expected


async def test_an_action_that_changed_the_screen_starts_the_count_over():
    taps = [Tap(1, 2), Tap(3, 4), Tap(5, 6)]
    script = [*START, *handed_back(taps[0], True), *handed_back(taps[1])]
    script += [("decided", {}), ("acted", {"elapsed": 1.0, "changed": True})]
    script += [*handed_back(taps[2])[:3], ("observed", {}), *END]
    run = Looking(script, max_steps=10)
    machine = await run.drive()
    assert run.frozen[-1] is None and machine.ledger.ineffective == [show_action(taps[2])]


async def test_the_agents_recover_is_a_step_counted_as_its_recovery_ends():
    script = [*START, ("decided", {"fault": ALERT}), ("recovered", {"asked": True})]
    machine = await ScriptedRun(script, max_steps=1).drive()
    assert machine.state == "step_limit" and machine.ledger.steps == 1


async def test_a_goal_met_with_errors_on_the_way_completes_with_errors():
    script = [*START, ("decided", {"done": True}), ("checked", {"met": True, "errors": 1})]
    machine = await ScriptedRun(script).drive()
    assert machine.state == "completed_with_errors"
