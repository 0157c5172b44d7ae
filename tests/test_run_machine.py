"""The run lifecycle machine under random event sequences (hypothesis stateful testing)."""

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from orav.machines.run import RunMachine

FINAL = {s.id for s in RunMachine.states if s.final}
EVENTS = sorted({e for s in RunMachine.states for t in s.transitions for e in t.events})


class RunMachineUnderRandomEvents(RuleBasedStateMachine):
    """Any event in any order: limits hold and final states stay final."""

    def __init__(self) -> None:
        super().__init__()
        self.max_steps = 3
        self.machine = RunMachine(max_steps=self.max_steps, timeout_seconds=10.0)
        self.finished_in: str | None = None

    @rule(
        event=st.sampled_from(EVENTS),
        elapsed=st.floats(0, 20),
        fault=st.sampled_from([None, "alert"]),
        done=st.booleans(),
        met=st.booleans(),
    )
    def send(self, event, elapsed, fault, done, met):
        if event == "error.execution":
            return  # raised by callbacks, not sent by the engine
        before = self.machine.state
        self.machine.send(event, elapsed=elapsed, fault=fault, done=done, met=met)
        after = self.machine.state
        if before in FINAL:
            assert after == before, "a final state was left"
        if event in ("observed", "verified") and elapsed >= 10.0 and before != after:
            assert after == "timed_out"
        if event == "checked" and before == "goal_complete":
            assert after == ("passed" if met else "failed")

    @invariant()
    def steps_never_pass_the_limit(self):
        assert self.machine.steps <= self.max_steps

    @invariant()
    def reaching_the_limit_ends_the_run_at_the_next_check(self):
        if self.machine.steps >= self.max_steps and self.machine.state == "observing":
            raise AssertionError("a step past the limit was started")


TestRunMachine = RunMachineUnderRandomEvents.TestCase
TestRunMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


def test_the_happy_path_and_its_transitions():
    machine = RunMachine(max_steps=5)
    for event, data in [
        ("start", {}),
        ("launched", {}),
        ("observed", {}),
        ("decided", {}),
        ("acted", {}),
        ("verified", {"elapsed": 1.0}),
        ("observed", {"fault": "alert"}),
        ("recovered", {}),
        ("observed", {}),
        ("decided", {"done": True}),
        ("checked", {"met": True}),
    ]:
        machine.send(event, **data)
    assert machine.state == "passed" and machine.is_terminated and machine.steps == 1


def test_an_exception_in_a_callback_aborts_with_the_error():
    class Boom(RunMachine):
        def on_enter_launching(self):
            raise RuntimeError("device on fire")

    machine = Boom()
    machine.send("start")
    assert machine.state == "aborted"
    assert machine.error == "RuntimeError: device on fire"
