"""Virtualenvs with a given Textual (or a Textual app) from the package registry, made once
under a cache folder and reused; ``Unavailable`` when pip cannot install it (no registry).
Safe when pytest-xdist's workers ask for the same venv at once: one makes it, the others wait."""

from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path

PIP_SECONDS = 600


class Unavailable(Exception):
    """pip could not install the requirement (the reason is the message)."""


def venv_python(root: Path, *requirements: str) -> Path:
    """The interpreter of a venv under ``root`` holding ``requirements`` (made on first use)."""
    venv = root / re.sub(r"[^A-Za-z0-9.]+", "-", "-".join(requirements))
    root.mkdir(parents=True, exist_ok=True)
    # Held while the venv is made: pip's own timeout bounds how long another worker waits.
    with open(root / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _made(venv, requirements)


def _made(venv: Path, requirements: tuple[str, ...]) -> Path:
    python = venv / "bin" / "python"
    ready = venv / ".ready"
    if ready.exists() and python.exists():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(python),
                "install",
                "-q",
                "--disable-pip-version-check",
                *requirements,
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=PIP_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise Unavailable(f"pip install {' '.join(requirements)} took over {PIP_SECONDS} s")
    if done.returncode:
        errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
        raise Unavailable(f"pip install {' '.join(requirements)} failed: {(errors or ['?'])[-1]}")
    ready.write_text("\n".join(requirements))
    return python
