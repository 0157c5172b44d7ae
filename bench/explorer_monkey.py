"""The explorer against a random monkey: screens reached at step budgets 25, 50, 100 and 200.

The monkey taps an enabled control chosen uniformly at random (and types the same credentials,
or a sample that fits, into a field it focused), 5 seeds; the explorer is deterministic, one
run. Both run through the whole engine against ``orav sim`` (real gRPC, the fb-idb client,
virtual sleeps) on the shipped app models, on the gestures app, whose screens open only by
a swipe, the return key or a tab bar, on a generated app with gesture-only screens, and on
iOS 17's Settings (``orav/sim/settings.yaml``), Signal for iOS (``orav/sim/signal.yaml``),
Apple's Clock (``orav/sim/clock.yaml``) and Monzo (``orav/sim/monzo.yaml``, launched as its
test build with ``-UITests``, past its PIN pad), real apps' structures not designed for the
explorer. A screen counts once the simulator shows it: the app
model's own screen names (``sim.state.screen``), not orav's screen identity, so neither agent
is judged by the explorer's own idea of a screen. Budget b counts the screens shown before
each of the first b actions and after the b-th. One run of 200 steps gives every smaller
budget: neither agent looks at its budget, so a shorter run is a prefix of it.

On the Textual demo apps (``--textual``: slower, real Pilot runs, so not in ``python -m
bench``) a screen is what the platform calls it: the screen's class and the tab selected on
it (``orav.perceive.screens.screen_title``).

    /work/venv/bin/python bench/explorer_monkey.py [APP ...]      # demo shop bank gestures settings signal clock monzo generated
    /work/venv/bin/python bench/explorer_monkey.py --textual      # notes planner tui
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

import orav.sim
from orav.agents import AgentContext
from orav.agents.explore.controls import sample_text
from orav.agents.explorer import ExplorerAgent
from orav.model import Credentials, Decision, Scenario, Tap, Wait
from orav.model.scenario import LaunchOptions
from orav.perceive.roles import is_text_field
from orav.perceive.screens import app_elements, is_control, screen_title
from orav.session import record
from orav.sim import load_app_model
from orav.testing import VirtualClock

BUDGETS = (25, 50, 100, 200)
SEEDS = (1, 2, 3, 4, 5)
APPS = {
    "demo": ("orav/sim/demo.yaml", Credentials("demo@orav.dev", "Orav-Demo-1!")),
    "shop": ("orav/sim/shop.yaml", Credentials("shopper@orav.dev", "Shop-Demo-2!")),
    "bank": ("orav/demo/bank.yaml", Credentials("sam@ledger.example", "Ledger-Pass-42")),
    "gestures": ("orav/demo/gestures.yaml", None),
    # iOS 17's Settings: a real app's structure, not designed for the explorer
    "settings": ("orav/sim/settings.yaml", Credentials("sam.appleseed@icloud.com", "123456")),
    # Signal for iOS: a real messenger's structure, not designed for the explorer
    "signal": ("orav/sim/signal.yaml", None),
    # Apple's Clock: edit modes, deletes without asking, a running stopwatch, a set-up wizard
    "clock": ("orav/sim/clock.yaml", None),
    # Monzo: a bank behind a PIN pad (its test build's -UITests starts past it), faults on
    # its feed and its statements, a payment confirmed by PIN, a card freeze switch
    "monzo": ("orav/sim/monzo.yaml", Credentials("sam@monzo.example", "2580")),
    "generated": ("", None),  # written at run time by generated_app()
}
LAUNCH = {"monzo": LaunchOptions(arguments=("-UITests",))}  # launch arguments of test builds
GENERATED = "generated"  # an app model written by generated_app(): 27 screens


def generated_app() -> str:
    """A larger app model: a tab bar (Home, Browse, Account), 4 sections of 3 pages under
    Home, and 8 screens that only a swipe or the return key opens (one under each section's
    first page, 2 under Browse, 2 under Account). Every pushed screen has a Back button."""
    lines = [
        "name: Generated",
        "bundle_id: com.orav.generated",
        "start: home",
        "tabs:",
        "  - {id: tab_home, label: Home, screen: home}",
        "  - {id: tab_browse, label: Browse, screen: browse}",
        "  - {id: tab_account, label: Account, screen: account}",
        "screens:",
    ]

    def screen(name, title, elements, swipes=None):
        lines.extend([f"  {name}:", f"    title: {title}", "    elements:"])
        lines.extend(f"      - {e}" for e in elements)
        if swipes:
            lines.append("    on_swipe:")
            lines.extend(f"      {way}: [{{to: {to}}}]" for way, to in swipes.items())

    def back():
        return (
            "{role: AXButton, id: back, label: Back, frame: [8, 47, 80, 44], on_tap: [{to: back}]}"
        )

    def text(label):
        return f"{{role: AXStaticText, label: {label}, frame: [20, 600, 350, 40]}}"

    cells = [
        f"{{role: AXCell, id: section_{i}, label: Section {i}, frame: [0, {100 + 70 * i}, 390, 60],"
        f" on_tap: [{{to: section_{i}}}]}}"
        for i in range(1, 5)
    ]
    screen("home", "Home", cells)
    for i in range(1, 5):
        buttons = [
            f"{{role: AXButton, id: page_{i}_{j}, label: Page {i}.{j}, "
            f"frame: [20, {120 + 60 * j}, 350, 44], on_tap: [{{to: page_{i}_{j}}}]}}"
            for j in range(1, 4)
        ]
        screen(f"section_{i}", f"Section {i}", [back(), *buttons])
        for j in range(1, 4):
            swipes = {"left": f"extra_{i}"} if j == 1 else None
            screen(f"page_{i}_{j}", f"Page {i}.{j}", [back(), text(f"Page {i}.{j}")], swipes)
        screen(f"extra_{i}", f"Extra {i}", [back(), text(f"Extra {i}")])
    field = (
        "{role: AXTextField, id: query, label: Search, frame: [20, 120, 350, 44], "
        "on_return: [{to: results}]}"
    )
    screen("browse", "Browse", [field, text("Swipe left for featured")], {"left": "featured"})
    screen("featured", "Featured", [back(), text("Featured")])
    screen("results", "Results", [back(), text("Results")])
    screen("account", "Account", [text("Swipe up for stats")], {"up": "stats", "right": "badges"})
    screen("stats", "Stats", [back(), text("Stats")])
    screen("badges", "Badges", [back(), text("Badges")])
    return "\n".join(lines) + "\n"


TEXTUAL = {
    "notes": ("orav.demo.notes:NotesApp", Credentials("ada@jotter.app", "Analytical-1843")),
    "planner": ("orav.demo.planner:PlannerApp?seed=demo&today=2026-11-23", None),
    "tui": ("orav.demo_tui:DemoApp", Credentials("demo@orav.dev", "Orav-Demo-1!")),
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
        if self.sims:
            self.screens.append(self.sims[-1].state.screen)
        else:
            self.screens.append(screen_title(context.observation))
        return await self.agent.decide(context)


def watch_companions(sims: list) -> None:
    """Keep each SimCompanion the session starts (the bench needs its state, the session keeps
    it to itself)."""
    enter = orav.sim.SimCompanion.__aenter__

    async def entered(self):
        sims.append(self)
        return await enter(self)

    orav.sim.SimCompanion.__aenter__ = entered


async def run(app: str, agent, folder: Path) -> list[str | None]:
    """The screens shown before each step (and, on the simulator, at the end) of a run."""
    sims: list = []
    if app in TEXTUAL:
        spec, credentials = TEXTUAL[app]
        bundle, device = spec, f"textual:{spec}"
    else:
        path, credentials = APPS[app]
        if app == GENERATED:
            path = folder / "generated.yaml"
            path.write_text(generated_app(), encoding="utf-8")
        bundle, device = load_app_model(ROOT / path).bundle_id, f"sim:{ROOT / path}"
        watch_companions(sims)
    watched = Watched(agent, sims)
    scenario = Scenario(
        f"{app}-{agent.name}",
        bundle,
        "explore",
        max_steps=max(BUDGETS),
        settle_seconds=0.05,
        timeout_seconds=3600,  # virtual: sleeps are not waited
        credentials=credentials,
        launch=LAUNCH.get(app, LaunchOptions()),
    )
    cassette = folder / f"{app}-{agent.name}-{len(list(folder.iterdir()))}.cassette"
    await record(scenario, cassette, device=device, agent=watched, clock=VirtualClock())
    return [*watched.screens, *(sim.state.screen for sim in sims[-1:])]


def reached(screens: list[str | None], budget: int) -> int:
    """Screens shown within the budget (Textual's command palette is not the app's)."""
    shown = {s for s in screens[: budget + 1] if s is not None}
    return len({s for s in shown if not s.startswith("screen:CommandPalette")})


async def bench(app: str) -> dict:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        explorer = await run(app, ExplorerAgent(), Path(folder))
        again = await run(app, ExplorerAgent(), Path(folder))
        monkeys = [await run(app, Monkey(seed), Path(folder)) for seed in SEEDS]
        seen = set(explorer) | {s for m in monkeys for s in m}
        # the model's screens on the simulator; on Textual, every screen any run saw
        if app in APPS:
            path = Path(folder) / "generated.yaml" if app == GENERATED else ROOT / APPS[app][0]
            screens = set(load_app_model(path).screens)
        else:  # Textual's command palette is Textual's, not the app's
            screens = {s for s in seen - {None} if not s.startswith("screen:CommandPalette")}
    return {
        "app": app,
        "screens": len(screens),
        "seen": len(seen - {None}),
        "explorer": [reached(explorer, b) for b in BUDGETS],
        "deterministic": explorer == again,
        "monkey": [statistics.median(reached(m, b) for m in monkeys) for b in BUDGETS],
        "missed": sorted(screens - set(explorer)),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    apps = names or (list(TEXTUAL) if "--textual" in sys.argv else list(APPS))
    print(f"screens reached at budgets {'/'.join(map(str, BUDGETS))} (monkey: median of 5 seeds)")
    for app in apps:
        row = asyncio.run(bench(app))
        ratios = "/".join(
            f"{e / m:.1f}x" if m else "inf" for e, m in zip(row["explorer"], row["monkey"])
        )
        explorer = "/".join(map(str, row["explorer"]))
        monkey = "/".join(f"{m:g}" for m in row["monkey"])
        print(
            f"{app:9} {row['screens']:2} screens | explorer {explorer} | monkey {monkey} "
            f"| {ratios} | explorer at 200: {row['explorer'][-1]}/{row['screens']}"
            + (f" (missed {', '.join(row['missed'])})" if row["missed"] else "")
            + f" | same run twice: {row['deterministic']} | {row['seconds']:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
