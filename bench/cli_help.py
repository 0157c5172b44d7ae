"""How long ``orav --help`` takes, and which heavy modules it imports (it should import none).

Run: /work/venv/bin/python bench/cli_help.py [RUNS]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("openai", "textual", "PIL", "imagehash", "idb", "grpclib", "statemachine")
TARGET_SECONDS = 0.3


def imported_modules() -> set[str]:
    """Top-level names of every module ``python -m orav --help`` imports."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "orav", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    names = set()
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name.split(".")[0])
    return names


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    script = Path(sys.executable).parent / "orav"
    subprocess.run([script, "--help"], capture_output=True, check=True, timeout=60)  # warm
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([script, "--help"], capture_output=True, check=True, timeout=60)
        times.append(time.perf_counter() - start)
    times.sort()
    median = statistics.median(times)
    heavy = sorted(set(HEAVY) & imported_modules())
    print(
        f"orav --help: median {median * 1000:.0f} ms, min {times[0] * 1000:.0f} ms, "
        f"max {times[-1] * 1000:.0f} ms over {runs} runs (target {TARGET_SECONDS * 1000:.0f} ms)"
    )
    print(f"heavy modules imported by orav --help: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
