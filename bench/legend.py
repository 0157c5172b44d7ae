"""What reading a screen's legend costs (``orav.perceive.legend.read_legend``).

The explorer reads the legend of every screen it decides on (and of a screen with no control
once more, for its blind probes); an LLM agent reads it at every step. Prints the CPU time per
read of a 120x36 terminal's text: a 30-key legend, prose, a numbered data table (no legend).

    /work/venv/bin/python bench/legend.py [reads]
"""

from __future__ import annotations

import statistics
import string
import sys
import time

from orav.perceive.legend import read_legend

KEYS = [*string.ascii_lowercase, "ctrl+a", "f1", "f2", "escape"]
SCREENS = {
    "legend, 30 rows": "\n".join(
        f"  {k:<8}  Beschreibung Nummer {i} der Taste" for i, k in enumerate(KEYS)
    ),
    "prose, 36 rows of 100": "\n".join(
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit sed do eiusmod tempor incididunt"
        for _ in range(36)
    ),
    "data table, 36 numbered rows": "\n".join(
        f" {i:>3}  Name{i:<10}  {i * 7:>6}  {i * 13:>8}  Kai {i % 9}" for i in range(36)
    ),
}


def main(reads: int) -> None:
    for name, text in SCREENS.items():
        times = []
        for _ in range(reads):
            started = time.process_time()
            found = read_legend(text)
            times.append(time.process_time() - started)
        median = statistics.median(times) * 1000
        print(f"{name:<30} {median:.3f} ms median CPU per read, {len(found)} keys")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
