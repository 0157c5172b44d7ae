"""Wall time of ``orav replay CASSETTE`` as a user runs it, per demo cassette (hyperfine-like).

Each golden cassette in recordings/ is replayed by the venv's ``orav`` console script in a
subprocess: WARMUP runs first (page cache, .pyc files), then RUNS timed runs; median, min and
max are printed. Every run must exit 0 (a faithful replay of a passed run).

Run: /work/venv/bin/python bench/replay_cli.py [RUNS]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORAV = Path(sys.executable).with_name("orav")
WARMUP = 2
RUN_TIMEOUT_SECONDS = 60


def run_once(cassette: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(ORAV), "replay", str(cassette)],
        capture_output=True,
        check=False,
        timeout=RUN_TIMEOUT_SECONDS,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"orav replay {cassette} exited {done.returncode}:\n{done.stdout.decode()}")
    return elapsed


def main(runs: int) -> None:
    cassettes = sorted((ROOT / "recordings").glob("*.cassette"))
    if not cassettes:
        sys.exit("no cassettes in recordings/")
    print(f"`orav replay CASSETTE` wall time ({runs} runs after {WARMUP} warm-up runs)")
    everything = []
    for cassette in cassettes:
        for _ in range(WARMUP):
            run_once(cassette)
        samples = [run_once(cassette) for _ in range(runs)]
        everything += samples
        print(
            f"  {cassette.name:<26} {cassette.stat().st_size / 1024:5.0f} KiB   "
            f"median {statistics.median(samples) * 1000:5.0f} ms   "
            f"min {min(samples) * 1000:5.0f} ms   max {max(samples) * 1000:5.0f} ms"
        )
    print(
        f"  all cassettes                          median {statistics.median(everything) * 1000:5.0f} ms"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
