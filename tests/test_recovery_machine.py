"""The recovery StateChart on its own: budgets hold and every path ends, whatever is seen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from orav.machines import diagrams, machine_classes
from orav.machines.recovery import RecoveryMachine, RecoveryOutcome, recover
from orav.model import (
    ActionResult,
    Credentials,
    Element,
    Frame,
    Observation,
    Scenario,
    Tap,
    TypeText,
)
from orav.perceive import FAULT_KINDS, Detection, classify

SCENARIO = Scenario("s", "com.example.app", "g", credentials=Credentials("u", "p"))
# One screen with something for every remedy to act on: it never clears by itself.
EVERYTHING = Observation(
    (
        Element("AXApplication", "App", frame=Frame(0, 0, 390, 844)),
        Element("AXButton", "Back", "back", frame=Frame(8, 47, 80, 44)),
        Element("AXStaticText", "No connection", frame=Frame(0, 91, 390, 60)),
        Element("AXButton", "Retry", "retry", frame=Frame(135, 171, 120, 44)),
        Element("AXTextField", "Email", "email", "x", Frame(20, 200, 350, 44), focused=True),
        Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
        Element("AXActivityIndicator", "In progress", frame=Frame(175, 402, 40, 40)),
        Element("AXAlert", "Oops", frame=Frame(60, 347, 270, 150)),
        Element("AXButton", "Don't Allow", frame=Frame(60, 453, 135, 44)),
        Element("AXButton", "OK", frame=Frame(195, 453, 135, 44)),
        Element("AXKeyboard", frame=Frame(0, 553, 390, 291)),
    )
)


async def no_sleep(seconds: float) -> None:
    assert 0 <= seconds <= max(RecoveryMachine.LADDER.values())


class StubbornDevice:
    """A device whose screen never changes and whose app always runs: the worst case."""

    def __init__(self, observation: Observation = EVERYTHING, running: bool = True) -> None:
        self.observation = observation
        self.running = running
        self.calls: list[str] = []

    async def observe(self) -> Observation:
        self.calls.append("observe")
        return self.observation

    async def perform(self, action) -> ActionResult:
        self.calls.append(action.kind)
        return ActionResult()

    async def launch(self, bundle_id: str) -> None:
        self.calls.append("launch")

    async def terminate(self, bundle_id: str) -> None:
        self.calls.append("terminate")

    async def is_running(self, bundle_id: str) -> bool:
        self.calls.append("is_running")
        return self.running


def detection(kind: str) -> Detection:
    action = Tap(195, 700) if kind in ("stuck", "keyboard") else None
    return Detection(kind, (), "", action)


VERDICTS = ("cleared", "persists", "stalled", "running", "not_running", "error.execution")


class RecoveryRules(RuleBasedStateMachine):
    """Drive the machine with any verdict in any order, as a recorded event stream would."""

    def __init__(self) -> None:
        super().__init__()
        self.machine: RecoveryMachine | None = None
        self.events = 0

    def send(self, event: str) -> None:
        """Outside an event loop the machine runs its async callbacks on a loop of its own."""
        extra = {"error": RuntimeError("device gone")} if event == "error.execution" else {}
        self.machine.send(event, **extra)

    @initialize(kind=st.sampled_from(FAULT_KINDS))
    def start(self, kind: str) -> None:
        self.machine = RecoveryMachine(
            detection(kind),
            device=StubbornDevice(),
            observation=EVERYTHING,
            scenario=SCENARIO,
            sleep=no_sleep,
        )
        self.machine.activate_initial_state()
        self.send(kind)
        self.events = 1

    @rule(event=st.sampled_from(VERDICTS))
    def verdict(self, event: str) -> None:
        if not self.machine.is_terminated:
            self.events += 1
        self.send(event)

    @rule()
    def worst_case_from_here(self) -> None:
        """From wherever we are, a fault that never clears still ends within the bound."""
        sent = 0
        while not self.machine.is_terminated:
            allowed = {str(e) for e in self.machine.allowed_events}
            event = next(e for e in ("persists", "running", "stalled") if e in allowed)
            self.send(event)
            sent += 1
            assert self.events + sent <= RecoveryMachine.max_events()
        assert self.machine.state in ("resolved", "failed")

    @invariant()
    def budgets_never_exceed_the_table(self) -> None:
        if self.machine is None:
            return
        for state, count in self.machine.attempts.items():
            assert count <= self.machine.limit(state), (state, count)
        assert self.machine.limit("dismissing_alert") == RecoveryMachine.RETRIES["tap"]
        assert self.machine.limit("logging_in") == RecoveryMachine.RETRIES["text"]
        assert self.machine.limit("restarting") == RecoveryMachine.RETRIES["launch"]

    @invariant()
    def a_final_state_has_its_verdict(self) -> None:
        if self.machine is not None and self.machine.is_terminated:
            outcome = self.machine.outcome()
            assert outcome.resolved == (self.machine.state == "resolved")
            assert (outcome.error is None) == outcome.resolved


TestRecoveryRules = RecoveryRules.TestCase
TestRecoveryRules.settings = settings(max_examples=60, stateful_step_count=20, deadline=None)


@pytest.mark.parametrize("kind", FAULT_KINDS)
async def test_a_fault_that_never_clears_fails_within_its_budget(kind):
    device = StubbornDevice()
    outcome = await recover(
        detection(kind), device=device, observation=EVERYTHING, scenario=SCENARIO, sleep=no_sleep
    )
    assert isinstance(outcome, RecoveryOutcome)
    if kind == "empty_dump":  # the stubborn screen has elements: the re-dump clears it
        assert outcome.resolved
        return
    if kind in ("crash", "stuck", "loading"):  # a restart ends with a running app on screen
        assert outcome.restarted
    taps = device.calls.count("tap")
    assert device.calls.count("launch") <= RecoveryMachine.RETRIES["launch"]
    assert taps <= RecoveryMachine.RETRIES["tap"] * 2  # a remedy's own taps, plus a go-back
    assert len(outcome.path) <= RecoveryMachine.max_events()
    if kind in ("alert", "permission", "network", "keyboard"):
        assert not outcome.resolved and outcome.path[-1][2] == "failed"
        assert outcome.retries == RecoveryMachine.RETRIES["tap"] - 1
    if kind == "login":
        assert device.calls.count("type_text") == 2 * RecoveryMachine.RETRIES["text"]


async def test_a_crashed_app_that_never_comes_back_uses_the_launch_budget():
    gone = Observation((), app_running=False)
    device = StubbornDevice(gone, running=False)
    outcome = await recover(
        classify(gone), device=device, observation=gone, scenario=SCENARIO, sleep=no_sleep
    )
    assert not outcome.resolved
    assert device.calls.count("launch") == RecoveryMachine.RETRIES["launch"]
    assert outcome.crashes == RecoveryMachine.RETRIES["launch"]
    # Each relaunch re-dumps up to the dump budget before it gives up.
    assert device.calls.count("observe") == 3 * RecoveryMachine.RETRIES["dump"]


async def test_an_empty_dump_with_the_app_gone_is_a_crash():
    empty = Observation(())
    device = StubbornDevice(EVERYTHING, running=False)
    outcome = await recover(
        classify(empty), device=device, observation=empty, scenario=SCENARIO, sleep=no_sleep
    )
    assert outcome.resolved and outcome.crashes == 1
    assert [p[2] for p in outcome.path] == ["checking_app", "relaunching", "resolved"]


async def test_a_device_error_ends_the_recovery_as_failed_with_its_text():
    class Broken(StubbornDevice):
        async def perform(self, action):
            raise ConnectionError("companion went away")

    outcome = await recover(
        detection("alert"),
        device=Broken(),
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert not outcome.resolved
    assert outcome.error == "companion went away"
    assert outcome.path[-1] == ("dismissing_alert", "error.execution", "failed")


async def test_a_hung_device_times_out_on_the_ladder(monkeypatch):
    monkeypatch.setitem(RecoveryMachine.LADDER, "dump", 0.05)

    class Hung(StubbornDevice):
        async def observe(self):
            await asyncio.sleep(10)

    outcome = await recover(
        detection("alert"),
        device=Hung(),
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert not outcome.resolved and outcome.error == "the device did not answer in time"


async def test_a_retyped_text_clears_the_field_first():
    outcome = await recover(
        Detection("stuck", action=TypeText("hello")),
        device=StubbornDevice(),
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    kinds = [a.kind for a in outcome.actions]
    # The focused field holds "x": one backspace, then the text; twice (text budget 2).
    assert kinds[:4] == ["press_key", "type_text", "press_key", "type_text"]


def test_the_diagrams_doc_is_generated_from_the_code():
    path = Path(__file__).parent.parent / "docs" / "machines.md"
    assert path.read_text(encoding="utf-8") == diagrams(), (
        "docs/machines.md is stale: regenerate it with "
        "python -c 'import orav.machines as m; print(m.diagrams(), end=\"\")' > docs/machines.md"
    )


def test_every_machine_gets_a_mermaid_block():
    text = diagrams()
    names = [cls.__name__ for cls in machine_classes()]
    assert "RecoveryMachine" in names and "RunMachine" in names
    assert text.count("```mermaid") == len(names)
    for state in RecoveryMachine.states_map:
        assert f" as {state}" in text
