"""A reader that stops early (`orav audit … | head`) is no error of orav's."""

import subprocess
from pathlib import Path

from command import ORAV

ROOT = Path(__file__).resolve().parent.parent


def test_a_closed_pipe_ends_the_command_quietly():
    goldens = sorted(str(p) for p in (ROOT / "recordings").rglob("*.cassette")) * 40  # > a pipe
    with subprocess.Popen(
        [*ORAV, "audit", *goldens], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout.read(20)
        process.stdout.close()  # as `head -1` does once it has its line
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
