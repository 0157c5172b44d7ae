"""Many goldens in one pytest run: CPU time of ``pytest --orav-cassettes`` over COUNT cassettes.

The demo app's four goldens (``recordings/*.cassette``) are copied COUNT / 4 times into a
temporary folder, and one pytest process replays them all; its CPU time (user + system, from
the operating system's accounting of the finished child) is printed, whole and per cassette.
A suite's goldens share screens as these copies do (its sign-in, its home), so element trees
structured once serve them all. Target (issue 29): 1,000 goldens in ≤ 8 s of CPU.

Run: python bench/goldens_many.py [COUNT]
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 8.0


def main(count: int) -> None:
    goldens = sorted((ROOT / "recordings").glob("*.cassette"))
    with tempfile.TemporaryDirectory() as folder:
        for i in range(count):
            source = goldens[i % len(goldens)]
            shutil.copy(source, Path(folder) / f"{i:05d}_{source.name}")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        command += ["--orav-cassettes", folder, folder, "-o", "testpaths=", "--rootdir", folder]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"pytest failed:\n{done.stdout[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"pytest --orav-cassettes over {count} goldens: {cpu:.2f} s CPU")
    print(f"  per cassette (start-up included)  {cpu / count * 1000:.1f} ms")
    verdict = "met" if cpu * 1000 / count <= TARGET_SECONDS else "MISSED"
    print(f"  target ≤ {TARGET_SECONDS:.0f} s per 1,000: {verdict}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
