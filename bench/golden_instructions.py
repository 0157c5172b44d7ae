"""Instructions a golden costs, counted by valgrind's callgrind: a figure the machine's load does
not move, where CPU time on a shared machine drifts by ±30 %.

Two processes run under ``valgrind --tool=callgrind``: both replay the demo app's four goldens
(``recordings/*.cassette``) once to warm up, as ``pytest --orav-cassettes`` replays them
(``asyncio.run(orav.session.replay(path))``); the second then replays COUNT more. The
difference, divided by COUNT, is what a golden costs in instructions. With ``--floor`` the
same is counted for ``bench/engine_floor.py``'s golden of STEPS steps (the run machine built
and driven, no orav code in it), and with ``--read`` for reading a golden alone.

Run: python bench/golden_instructions.py [COUNT] [--floor STEPS] [--read]
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _goldens() -> list[Path]:
    return sorted((ROOT / "recordings").glob("*.cassette"))[:4]


def replay(count: int) -> None:
    import orav.session

    goldens = _goldens()
    for path in goldens:
        asyncio.run(orav.session.replay(path))
    for i in range(count):
        outcome = asyncio.run(orav.session.replay(goldens[i % len(goldens)]))
        if not outcome.faithful:
            sys.exit(f"replay diverged: {outcome.differences}")


def read(count: int) -> None:
    from orav.cassette.reader import read_cassette

    goldens = _goldens()
    for path in goldens:
        read_cassette(path)
    for i in range(count):
        read_cassette(goldens[i % len(goldens)])


def floor(count: int, steps: int) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import engine_floor

    async def runs(n: int) -> None:
        for _ in range(n):
            await engine_floor.one_run(steps)

    asyncio.run(runs(4))
    asyncio.run(runs(count))


def instructions(*arguments: str) -> int:
    """Instructions one run of this script with ``arguments`` executes, by callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/out"]
            + [sys.executable, __file__, "--inside", *arguments],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"valgrind failed: {done.stderr[-2000:]}")
    return int(found.group(1))


def inside(kind: str, count: int, rest: list[str]) -> None:
    """The measured work, in the process valgrind runs."""
    if kind == "replay":
        replay(count)
    elif kind == "read":
        read(count)
    else:
        floor(count, int(rest[0]))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--inside"]:
        inside(argv[1], int(argv[2]), argv[3:])
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt install valgrind)")
    count = int(argv[0]) if argv and argv[0].isdigit() else 40
    kinds: list[tuple[str, str, list[str]]] = [("a golden replayed", "replay", [])]
    if "--read" in argv:
        kinds.append(("a golden read", "read", []))
    if "--floor" in argv:
        steps = argv[argv.index("--floor") + 1]
        kinds.append((f"the floor's golden of {steps} steps", "floor", [steps]))
    for name, kind, rest in kinds:
        warm = instructions(kind, "0", *rest)
        more = instructions(kind, str(count), *rest)
        print(f"{name:40s} {(more - warm) / count / 1e6:8.1f} M instructions")


if __name__ == "__main__":
    main(sys.argv[1:])
