"""Observe and tap cost of the Textual drivers: in-process, and through the companion (the app in
a process of its own, JSON lines over its pipes), on the same apps and the same Textual.

Screens: the demo's sign-in form, and the planner's largest screens with its ``large`` seed:
the commitments list (a 50-row DataTable, one element per visible cell) and the plan (a Tree of
4 levels: vision, goal, milestone, 50 commitments). Figures: a whole ``observe()`` of an
unchanged screen (raster from the cache) through either driver, of a screen whose raster must
be drawn, the parts of an in-process look (composing the strips, the element facts, the
Elements, the rows, drawing the PNG), and a tap on a target (the focused field: the screen does
not change) through either driver. Target: observe ≤ 10 ms at 80x24, raster cached. With
``--venv PYTHON`` the companion also runs under another environment's interpreter (its own
Textual), on tests/companion_app.py.

With ``--settle``: what an action and the settle after it cost (issue 15): a tap on the demo's
sign-in (the form answers with a message; the app then falls quiet), and an arrow key on
textual.demo's running game (an animation that never ends: the settle stops at its cap, "not
quiet"), in-process, median of ``SETTLES`` actions; an action the driver could not finish
within its timeout is counted as such.

Run: .venv/bin/python bench/driver_textual.py [--venv PATH/TO/python] [--settle]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from orav.demo.planner import PlannerApp
from orav.demo_tui import DemoApp
from orav.drivers.textual import RemoteTextualDevice, TextualDevice, draw_png, elements
from orav.drivers.textual.calls import TextualCalls
from orav.drivers.textual.companion import compat, lines
from orav.drivers.textual.companion.facts import scan
from orav.model import PressKey, Tap, Target

ROUNDS = 200
TAPS = 30
SETTLES = 15
CAP = 0.4  # the ladder's settle rung
SIZES = ((80, 24), (160, 48))
ROOT = Path(__file__).resolve().parent.parent


def ms(seconds: float, rounds: int = 1) -> str:
    return f"{seconds / rounds * 1000:.2f} ms"


def planner() -> PlannerApp:
    return PlannerApp(seed="large", today="2026-11-23")


async def observing(device: TextualCalls, keys: tuple[str, ...]) -> tuple[float, str, str]:
    """(launch, median observe of an unchanged screen, its tenth percentile and max): on a
    shared machine the tenth percentile is near what one observe costs on a quiet one."""
    start = time.perf_counter()
    await device.launch()
    launch = time.perf_counter() - start
    for key in keys:
        assert (await device.perform(PressKey(key))).ok
    await device.settle(2.0)
    await device.observe()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        await device.observe()
        times.append(time.perf_counter() - start)
    tenth = statistics.quantiles(times, n=10)[0]
    return launch, ms(statistics.median(times)), f"p10 {ms(tenth)}, max {ms(max(times))}"


async def tapping(device: TextualCalls, target: Target) -> float:
    """The median tap on ``target`` (one that changes nothing on screen)."""
    times = []
    for _ in range(TAPS):
        result = await device.perform(Tap(target=target))
        assert result.ok, result.error
        times.append(result.seconds)
    return statistics.median(times)


async def in_process(name: str, factory: Callable, size: tuple[int, int], keys: tuple[str, ...]):
    async with TextualDevice(factory, size=size) as device:
        launch, cached, worst = await observing(device, keys)
        seen = await device.observe()
        start = time.perf_counter()
        for _ in range(ROUNDS // 4):
            device._rasters.clear()
            await device.observe()
        fresh = time.perf_counter() - start
        app = device.app
        parts = {}
        start = time.perf_counter()
        for _ in range(ROUNDS):
            strips = compat.render_strips(app)
        parts["compose strips"] = ms(time.perf_counter() - start, ROUNDS)
        start = time.perf_counter()
        for _ in range(ROUNDS):
            facts = [fact for fact, _ in scan(app, strips)]
        parts["element facts"] = ms(time.perf_counter() - start, ROUNDS)
        start = time.perf_counter()
        for _ in range(ROUNDS):
            elements(facts)
        parts["Elements"] = ms(time.perf_counter() - start, ROUNDS)
        start = time.perf_counter()
        for _ in range(ROUNDS):
            rows = lines.rows(strips)
        parts["rows"] = ms(time.perf_counter() - start, ROUNDS)
        start = time.perf_counter()
        for _ in range(ROUNDS // 4):
            png = draw_png(rows)
        parts["draw + PNG"] = ms(time.perf_counter() - start, ROUNDS // 4) + f" ({len(png)} B)"
        print(
            f"in-process {name} {size[0]}x{size[1]} ({len(seen.elements)} elements): launch "
            f"{ms(launch)}; observe unchanged {cached} median ({worst}), with a "
            f"fresh raster {ms(fresh, ROUNDS // 4)}; parts: "
            + ", ".join(f"{k} {v}" for k, v in parts.items())
        )


async def companion(name: str, app: str, size: tuple[int, int], keys: tuple[str, ...], **more):
    async with RemoteTextualDevice(app, sys.executable, size=size, **more) as device:
        launch, cached, worst = await observing(device, keys)
        print(
            f"companion {name} {size[0]}x{size[1]}: launch {ms(launch)}; observe unchanged "
            f"{cached} median ({worst})"
        )


async def taps() -> None:
    email = Target(id="email")
    async with TextualDevice(DemoApp) as near:
        await near.launch()
        local = await tapping(near, email)
    async with RemoteTextualDevice("orav.demo_tui:DemoApp", sys.executable) as far:
        await far.launch()
        remote = await tapping(far, email)
    print(f"tap a target (demo, 80x24): in-process {ms(local)}, companion {ms(remote)} median")


async def venv(python: str) -> None:
    tests = ROOT / "tests"
    async with RemoteTextualDevice("companion_app:SmallApp", python, cwd=tests) as device:
        launch, cached, worst = await observing(device, ())
        tap = await tapping(device, Target(id="name"))
        print(
            f"companion under {python} (Textual {device.textual_version}), small app 80x24: "
            f"launch {ms(launch)}; observe unchanged {cached} median ({worst}); "
            f"tap a target {ms(tap)} median"
        )


async def settling(device: TextualCalls, action: Tap | PressKey, name: str) -> None:
    """Median action time, median settle and how many settles were quiet, over ``SETTLES``."""
    from orav.errors import DeviceError

    acts, waits, quiet, failed = [], [], 0, 0
    for _ in range(SETTLES):
        start = time.perf_counter()
        try:
            result = await device.perform(action)
        except DeviceError:
            failed += 1
            await device.terminate()
            return print(f"{name}: the action did not finish within {device.timeout:g} s")
        acts.append(time.perf_counter() - start)
        assert result.ok, result.error
        settled = await device.settle(CAP)
        assert settled is not None
        waits.append(settled.waited)
        quiet += settled.quiet
    print(
        f"{name}: action {ms(statistics.median(acts))}, settle {ms(statistics.median(waits))} "
        f"median (max {ms(max(waits))}), {quiet} of {SETTLES} quiet, {failed} timed out"
    )


async def settles() -> None:
    from textual.demo.demo_app import DemoApp as TextualDemo

    async with TextualDevice(DemoApp) as device:
        await device.launch()
        await settling(device, Tap(target=Target(id="sign_in")), "demo: tap Sign in")
    async with TextualDevice(TextualDemo, size=(100, 30)) as device:
        await device.launch()
        for action in (PressKey("g"), PressKey("n"), Tap(target=Target(label="Start"))):
            assert (await device.perform(action)).ok
            await device.settle(CAP)
        await settling(device, PressKey("up"), "textual.demo game: press up")


async def main(python: str | None, settle: bool = False) -> None:
    if settle:
        return await settles()
    for size in SIZES:
        await in_process("demo sign-in", DemoApp, size, ())
        await companion("demo sign-in", "orav.demo_tui:DemoApp", size, ())
        await in_process("planner commitments", planner, size, ("l",))
        await companion(
            "planner commitments",
            "orav.demo.planner:PlannerApp",
            size,
            ("l",),
            arguments={"seed": "large", "today": "2026-11-23"},
        )
    await taps()
    if python is not None:
        await venv(python)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", metavar="PYTHON", help="also run the companion under this")
    parser.add_argument("--settle", action="store_true", help="action and settle times only")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.venv, arguments.settle))
