"""The table of runs at 80 columns (COLUMNS=80): every line fits, every word whole, each
cassette's path whole on a line of its own below the table instead of folded mid-word."""

import os
import subprocess
from pathlib import Path

from command import ORAV

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ["recordings/planner/commitment.cassette", "recordings/recovery/slow_launch.cassette"]


def replay(columns: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("ORAV_DEBUG", "COLUMNS")}
    env |= {"COLUMNS": columns} if columns else {}
    done = subprocess.run(
        [*ORAV, "replay", *GOLDENS], capture_output=True, text=True, cwd=ROOT, env=env,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_table_fits_80_columns_with_words_and_paths_whole():
    out = replay("80")
    table = out.split("\n\n")[0].splitlines()
    assert all(len(line) <= 80 for line in out.splitlines())
    assert any("completed_with_errors" in line for line in table)  # a status never folded
    for golden in GOLDENS:
        assert any(line.endswith(f": {golden}") for line in out.splitlines()), out
    wide = replay(None)  # a log, no COLUMNS: one line a run, the path in its column
    assert any(
        line.rstrip().endswith(GOLDENS[0]) and "passed" in line for line in wide.splitlines()
    )
