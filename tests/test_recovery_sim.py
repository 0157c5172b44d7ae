"""End to end: inject each fault into the simulated companion, recover over real gRPC."""

from __future__ import annotations

from contextlib import asynccontextmanager

import pytest

from orav.codec import load_yaml
from orav.drivers.idb import IdbDevice
from orav.machines.attempt import Attempt
from orav.machines.recovery import recover
from orav.model import Credentials, Fault, PressKey, Scenario, Swipe, Tap, Target, TypeText
from orav.perceive import (
    Detection,
    cover_fault,
    covering,
    fault,
    frozen_app,
    interruption,
    no_effect,
    target_element,
)
from orav.sim import SimCompanion
from orav.sim.appmodel import AppModel

APP = """
name: Shop
bundle_id: com.example.shop
start: home
credentials: {username: ann@example.com, password: Secret-1}
screens:
  home:
    title: Shop
    elements:
      - {role: AXStaticText, id: intro, label: Today's picks, frame: [20, 100, 350, 40]}
      - {role: AXTextField, id: search, label: Search, placeholder: Search, frame: [20, 150, 350, 44]}
      - {role: AXButton, id: open, label: Open cart, frame: [20, 220, 350, 50],
         on_tap: [{to: cart}]}
      - {role: AXButton, id: checkout, label: Checkout, frame: [20, 700, 350, 50],
         on_tap: [{to: cart}]}
  cart:
    title: Cart
    elements:
      - {role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{to: back}]}
      - {role: AXStaticText, id: empty, label: Your cart is empty, frame: [20, 110, 350, 40]}
"""
SCENARIO = Scenario(
    name="shop",
    app="com.example.shop",
    goal="open the cart",
    credentials=Credentials("ann@example.com", "Secret-1"),
)
NOWAIT = []


async def no_sleep(seconds: float) -> None:
    NOWAIT.append(seconds)


@asynccontextmanager
async def shop(*faults: Fault):
    model = load_yaml(APP, AppModel)
    async with (
        SimCompanion(model, faults=faults) as sim,
        IdbDevice.connect(sim.address, bundle_id=model.bundle_id) as device,
    ):
        await device.launch(model.bundle_id)
        yield sim, device


def detect(seen, before):
    """What recovery is called for here: a fault, or the interruption (these tests ask for
    the remedy, as an action it blocks or the agent's ``recover`` would)."""
    return fault(seen) or interruption(seen, before)


def element(observation, uid: str):
    return target_element(observation, Target(id=uid))


async def fault_after_one_tap(device) -> tuple:
    """Tap the inert intro label (input 1, which fires ``at_step=1`` faults) and look."""
    before = await device.observe()
    await device.perform(Tap(target=Target(id="intro")))
    after = await device.observe()
    return before, after


async def run(detection: Detection, device, observation, scenario=SCENARIO):
    transitions, actions = [], []
    outcome = await recover(
        detection,
        device=device,
        observation=observation,
        scenario=scenario,
        sleep=no_sleep,
        on_transition=lambda *t: transitions.append(t),
        on_action=lambda action, result: actions.append((action, result)),
    )
    assert [t[1:] for t in transitions] == list(outcome.path)
    assert [a for a, _ in actions] == list(outcome.actions)
    assert all(r.ok for _, r in actions)
    return outcome


async def test_an_unexpected_alert_is_dismissed_with_its_declining_answer():
    async with shop(Fault("alert", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "alert"
        outcome = await run(detection, device, seen)
        assert outcome.resolved and outcome.error is None
        # Cancel / OK: beside another answer OK may be the confirmation, so never OK
        assert outcome.actions == (Tap(target=Target(label="Cancel")),)
        assert outcome.path[-1] == ("dismissing_alert", "cleared", "resolved")
        assert detect(outcome.observation, seen) is None


@pytest.mark.parametrize("answer", ["allow", "deny"])
async def test_a_permission_dialog_is_answered_as_the_scenario_says(answer):
    async with shop(Fault("permission", at_step=1)) as (sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "permission"
        scenario = Scenario("shop", "com.example.shop", "g", permissions=answer)
        outcome = await run(detection, device, seen, scenario)
        assert outcome.resolved
        label = "Allow" if answer == "allow" else "Don't Allow"
        assert outcome.actions == (Tap(target=Target(label=label)),)
        assert list(sim.state.permissions.values()) == [answer == "allow"]


async def test_a_crash_is_relaunched_and_counted():
    async with shop(Fault("crash", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        assert not seen.app_running
        detection = detect(seen, before)
        assert detection.kind == "crash"
        outcome = await run(detection, device, seen)
        assert outcome.resolved and outcome.crashes == 1 and outcome.restarted
        assert [a.kind for a in outcome.actions] == ["launch"]
        assert Attempt.CRASH_WAIT in NOWAIT
        assert element(outcome.observation, "open") is not None


async def test_a_short_empty_dump_is_waited_out_without_a_restart():
    async with shop(Fault("empty_dump", at_step=1, duration=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "empty_dump"
        outcome = await run(detection, device, seen)
        assert outcome.resolved and not outcome.restarted and outcome.actions == ()
        assert [p[2] for p in outcome.path] == ["checking_app", "reloading_dump", "resolved"]


async def test_an_empty_dump_that_lasts_forces_a_restart():
    async with shop(Fault("empty_dump", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        outcome = await run(detect(seen, before), device, seen)
        assert outcome.resolved and outcome.restarted and outcome.crashes == 0
        assert [a.kind for a in outcome.actions] == ["terminate", "launch"]
        assert ("reloading_dump", "persists", "restarting") in outcome.path


async def test_a_stuck_spinner_is_pulled_to_refresh_after_five_unchanged_seconds():
    async with shop(Fault("loading", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "loading"
        outcome = await run(detection, device, seen)
        assert outcome.resolved
        assert len(outcome.actions) == 1 and isinstance(outcome.actions[0], Swipe)
        assert outcome.actions[0].end.y > outcome.actions[0].start.y  # downwards
        waits = [p for p in outcome.path if p[0] == "waiting_loading"]
        assert waits[-1] == ("waiting_loading", "stalled", "refreshing")
        assert len(waits) == 3  # 2 s + 2 s + 2 s >= 5 s unchanged


async def test_a_network_error_is_retried_after_two_seconds():
    async with shop(Fault("network", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "network"
        NOWAIT.clear()
        outcome = await run(detection, device, seen)
        assert outcome.resolved
        assert outcome.actions == (Tap(target=Target(label="Retry", id="retry")),)
        assert NOWAIT[0] == Attempt.LADDER["network"]


async def test_a_login_wall_is_passed_with_the_scenario_credentials():
    async with shop(Fault("login", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        detection = detect(seen, before)
        assert detection.kind == "login"
        outcome = await run(detection, device, seen)
        assert outcome.resolved
        typed = [a for a in outcome.actions if isinstance(a, TypeText)]
        assert typed == [TypeText("ann@example.com"), TypeText("Secret-1", secure=True)]
        assert element(outcome.observation, "open") is not None


async def test_a_login_wall_without_credentials_fails_with_a_reason():
    async with shop(Fault("login", at_step=1)) as (_sim, device):
        before, seen = await fault_after_one_tap(device)
        scenario = Scenario("shop", "com.example.shop", "g")
        outcome = await run(detect(seen, before), device, seen, scenario)
        assert not outcome.resolved
        assert "no credentials" in outcome.error
        assert outcome.path[-1] == ("logging_in", "error.execution", "failed")


async def test_a_keyboard_over_the_target_is_dismissed():
    async with shop() as (_sim, device):
        await device.perform(Tap(target=Target(id="search")))
        seen = await device.observe()
        blocked = Tap(target=Target(id="checkout"))
        assert covering(seen, blocked) is not None
        detection = cover_fault(seen, blocked)
        assert detection.kind == "keyboard"
        outcome = await run(detection, device, seen)
        assert outcome.resolved
        assert outcome.actions[0] == PressKey("escape")
        assert covering(outcome.observation, blocked) is None


async def test_dropped_taps_are_retried_nudged_by_ten_points():
    async with shop(Fault("frozen", at_step=1, duration=2)) as (_sim, device):
        _, before = await fault_after_one_tap(device)  # input 1 freezes the app
        tap = Tap(target=Target(id="open"))
        await device.perform(tap)  # swallowed (input 2)
        after = await device.observe()
        assert after.elements == before.elements
        outcome = await run(no_effect(tap), device, after)
        assert outcome.resolved and not outcome.restarted
        centre = element(before, "open").frame.center
        assert outcome.actions == (
            Tap(centre.x + 10, centre.y, tap.target),  # swallowed (input 3)
            Tap(centre.x - 10, centre.y, tap.target),
        )
        assert element(outcome.observation, "empty") is not None


async def test_a_tap_that_stays_dropped_is_handed_back_without_a_restart():
    async with shop(Fault("frozen", at_step=1)) as (sim, device):
        await fault_after_one_tap(device)
        tap = Tap(target=Target(id="open"))
        await device.perform(tap)
        outcome = await run(no_effect(tap), device, await device.observe())
        assert [a.kind for a in outcome.actions] == ["tap"] * Attempt.RETRIES["tap"]
        assert outcome.handed_back and not outcome.resolved and not outcome.restarted
        assert outcome.error is None
        assert sim.state.running  # the remedies were taps only: still the same run of the app


async def test_a_frozen_app_goes_back_scrolls_and_restarts():
    async with shop(Fault("frozen", at_step=1)) as (_sim, device):
        _, before = await fault_after_one_tap(device)
        seen = await device.observe()
        outcome = await run(frozen_app(Tap(target=Target(id="open")), 3), device, seen)
        kinds = [a.kind for a in outcome.actions]
        assert kinds == ["swipe", "swipe", "terminate", "launch"]
        assert outcome.resolved and outcome.restarted
        assert [p[2] for p in outcome.path] == ["going_back", "scrolling", "restarting", "resolved"]
        assert element(before, "open") is not None
