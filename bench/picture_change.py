"""What the picture costs a step where the tree is blind (issue 26, item 8).

On Kritzel (tests/unseen_apps/kritzel.py, a terminal pad that paints cells its tree never
names), per verdict of ``perceive.measure``: when the tree decides (the tree changed: no pixel
is decoded), when the bytes are equal (sha256: nothing decoded), and when the tree is the same
and the pictures differ (two PNG decodes, cached by sha256, and the masked cell compare), cold
and warm; beside it imagehash's dhash of the same reduced picture, for comparison. CPU time.

    python bench/picture_change.py [repeats]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from orav.drivers.textual import TextualDevice
from orav.model import Element, PressKey
from orav.perceive import measure, raster
from orav.perceive.change import clear_rasters


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.3f} ms, max {max(samples) * 1000:.3f} ms"


def timed(call, repeats: int, before=None) -> list[float]:
    samples = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.process_time()
        call()
        samples.append(time.process_time() - start)
    return samples


async def looks():
    async with TextualDevice.from_spec("unseen_apps.kritzel:Kritzel", timeout=30) as device:
        await device.launch()
        before = await device.observe()
        await device.perform(PressKey("s"))
        await device.settle(2.0)
        return before, await device.observe()


def main(repeats: int) -> None:
    before, stroke = asyncio.run(looks())
    assert before.elements == stroke.elements and measure(before, stroke).changed
    relabelled = attrs.evolve(stroke, elements=(*stroke.elements, Element("AXStaticText", "neu")))
    shot = before.screenshot
    print(f"Kritzel, {shot.width}x{shot.height} px, {len(shot.data)} bytes a PNG")
    print("tree decides (changed):   ", ms(timed(lambda: measure(before, relabelled), repeats)))
    print("same bytes:               ", ms(timed(lambda: measure(before, before), repeats)))
    print(
        "tree blind, cold decode:  ",
        ms(timed(lambda: measure(before, stroke), repeats, clear_rasters)),
    )
    print("tree blind, warm:         ", ms(timed(lambda: measure(before, stroke), repeats)))
    reduced = raster(before.screenshot)
    print("imagehash dhash (reduced):", ms(timed(reduced.dhash, repeats)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
