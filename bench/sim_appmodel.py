"""App models at size: load time and peak memory of a generated 500-screen app, and observe
latency (IdbDevice.observe: screenshot + tree + list_apps over the real fb-idb client) on the
shop app's longest scrolling screen, the catalogue, scrolled between observations.

Run: .venv/bin/python bench/sim_appmodel.py
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from orav.codec import MAX_YAML_BYTES
from orav.drivers.idb import IdbDevice
from orav.model import Point, Swipe
from orav.sim import SHOP_APP, AppState, SimCompanion, load_app_model

SCREENS = 500


def generated_app(screens: int = SCREENS) -> str:
    """An app of ``screens`` screens: each with a title, a templated counter, a text field, a
    switch and three cells leading on (so every screen is reachable), in flow style."""
    lines = [
        "name: Big",
        "bundle_id: com.example.big",
        "start: s0",
        "state: {visits: 0, seen: []}",
        "screens:",
    ]
    for i in range(screens):
        nexts = [(i + k) % screens for k in (1, 7, 31)]
        cells = ", ".join(
            f"{{role: AXCell, id: c{n}, label: Screen {n}, frame: [0, {100 + j * 56}, 390, 56], "
            f"on_tap: [{{to: s{n}, set: {{visits: '{{visits + 1}}'}}}}]}}"
            for j, n in enumerate(nexts)
        )
        lines.append(
            f"  s{i}: {{title: Screen {i}, elements: [{cells}, "
            f"{{role: AXStaticText, id: t{i}, label: 'Visits: {{visits}}', frame: [20, 300, 350, 30]}}, "
            f"{{role: AXTextField, id: f{i}, label: Name, frame: [20, 340, 350, 44]}}, "
            f"{{role: AXSwitch, id: w{i}, label: Flag, value: '0', frame: [0, 400, 390, 52], "
            f"on_tap: [{{toggle: w{i}}}]}}]}}"
        )
    return "\n".join(lines) + "\n"


def load_figures(text: str, rounds: int = 3) -> tuple[float, float]:
    """(median load seconds, peak MB allocated while loading once)."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        load_app_model(text, name="big.yaml")
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    model = load_app_model(text, name="big.yaml")
    AppState(model).view()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), peak / 1e6


async def observe_figures(rounds: int = 76) -> tuple[float, float, float]:
    """(median, p95 ms of an observe after a scroll, median ms of an unchanged observe)."""
    async with SimCompanion(SHOP_APP, scale=3.0) as sim:
        sim.state.keychain["session"] = "shopper@orav.dev"
        async with IdbDevice.connect(sim.address, bundle_id="com.orav.shop") as device:
            await device.terminate("com.orav.shop")
            await device.launch("com.orav.shop")  # straight to the catalogue
            fresh = []
            step = 7.0  # 39 scroll offsets from 0 to 266 pt: more views than the image cache
            for i in range(rounds):
                up = (i // 38) % 2 == 0
                y = 600.0
                end = y - step if up else y + step
                await device.perform(Swipe(Point(195, y), Point(195, end)))
                began = time.perf_counter()
                await device.observe()
                fresh.append((time.perf_counter() - began) * 1000)
            same = []
            for _ in range(rounds):
                began = time.perf_counter()
                await device.observe()
                same.append((time.perf_counter() - began) * 1000)
    fresh.sort()
    return statistics.median(fresh), fresh[int(len(fresh) * 0.95) - 1], statistics.median(same)


def cli_start(text: str) -> str:
    """The real CLI path: ``orav sim APP`` on the generated app, timed until it prints the
    address it serves (then stopped), or what it says when it refuses the app."""
    with tempfile.TemporaryDirectory() as folder:
        app = Path(folder) / "big.yaml"
        app.write_text(text)
        began = time.perf_counter()
        sim = subprocess.Popen(
            [sys.executable, "-m", "orav", "sim", str(app)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            line = sim.stdout.readline() if sim.stdout else ""
            seconds = time.perf_counter() - began
            if line.strip():
                return f"serves after {seconds:.2f} s"
            sim.wait(30)
            said = sim.stderr.read().strip() if sim.stderr else ""
            return f"exit {sim.returncode} after {seconds:.2f} s: {said}"
        finally:
            sim.terminate()
            sim.wait(30)


def main() -> None:
    text = generated_app()
    print(f"orav sim with the {SCREENS}-screen app (the real CLI path): {cli_start(text)}")
    seconds, peak = load_figures(text)
    size = len(text.encode())
    print(
        f"{SCREENS}-screen generated app ({size / 1024:.0f} KB of YAML, limit "
        f"{MAX_YAML_BYTES // 1024} KB): load {seconds:.2f} s, peak {peak:.0f} MB allocated"
    )
    median, p95, same = asyncio.run(observe_figures())
    print(
        f"shop catalogue at scale 3 (12 rows, a new scroll offset each time): observe median "
        f"{median:.1f} ms, p95 {p95:.1f} ms; unchanged screen {same:.1f} ms"
    )


if __name__ == "__main__":
    main()
