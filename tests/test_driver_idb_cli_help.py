"""``orav --help`` stays fast: it imports neither openai nor textual."""

from __future__ import annotations

import subprocess
import sys


def test_help_imports_no_heavy_module() -> None:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "orav", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Usage:" in run.stdout
    imported = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in run.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "orav" in imported  # the parse above saw the imports at all
    assert not imported & {"openai", "textual"}, sorted(imported & {"openai", "textual"})
