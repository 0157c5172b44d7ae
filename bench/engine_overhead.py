"""Engine overhead per live step, as a share of the step's device time (target ≤ 5 %).

Live runs against the simulator (in this process, through the real fb-idb client over loopback
gRPC) with the scripted agent. The device, the agent and the clock are wrapped to time every
device call, every decision and every sleep (settle waits). A step runs from one decision to
the next (act, settle, observe, verify, observe phase, reason), so

    overhead = (step - device - agent - sleeps) / device

is what the engine itself adds: the machine, perception, verification, bookkeeping, and (when
recording) the cassette writes with their per-step fsync. Two runs per scenario: the engine
alone, and the engine recording a cassette as ``orav record`` does. Scenarios: a walk through
the list (open each item and go back, WALKS times, ``settle_seconds: 0``) and the four demo
scenarios as shipped (their settle waits are subtracted).

Run: /work/venv/bin/python bench/engine_overhead.py [WALKS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from attrs import evolve, frozen

from orav.agents import Agent, AgentContext
from orav.agents.scripted import ScriptedAgent
from orav.cassette import (
    CassetteWriter,
    Header,
    RecordingAgent,
    RecordingClock,
    RecordingDevice,
)
from orav.clock import SystemClock
from orav.device import Device
from orav.drivers.idb import IdbDevice
from orav.engine import Engine
from orav.model import (
    Action,
    ActionResult,
    Decision,
    DeviceInfo,
    Observation,
    Scenario,
    Tap,
    Target,
)
from orav.perceive.change import clear_rasters
from orav.scenario_loader import example_scenarios, load_scenario
from orav.sim import SimCompanion

TARGET = 0.05
T = TypeVar("T")


class Meter:
    """Seconds spent in device calls, decisions and sleeps; a snapshot at each decision."""

    def __init__(self) -> None:
        self.device = 0.0
        self.agent = 0.0
        self.sleep = 0.0
        self.marks: list[tuple[float, float, float, float]] = []

    async def time(self, kind: str, call: Awaitable[T]) -> T:
        start = time.perf_counter()
        try:
            return await call
        finally:
            setattr(self, kind, getattr(self, kind) + time.perf_counter() - start)

    def mark(self) -> None:
        self.marks.append((time.perf_counter(), self.device, self.agent, self.sleep))

    def steps(self) -> list[tuple[float, float]]:
        """Per step (decision to decision): (engine's own seconds, device seconds)."""
        out = []
        for (t0, d0, a0, s0), (t1, d1, a1, s1) in zip(self.marks, self.marks[1:], strict=False):
            device = d1 - d0
            out.append(((t1 - t0) - device - (a1 - a0) - (s1 - s0), device))
        return out


class TimedDevice:
    def __init__(self, device: Device, meter: Meter) -> None:
        self._device = device
        self._meter = meter

    async def describe(self) -> DeviceInfo:
        return await self._meter.time("device", self._device.describe())

    async def observe(self) -> Observation:
        return await self._meter.time("device", self._device.observe())

    async def perform(self, action: Action) -> ActionResult:
        return await self._meter.time("device", self._device.perform(action))

    async def launch(self, bundle_id: str) -> None:
        await self._meter.time("device", self._device.launch(bundle_id))

    async def terminate(self, bundle_id: str) -> None:
        await self._meter.time("device", self._device.terminate(bundle_id))

    async def is_running(self, bundle_id: str) -> bool:
        return await self._meter.time("device", self._device.is_running(bundle_id))

    async def close(self) -> None:
        await self._device.close()


class TimedAgent:
    def __init__(self, agent: Agent, meter: Meter) -> None:
        self._agent = agent
        self._meter = meter
        self.name = agent.name

    async def decide(self, context: AgentContext) -> Decision:
        self._meter.mark()  # a step boundary
        return await self._meter.time("agent", self._agent.decide(context))


class TimedClock(SystemClock):
    def __init__(self, meter: Meter) -> None:
        self._meter = meter

    async def sleep(self, seconds: float) -> None:
        await self._meter.time("sleep", super().sleep(seconds))


@frozen
class Result:
    steps: list[tuple[float, float]]
    status: str


async def run(scenario: Scenario, record: bool) -> Result:
    """One live run; with ``record``, through the recording wrappers into a temp cassette."""
    meter = Meter()
    clear_rasters()
    async with (
        SimCompanion(faults=scenario.faults) as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app) as live,
    ):
        device: Any = TimedDevice(live, meter)
        agent: Any = TimedAgent(ScriptedAgent(), meter)
        clock: Any = TimedClock(meter)
        if not record:
            report = await Engine(device, agent, clock=clock).run(scenario)
            meter.mark()
            return Result(meter.steps(), report.status)
        with tempfile.TemporaryDirectory() as folder:
            header = Header(scenario=scenario, device=await live.describe(), agent="scripted")
            path = Path(folder) / "bench.cassette"
            with CassetteWriter.create(path, header) as writer:
                engine = Engine(
                    RecordingDevice(device, writer),
                    RecordingAgent(agent, writer),
                    clock=RecordingClock(clock, writer),
                    writer=writer,
                )
                report = await engine.run(scenario)
                meter.mark()
    return Result(meter.steps(), report.status)


def walking(walks: int) -> Scenario:
    """open_detail's sign-in, then each list item opened and closed again, ``walks`` times."""
    base = load_scenario(next(p for p in example_scenarios() if p.stem == "open_detail"))
    script = []
    for n in range(walks):
        item = f"item_{n % 3 + 1}"
        script += [
            Decision(
                Tap(target=Target(id=item)),
                reasoning="Open the next item.",
                expected_outcome='The detail shows "Back".',
            ),
            Decision(
                Tap(target=Target(id="back")),
                reasoning="Go back.",
                expected_outcome='The list shows "Privacy".',
            ),
        ]
    done = base.script[-1]
    return evolve(
        base,
        name="walk_list",
        script=(*script, done),
        success_criteria=(),
        max_steps=len(script) + 1,
        settle_seconds=0.0,
        timeout_seconds=600.0,
    )


def line(name: str, result: Result) -> tuple[float, float]:
    own = sum(o for o, _ in result.steps)
    device = sum(d for _, d in result.steps)
    shares = [o / d for o, d in result.steps if d > 0]
    print(
        f"  {name:<32} {len(result.steps):3} steps  device {device / len(result.steps) * 1e3:5.2f}"
        f" ms/step  engine {own / len(result.steps) * 1e3:5.3f} ms/step  overhead"
        f" {own / device:6.1%} (median step {statistics.median(shares):6.1%})  {result.status}"
    )
    return own, device


async def main(walks: int) -> None:
    scenarios = [walking(walks)] + [load_scenario(p) for p in example_scenarios()]
    print("engine overhead per live step = (step - device - agent - sleeps) / device")
    totals: dict[bool, list[float]] = {False: [0.0, 0.0], True: [0.0, 0.0]}
    for record in (False, True):
        print("engine + recording a cassette (fsync per step):" if record else "engine alone:")
        for scenario in scenarios:
            result = await run(scenario, record)
            if result.status != "passed":
                sys.exit(f"{scenario.name}: the live run did not pass ({result.status})")
            own, device = line(scenario.name, result)
            totals[record][0] += own
            totals[record][1] += device
    for record, (own, device) in totals.items():
        what = "with recording" if record else "engine alone  "
        verdict = "met" if own / device <= TARGET else "MISSED"
        print(
            f"  all steps, {what}: overhead {own / device:6.1%}  (target ≤ {TARGET:.0%}: {verdict})"
        )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
