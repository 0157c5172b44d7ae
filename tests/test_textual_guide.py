"""docs/textual.md as a new user follows it: each ``orav`` command of its console blocks runs,
in order, in a fresh clone of the repository (the page's paths are the clone's). The blocks that
drive an app in a virtualenv of the reader's own (``textual+PYTHON:...``, made with pip from
PyPI) say why they are not run here: tests/test_textual_companion.py runs that path offline."""

import shutil
from pathlib import Path

import pytest
from guides import Shell, clone, commands

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "textual.md"


def test_the_textual_guides_commands_run_in_a_fresh_clone(tmp_path: Path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("the guide is followed from a clone: this test needs git and a repository")
    here = clone(tmp_path)
    steps = commands("docs/textual.md")
    assert [step.argv[1] for step in steps[:3]] == ["record", "replay", "record"], steps
    Shell(here).follow("docs/textual.md")
    assert (here / "recordings" / "textual" / "sign_in.html").exists()
