"""What a sandbox costs a Textual run: the scripted sign-in of the demo (7 steps) recorded
in-process (``textual-in-process:``) and in a sandbox (``textual:``, the companion under orav's
interpreter), ROUNDS times each, medians; then the sandbox's parts on this repository's working
folder: making it (the copy), one ``changes()`` snapshot, and the companion's start and launch.

Run from the repository's root: .venv/bin/python bench/sandbox.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from orav.drivers.textual import RemoteTextualDevice
from orav.sandbox import Sandbox, WorldOptions
from orav.scenario_loader import load_scenario
from orav.session import record

ROUNDS = 4
APP = "orav.demo_tui:DemoApp"


async def runs() -> None:
    scenario = load_scenario(Path("orav/scenarios/textual/sign_in.yaml"))
    for spec in (f"textual-in-process:{APP}", f"textual:{APP}"):
        times = []
        for _ in range(ROUNDS):
            with tempfile.TemporaryDirectory() as folder:
                start = time.perf_counter()
                recording = await record(scenario, Path(folder) / "run.cassette", device=spec)
                times.append(time.perf_counter() - start)
                assert recording.report.goal_met, recording.report.status
        print(
            f"{spec}: median {statistics.median(times):.2f} s ({recording.report.total_steps} steps)"
        )


async def parts() -> None:
    made, looked, started, launched = [], [], [], []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        sandbox = Sandbox.make(options=WorldOptions(skip=("recordings",)))
        made.append(time.perf_counter() - start)
        start = time.perf_counter()
        sandbox.changes()
        looked.append(time.perf_counter() - start)
        device = RemoteTextualDevice(
            APP, sys.executable, sandbox=sandbox, paths=[str(sandbox.work)]
        )
        start = time.perf_counter()
        async with device:
            started.append(time.perf_counter() - start)
            start = time.perf_counter()
            await device.launch()
            launched.append(time.perf_counter() - start)
        sandbox.remove()
    entries = sum(1 for _ in Path(".").rglob("*"))
    for name, values in (
        ("make (copy of the working folder)", made),
        ("one changes() snapshot", looked),
        ("companion start", started),
        ("launch", launched),
    ):
        print(f"{name}: median {statistics.median(values) * 1000:.0f} ms")
    print(f"(working folder: {entries} entries before skipping)")


if __name__ == "__main__":
    asyncio.run(runs())
    asyncio.run(parts())
