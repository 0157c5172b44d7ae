"""Wall time of a suite, ``orav record --workers N`` for N = 1, 2, 4 and for no ``--workers``
(what orav chooses, read from the line it says), over every example scenario that runs on the
simulator (the demo app's, the shop's, the fault scenarios).

Each N records the same copies anew (``--record-mode all``) in a temp folder; the verdicts
of every N must equal the serial run's. N = 1 records in the orav process itself; N > 1
starts an ``orav record`` process (with its own simulator companion) per scenario, N at a
time. The machine's cores bound the speed-up: print them with the figures.

Run: /work/venv/bin/python bench/suite_workers.py [N ...]   (N: the --workers to measure; 0:
orav's default; none given: 1 2 4 0)
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "orav" / "scenarios"
FOLDERS = ("", "shop", "faults")  # those the simulator serves ("" is the demo app's own)
WORKERS = (1, 2, 4, None)  # None: orav's default
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


def suite(folder: Path, workers: int | None) -> tuple[float, float, list[tuple[str, str]], str]:
    """The wall time, the CPU time (every process), the verdicts, and the workers orav chose
    (``workers`` None)."""
    command = [sys.executable, "-m", "orav", "record", "--record-mode", "all"]
    command += ["-q", "--workers", str(workers)] if workers else []
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    seconds, cpu = time.perf_counter() - start, children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.exit(f"--workers {workers}: exit {done.returncode}\n{done.stderr[-2000:]}")
    verdicts = re.findall(r"(\S+) +│ (\w+)", done.stdout)
    chose = re.search(r"orav: (\d+) workers? \((.*)\)", done.stderr)
    return (
        seconds,
        cpu,
        sorted(verdicts),
        f"default: {chose[1]} ({chose[2]})" if chose else str(workers),
    )


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    chosen = tuple(int(n) or None for n in sys.argv[1:]) or WORKERS
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        count = copy_scenarios(folder)
        print(f"{count} scenarios, {os.cpu_count()} cores")
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print("| workers | wall time | speed-up | CPU (all processes) | passed |")
        print("| --- | --- | --- | --- | --- |")
        serial = None
        for workers in chosen:
            seconds, cpu, verdicts, chose = suite(folder, workers)
            if serial is None:
                serial = (seconds, verdicts)
            elif verdicts != serial[1]:
                sys.exit(f"--workers {workers} gave other verdicts than the serial run")
            passed = sum(status in ("passed", "completed_with_errors") for _, status in verdicts)
            print(
                f"| {chose} | {seconds:.1f} s | {serial[0] / seconds:.2f}x | {cpu:.1f} s "
                f"| {passed}/{count} |"
            )


if __name__ == "__main__":
    main()
