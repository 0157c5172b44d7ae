"""`orav demo` wall time against its CPU time: how much of a live run is waiting for the app.

Each variant runs the real `orav demo` command (record every example on the simulator, replay
it, write the reports) in a fresh interpreter, ROUNDS times; the figures are medians. Variants:

- ``settle``: the engine's own settle (quiescence where the simulator answers it, else looks);
- ``fixed 0.4 s``: the same scenarios with ``settle_seconds: 0.4`` (the old fixed wait);
- both again with the simulator animating every transition, alert, keyboard and spinner for
  ANIMATION_MS (``animation_ms`` in the app model), where a wait that is too short would see
  the app in flux.

Run: .venv/bin/python bench/demo_wall.py
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 3
ANIMATION_MS = 250
TARGET = 3.0  # wall time at most 3x CPU time (issue 15)
VARIANTS = [
    ("settle", None, 0),
    ("fixed 0.4 s", 0.4, 0),
    (f"settle, {ANIMATION_MS} ms animations", None, ANIMATION_MS),
    (f"fixed 0.4 s, {ANIMATION_MS} ms animations", 0.4, ANIMATION_MS),
]


def child(settle: float | None, animation_ms: int, out: str) -> None:
    """Run `orav demo` in this interpreter with the variant's settle and animation time."""
    import attrs

    import orav.scenario_loader
    import orav.specs
    from orav.cli import cli

    if settle is not None:
        load = orav.scenario_loader.load_scenario
        orav.scenario_loader.load_scenario = lambda path: attrs.evolve(
            load(path), settle_seconds=settle
        )
    if animation_ms:
        model_of = orav.specs.app_model
        orav.specs.app_model = lambda path: attrs.evolve(model_of(path), animation_ms=animation_ms)
    cli.main(["demo", "--out", out], standalone_mode=False)


def measure(settle: float | None, animation_ms: int) -> tuple[float, float]:
    """(wall, CPU) seconds of one `orav demo` in a fresh interpreter."""
    with tempfile.TemporaryDirectory(prefix="orav-bench-demo-") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps([settle, animation_ms]), out],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"orav demo failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    rows = []
    for name, settle, animation_ms in VARIANTS:
        runs = [measure(settle, animation_ms) for _ in range(ROUNDS)]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        rows.append((name, wall, cpu))
        print(
            f"orav demo, {name}: {wall:.1f} s wall for {cpu:.1f} s CPU "
            f"({wall / cpu:.1f}x; median of {ROUNDS})",
            flush=True,
        )
    settle_wall, settle_cpu = rows[0][1], rows[0][2]
    verdict = "met" if settle_wall <= TARGET * settle_cpu else "NOT met"
    print(f"target wall <= {TARGET:g}x CPU with the engine's settle: {verdict}")
    print(f"fixed 0.4 s settles take {rows[1][1] / settle_wall:.1f}x the wall time")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(*json.loads(sys.argv[2]), sys.argv[3])
    else:
        main()
