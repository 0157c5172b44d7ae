"""The explorer on an app model, through the whole engine on virtual time, its decisions kept."""

from __future__ import annotations

from pathlib import Path

from attrs import evolve

from orav.agents import AgentContext
from orav.agents.explorer import ExplorerAgent
from orav.model import Credentials, Decision, RunReport, Scenario
from orav.model.scenario import LaunchOptions
from orav.session import record
from orav.testing import VirtualClock


class Noting(ExplorerAgent):
    """The explorer, keeping its decisions (and, once the run ends, its report). The
    simulator's world is orav's own, thrown away after the run: ``disposable`` says so to
    the explorer (where destructive deeds are explored) until the device says it itself."""

    def __init__(self, disposable: bool = True) -> None:
        super().__init__()
        self.disposable = disposable
        self.decisions: list[Decision] = []
        self.report: RunReport | None = None

    async def decide(self, context: AgentContext) -> Decision:
        if context.device is not None:
            device = evolve(context.device, disposable=self.disposable)
            context = evolve(context, device=device)
        decision = await super().decide(context)
        self.decisions.append(decision)
        return decision


async def explore_model(
    model: Path,
    bundle: str,
    cassette: Path,
    steps: int,
    credentials: Credentials | None = None,
    arguments: tuple[str, ...] = (),
) -> Noting:
    """Explore ``model``'s app ``bundle`` for ``steps`` steps, recording to ``cassette``;
    ``arguments``: the launch's (a test build's ``-UITests``)."""
    explorer = Noting()
    scenario = Scenario(f"explore-{model.stem}", bundle, "explore", max_steps=steps)
    scenario = evolve(
        scenario,
        settle_seconds=0.05,
        timeout_seconds=3600,
        credentials=credentials,
        launch=LaunchOptions(arguments=arguments),
    )
    recording = await record(
        scenario, cassette, device=f"sim:{model}", agent=explorer, clock=VirtualClock()
    )
    explorer.report = recording.report
    return explorer
