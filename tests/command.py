"""The real ``orav`` command in its own process, as a user runs it."""

import os
import resource
import subprocess
import sys
from pathlib import Path

ORAV = [sys.executable, "-m", "orav"]


# The console script pip installs: unlike ``python -m``, it puts no working folder on the path.
SCRIPT = [str(Path(sys.executable).parent / "orav")]


def orav(
    *args: object, cwd: Path | None = None, command: list[str] = ORAV
) -> subprocess.CompletedProcess:
    """Run ``orav ARGS`` (``command``: ``ORAV`` or ``SCRIPT``); ORAV_DEBUG is dropped so errors
    read as a user sees them."""
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=env,
        check=False,
    )


def children_cpu() -> float:
    """CPU seconds spent so far by this process's finished children: a command's cost measured
    as work done, which a loaded machine (CI, ``pytest -n``) does not stretch as it does the
    wall clock."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime
