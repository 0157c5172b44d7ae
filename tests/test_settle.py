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
from orav.machines.recovery import RecoveryMachine
from orav.model import (
    ActionResult,
    Decision,
    DeviceInfo,
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
from orav.testing import VirtualClock

LADDER = RecoveryMachine.LADDER


def screen(*labels: str) -> Observation:
    return Observation(
        tuple(
            Element("AXButton", label, label.lower(), frame=Frame(0, 60 * i, 390, 50))
            for i, label in enumerate(labels)
        ),
        app="com.example.app",
    )


class AnimatingDevice:
    """The tap starts a transition that shows ``frames`` intermediate screens, one per look."""

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self.looks = 0
        self.tapped = False
        self.settles: list[float] = []

    async def describe(self) -> DeviceInfo:
        return DeviceInfo("ios", "fake", width=390, height=844)

    async def observe(self) -> Observation:
        self.looks += 1
        if not self.tapped:
            return screen("Open")
        if self.frames:
            self.frames -= 1
            return screen("Open", f"sliding {self.frames}")
        return screen("Details")

    async def perform(self, action) -> ActionResult:
        self.tapped = True
        return ActionResult()

    async def launch(self, bundle_id: str) -> None: ...

    async def terminate(self, bundle_id: str) -> None: ...

    async def is_running(self, bundle_id: str) -> bool:
        return True

    async def close(self) -> None: ...


class QuietDevice(AnimatingDevice):
    """A device that says when the app is quiet: the transition is over by then."""

    async def settle(self, limit: float) -> Settled | None:
        self.settles.append(limit)
        self.frames = 0
        return Settled(True, 0.12, "quiescence")


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
    device = AnimatingDevice(frames=3)
    engine = Engine(device, ScriptedAgent(), clock=VirtualClock())
    run = await engine.run(scenario())
    assert run.status == "passed"
    # the launch look, then: three frames of the transition, and two looks of the same screen
    assert device.looks == 1 + 3 + 2


async def test_a_device_that_can_tell_is_asked_once_and_looked_at_once():
    device = QuietDevice(frames=3)
    await verification_of(device)
    assert device.settles == [LADDER["settle"]]
    assert device.looks == 1 + 1


async def test_a_screen_that_never_settles_is_waited_on_no_longer_than_the_rung():
    clock = VirtualClock()
    device = AnimatingDevice(frames=10_000)
    engine = Engine(device, ScriptedAgent(), clock=clock)
    await engine.run(scenario(max_steps=1))
    assert clock.slept <= LADDER["settle"] + 1e-9
    assert device.looks < 20


async def test_a_fixed_settle_waits_once_and_looks_once():
    clock = VirtualClock()
    device = AnimatingDevice(frames=0)
    await Engine(device, ScriptedAgent(), clock=clock).run(scenario(settle_seconds=0.25))
    assert clock.slept == 0.25
    assert device.looks == 1 + 1


async def test_the_cassette_records_the_wait_and_replays_it(tmp_path: Path):
    path = tmp_path / "settle.cassette"
    writer = CassetteWriter.create(path, Header(scenario=scenario(), agent="scripted"))
    with writer:
        device = RecordingDevice(QuietDevice(frames=2), writer)
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
