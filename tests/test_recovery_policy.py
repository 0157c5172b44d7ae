"""Recovery serves the test (issue 9), through the whole engine on the real simulator over real
gRPC (fb-idb client): an idempotent tap is *no effect*, not a restart; a retried ``type_text``
keeps what earlier steps typed; a dialog the test answers is the test's; and the engine, the
keyboard check and the remedies resolve a target to the same element.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.agents.scripted import ScriptedAgent
from orav.codec import load_yaml
from orav.drivers.idb import IdbDevice
from orav.engine import Engine, _Run
from orav.machines.aim import nudged
from orav.model import (
    Assert,
    Decision,
    Done,
    Element,
    Fault,
    Frame,
    Observation,
    Recover,
    RunReport,
    Scenario,
    Tap,
    Target,
    TypeText,
)
from orav.perceive import cover_fault, covering, resolve, target_element
from orav.perceive.assertions import check
from orav.perceive.targets import tap_on
from orav.sim import SimCompanion
from orav.sim.appmodel import AppModel
from orav.testing import VirtualClock

# The shop with tabs, an alert and an action sheet (its own file: tests/apps/tabs.yaml).
APP = (Path(__file__).parent / "apps" / "tabs.yaml").read_text()
BUNDLE = "com.example.tabs"


class Watching(ScriptedAgent):
    """The scenario's script, keeping what the agent was shown at each step."""

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[AgentContext] = []

    async def decide(self, context: AgentContext) -> Decision:
        self.contexts.append(context)
        return await super().decide(context)


class Counting:
    """The device as it is, counting the launches and terminations it is asked for."""

    def __init__(self, device: IdbDevice) -> None:
        self.device = device
        self.lifecycle: list[str] = []

    async def launch(self, bundle_id: str) -> None:
        self.lifecycle.append("launch")
        await self.device.launch(bundle_id)

    async def terminate(self, bundle_id: str) -> None:
        self.lifecycle.append("terminate")
        await self.device.terminate(bundle_id)

    def __getattr__(self, name: str):
        return getattr(self.device, name)


async def run(
    actions: list, criteria: tuple[Assert, ...], *faults: Fault
) -> tuple[RunReport, Watching, list[str]]:
    """The script ``actions`` then ``done``, live on the simulator; the report, the agent, and
    the launches and terminations the run asked of the device."""
    script = tuple(Decision(a, expected_outcome="") for a in actions)
    scenario = Scenario(
        name="policy",
        app=BUNDLE,
        goal="g",
        script=(*script, Decision(Done(summary="done"))),
        success_criteria=criteria,
        settle_seconds=0.05,
        max_steps=20,
    )
    agent = Watching()
    async with (
        SimCompanion(load_yaml(APP, AppModel), faults=faults) as sim,
        IdbDevice.connect(sim.address, bundle_id=BUNDLE) as device,
    ):
        counting = Counting(device)
        report = await Engine(counting, agent, clock=VirtualClock()).run(scenario)
        return report, agent, counting.lifecycle


def recoveries(report: RunReport) -> list[str]:
    return [
        t.event for t in report.transitions if t.machine == "recovery" and t.source == "detected"
    ]


async def test_idempotent_taps_are_no_effect_not_a_restart():
    """Tapping the tab you are on and plain text change nothing: each is retried, handed back
    to the agent as "no effect", and the run goes on: no restart, no error in the report."""
    report, agent, log = await run(
        [
            Tap(target=Target(id="tab_home")),  # the selected tab at its root
            Tap(target=Target(id="intro")),  # plain text
            Tap(target=Target(id="item")),
        ],
        (Assert(Target(id="back")),),
    )
    assert report.status == "passed", report
    assert report.errors == ()
    assert recoveries(report) == ["no_effect", "no_effect"]
    assert log == ["launch"]  # the run's own launch only
    assert not any(t.target in ("restarting", "relaunching") for t in report.transitions)
    assert report.crashes_recovered == 0
    shown = [c.last_verification.note for c in agent.contexts[1:3]]
    assert all(note.startswith("no effect:") for note in shown), shown
    assert "tab_home" in shown[0] and "intro" in shown[1]
    assert agent.contexts[1].history[0].verification.input_dropped


async def test_a_retried_type_text_keeps_what_earlier_steps_typed():
    """'Ada ' then 'Lovelace' (dropped once, retried) ends as 'Ada Lovelace': the retry types
    its own text again and erases nothing."""
    report, _agent, _log = await run(
        [Tap(target=Target(id="name")), TypeText("Ada "), TypeText("Lovelace")],
        (Assert(Target(id="name"), "value_equals", "Ada Lovelace"),),
        Fault("frozen", at_step=2, duration=1),  # input 3, "Lovelace", is swallowed
    )
    assert recoveries(report) == ["no_effect"]
    assert report.status == "passed", report
    assert report.goals_achieved == ("#name has value 'Ada Lovelace'",)


async def test_a_confirmation_dialog_the_test_answers_is_the_tests():
    """The app's own "Delete all items?" alert, opened and answered by the script: no
    remedy runs, whichever answer the test gives."""
    for answer, shown in (("confirm", "emptied"), ("cancel", "status")):
        report, _agent, _log = await run(
            [
                Tap(target=Target(id="tab_cart")),
                Tap(target=Target(id="clear")),
                Tap(target=Target(id=answer)),
            ],
            (Assert(Target(id=shown)),),
        )
        assert report.status == "passed", (answer, report)
        assert recoveries(report) == [] and report.errors == ()


# --- one target rule: the engine, the keyboard check and the remedies agree ----------------

KEYBOARD = Element("AXKeyboard", frame=Frame(0, 553, 390, 291))


def screen(order: tuple[Element, ...]) -> Observation:
    return Observation(
        (Element("AXApplication", "Shop", frame=Frame(0, 0, 390, 844)), *order, KEYBOARD),
        app="com.example.shop",
    )


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 5),
    st.sampled_from(["AXHeading", "AXStaticText"]),
    st.floats(60, 480),
    st.floats(560, 780),
    st.booleans(),
)
def test_the_engine_the_keyboard_check_and_the_remedies_resolve_the_same_element(
    order, text_role, heading_y, button_y, with_id
):
    """A heading and a button share the label "Sign in"; the button is under the keyboard.
    Whatever the tree order, every consumer of a target means the button."""
    heading = Element(text_role, "Sign in", frame=Frame(0, heading_y, 390, 44), traits=("header",))
    button = Element(
        "AXButton", "Sign in", "sign_in" if with_id else None, frame=Frame(20, button_y, 350, 50)
    )
    other = Element("AXStaticText", "Welcome", frame=Frame(20, 500, 350, 20))
    tree = list(itertools.permutations((heading, button, other)))[order]
    seen = screen(tree)
    tap = Tap(target=Target(label="Sign in"))

    assert target_element(seen, tap.target) == button  # the rule
    centre = button.frame.center
    assert resolve(tap, seen) == evolve(tap, x=centre.x, y=centre.y)  # the engine's tap
    assert check(Assert(tap.target), seen)  # the engine's assertion finds it
    assert covering(seen, tap) is not None  # the keyboard check looks at the button
    assert cover_fault(seen, tap).kind == "keyboard"
    # a retry aims at the button too, and never moves onto the keyboard covering it
    assert nudged(tap, seen, 10, 0) == Tap(centre.x, centre.y, tap.target)
    again = tap_on(button)  # a remedy's tap on it names it back
    assert target_element(seen, again.target) == button

    engine = Engine(device=None, agent=ScriptedAgent())  # the engine's own decision
    decision = _Run(engine, Scenario("s", "com.example.shop", "g"))
    decision.observation, decision.interruption = seen, None
    assert decision.blocked(tap).kind == "keyboard"


async def test_a_script_that_asks_to_recover_dismisses_the_alert_and_goes_on():
    report, agent, _log = await run(
        [Tap(target=Target(id="name")), Recover(), Tap(target=Target(id="item"))],
        (Assert(Target(id="back")),),
        Fault("alert", at_step=1),  # after the tap on the field: Cancel / OK
    )
    assert agent.contexts[1].interruption.kind == "alert"  # shown to the agent, not recovered
    assert recoveries(report) == ["alert"]
    assert report.status == "completed_with_errors" and report.goal_met, report  # recovered
    assert all(e.resolved for e in report.errors)


async def test_a_disabled_switch_among_idempotent_taps_is_no_frozen_app():
    report, _agent, log = await run(
        [
            Tap(target=Target(id="sync")),  # disabled: rightly nothing
            Tap(target=Target(id="refresh")),  # idempotent
            Tap(target=Target(id="intro")),  # plain text
            Tap(target=Target(id="item")),
        ],
        (Assert(Target(id="back")),),
    )
    assert "frozen" not in recoveries(report)
    assert log == ["launch"] and report.status == "passed", report


async def test_a_recover_step_counts_against_the_step_limit():
    script = (Tap(target=Target(id="name")), Recover(), Tap(target=Target(id="item")))
    scenario = Scenario(
        "policy",
        BUNDLE,
        "g",
        script=(*(Decision(a) for a in script), Decision(Done())),
        settle_seconds=0.05,
        max_steps=2,
    )
    async with (
        SimCompanion(load_yaml(APP, AppModel), faults=[Fault("alert", at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id=BUNDLE) as device,
    ):
        report = await Engine(device, Watching(), clock=VirtualClock()).run(scenario)
    assert report.status == "step_limit"
    assert report.total_steps == 2, report


@settings(max_examples=60, deadline=None)
@given(
    verb=st.sampled_from(["Cancel", "Close", "Delete", "Log Out", "Keep", "Stop"]),
    thing=st.sampled_from(["payment", "pot", "account", "subscription", "order"]),
    safe=st.booleans(),
)
def test_a_deed_worded_like_a_way_out_is_never_the_alerts_safe_answer(verb, thing, safe):
    """Monzo's "Cancel this payment?" offers "Keep it" and "Cancel payment"; "Close this pot?"
    offers "Close pot". The remedy presses a safe label only when it is the whole label: with
    an object, Cancel and Close are the deed, and with no safe button the recovery fails.
    ("Keep it" is the whole of a declining answer: Monzo's safe one.)"""
    from orav.perceive.words import declining

    deed = Element("AXButton", f"{verb} {thing}", frame=Frame(40, 400, 310, 44))
    buttons = [deed, *([Element("AXButton", "Cancel", frame=Frame(40, 450, 310, 44))] * safe)]
    chosen = declining(buttons)
    assert chosen is not deed
    assert (chosen is not None) == safe
