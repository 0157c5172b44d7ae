"""Settling after an action: wait for the app, not for a clock, within the ladder's bounds.

A device that can tell (``orav.device.Settling``) is asked once; any other is looked at until two
looks in a row are the same; ``settle_seconds`` is a fixed wait. Every wait and look goes
through the recorded device and clock, so a replay waits the same.
"""

from __future__ import annotations

from pathlib import Path

from orav.agents.scripted import ScriptedAgent
from orav.cassette import (
    CassetteWriter,
    Header,
    RecordingAgent,
    RecordingClock,
    RecordingDevice,
    read_cassette,
)
from orav.engine import Engine
from orav.machines.attempt import Attempt
from orav.model import (
    Action,
    ActionResult,
    Decision,
    Done,
    Element,
    Frame,
    Observation,
    Scenario,
    Settled,
    Tap,
    Target,
)
from orav.session import replay
from orav.testing import FakeDevice, SettlingFakeDevice, VirtualClock

LADDER = Attempt.LADDER


def screen(*labels: str) -> Observation:
    return Observation(
        tuple(
            Element("AXButton", label, label.lower(), frame=Frame(0, 60 * i, 390, 50))
            for i, label in enumerate(labels)
        ),
        app="com.example.app",
    )


def animating_device(frames: int, *, quiet: Settled | None = None) -> FakeDevice:
    """The tap starts a transition that shows ``frames`` intermediate screens, one per look.
    With ``quiet``, the device says when the app is quiet: the transition is over by then."""

    def slide(device: FakeDevice, action: Action) -> ActionResult | None:
        device.queue("observe", *(screen("Open", f"sliding {n}") for n in reversed(range(frames))))
        return None  # and the tap goes on to the details

    screens = {"open": screen("Open"), "details": screen("Details")}
    goes = {"open": {"open": "details"}}
    if quiet is None:
        return FakeDevice(screens, goes=goes, respond=slide)
    device = SettlingFakeDevice(screens, goes=goes, respond=slide)
    device.queue("settle", quiet)
    return device


QUIET = Settled(True, 0.12, "quiescence")


def scenario(**changes) -> Scenario:
    script = (
        Decision(Tap(target=Target(id="open")), expected_outcome='"Details" shows'),
        Decision(Done()),
    )
    return Scenario("settle", "com.example.app", "open the details", script=script, **changes)


async def verification_of(device, **changes):
    report = await Engine(device, ScriptedAgent(), clock=VirtualClock()).run(scenario(**changes))
    assert report.status == "passed", report
    return report


async def test_two_identical_looks_end_the_wait():
    device = animating_device(frames=3)
    engine = Engine(device, ScriptedAgent(), clock=VirtualClock())
    run = await engine.run(scenario())
    assert run.status == "passed"
    # the launch look, then: three frames of the transition, and two looks of the same screen
    assert device.calls.count("observe") == 1 + 3 + 2


async def test_a_device_that_can_tell_is_asked_once_and_looked_at_once():
    device = animating_device(frames=3, quiet=QUIET)
    await verification_of(device)
    assert device.settle_limits == [LADDER["settle"]]
    assert device.calls.count("observe") == 1 + 1


async def test_a_screen_that_never_settles_is_waited_on_no_longer_than_the_rung():
    clock = VirtualClock()
    device = animating_device(frames=10_000)
    engine = Engine(device, ScriptedAgent(), clock=clock)
    await engine.run(scenario(max_steps=1))
    assert clock.slept <= LADDER["settle"] + 1e-9
    assert device.calls.count("observe") < 20


async def test_a_fixed_settle_waits_once_and_looks_once():
    clock = VirtualClock()
    device = animating_device(frames=0)
    await Engine(device, ScriptedAgent(), clock=clock).run(scenario(settle_seconds=0.25))
    assert clock.slept == 0.25
    assert device.calls.count("observe") == 1 + 1


async def test_the_cassette_records_the_wait_and_replays_it(tmp_path: Path):
    path = tmp_path / "settle.cassette"
    writer = CassetteWriter.create(path, Header(scenario=scenario(), agent="scripted"))
    with writer:
        device = RecordingDevice(animating_device(frames=2, quiet=QUIET), writer)
        clock = RecordingClock(VirtualClock(), writer)
        agent = RecordingAgent(ScriptedAgent(), writer)
        report = await Engine(device, agent, clock=clock, writer=writer).run(scenario())
    assert report.status == "passed"
    cassette = read_cassette(path)
    settles = [e for e in cassette.events if e.type == "settle"]
    assert [e.result for e in settles] == [Settled(True, 0.12, "quiescence")]
    verifications = [e.verification for e in cassette.events if e.type == "verification"]
    assert verifications[0].settled == Settled(True, 0.12, "quiescence")
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
