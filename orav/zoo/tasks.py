"""The zoo's tasks: a shipped scenario, the stage it runs on, the policy a sensible model
plays on it, and the truth, read from the app's own state, that says the goal was really met.

- ``login``: the demo login (``orav/scenarios/login.yaml``) on the simulator;
- ``shop``: two Enamel mugs into the cart and the Cart tab (``orav/scenarios/shop/add_to_cart.yaml``),
  catalogue, product page and tab bar on the simulated shop app;
- ``triage``: the planner's inbox triaged (``orav/scenarios/planner/triage.yaml``), a Textual
  workflow with dialogs, on its own SQLite file.

A run's truth is the app's state after the run (the simulator's screens and memory, the
planner's database), never what the screen or the run's report says: a pass whose truth is
false is a false pass.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from orav.agents import Agent
from orav.device import Device
from orav.model import Credentials, RunReport, Scenario
from orav.zoo.mistakes import Mistake
from orav.zoo.player import Player, Tally
from orav.zoo.policy import POLICIES, Policy
from orav.zoo.server import ZooServer

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
ZOO_KEY = "sk-zoo-0123456789abcdef"  # an API key the zoo must never see in a prompt

# A stage: the device for one run, and the truth to read from the app when the run is over.
Stage = Callable[[Scenario], AbstractAsyncContextManager[tuple[Device, Callable[[], bool]]]]


@frozen
class Outcome:
    """One run: its report, whether the app's own state says the goal was met, its cassette,
    and what the zoo's model saw and did (requests, re-asks, tokens, secrets, mistakes)."""

    report: RunReport
    truth: bool
    cassette: Path
    tally: Tally = attrs.field(factory=Tally)

    @property
    def passed(self) -> bool:
        return self.report.goal_met

    @property
    def false_pass(self) -> bool:
        return self.passed and not self.truth


@frozen
class Task:
    name: str
    scenario: Scenario
    policy: Policy
    stage: Stage
    secrets: tuple[str, ...] = ()

    async def play(
        self,
        cassette: Path,
        mistakes: Sequence[Mistake] = (),
        *,
        rate: float = 0.0,
        seed: int = 0,
        **options: Any,
    ) -> Outcome:
        """One run of the LLM agent against a zoo model that plays this task with ``mistakes``
        at ``rate``; ``options`` go to the agent (``OpenAIAgent.from_spec``)."""
        from orav.agents.openai import OpenAIAgent

        player = Player(
            self.policy,
            mistakes=mistakes,
            rate=rate,
            seed=f"{self.name}:{seed}",
            secrets=self.secrets,
        )
        model = next((m.model for m in mistakes if m.model), "zoo-vision")
        with ZooServer(player) as zoo:
            agent = OpenAIAgent.from_spec(
                f"openai:{model}", base_url=zoo.url, api_key=ZOO_KEY, **options
            )
            outcome = await self.run(agent, cassette)
        return attrs.evolve(outcome, tally=player.tally)

    async def run(self, agent: Agent, cassette: Path) -> Outcome:
        """One run of the task with ``agent``, recorded to ``cassette`` (a virtual clock)."""
        from orav.session import record
        from orav.testing import VirtualClock

        async with self.stage(self.scenario) as (device, truth):
            done = await record(
                self.scenario,
                cassette,
                device=device,
                agent=agent,
                clock=VirtualClock(),
                mode="all",
            )
            assert done.report is not None  # a live run always ends with its report
            return Outcome(done.report, truth(), cassette)


@asynccontextmanager
async def _simulator(
    scenario: Scenario, met: Callable[[object], bool]
) -> AsyncIterator[tuple[Device, Callable[[], bool]]]:
    from orav.drivers.idb import IdbDevice
    from orav.sim import SimCompanion, bundled_app, load_app_model

    model = load_app_model(bundled_app(scenario.app))
    async with (
        SimCompanion(model, faults=scenario.faults) as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app, timeout=5.0) as device,
    ):
        yield device, lambda: met(sim.app(scenario.app))


def _signed_in(state: object) -> bool:
    stack = getattr(state, "stack", [])
    return bool(stack) and stack[0].name == "home"


def _two_mugs(state: object) -> bool:
    return sorted(getattr(state, "memory", {}).get("cart", [])) == ["mug", "mug"]


def _sim_stage(met: Callable[[object], bool]) -> Stage:
    return lambda scenario: _simulator(scenario, met)


@asynccontextmanager
async def _planner(scenario: Scenario) -> AsyncIterator[tuple[Device, Callable[[], bool]]]:
    """The planner on a database of its own: triaged means 3 of its 4 inbox items processed
    (kept, retyped or deleted: out of the inbox) and one skipped, still in the inbox."""
    from orav.demo.planner import PlannerApp
    from orav.drivers.textual import TextualDevice

    with tempfile.TemporaryDirectory(prefix="orav-zoo-") as folder:
        database = Path(folder) / "planner.db"

        def triaged() -> bool:
            with sqlite3.connect(database) as db:
                inbox = db.execute("SELECT count(*) FROM items WHERE status = 'inbox'").fetchone()
            return bool(inbox[0] == 1)

        def app() -> PlannerApp:
            return PlannerApp(database, seed="demo", today="2026-11-23")

        async with TextualDevice(app) as device:
            yield device, triaged


def _scenario(path: str) -> Scenario:
    """A shipped scenario with twice its steps: the room a model that makes mistakes needs."""
    from orav.scenario_loader import load_scenario

    scenario = load_scenario(SCENARIOS / path)
    return attrs.evolve(scenario, max_steps=2 * scenario.max_steps)


def _login() -> Scenario:
    """The README's login; the demo app's account added when the scenario names none (a model
    cannot sign in without it)."""
    scenario = _scenario("login.yaml")
    if scenario.credentials is None:
        scenario = attrs.evolve(scenario, credentials=Credentials("demo@orav.dev", "Orav-Demo-1!"))
    return scenario


def tasks() -> dict[str, Task]:
    """The zoo's three tasks, by name."""
    login = _login()
    shop = _scenario("shop/add_to_cart.yaml")
    triage = _scenario("planner/triage.yaml")
    return {
        "login": Task(
            "login",
            login,
            POLICIES["login"],
            _sim_stage(_signed_in),
            _secrets(login),
        ),
        "shop": Task(
            "shop",
            shop,
            POLICIES["shop"],
            _sim_stage(_two_mugs),
            _secrets(shop),
        ),
        "triage": Task("triage", triage, POLICIES["triage"], _planner, _secrets(triage)),
    }


def _secrets(scenario: Scenario) -> tuple[str, ...]:
    """What must never reach the model: the test password and the API key."""
    password = scenario.credentials.password if scenario.credentials else None
    return tuple(s for s in (password, ZOO_KEY) if s)
