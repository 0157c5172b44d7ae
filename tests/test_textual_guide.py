"""docs/textual.md as a new user follows it: each ``orav`` command of its console blocks runs,
in order, in a fresh clone of the repository (the page's paths are the clone's). Commands that
drive an app in a virtualenv of the reader's own (``textual+PYTHON:...``, made with pip from
PyPI) are left to the reader: tests/test_textual_companion.py runs that path offline."""

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from command import orav

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "textual.md"


def console_commands(text: str) -> list[list[str]]:
    """The ``orav`` commands of the page's console blocks, continuation lines joined, a
    ``$`` prompt dropped; a block about the reader's own virtualenv is passed over whole."""
    found = []
    for block in text.split("```console\n")[1:]:
        body = block.split("```", 1)[0].replace("\\\n", " ")
        if "textual+" in body:
            continue
        for line in body.splitlines():
            line = line.removeprefix("$ ")
            if line.startswith("orav "):
                found.append(shlex.split(line)[1:])
    return found


def test_the_textual_guides_commands_run_in_a_fresh_clone(tmp_path: Path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("the guide is followed from a clone: this test needs git and a repository")
    clone = tmp_path / "orav"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    steps = console_commands(PAGE.read_text())
    assert [step[0] for step in steps[:3]] == ["record", "replay", "record"], steps
    for step in steps:
        done = orav(*step, cwd=clone)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    assert (clone / "recordings" / "textual" / "sign_in.html").exists()
