"""Observe cost of the Textual driver under Pilot, and what its parts cost.

Screens: the demo's sign-in form, and the planner's largest screens with its ``large`` seed:
the commitments list (a 50-row DataTable, one element per visible cell) and the plan (a Tree of
4 levels: vision, goal, milestone, 50 commitments). Figures: a whole ``observe()`` of an
unchanged screen (raster from the cache), of a screen whose raster must be drawn, and the parts
alone: composing the strips (Textual's compositor), the element tree, drawing + encoding the
PNG. Also the cost of the actions the engine sends. Target: observe ≤ 10 ms, raster cached.

Run: .venv/bin/python bench/driver_textual.py
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable

from orav.demo.planner import PlannerApp
from orav.demo_tui import EMAIL, PASSWORD, DemoApp
from orav.drivers.textual import TextualDevice, draw_png, elements, render_strips
from orav.model import PressKey, Tap, Target, TypeText

ROUNDS = 200
SIZES = ((80, 24), (160, 48))


def ms(seconds: float, rounds: int = 1) -> str:
    return f"{seconds / rounds * 1000:.2f} ms"


def planner() -> PlannerApp:
    return PlannerApp(seed="large", today="2026-11-23")


async def measure(name: str, factory: Callable, size: tuple[int, int], keys: tuple[str, ...]):
    async with TextualDevice(factory, size=size) as device:
        start = time.perf_counter()
        await device.launch()
        launch = time.perf_counter() - start
        for key in keys:
            assert (await device.perform(PressKey(key))).ok
        seen = await device.observe()
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            await device.observe()
            times.append(time.perf_counter() - start)
        cached = statistics.median(times)
        start = time.perf_counter()
        for _ in range(ROUNDS // 4):
            device._rasters.clear()
            await device.observe()
        fresh = time.perf_counter() - start

        app = device.app
        start = time.perf_counter()
        for _ in range(ROUNDS):
            strips = render_strips(app)
        compose = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(ROUNDS):
            elements(app, strips)
        tree = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(ROUNDS // 4):
            png = draw_png(strips)
        draw = time.perf_counter() - start
        print(
            f"{name} {size[0]}x{size[1]} ({len(seen.elements)} elements): launch "
            f"{launch * 1000:.0f} ms; observe unchanged {ms(cached)} median "
            f"(max {ms(max(times))}), with a fresh raster {ms(fresh, ROUNDS // 4)}; parts: "
            f"compose strips {ms(compose, ROUNDS)}, element tree {ms(tree, ROUNDS)}, "
            f"draw + PNG {ms(draw, ROUNDS // 4)} ({len(png)} bytes)"
        )


async def main() -> None:
    for size in SIZES:
        await measure("demo sign-in", DemoApp, size, ())
        await measure("planner commitments", planner, size, ("l",))
        await measure("planner plan", planner, size, ("p",))

    async with TextualDevice(DemoApp) as device:
        await device.launch()
        timings = {}
        for name, action in (
            ("type 13 characters", TypeText(EMAIL)),
            ("press tab", PressKey("tab")),
            ("type 12 characters", TypeText(PASSWORD, secure=True)),
            ("tap a target", Tap(target=Target(id="sign_in"))),
        ):
            result = await device.perform(action)
            timings[name] = result.seconds
        print("actions: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in timings.items()))


if __name__ == "__main__":
    asyncio.run(main())
