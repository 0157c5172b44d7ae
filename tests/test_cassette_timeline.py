"""The timeline reads the facts the engine wrote, not its rules: a recovery sits at the step
its events name, takes over the decision it set aside, and a decision never acted on is the
run's conclusion. Hand-written cassettes, so each rule is seen on its own."""

from __future__ import annotations

from pathlib import Path

from orav.cassette import (
    CassetteWriter,
    DecideEvent,
    Header,
    ObserveEvent,
    PerformEvent,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    StepEvent,
    TransitionEvent,
    VerificationEvent,
)
from orav.model import (
    ActionResult,
    Decision,
    Done,
    Observation,
    Scenario,
    Screenshot,
    Tap,
    Target,
    Verification,
)
from orav.report.audit import recovery_paths
from orav.report.timeline import RecoveryView, StepView, read_run

SCENARIO = Scenario(name="s", app="com.example", goal="g")
TAP = Tap(target=Target(id="next"))
OK = Tap(target=Target(label="OK"))


def screen(n: int) -> Observation:
    return Observation(screenshot=Screenshot.of(bytes([n]) * 8, 4, 4), app="com.example")


def write(path: Path, events: list) -> Path:
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False) as writer:
        for event in events:
            writer.write(event)
    return path


def test_a_set_aside_decision_belongs_to_its_recovery_and_the_done_concludes(tmp_path: Path):
    path = write(
        tmp_path / "run.cassette",
        [
            ObserveEvent(screen(1)),
            StepEvent(1),
            DecideEvent(1, Decision(TAP)),
            RecoveryBeginEvent(1, "alert", "an alert", set_aside=True),
            TransitionEvent("recovery", "detected", "alert", "dismissing", 1),
            PerformEvent(OK, ActionResult()),
            RecoveryEndEvent(1, "alert", (OK,), resolved=True),
            ObserveEvent(screen(2)),
            StepEvent(1),
            DecideEvent(1, Decision(TAP)),
            PerformEvent(TAP, ActionResult()),
            ObserveEvent(screen(3)),
            VerificationEvent(Verification(changed=True)),
            StepEvent(2),
            DecideEvent(2, Decision(Done(summary="there"))),
            TransitionEvent("run", "goal_complete", "checked", "passed", 2),
        ],
    )
    run = read_run(path)
    recovery, step = run.timeline
    assert isinstance(recovery, RecoveryView) and isinstance(step, StepView)
    assert (recovery.step, recovery.fault, recovery.set_aside) == (1, "alert", Decision(TAP))
    assert (recovery.outcome, recovery.shown_remedy, recovery.resolved) == (
        "resolved",
        "tap 'OK'",
        True,
    )
    assert [t.target for t in recovery.transitions] == ["dismissing"]
    assert step.number == 1 and step.before == screen(2).screenshot
    assert step.after == screen(3).screenshot
    assert run.conclusion.done == Done(summary="there") and run.conclusion.state == "passed"
    [path_] = recovery_paths(path)
    assert (path_.step, path_.remedy, path_.transitions) == (
        1,
        (OK,),
        (("detected", "alert", "dismissing"),),
    )


def test_a_no_effect_recovery_is_at_the_step_that_took_the_action(tmp_path: Path):
    path = write(
        tmp_path / "run.cassette",
        [
            ObserveEvent(screen(1)),
            StepEvent(1),
            DecideEvent(1, Decision(TAP)),
            PerformEvent(TAP, ActionResult()),
            ObserveEvent(screen(1)),
            VerificationEvent(Verification(changed=False, input_dropped=True)),
            RecoveryBeginEvent(1, "no_effect"),
            PerformEvent(TAP, ActionResult()),
            RecoveryEndEvent(
                1,
                "no_effect",
                (TAP,),
                handed_back=True,
                reason="no effect: handed back to the agent",
            ),
        ],
    )
    step, recovery = read_run(path).timeline
    assert isinstance(step, StepView) and step.number == 1 and step.actions[0].action == TAP
    assert isinstance(recovery, RecoveryView) and recovery.set_aside is None
    assert (recovery.step, recovery.resolved) == (1, False)
    assert recovery.outcome == "no effect: handed back to the agent"


def test_a_recovery_the_cassette_ends_in_has_no_outcome(tmp_path: Path):
    path = write(
        tmp_path / "run.cassette",
        [ObserveEvent(screen(1)), RecoveryBeginEvent(1, "crash", "the app is gone")],
    )
    (recovery,) = read_run(path).timeline
    assert isinstance(recovery, RecoveryView)
    assert (recovery.outcome, recovery.shown_remedy, recovery.resolved) == ("", "none", False)
    assert recovery.note == "the app is gone"
