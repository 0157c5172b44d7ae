"""Run every benchmark script in bench/ and print their figures (``python -m bench``).

Each script runs in a fresh interpreter (as ``python bench/NAME.py`` would, so import costs
and caches do not leak from one into the next), one after the other so they do not compete
for the cores. A script that fails or runs past SCRIPT_TIMEOUT_SECONDS is reported and the
exit status is 1; the others still run. Arguments, if any, select scripts by name.

Run: /work/venv/bin/python -m bench [NAME ...]
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT_TIMEOUT_SECONDS = 300
# Scripts that need longer: recovery.py runs every example live and explores every example app;
# explorer_monkey.py runs the explorer twice and a monkey 5 times on 5 apps, 200 steps each.
# agent_zoo.py runs the LLM agent 99 times against the zoo (a few slow answers among them);
# agent_bench.py runs orav bench for six agents, five runs of each task.
# goldens_many.py replays 1,000 goldens in one pytest run (~25 s of CPU), after three of one.
# golden_instructions.py replays 44 goldens under valgrind (~50x slower than Python alone).
LONGER = {
    "recovery.py": 900,
    "explorer_monkey.py": 600,
    "agent_zoo.py": 900,
    "agent_bench.py": 900,
    "goldens_many.py": 600,
    "golden_instructions.py": 600,
}


def scripts(names: list[str]) -> list[Path]:
    found = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("_"))
    if names:
        found = [p for p in found if p.stem in names]
        missing = set(names) - {p.stem for p in found}
        if missing:
            sys.exit(f"no bench script named {', '.join(sorted(missing))} in {HERE}")
    return found


def run(script: Path) -> tuple[bool, float]:
    """Run one script with its output passed through; (succeeded, seconds)."""
    print(f"== {script.name}", flush=True)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=HERE.parent,
            timeout=LONGER.get(script.name, SCRIPT_TIMEOUT_SECONDS),
            check=False,
        )
        ok = done.returncode == 0
        status = "" if ok else f" (exit status {done.returncode})"
    except subprocess.TimeoutExpired:
        ok, status = False, f" (killed after {LONGER.get(script.name, SCRIPT_TIMEOUT_SECONDS)} s)"
    elapsed = time.perf_counter() - start
    print(f"-- {script.name}: {elapsed:.1f} s{status}\n", flush=True)
    return ok, elapsed


def main(names: list[str]) -> int:
    start = time.perf_counter()
    failed = [script.name for script in scripts(names) if not run(script)[0]]
    total = time.perf_counter() - start
    print(f"bench: {total:.0f} s in all" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
