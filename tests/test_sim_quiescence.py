"""The simulator models time: what an input moves animates for the modelled time, observers
see the old screen meanwhile, and idb's quiescence stream (through the real fb-idb client over
real gRPC) says BUSY / SETTLING until it ends, QUIET at once when nothing animates. The engine
that settles by quiescence never sees a screen in flux; one that waits a fixed time too short
does."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st
from idb.common.types import (
    AccessibilityInfoOptions,
    QuiescenceState,
    QuiescenceStateChanged,
    QuiescenceTargetExited,
    QuiescenceTouchesCompleted,
    TCPAddress,
)
from idb.grpc.client import Client

from orav.agents.scripted import ScriptedAgent
from orav.drivers.idb import IdbDevice
from orav.engine import Engine
from orav.errors import InputError
from orav.model import Decision, Done, Fault, Frame, Scenario, Tap, Target
from orav.sim import SimCompanion, load_app_model
from orav.sim.motion import Motion
from orav.sim.view import Node, View

BUNDLE = "com.example.anim"
APP = f"""
name: Anim
bundle_id: {BUNDLE}
start: home
animation_ms: 300
screens:
  home:
    title: Home
    elements:
      - {{role: AXButton, id: open, label: Open, frame: [20, 200, 350, 50], on_tap: [{{to: details}}]}}
      - {{role: AXButton, id: quick, label: Quick, frame: [20, 260, 350, 50],
         on_tap: [{{to: details, animation_ms: 100}}]}}
      - {{role: AXSwitch, id: wifi, label: Wi-Fi, value: "0", frame: [20, 320, 350, 50],
         on_tap: [{{toggle: wifi}}]}}
      - {{role: AXTextField, id: name, label: Name, frame: [20, 380, 350, 44]}}
      - {{role: AXButton, id: ask, label: Ask, frame: [20, 440, 350, 50],
         on_tap: [{{alert: {{title: Sure?, buttons: [{{label: OK}}]}}}}]}}
      - {{role: AXButton, id: slow, label: Slow, frame: [20, 500, 350, 50], on_tap: [{{to: slow}}]}}
  details:
    title: Details
    elements:
      - {{role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{{to: back}}]}}
      - {{role: AXStaticText, id: text, label: The details, frame: [20, 120, 350, 40]}}
  slow:
    title: Slow
    animation_ms: 600
    elements:
      - {{role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{{to: back}}]}}
"""
CENTRES = {"open": (195, 225), "quick": (195, 285), "wifi": (195, 345), "name": (195, 402)}
CENTRES |= {"ask": (195, 465), "slow": (195, 525)}


@asynccontextmanager
async def companion(**options) -> AsyncIterator[tuple[SimCompanion, Client]]:
    async with SimCompanion(load_app_model(APP), **options) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("test")) as client:
            yield sim, client


async def states_until_quiet(client: Client, limit: float = 3.0, **options) -> list[tuple]:
    """The stream's events as (seconds since opened, event) up to QUIET or the target's exit."""
    start = time.monotonic()
    seen = []
    events = client.accessibility_quiescence(bundle_id=BUNDLE, **options)
    try:
        async for event in events:
            seen.append((time.monotonic() - start, event))
            if isinstance(event, QuiescenceTargetExited) or (
                isinstance(event, QuiescenceStateChanged) and event.state is QuiescenceState.QUIET
            ):
                return seen
            assert time.monotonic() - start < limit, seen
    finally:
        await events.aclose()
    raise AssertionError(f"the stream ended without QUIET: {seen}")


def states(seen: list[tuple]) -> list[str]:
    return [e.state.value for _, e in seen if isinstance(e, QuiescenceStateChanged)]


async def title(client: Client) -> str:
    tree = json.loads((await client.accessibility_info(None, AccessibilityInfoOptions())).json)
    return next(e["AXLabel"] for e in tree if e["role"] == "AXHeading")


async def test_nothing_animating_is_quiet_at_once():
    async with companion() as (_sim, client):
        seen = await states_until_quiet(client)
        assert states(seen) == ["quiet"]
        assert seen[0][0] < 0.2


async def test_a_push_is_busy_for_its_animation_then_quiet_and_the_old_screen_shows_meanwhile():
    async with companion() as (sim, client):
        tapped = time.monotonic()
        await client.tap(*CENTRES["open"])
        assert await title(client) == "Home"  # in flux: the screen as it was
        seen = await states_until_quiet(client)
        quiet_after = time.monotonic() - tapped
        *settling, then, last = states(seen)  # settling for the busy threshold's 50 ms
        assert set(settling) <= {"settling"} and (then, last) == ("busy", "quiet")
        busy = next(e for _, e in seen if e.state is QuiescenceState.BUSY)
        assert busy.busy_signals == ("animations_inactive",)
        assert 0.3 <= quiet_after < 2.0  # never before the modelled 300 ms
        assert await title(client) == "Details"
        assert sim.state.motion.flux_reads == 1


async def test_a_value_that_changes_in_place_does_not_animate():
    async with companion() as (sim, client):
        await client.tap(*CENTRES["wifi"])
        seen = await states_until_quiet(client)
        assert states(seen) == ["quiet"] and seen[-1][0] < 0.2
        assert sim.state.values["wifi"] == "1"


@pytest.mark.parametrize(
    ("button", "at_least"),
    [("quick", 0.1), ("slow", 0.6), ("ask", 0.3), ("name", 0.3)],
    ids=["transition", "screen", "alert", "keyboard"],
)
async def test_the_time_is_the_transitions_else_the_screens_else_the_apps(button, at_least):
    async with companion() as (_sim, client):
        tapped = time.monotonic()
        await client.tap(*CENTRES[button])
        await states_until_quiet(client)
        assert at_least <= time.monotonic() - tapped < at_least + 1.5


async def test_the_companions_animation_time_replaces_the_apps_default():
    async with companion(animation_ms=0) as (_sim, client):
        await client.tap(*CENTRES["open"])
        assert await title(client) == "Details"
        assert states(await states_until_quiet(client)) == ["quiet"]


async def test_busy_threshold_and_quiet_window_are_honoured():
    async with companion() as (_sim, client):
        tapped = time.monotonic()
        await client.tap(*CENTRES["open"])
        seen = await states_until_quiet(client, busy_threshold_ms=1000, quiet_window_ms=200)
        assert states(seen) == ["settling", "quiet"]  # never unanswered for a whole second
        assert time.monotonic() - tapped >= 0.5  # 300 ms of animation, then a 200 ms window


async def test_touches_completed_is_reported_and_an_exit_ends_the_stream():
    async with companion() as (sim, client):
        events = client.accessibility_quiescence(bundle_id=BUNDLE)
        try:
            first = await anext(events)
            assert first.state is QuiescenceState.QUIET
            await client.tap(*CENTRES["wifi"])
            assert isinstance(await anext(events), QuiescenceTouchesCompleted)
            await client.terminate(BUNDLE)
            assert isinstance(await anext(events), QuiescenceTargetExited)
        finally:
            await events.aclose()
        assert not sim.state.running


async def test_a_spinner_keeps_the_app_busy_until_it_stops():
    async with companion(faults=[Fault("loading", at_step=1, duration=2)]) as (_sim, client):
        await client.tap(*CENTRES["wifi"])  # the spinner comes up after this input
        events = client.accessibility_quiescence(bundle_id=BUNDLE)
        try:
            first = await anext(events)
            if first.state is QuiescenceState.SETTLING:  # the spinner turned under 50 ms yet
                first = await anext(events)
            assert first.state is QuiescenceState.BUSY
            options = AccessibilityInfoOptions()
            await client.accessibility_info(None, options)
            await client.accessibility_info(None, options)  # the second look clears it
            assert (await anext(events)).state is QuiescenceState.QUIET
        finally:
            await events.aclose()


def script_scenario(**changes) -> Scenario:
    script = (
        Decision(Tap(target=Target(id="open")), expected_outcome="the details show"),
        Decision(Tap(target=Target(id="back")), expected_outcome="home again"),
        Decision(Done()),
    )
    return Scenario("anim", BUNDLE, "open the details and go back", script=script, **changes)


async def run_engine(**changes):
    """Run the script live on the animating app: the companion, the report, and what each
    of the device's settles answered."""
    settles = []
    async with (
        SimCompanion(load_app_model(APP)) as sim,
        IdbDevice.connect(sim.address, bundle_id=BUNDLE) as device,
    ):
        settle = device.settle

        async def noted(limit: float):
            settles.append(await settle(limit))
            return settles[-1]

        device.settle = noted
        report = await Engine(device, ScriptedAgent()).run(script_scenario(max_steps=4, **changes))
        return sim, report, settles


async def test_the_engine_settling_by_quiescence_never_sees_the_screen_in_flux():
    sim, report, settles = await run_engine()
    assert report.status == "passed", report
    assert sim.state.motion.flux_reads == 0
    assert len(settles) == 2 and all(s.source == "quiescence" and s.quiet for s in settles)
    assert all(0.2 <= s.waited < 2.0 for s in settles), settles  # it waited for the animations


async def test_a_fixed_wait_too_short_sees_the_screen_in_flux():
    sim, _report, settles = await run_engine(settle_seconds=0.05)
    assert settles == []  # a fixed wait asks nobody
    assert sim.state.motion.flux_reads > 0


def test_an_animation_time_out_of_range_is_refused_where_it_is_written():
    bad = APP.replace("animation_ms: 600", "animation_ms: -5")
    with pytest.raises(InputError, match=r"<app model>:\d+:\d+: animation_ms must be 0 to 10000"):
        load_app_model(bad)
    with pytest.raises(InputError, match="--animation-ms"):
        SimCompanion(load_app_model(APP), animation_ms=20_000)


class Ticker:
    """Monotonic seconds that move only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


EVENTS = st.lists(
    st.one_of(
        st.tuples(st.just("wait"), st.floats(0, 0.5)),
        st.tuples(st.just("input"), st.booleans(), st.integers(0, 400)),
        st.tuples(st.just("spinner"), st.booleans()),
    ),
    max_size=30,
)


@given(EVENTS, st.integers(0, 200), st.integers(0, 200))
def test_quiet_never_before_the_modelled_end_and_the_old_screen_until_then(
    events, threshold_ms, window_ms
):
    ticker = Ticker()
    motion = Motion(ticker)
    old, new = View(Node("AXApplication", "old", Frame(0, 0, 1, 1)), "9:41"), object()
    due = -1.0  # the latest end of an animation an input asked for
    spinning = False
    for event in events:
        if event[0] == "wait":
            ticker.now += event[1]
        elif event[0] == "input":
            moved, ms = event[1], event[2]
            shown = motion.before(lambda: old)
            motion.after("a", "b" if moved else "a", shown, ms)
            if moved and ms:
                due = max(due, ticker.now + ms / 1000)
        else:
            spinning = event[1]
            motion.spinner(spinning)
        moment = motion.moment(threshold_ms, window_ms)
        quiet = moment.state == "quiet"
        assert quiet == (not spinning and ticker.now >= max(due, motion.end) + window_ms / 1000)
        assert not (quiet and ticker.now < due)  # QUIET only after the modelled time
        assert moment.until > ticker.now
        in_flux = ticker.now < due
        assert (motion.seen(new) is old) == in_flux  # the old screen exactly while in flux


async def test_a_route_in_the_running_app_animates_as_an_input_does():
    routed = APP.replace(
        "start: home\n", 'start: home\nroutes: {"anim://details": [{to: details}]}\n'
    )
    async with SimCompanion(load_app_model(routed)) as sim:
        host, port = sim.address.split(":")
        address = TCPAddress(host=host, port=int(port))
        async with Client.build(address=address, logger=logging.getLogger("test")) as client:
            opened = time.monotonic()
            await client.open_url("anim://details")
            assert await title(client) == "Home"
            await states_until_quiet(client)
            assert time.monotonic() - opened >= 0.3
            assert await title(client) == "Details"
