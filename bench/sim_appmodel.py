"""App models at size: load time and peak memory of a generated 500-screen app, and observe
latency (IdbDevice.observe: screenshot + tree + list_apps over the real fb-idb client) on the
shop app's longest scrolling screen, the catalogue, scrolled between observations.

Run: .venv/bin/python bench/sim_appmodel.py
"""

from __future__ import annotations

import asyncio
import os
import random
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
from orav.sim import DEMO_APP, SHOP_APP, AppState, SimCompanion, load_app_model

SCREENS = 500


class Words:
    """Made-up words from random syllables (seeded): names and labels no code was written for."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.used: set[str] = set()

    def word(self) -> str:
        """A new word, never one given before."""
        while True:
            syllables = self.random.randint(2, 4)
            word = "".join(
                self.random.choice("bdfgklmnprstvz") + self.random.choice("aeiou")
                for _ in range(syllables)
            ) + self.random.choice(["", "n", "r", "sk", "l"])
            if word not in self.used:
                self.used.add(word)
                return word

    def phrase(self, words: int) -> str:
        return " ".join(self.word() for _ in range(words)).capitalize()


def generated_app(screens: int = SCREENS, seed: int = 25) -> str:
    """An app of ``screens`` screens whose names, ids, labels and state are made-up words:
    each with a title, a templated counter, a text field, a switch and three cells leading on
    (so every screen is reachable), in flow style."""
    words = Words(seed)
    names = [words.word() for _ in range(screens)]
    counter = words.word()
    lines = [
        f"name: {words.phrase(2)}",
        f"bundle_id: com.{words.word()}.{words.word()}",
        f"start: {names[0]}",
        f"state: {{{counter}: 0}}",
        "screens:",
    ]
    for i, name in enumerate(names):
        nexts = [names[(i + k) % screens] for k in (1, 7, 31)]
        cells = ", ".join(
            f"{{role: AXCell, id: {words.word()}, label: {words.phrase(2)}, "
            f"frame: [0, {100 + j * 56}, 390, 56], "
            f"on_tap: [{{to: {n}, set: {{{counter}: '{{{counter} + 1}}'}}}}]}}"
            for j, n in enumerate(nexts)
        )
        switch = words.word()
        lines.append(
            f"  {name}: {{title: {words.phrase(2)}, elements: [{cells}, "
            f"{{role: AXStaticText, id: {words.word()}, label: '{words.phrase(1)}: "
            f"{{{counter}}}', frame: [20, 300, 350, 30]}}, "
            f"{{role: AXTextField, id: {words.word()}, label: {words.phrase(1)}, "
            f"frame: [20, 340, 350, 44]}}, "
            f"{{role: AXSwitch, id: {switch}, label: {words.phrase(1)}, value: '0', "
            f"frame: [0, 400, 390, 52], on_tap: [{{toggle: {switch}}}]}}]}}"
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


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a live process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cli_start(text: str) -> str:
    """The real CLI path: ``orav sim APP`` on the generated app, timed until it prints the
    address it serves (wall, and the CPU its process used by then), then stopped; or what it
    says when it refuses the app."""
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
                return f"serves after {seconds:.2f} s ({_cpu_seconds(sim.pid):.2f} s of CPU)"
            sim.wait(30)
            said = sim.stderr.read().strip() if sim.stderr else ""
            return f"exit {sim.returncode} after {seconds:.2f} s: {said}"
        finally:
            sim.terminate()
            sim.wait(30)


def main() -> None:
    text = generated_app()
    for name, app in (("demo app", DEMO_APP.read_text()), (f"{SCREENS}-screen app", text)):
        for _ in range(3):
            print(f"orav sim with the {name} (the real CLI path): {cli_start(app)}")
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
