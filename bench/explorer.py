"""Explorer decision cost per step: on the demo app through the engine, and on a large app.

Prints the median and worst ``ExplorerAgent.decide`` time over a live exploration of the
simulator's demo app (sleeps virtual), and over a generated app of SCREENS screens in a tree
(each with ELEMENTS buttons and a Back), where walking back through the known graph costs most.

    /work/venv/bin/python bench/explorer.py [screens] [elements]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_explorer import BACK, Run, Tiny, button, heading
from test_explorer_sim import VirtualClock, explore_scenario

from orav.agents.explorer import ExplorerAgent
from orav.session import record


class Timed(ExplorerAgent):
    """The explorer, with the time of each decision kept."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    async def decide(self, context):
        started = time.perf_counter()
        decision = await super().decide(context)
        self.times.append(time.perf_counter() - started)
        return decision


def us(samples: list[float]) -> str:
    median = statistics.median(samples) * 1e6
    return f"median {median:.0f} µs, max {max(samples) * 1e6:.0f} µs over {len(samples)} steps"


async def demo() -> None:
    agent = Timed()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        recorded = await record(
            explore_scenario(), Path(folder) / "e.cassette", agent=agent, clock=VirtualClock()
        )
        wall = time.perf_counter() - started
    report = recorded.report
    print(f"demo app: {report.total_steps} steps, {len(agent.coverage().screens)} screens")
    print(f"  decide: {us(agent.times)}")
    print(f"  whole exploration (sim, gRPC, cassette, settle virtual): {wall * 1000:.0f} ms")


def tree(screens: int, elements: int) -> Tiny:
    """Screen i has ELEMENTS buttons; button j leads to screen i*ELEMENTS+j+1 while it exists."""
    app, moves = {}, {}
    for index in range(screens):
        name = f"s{index}"
        buttons = tuple(button(f"b{j}", f"Item {j}", y=100 + 50 * j) for j in range(elements))
        app[name] = (heading(f"Screen {index}"), *buttons, button("back", "Back", y=40))
        for j in range(elements):
            child = index * elements + j + 1
            if child < screens:
                moves[(name, f"#b{j}")] = f"s{child}"
        moves[(name, "#back")] = BACK
    return Tiny(app, moves, start="s0")


async def large(screens: int, elements: int) -> None:
    run = Run(tree(screens, elements), max_steps=10 * screens * (elements + 1))
    run.agent = Timed()
    await run.explore()
    coverage = run.agent.coverage()
    print(
        f"generated app: {len(coverage.screens)} screens x {elements} elements, "
        f"{len(run.history)} steps, finished={coverage.finished}"
    )
    print(f"  decide: {us(run.agent.times)}")


def main() -> None:
    screens = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    elements = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    asyncio.run(demo())
    asyncio.run(large(screens, elements))


if __name__ == "__main__":
    main()
