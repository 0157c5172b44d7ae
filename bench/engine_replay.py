"""Replay throughput of the engine alone, in steps per second of CPU (target ≥ 1,000).

A long run is recorded live first (simulator + idb client + scripted agent, ``settle_seconds:
0``): sign in, open Settings, toggle the notifications switch TOGGLES times, done. Then
``Engine(ReplayDevice, ReplayAgent, ReplayClock).run()`` is timed on its own, with
``read_cassette`` timed apart. "Cold" is a freshly read cassette and no decoded screenshot in
perceive's cache (blobs base64-decoded and hash-checked, element lists structured, PNGs decoded
during the run); "warm" replays the same Cassette object again. Every replay must reproduce the
recorded report exactly, or the script exits 1. Reading and replaying are timed in CPU time
(``time.process_time``): the machine is shared, and wall time says more about its load.

Run: /work/venv/bin/python bench/engine_replay.py [TOGGLES] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from attrs import evolve

from orav import session
from orav.cassette import Cassette, ReplayAgent, ReplayClock, ReplayDevice, read_cassette
from orav.engine import Engine
from orav.model import Decision, RunReport, Scenario, Tap, Target
from orav.perceive.change import clear_rasters
from orav.scenario_loader import example_scenarios, load_scenario

TARGET_STEPS_PER_SECOND = 1000.0


def toggling(toggles: int) -> Scenario:
    """change_setting with the switch toggled ``toggles`` times (odd: it ends off, as required)."""
    path = next(p for p in example_scenarios() if p.stem == "change_setting")
    base = load_scenario(path)
    toggle = Decision(
        reasoning="Toggle the switch.",
        action=Tap(target=Target(id="notifications_switch")),
        expected_outcome="The switch value flips.",
    )
    open_settings, _, done = base.script
    return evolve(
        base,
        name="toggle_many",
        script=(open_settings, *(toggle,) * toggles, done),
        max_steps=toggles + 2,
        timeout_seconds=600.0,
        settle_seconds=0.0,
    )


async def replay_once(cassette: Cassette, recorded: RunReport) -> float:
    """Seconds for one engine run over ``cassette``; the report must equal the recorded one."""
    engine = Engine(
        ReplayDevice(cassette),
        ReplayAgent(cassette),
        clock=ReplayClock(cassette),
        run_id=recorded.run_id,
    )
    start = time.process_time()
    report = await engine.run(cassette.header.scenario)
    elapsed = time.process_time() - start
    if report != recorded:
        sys.exit(f"replay diverged from the recording: {report} != {recorded}")
    return elapsed


async def main(toggles: int, rounds: int) -> None:
    scenario = toggling(toggles)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "toggle_many.cassette"
        start = time.perf_counter()
        recording = await session.record(scenario, path)
        record_seconds = time.perf_counter() - start
        recorded = recording.report
        if not recorded.goal_met:
            sys.exit(f"the recording did not pass: {recorded.status}")
        steps = recorded.total_steps
        size = path.stat().st_size
        reads, cold, warm = [], [], []
        for _ in range(rounds):
            start = time.process_time()
            cassette = read_cassette(path)
            reads.append(time.process_time() - start)
            clear_rasters()
            cold.append(await replay_once(cassette, recorded))
            warm.append(await replay_once(cassette, recorded))

    def rate(samples: list[float]) -> str:
        best = steps / min(samples)
        return f"median {steps / statistics.median(samples):7,.0f} steps/s   best {best:7,.0f}"

    cold_rate = steps / statistics.median(cold)
    print(
        f"engine replay throughput ({steps} steps, {size / 1e6:.2f} MB cassette, {rounds} rounds)"
    )
    print(f"  live recording (sim, settle 0)   {record_seconds:6.2f} s")
    print(f"  read_cassette                    median {statistics.median(reads) * 1000:6.1f} ms")
    print(f"  Engine.run replay, cold          {rate(cold)}")
    print(f"  Engine.run replay, warm          {rate(warm)}")
    print(f"  per step, cold                   {statistics.median(cold) / steps * 1e6:6.0f} µs")
    print(f"  per step, warm                   {statistics.median(warm) / steps * 1e6:6.0f} µs")
    verdict = "met" if cold_rate >= TARGET_STEPS_PER_SECOND else "MISSED"
    print(f"  target ≥ {TARGET_STEPS_PER_SECOND:,.0f} steps/s (cold): {verdict}")


if __name__ == "__main__":
    asyncio.run(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 201,
            int(sys.argv[2]) if len(sys.argv) > 2 else 7,
        )
    )
