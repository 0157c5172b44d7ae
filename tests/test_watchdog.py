"""The watchdog's cut never lands inside an import: a module half imported poisons the process.

A C extension (numpy's) initialises once per process; cut its package's import half way and
every later ``import numpy`` in that process raises "cannot load module more than once per
process" (a pytest worker lost 11 tests to it). Each case runs in a child of its own, since a
cut is a signal to the main thread and its module stays imported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

RUN = """
import asyncio, importlib, sys, time
sys.path.insert(0, {where!r})
from orav import watchdog
watchdog.GRACE = 0.2
watchdog.PATIENCE = {patience!r}

async def main():
    try:
        async with watchdog.Deadline(0.1):
            importlib.import_module("slow")  # holds the loop: only the watchdog can cut
            while True:  # and so does the run after it
                pass
    except TimeoutError:
        print("cut", "slow" in sys.modules and getattr(sys.modules["slow"], "DONE", False))

asyncio.run(main())
"""


def run(tmp_path: Path, body: str, patience: float) -> str:
    (tmp_path / "slow.py").write_text(textwrap.dedent(body))
    code = RUN.format(where=str(tmp_path), patience=patience)
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_cut_waits_for_the_import_under_way_to_end(tmp_path: Path):
    body = """
    import time
    start = time.process_time()
    while time.process_time() - start < 1.0:  # computing, far past the deadline and its grace
        pass
    DONE = True
    """
    assert run(tmp_path, body, patience=60.0) == "cut True"


def test_an_import_that_never_ends_is_cut_after_the_patience(tmp_path: Path):
    body = """
    while True:
        pass
    """
    assert run(tmp_path, body, patience=0.5) == "cut False"
