"""docs/app-model.md's table of the seeds' idb commands, run as written: each seed form that
the table says works does, each it says is refused exits 2 with fb-idb's own complaint, and
each working form works, with the real `idb` CLI against `orav sim` in its own process."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "app-model.md"
IDB = str(Path(sys.executable).with_name("idb"))


def rows() -> list[tuple[str, str, str]]:
    """(seed form, what fb-idb does, the working form) for each row of the doc's table."""
    text = DOC.read_text()
    table = text.split("### The seeds' idb commands", 1)[1].split("\n\n")[2]
    found = []
    for line in table.splitlines()[2:]:
        seed, does, works = (cell.strip() for cell in line.strip("|").split(" | "))
        found.append((_command(seed), does, _command(works)))
    return found


def _command(cell: str) -> str:
    return re.match(r"`([^`]+)`", cell).group(1)


@pytest.fixture(scope="module")
def companion():
    proc = subprocess.Popen(
        [sys.executable, "-m", "orav", "sim", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    address = proc.stdout.readline().strip()
    assert address.startswith("127.0.0.1:"), proc.stderr.read()
    yield address
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=10)


def run(address: str, command: str, cwd: Path) -> subprocess.CompletedProcess:
    args = shlex.split(command)
    assert args[0] == "idb"
    return subprocess.run(
        [IDB, "--companion", address, "--no-prune-dead-companion", *args[1:]],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=cwd,
        env={**os.environ, "IDB_COMPANION": ""},
        check=False,
    )


def test_the_table_covers_the_seeds_commands():
    seeds = {seed.split()[1:3][0] if seed.split()[1] != "ui" else " ".join(seed.split()[1:3])
             for seed, _, _ in rows()}  # fmt: skip
    assert seeds >= {"screenshot", "ui describe-all", "ui tap", "ui text", "ui swipe", "ui key",
                     "list-apps", "launch"}  # fmt: skip


@pytest.mark.parametrize("seed,does,works", rows(), ids=lambda x: x if " " not in x else None)
def test_each_row_does_what_the_table_says(companion, tmp_path, seed, does, works):
    said = run(companion, seed, tmp_path)
    if does.startswith("refused"):
        assert said.returncode == 2, said.stdout
        assert "error:" in said.stderr
    else:
        assert does == "works"
        assert said.returncode == 0, said.stderr
    done = run(companion, works, tmp_path)
    assert done.returncode == 0, done.stderr
    if works.startswith("idb ui describe-all"):
        tree = json.loads(done.stdout)
        assert tree[0]["type"] == "Application"
    if "list-apps" in works:
        apps = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        assert any(a["process_state"] == "Running" for a in apps)
    if works.startswith("idb screenshot"):
        assert (tmp_path / works.split()[-1]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
