"""Perception cost and accuracy at 1170x2532 (iPhone 14, scale 3).

Prints: PNG decode + reduce per screenshot (paid once per screenshot, cached by sha256), the
detector cost per observation (fault + interruption + the change measure against the previous one, both
rasters cached), and the false-change / miss rates of the change measure over a generated set:
clock-only and caret-only pairs must never count as changed, one-label pairs (tree held equal,
so the pixels alone decide) must always.

    /work/venv/bin/python bench/perceive.py [pairs]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from perceive_screens import render

from orav.perceive import fault, interruption, measure, raster
from orav.perceive.change import clear_rasters

WORDS = (
    "Settings", "Profile", "Orders", "Inbox", "Search", "Cart", "Help", "About", "Wallet",
    "Photos", "Music", "Maps", "Notes", "Alarm", "Timer", "Friends", "Drafts", "Archive",
)  # fmt: skip
SCALE = 3.0


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.2f} ms, max {max(samples) * 1000:.2f} ms"


def main(pairs: int) -> None:
    rng = random.Random(7)

    def labels() -> tuple[str, ...]:
        return tuple(rng.sample(WORDS, rng.randint(3, 10)))

    def clock() -> str:
        return f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d}"

    decode, detect, false_changes, misses = [], [], 0, 0
    for _ in range(pairs):
        shown = labels()
        text = "".join(rng.choice("abcdefgh ") for _ in range(rng.randint(0, 12)))
        before = render(shown, clock=clock(), field_text=text, scale=SCALE)
        clock_only = render(shown, clock=clock(), field_text=text, scale=SCALE)
        caret_only = render(shown, clock=clock(), field_text=text, caret=False, scale=SCALE)
        row = rng.randrange(len(shown))
        word = rng.choice([w for w in WORDS if w not in shown])
        relabelled = render((*shown[:row], word, *shown[row + 1 :]), field_text=text, scale=SCALE)
        relabelled = attrs.evolve(relabelled, elements=before.elements)

        for observation in (before, clock_only, caret_only, relabelled):
            clear_rasters()
            start = time.perf_counter()
            raster(observation.screenshot)
            decode.append(time.perf_counter() - start)
        for observation in (before, clock_only, caret_only, relabelled):
            raster(observation.screenshot)  # warm: the engine decoded it on arrival
        for after in (clock_only, caret_only, relabelled):
            start = time.perf_counter()
            fault(after) or interruption(after, before)
            change = measure(before, after)
            detect.append(time.perf_counter() - start)
            if after is relabelled:
                misses += not change.changed
            else:
                false_changes += change.changed

    jpeg = []
    for _ in range(20):
        shot = render(labels(), clock=clock(), scale=SCALE, fmt="jpeg").screenshot
        clear_rasters()
        start = time.perf_counter()
        raster(shot)
        jpeg.append(time.perf_counter() - start)

    print(f"screens: {pairs * 4} at 1170x2532 PNG")
    print(f"decode + grayscale + reduce, once per screenshot: {ms(decode)}")
    print(f"detectors + change measure per observation (rasters cached): {ms(detect)}")
    print(
        f"per observation including its one decode: {ms([d + e for d, e in zip(decode, detect)])}"
    )
    print(f"JPEG decode (draft: decoded at 1/4 size) + reduce: {ms(jpeg)}")
    print(f"false-change rate, clock/caret-only pairs: {false_changes}/{pairs * 2}")
    print(f"miss rate, one-label pairs (pixels alone): {misses}/{pairs}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
