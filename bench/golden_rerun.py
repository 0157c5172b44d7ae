"""Live rerun of golden cassettes against a scripted live run of the same scenarios (issue 13).

For each demo scenario: record it with the scripted agent on the simulator; then, ROUNDS times
interleaved, run it live with its script (no cassette: the baseline) and rerun the cassette
live (``orav.golden.rerun``) on the unchanged app and on the app with its Settings button's id
renamed (a heal). Prints median wall times over ROUNDS, their ratio, and the decisions asked of
an agent (model calls: the target is 0); then the regression check of the four goldens
(``orav.regression_check``), as a run does after its goal.

Run: .venv/bin/python bench/golden_rerun.py
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from orav.agents.scripted import ScriptedAgent
from orav.engine import Engine
from orav.golden import rerun
from orav.model import RunReport
from orav.regression_check import check_regressions, find_flows
from orav.scenario_loader import load_scenario
from orav.session import record
from orav.sim import DEMO_APP
from orav.specs import open_device

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("login", "change_setting", "open_detail", "submit_form")
ROUNDS = 7


async def timed(function, *args, **options) -> tuple[float, object]:
    start = time.perf_counter()
    result = await function(*args, **options)
    return time.perf_counter() - start, result


async def scripted(scenario) -> RunReport:
    """The same scenario run live with its script, nothing recorded: the baseline."""
    async with open_device("sim", scenario) as device:
        return await Engine(device, ScriptedAgent()).run(scenario)


async def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="orav-bench-golden-"))
    renamed = folder / "renamed.yaml"
    text = DEMO_APP.read_text().replace("id: settings,", "id: preferences,", 1)
    renamed.write_text(text)
    total = {"live": 0.0, "rerun": 0.0, "healed": 0.0}
    print(
        f"{'scenario':16} {'live s':>8} {'rerun s':>8} {'ratio':>6} {'asked':>5} "
        f"{'healed s':>8} {'heals':>5} {'asked':>5}"
    )
    for name in NAMES:
        scenario = load_scenario(ROOT / "orav" / "scenarios" / f"{name}.yaml")
        cassette = folder / f"{name}.cassette"
        live, rerun_s, healed_s = [], [], []
        await record(scenario, cassette, mode="all")
        for _ in range(ROUNDS):
            wall, report = await timed(scripted, scenario)
            assert report.goal_met, report.summary
            live.append(wall)
            wall, same = await timed(rerun, cassette, scenario=scenario)
            assert same.status == "passed", same.explain()
            rerun_s.append(wall)
        for _ in range(ROUNDS):  # apart: the simulator keeps one app model loaded at a time
            wall, heal = await timed(rerun, cassette, scenario=scenario, device=f"sim:{renamed}")
            healed_s.append(wall)
        a, b, c = (statistics.median(x) for x in (live, rerun_s, healed_s))
        total["live"] += a
        total["rerun"] += b
        total["healed"] += c
        print(
            f"{name:16} {a:8.3f} {b:8.3f} {b / a:6.2f} {same.asked:5d} {c:8.3f} "
            f"{len(heal.heals):5d} {heal.asked:5d}  ({heal.status})"
        )
    ratio = total["rerun"] / total["live"]
    print(f"{'all':16} {total['live']:8.3f} {total['rerun']:8.3f} {ratio:6.2f}")
    await regression_check(folder)


async def regression_check(folder: Path) -> None:
    """The regression check a run does after its goal: the four goldens revisited live on
    the unchanged app (median of ROUNDS), against the scripted live runs of the same four."""
    flows = find_flows([folder])
    homes = [ROOT / "orav" / "scenarios"]
    walls = []
    for _ in range(ROUNDS):
        wall, check = await timed(check_regressions, flows, app="com.orav.demo", scenarios=homes)
        assert check.ok and len(check.revisits) == len(NAMES), check.explain()
        walls.append(wall)
    print(f"regression check of {len(flows)} goldens: {statistics.median(walls):.3f} s, ok")


if __name__ == "__main__":
    asyncio.run(main())
