"""Observe cost of the Textual driver on the demo app under Pilot, and what its parts cost.

Figures: a whole ``observe()`` of an unchanged screen (raster from the cache), of a screen whose
raster must be drawn, and the parts alone: composing the strips (Textual's compositor), the
element tree, and drawing + encoding the PNG. Also the cost of the actions the engine sends.

Run: /work/venv/bin/python bench/driver_textual.py
"""

from __future__ import annotations

import asyncio
import time

from orav.demo_tui import EMAIL, PASSWORD, DemoApp
from orav.drivers import textual as driver
from orav.drivers.textual import TextualDevice
from orav.model import PressKey, Tap, Target, TypeText

ROUNDS = 200


def ms(seconds: float, rounds: int) -> str:
    return f"{seconds / rounds * 1000:.2f} ms"


async def main() -> None:
    for size in ((80, 24), (160, 48)):
        async with TextualDevice(DemoApp, size=size) as device:
            start = time.perf_counter()
            await device.launch()
            launch = time.perf_counter() - start
            await device.observe()
            start = time.perf_counter()
            for _ in range(ROUNDS):
                await device.observe()
            cached = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(ROUNDS // 4):
                device._rasters.clear()
                await device.observe()
            fresh = time.perf_counter() - start

            app = device.app
            start = time.perf_counter()
            for _ in range(ROUNDS):
                strips = driver.render_strips(app)
            compose = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(ROUNDS):
                tuple(driver._elements(app, strips))
            tree = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(ROUNDS // 4):
                png = driver.draw_png(strips)
            draw = time.perf_counter() - start
            print(
                f"{size[0]}x{size[1]} cells: launch {launch * 1000:.0f} ms; observe unchanged "
                f"{ms(cached, ROUNDS)}, with a fresh raster {ms(fresh, ROUNDS // 4)}; parts: "
                f"compose strips {ms(compose, ROUNDS)}, element tree {ms(tree, ROUNDS)}, "
                f"draw + PNG {ms(draw, ROUNDS // 4)} ({len(png)} bytes)"
            )

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
