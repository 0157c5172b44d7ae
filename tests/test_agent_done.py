"""Issue 23, items 1 and 4: a `done` is proven by the success criteria, and an agent going
round in circles is told so; both within budgets on the run machine. The real openai client
over HTTP to a loopback server, the real idb client to orav's simulator; the property test
generates what the model answers."""

from __future__ import annotations

import json

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_server import answer, make_agent, user_text

from orav.agents.function import FunctionAgent
from orav.agents.scripted import ScriptedAgent
from orav.engine import Engine
from orav.machines.run import RunMachine
from orav.model import (
    Assert,
    Decision,
    Done,
    Element,
    Frame,
    Observation,
    PressKey,
    Scenario,
    Tap,
    Target,
    Wait,
)
from orav.scenario_loader import example_scenarios, load_scenario
from orav.testing import FakeDevice, VirtualClock

TAP = {"kind": "tap", "x": None, "y": None, "duration": None}
DONE = answer({"kind": "done", "success": True, "summary": "Signed in."}, None, True)


def _login() -> Scenario:
    login = next(path for path in example_scenarios() if path.stem == "login")
    return attrs.evolve(load_scenario(login), script=(), settle_seconds=0.05)


def _sign_in() -> list[str]:
    return [
        answer(TAP, "e3", expected="The email field has focus"),
        answer({"kind": "type_text", "text": "demo@orav.dev"}, None, True),
        answer(TAP, "e4", True),
        answer({"kind": "type_text", "text": "{{password}}"}, None, True),
        answer(TAP, "e5", True, expected='"Getting started" is listed'),
    ]


async def test_an_early_done_is_told_what_fails_and_the_run_goes_on_to_pass(server, tmp_path):
    from orav.session import record, replay

    server.answer(DONE, *_sign_in(), DONE)
    cassette = tmp_path / "early.cassette"
    recording = await record(_login(), cassette, agent=make_agent(server))
    report = recording.report
    assert report.status == "passed", report.errors
    assert report.errors == () and report.warnings == ()
    assert report.total_steps == 6 and report.failed_actions == 1  # the unproven done
    told = user_text(server.bodies()[1])
    assert "1. [Sign in] done (success);" in told and "result: failed (not proven:" in told
    assert "#settings is visible (instead: no #settings on the last screen)" in told
    assert "#sign_in is absent (instead: it is still there ('Sign in'))" in told
    # the recording goes on where the live run did: its replay is faithful
    outcome = await replay(cassette)
    assert outcome.faithful, outcome.differences


async def test_an_agent_that_always_says_done_ends_with_the_unproven_reason(server, tmp_path):
    from orav.session import record

    server.answer(*[DONE] * 10)
    recording = await record(_login(), tmp_path / "done.cassette", agent=make_agent(server))
    report = recording.report
    assert report.status == "failed"
    assert len(server.bodies()) == RunMachine.UNPROVEN_DONES
    reason = f"said done {RunMachine.UNPROVEN_DONES} times while the success criteria did not hold"
    assert reason in report.errors[-1].error
    assert report.goals_missed and report.goals_found[0] == "no #settings on the last screen"


async def test_a_model_going_round_in_circles_is_told_and_then_stopped(server, tmp_path):
    from orav.session import record

    server.answer(*[answer(TAP, "e3", None, expected="The email field has focus")] * 10)
    recording = await record(_login(), tmp_path / "loop.cassette", agent=make_agent(server))
    report = recording.report
    assert report.status == "aborted"
    assert "the same action (tap #email" in report.errors[-1].error
    assert f"at most {RunMachine.REPEATS} repeats" in report.errors[-1].error
    bodies = server.bodies()
    # step 1 focuses the field (a new screen), steps 2.. tap the focused field: no progress
    assert len(bodies) == 2 + RunMachine.REPEATS
    assert "same action on the same screen as step 2" in user_text(bodies[3])
    assert "same action on the same screen" not in user_text(bodies[2])


async def test_a_scripted_done_ends_the_run_as_before():
    """A script's done is its last word: the criteria missed, the run fails at once."""
    scenario = Scenario(
        name="s",
        app="a",
        goal="g",
        success_criteria=(Assert(Target(id="home")),),
        script=(Decision(Done()),),
    )
    report = await Engine(FakeDevice(LOGIN), ScriptedAgent(), clock=VirtualClock()).run(scenario)
    assert report.status == "failed" and report.total_steps == 0


# --- the planner's navigation case: criteria that hold before anything is done ---------------


async def test_a_done_before_any_action_does_not_pass_on_criteria_that_held_already():
    scenario = Scenario(
        name="lazy",
        app="a",
        goal="visit the settings and come back",
        max_steps=8,
        success_criteria=(Assert(Target(id="sign_in")),),
    )
    seen: list[str] = []

    def decide(context):
        seen.extend(s.result.error or "" for s in context.history[-1:])
        if not context.history:
            return Done(summary="already home")
        if len(context.history) == 1:
            return Tap(target=Target(id="forgot"))
        return Done(summary="went and came back")

    agent = FunctionAgent(decide, reconsiders=True)
    report = await Engine(FakeDevice(LOGIN), agent, clock=VirtualClock()).run(scenario)
    assert report.status == "passed"
    assert "already held before the first action, so they prove nothing" in seen[0]
    held = "every success criterion already held before the first action (#sign_in is visible)"
    assert report.warnings == (f"{held}: a pass proves nothing the run did",)


async def test_the_planner_navigation_warns_that_its_criteria_held_at_the_start():
    from orav.session import replay

    outcome = await replay("recordings/planner/navigation.cassette")
    assert outcome.faithful and outcome.report is not None
    assert outcome.report.warnings and "a pass proves nothing" in outcome.report.warnings[0]


# --- generated answers ---------------------------------------------------------------------------


def _element(role: str, label: str, uid: str, y: float) -> Element:
    return Element(role, label, uid, frame=Frame(20, y, 350, 44))


LOGIN = Observation(
    elements=(
        Element("AXApplication", "App", frame=Frame(0, 0, 390, 844)),
        _element("AXButton", "Sign in", "sign_in", 300),
        _element("AXButton", "Forgot password?", "forgot", 400),
        _element("AXStaticText", "Welcome", "welcome", 100),
    ),
    app="a",
)
HOME = Observation(
    elements=(
        Element("AXApplication", "App", frame=Frame(0, 0, 390, 844)),
        _element("AXButton", "Sign out", "sign_out", 300),
        _element("AXStaticText", "Home", "home", 100),
    ),
    app="a",
)
SCREENS = {"login": LOGIN, "home": HOME}
GOES = {"login": {"sign_in": "home"}, "home": {"sign_out": "login"}}

ANSWERS = st.sampled_from(
    [
        Done(summary="believed"),
        Done(success=False, summary="gave up"),
        Tap(target=Target(id="sign_in")),
        Tap(target=Target(id="sign_out")),
        Tap(target=Target(id="welcome")),
        PressKey(key="escape"),
        Wait(seconds=0.1),
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers=st.lists(ANSWERS, min_size=1, max_size=40), max_steps=st.integers(1, 12))
async def test_generated_answers_never_pass_unproven_and_always_end_within_budgets(
    answers, max_steps
):
    scenario = Scenario(
        name="gen",
        app="a",
        goal="sign in",
        max_steps=max_steps,
        success_criteria=(Assert(Target(id="home")), Assert(Target(id="sign_in"), "absent")),
    )
    script = iter(answers)

    def decide(_context):
        return next(script, Done(success=False, summary="out of answers"))

    device = FakeDevice(SCREENS, goes=GOES)
    report = await Engine(
        device, FunctionAgent(decide, reconsiders=True), clock=VirtualClock()
    ).run(scenario)
    home = device.screen == "home"
    if report.goal_met:
        assert home, "passed on a screen where the criteria do not hold"
    assert report.total_steps <= max_steps
    unproven = sum(
        1 for t in report.transitions if t.event == "unproven" and t.source == "goal_complete"
    )
    assert unproven <= RunMachine.UNPROVEN_DONES
    ended = report.errors[-1].error if report.errors else ""
    if "while the success criteria did not hold" in ended:
        assert report.status == "failed" and unproven == RunMachine.UNPROVEN_DONES
    if "on the same screen" in ended:
        assert report.status == "aborted"
    json.dumps([t.event for t in report.transitions])  # plain data all the way
