"""Cassette costs: writing a step (with and without fsync), reading, and replay throughput.

A step is what the engine records per loop: step marker, two clock readings, an observation
(40-element tree and a 200 KB screenshot, both new every third step), a decision with model
call metadata, the action and its result, a verification and two machine transitions.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from orav.agents import AgentContext
from orav.cassette import (
    CassetteWriter,
    Header,
    RecordingAgent,
    RecordingClock,
    RecordingDevice,
    ReplayAgent,
    ReplayDevice,
    TransitionEvent,
    VerificationEvent,
    read_cassette,
)
from orav.clock import SystemClock
from orav.model import (
    ActionResult,
    Decision,
    DeviceInfo,
    Element,
    Frame,
    ModelCall,
    Observation,
    Point,
    Scenario,
    Screenshot,
    Tap,
    Target,
    Verification,
)
from orav.testing import FakeDevice

STEPS = 300
SCENARIO = Scenario(name="bench", app="com.orav.demo", goal="walk through the app")


def screen(n: int) -> Observation:
    version = n // 3
    elements = tuple(
        Element(
            "AXButton",
            f"Item {i} of screen {version}",
            f"item_{i}",
            frame=Frame(0, i * 44, 390, 44),
        )
        for i in range(40)
    )
    pixels = os.urandom(64) * 3200 if n % 3 == 0 else screen.last_pixels
    screen.last_pixels = pixels
    return Observation(elements, Screenshot.of(pixels, 390, 844), app="com.orav.demo")


screen.last_pixels = b""


def bench_device() -> FakeDevice:
    """An in-memory device whose screen changes at every look, its screens made before the
    clock starts: the cost measured is the cassette's, not a driver's."""
    device = FakeDevice(
        info=DeviceInfo("ios", "bench"),
        respond=lambda _, action: ActionResult(point=Point(195, 22)),
    )
    device.queue("observe", *(screen(n) for n in range(1, STEPS + 1)))
    return device


class BenchAgent:
    name = "bench"

    async def decide(self, context: AgentContext) -> Decision:
        call = ModelCall("gpt-4o", "ab" * 8, '{"action": {"kind": "tap"}}' * 20, 1500, 80, 0.9)
        return Decision(Tap(195, 22, target=Target(id="item_0")), "reason " * 30, call=call)


def context(step: int, observation: Observation) -> AgentContext:
    return AgentContext(scenario=SCENARIO, observation=observation, step=step)


async def record(path: Path, fsync: bool) -> float:
    looks = bench_device()
    start = time.perf_counter()
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=fsync) as writer:
        device = RecordingDevice(looks, writer)
        agent = RecordingAgent(BenchAgent(), writer)
        clock = RecordingClock(SystemClock(), writer)
        for step in range(1, STEPS + 1):
            writer.begin_step(step)
            clock.now()
            observation = await device.observe()
            decision = await agent.decide(context(step, observation))
            await device.perform(decision.action)
            writer.write(VerificationEvent(Verification(True, True)))
            writer.write(TransitionEvent("run", "reasoning", "decided", "acting", step))
            writer.write(TransitionEvent("run", "acting", "acted", "reasoning", step + 1))
            clock.now()
    return (time.perf_counter() - start) / STEPS * 1000


async def replay(path: Path, rounds: int = 5) -> tuple[float, float, float]:
    start = time.perf_counter()
    cassette = read_cassette(path)
    read_ms = (time.perf_counter() - start) * 1000
    rates = []
    for _ in range(rounds):
        device, agent = ReplayDevice(cassette), ReplayAgent(cassette)
        start = time.perf_counter()
        for step in range(1, cassette.last_step + 1):
            observation = await device.observe()
            decision = await agent.decide(context(step, observation))
            await device.perform(decision.action)
        rates.append(cassette.last_step / (time.perf_counter() - start))
    return read_ms, rates[0], max(rates[1:])


async def main() -> None:
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as tmp:
        synced = Path(tmp) / "fsync.cassette"
        with_fsync = await record(synced, fsync=True)
        without = await record(Path(tmp) / "nosync.cassette", fsync=False)
        size = synced.stat().st_size
        read_ms, cold, warm = await replay(synced)
    print(f"steps: {STEPS}, cassette size: {size / 1e6:.1f} MB ({size / STEPS / 1e3:.0f} kB/step)")
    print(f"write per step, fsync at each step: {with_fsync:.2f} ms")
    print(f"write per step, no fsync:           {without:.2f} ms")
    print(f"read_cassette ({STEPS} steps):        {read_ms:.1f} ms")
    print(f"replay ReplayDevice+ReplayAgent, first pass: {cold:,.0f} steps/s")
    print(f"replay ReplayDevice+ReplayAgent, warm:       {warm:,.0f} steps/s")


if __name__ == "__main__":
    asyncio.run(main())
