"""The explorer against a random monkey: screens reached at step budgets 25, 50, 100 and 200.

The monkey taps an enabled control chosen uniformly at random (and types the same credentials,
or a sample that fits, into a field it focused), 5 seeds; the explorer is deterministic, one
run. Both run through the whole engine against ``orav sim`` (real gRPC, the fb-idb client,
virtual sleeps) on the shipped app models and on the gestures app, whose screens open only by
a swipe, the return key or a tab bar. A screen counts once the simulator shows it: the app
model's own screen names (``sim.state.screen``), not orav's screen identity, so neither agent
is judged by the explorer's own idea of a screen. Budget b counts the screens shown before
each of the first b actions and after the b-th. One run of 200 steps gives every smaller
budget: neither agent looks at its budget, so a shorter run is a prefix of it.

    /work/venv/bin/python bench/explorer_monkey.py [APP ...]      # demo shop bank gestures
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fast_clock import FastClock

import orav.sim
from orav.agents import AgentContext
from orav.agents.explorer import ExplorerAgent, sample_text
from orav.model import Credentials, Decision, Scenario, Tap, Wait
from orav.perceive.roles import is_text_field
from orav.perceive.screens import app_elements, is_control
from orav.runner import record
from orav.sim import load_app_model

BUDGETS = (25, 50, 100, 200)
SEEDS = (1, 2, 3, 4, 5)
APPS = {
    "demo": ("orav/sim/demo.yaml", Credentials("demo@orav.dev", "Orav-Demo-1!")),
    "shop": ("orav/sim/shop.yaml", Credentials("shopper@orav.dev", "Shop-Demo-2!")),
    "bank": ("orav/demo/bank.yaml", Credentials("sam@ledger.example", "Ledger-Pass-42")),
    "gestures": ("orav/demo/gestures.yaml", None),
}


class Monkey:
    """Uniform random taps on enabled controls; a field it focused gets the credentials or a
    sample (the explorer's own ``sample_text``), once."""

    name = "monkey"

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.typed: set[str] = set()

    async def decide(self, context: AgentContext) -> Decision:
        observation = context.observation
        focused = observation.focused
        if focused is not None and is_text_field(focused):
            key = f"{focused.unique_id}:{focused.label}"
            if key not in self.typed:
                self.typed.add(key)
                return Decision(sample_text(focused, context.scenario.credentials), "type")
        controls = [e for e in app_elements(observation) if is_control(e) and e.enabled]
        controls = [e for e in controls if not e.frame.is_empty]
        if not controls:
            return Decision(Wait(0.1), "nothing to tap")
        element = self.random.choice(controls)
        centre = element.frame.center
        return Decision(Tap(centre.x, centre.y), f"tap {element.label or element.unique_id}")


class Watched:
    """Any agent, with the simulator's screen noted before each decision."""

    def __init__(self, agent, sims: list) -> None:
        self.agent, self.sims, self.screens = agent, sims, []
        self.name = agent.name

    async def decide(self, context: AgentContext) -> Decision:
        self.screens.append(self.sims[-1].state.screen)
        return await self.agent.decide(context)


def watch_companions(sims: list) -> None:
    """Keep each SimCompanion the runner starts (the bench needs its state, the runner keeps
    it to itself)."""
    enter = orav.sim.SimCompanion.__aenter__

    async def entered(self):
        sims.append(self)
        return await enter(self)

    orav.sim.SimCompanion.__aenter__ = entered


async def run(app: str, agent, folder: Path) -> list[str | None]:
    """The model screens shown before each step and at the end of a 200-step run."""
    path, credentials = APPS[app]
    model = load_app_model(ROOT / path)
    sims: list = []
    watch_companions(sims)
    watched = Watched(agent, sims)
    scenario = Scenario(
        f"{app}-{agent.name}",
        model.bundle_id,
        "explore",
        max_steps=max(BUDGETS),
        settle_seconds=0.05,
        timeout_seconds=3600,  # virtual: sleeps are not waited
        credentials=credentials,
    )
    cassette = folder / f"{app}-{agent.name}-{len(list(folder.iterdir()))}.cassette"
    await record(scenario, cassette, device=f"sim:{ROOT / path}", agent=watched, clock=FastClock())
    return [*watched.screens, sims[-1].state.screen]


def reached(screens: list[str | None], budget: int) -> int:
    return len({s for s in screens[: budget + 1] if s is not None})


async def bench(app: str) -> dict:
    model = load_app_model(ROOT / APPS[app][0])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        explorer = await run(app, ExplorerAgent(), Path(folder))
        again = await run(app, ExplorerAgent(), Path(folder))
        monkeys = [await run(app, Monkey(seed), Path(folder)) for seed in SEEDS]
    seen = set(explorer) | {s for m in monkeys for s in m}
    return {
        "app": app,
        "screens": len(model.screens),
        "seen": len(seen - {None}),
        "explorer": [reached(explorer, b) for b in BUDGETS],
        "deterministic": explorer == again,
        "monkey": [statistics.median(reached(m, b) for m in monkeys) for b in BUDGETS],
        "missed": sorted(set(model.screens) - set(explorer)),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    apps = sys.argv[1:] or list(APPS)
    print(f"screens reached at budgets {'/'.join(map(str, BUDGETS))} (monkey: median of 5 seeds)")
    for app in apps:
        row = asyncio.run(bench(app))
        ratios = "/".join(
            f"{e / m:.1f}x" if m else "inf" for e, m in zip(row["explorer"], row["monkey"])
        )
        explorer = "/".join(map(str, row["explorer"]))
        monkey = "/".join(f"{m:g}" for m in row["monkey"])
        print(
            f"{app:9} model {row['screens']:2} screens | explorer {explorer} | monkey {monkey} "
            f"| {ratios} | explorer at 200: {row['explorer'][-1]}/{row['screens']}"
            + (f" (missed {', '.join(row['missed'])})" if row["missed"] else "")
            + f" | same run twice: {row['deterministic']} | {row['seconds']:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
