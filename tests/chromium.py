"""Headless Chromium, the one command line the report tests and benchmarks load a page with.

A helper of the tests, not of orav (orav never starts a browser); the benchmarks in bench/
import it with tests/ on their path, as they import the tests' other helpers. Chromium comes
from Debian (``apt-get install -y chromium``); ``CHROMIUM`` is None without it.
"""

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(profile: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run headless Chromium with ``args`` (``--dump-dom URL``, ``--screenshot=PNG URL``) in a
    fresh profile under ``profile``; CalledProcessError when it fails, TimeoutExpired when it
    takes longer than ``timeout`` seconds."""
    if CHROMIUM is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile / 'chromium-profile'}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)


def dump_dom(page: Path, profile: Path, timeout: float = 60) -> str:
    """The DOM Chromium built from ``page`` (after its script ran), serialised."""
    return chromium(profile, "--dump-dom", page.as_uri(), timeout=timeout).stdout
