"""Wall time of a suite, ``orav record --workers N`` for N = 1, 2, 4, over every example
scenario that runs on the simulator (the demo app's, the shop's, the fault scenarios).

Each N records the same copies anew (``--record-mode all``) in a temp folder; the verdicts
of every N must equal the serial run's. N = 1 records in the orav process itself; N > 1
starts an ``orav record`` process (with its own simulator companion) per scenario, N at a
time. The machine's cores bound the speed-up: print them with the figures.

Run: /work/venv/bin/python bench/suite_workers.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "orav" / "scenarios"
FOLDERS = ("", "shop", "faults")  # those the simulator serves ("" is the demo app's own)
WORKERS = (1, 2, 4)
TIMEOUT_SECONDS = 600


def copy_scenarios(into: Path) -> int:
    count = 0
    for folder in FOLDERS:
        target = into / "scenarios" / folder
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted((SCENARIOS / folder).glob("*.yaml")):
            shutil.copy(path, target / path.name)
            count += 1
    return count


def suite(folder: Path, workers: int) -> tuple[float, list[tuple[str, str]]]:
    command = [sys.executable, "-m", "orav", "record", "-q", "--record-mode", "all"]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--workers", str(workers)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"--workers {workers}: exit {done.returncode}\n{done.stderr[-2000:]}")
    verdicts = re.findall(r"(\S+) +│ (\w+)", done.stdout)
    return seconds, sorted(verdicts)


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        count = copy_scenarios(folder)
        print(f"{count} scenarios, {os.cpu_count()} cores")
        print("| workers | wall time | speed-up | passed |")
        print("| --- | --- | --- | --- |")
        serial = None
        for workers in WORKERS:
            seconds, verdicts = suite(folder, workers)
            if serial is None:
                serial = (seconds, verdicts)
            elif verdicts != serial[1]:
                sys.exit(f"--workers {workers} gave other verdicts than the serial run")
            passed = sum(status in ("passed", "completed_with_errors") for _, status in verdicts)
            print(
                f"| {workers} | {seconds:.1f} s | {serial[0] / seconds:.2f}x | {passed}/{count} |"
            )


if __name__ == "__main__":
    main()
