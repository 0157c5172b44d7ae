"""Many goldens in one pytest run: CPU time of ``pytest --orav-cassettes`` over COUNT cassettes.

The demo app's four goldens (``recordings/*.cassette``) are copied COUNT / 4 times into a
temporary folder, and one pytest process replays them all; its CPU time (user + system, from
the operating system's accounting of the finished child) is printed, whole and per cassette.
A suite's goldens share screens as these copies do (its sign-in, its home), so element trees
structured once serve them all. Target (issue 29): 1,000 goldens in ≤ 8 s of CPU.

Python's bytecode cache is on for the measured run, in a temporary folder
(``PYTHONPYCACHEPREFIX``), filled by a first run over one golden: as a user's every run but the
first after an install, where orav's modules (and pytest's assertion rewriting of them, as a
pytest plugin's) are compiled once. Without it (``PYTHONDONTWRITEBYTECODE``, as this project's
shared machine sets) every run compiles them again: ~1.5 s more of start-up, printed apart.

Run: python bench/goldens_many.py [COUNT]
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 8.0


def pytest_cpu(folder: Path, env: dict[str, str]) -> float:
    """CPU seconds of one ``pytest --orav-cassettes folder`` process; exits if it fails."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["--orav-cassettes", str(folder), str(folder), "-o", "testpaths="]
    command += ["--rootdir", str(folder)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # run from the goldens' folder: ``-m`` puts the working directory first on the path, and
    # the orav measured is the one installed or on PYTHONPATH, not one that folder may hold
    done = subprocess.run(command, check=False, capture_output=True, text=True, env=env, cwd=folder)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"pytest failed:\n{done.stdout[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(count: int) -> None:
    goldens = sorted((ROOT / "recordings").glob("*.cassette"))
    with tempfile.TemporaryDirectory() as temporary:
        one, many, cache = (Path(temporary) / name for name in ("one", "many", "pycache"))
        one.mkdir()
        many.mkdir()
        shutil.copy(goldens[0], one / goldens[0].name)
        for i in range(count):
            source = goldens[i % len(goldens)]
            shutil.copy(source, many / f"{i:05d}_{source.name}")
        compiling = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = str(cache)
        pytest_cpu(one, cached)  # fills the bytecode cache
        start_compiling = pytest_cpu(one, compiling)
        start = pytest_cpu(one, cached)
        cpu = pytest_cpu(many, cached)
    print(f"pytest --orav-cassettes over {count} goldens: {cpu:.2f} s CPU")
    print(f"  one golden alone (start-up)       {start:.2f} s ({start_compiling:.2f} s compiling)")
    print(f"  per golden past the first         {(cpu - start) / (count - 1) * 1000:.1f} ms")
    print(f"  per cassette (start-up included)  {cpu / count * 1000:.1f} ms")
    verdict = "met" if cpu * 1000 / count <= TARGET_SECONDS else "MISSED"
    print(f"  target ≤ {TARGET_SECONDS:.0f} s per 1,000: {verdict}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
