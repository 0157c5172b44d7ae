"""docs/goldens.md teaches what works: its ``orav`` commands run in a project holding orav's
demo scenarios, with the exit status the page says, and print what it shows."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

from command import orav
from guides import Shell, commands

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "goldens.md").read_text()
SCENARIOS = ("change_setting", "open_detail", "submit_form")
SETTINGS_BUTTON = (
    "      - {role: AXButton, id: settings, label: Settings, frame: [290, 47, 92, 44],\n"
    "         on_tap: [{to: settings}]}\n"
)


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE, re.DOTALL)


def project(tmp_path: Path) -> Path:
    """A user's project: the demo scenarios, and the demo app with its Settings button gone."""
    (tmp_path / "scenarios").mkdir()
    for name in SCENARIOS:
        shutil.copy(ROOT / "orav" / "scenarios" / f"{name}.yaml", tmp_path / "scenarios")
    demo = (ROOT / "orav" / "sim" / "demo.yaml").read_text()
    assert SETTINGS_BUTTON in demo
    (tmp_path / "broken.yaml").write_text(demo.replace(SETTINGS_BUTTON, "", 1))
    return tmp_path


def test_the_page_walks_from_a_first_recording_to_ci(tmp_path):
    here = project(tmp_path)
    said = []
    steps = commands("docs/goldens.md")
    assert [step.argv[1] for step in steps] == [
        "record",
        "replay",
        "rerun",
        "rerun",
        "rerun",
        "record",
    ]
    shell = Shell(here)
    for step in steps:
        said.append(shell.run(step).stdout)
    for block in blocks("text"):
        for line in block.splitlines():
            assert any(line in out for out in said), line
    assert (here / "regressions" / "change_setting" / "step1-live.png").exists()
    assert (here / "recordings" / "open_detail.regressions.json").exists()


def test_the_pages_python_runs_in_that_project(tmp_path):
    here = project(tmp_path)
    assert orav("record", "scenarios/", cwd=here).returncode == 0
    [example] = [b for b in blocks("python") if not b.startswith("# tests/")]
    done = subprocess.run(
        [sys.executable, "-c", example],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("change_setting.cassette: passed")
    assert "pass@3 = 3/3" in done.stdout
