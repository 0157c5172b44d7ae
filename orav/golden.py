"""Golden cassettes that guard the app: a cassette's recorded decisions rerun live against the
device, and repeated to tell a flaky app from a broken one (docs/goldens.md).

API::

    result = await rerun(Path("recordings/login.cassette"), device="sim")
    result.status            # "passed", "healed" (result.heals) or "regressed"
    result.regressions[0]    # the first step where the app no longer matches, with screenshots
    result.asked             # decisions the fallback agent (an LLM) was asked: 0 on the path

    flaky = await repeat(path, 5, device="sim")
    flaky.passed, flaky.runs, flaky.flipped   # pass@k and the steps whose outcome differed

A replay (``orav.session.replay``) stands in for the device and guards orav; a rerun drives the
app, so a removed button, a renamed control or a screen that no longer follows fails it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import evolve, frozen

from orav.agents import Agent, close_agent
from orav.cassette.judgements import RerunJudge
from orav.cassette.rerun import Regression, Rerun, RerunAgent
from orav.codec import unstructure
from orav.errors import InputError
from orav.judges import Judge
from orav.model import RunReport, Scenario
from orav.secrets import REDACTED

if TYPE_CHECKING:
    from orav.cassette import Cassette
    from orav.sandbox import WorldOptions


async def rerun(
    cassette: Path,
    *,
    device: str | None = None,
    agent: Agent | None = None,
    scenario: Scenario | None = None,
    seed: int = 0,
    recorded: Cassette | None = None,
    judge: Judge | None = None,
    world: WorldOptions | None = None,
) -> Rerun:
    """Play ``cassette``'s recorded decisions live on ``device`` (a spec as ``orav record``
    takes: ``sim``, ``sim:APP.yaml``, ``idb:HOST:PORT``, ``textual:module:App``,
    ``class:module:Class``; by default the scenario's Textual app when its ``app`` is
    ``module:App``, else ``sim``).

    ``agent`` (an LLM) decides where the app left the recorded path; without one the run ends
    at the first regression. A cassette whose recorded run did not pass is no golden:
    InputError. A secret (a password) is stored as bullets in the cassette: a scenario that
    types one must be given (``scenario``, loaded from its file), else InputError.
    ``recorded``: the cassette already read (it is not read again). A recorded judgement is
    served where the live screen is the recorded one; elsewhere ``judge`` (default: the
    fallback agent's model) is asked again. ``world``: how the app's world is made
    (``orav.sandbox.WorldOptions``)."""
    from orav.cassette import read_cassette
    from orav.engine import Engine
    from orav.specs import device_for, judge_for, open_device

    recorded = recorded or read_cassette(cassette)
    report = recorded.report()
    if report is None or not report.goal_met:
        status = report.status if report is not None else "unfinished"
        raise InputError(f"the recorded run did not pass ({status}): no golden", str(cassette))
    scenario = _played(cassette, recorded, scenario)
    deciding = RerunAgent(recorded, agent)
    judging = RerunJudge(recorded, judge_for(scenario, judge, agent))
    device = device_for(scenario, device)
    async with open_device(device, scenario, seed=seed, world=world) as live:
        try:
            result = await Engine(live, deciding, judge=judging).run(scenario)
        finally:
            if agent is not None:
                await close_agent(agent)
    regressions = list(deciding.regressions)
    if not result.goal_met and not regressions:
        regressions.append(_missed_goal(result, report.status))
    return Rerun(
        cassette,
        result,
        tuple(deciding.heals),
        tuple(regressions),
        deciding.served,
        deciding.asked,
        tuple(deciding.walked),
        judging.served,
        tuple(judging.asked),
    )


def _played(cassette: Path, recorded: Cassette, scenario: Scenario | None) -> Scenario:
    """The scenario the rerun plays (the one given, else ``scenario_of``), on the recorded app
    when it names none."""
    if scenario is None:
        scenario = scenario_of(cassette, recorded.header.scenario)
    if not scenario.app:  # the device's only app, as recorded
        scenario = evolve(scenario, app=recorded.header.scenario.app)
    return scenario


def _missed_goal(result: RunReport, was: str) -> Regression:
    """A rerun that stayed on the recorded path yet did not pass: the goal regressed (kind
    ``goal``), or an error ended the run first (kind ``ended``: what ended it, at the app's
    launch too, never the goals it had no chance to meet)."""
    if result.status in ("aborted", "interrupted"):
        unresolved = next((e.error for e in result.errors if not e.resolved), "")
        why = result.summary or unresolved or "no reason was recorded"
        return Regression(result.total_steps, "ended", was, f"{result.status}: {why}")
    missed = ", ".join(result.goals_missed) or result.summary or result.status
    return Regression(result.total_steps, "goal", was, f"{result.status}: {missed}")


def scenario_of(cassette: Path, recorded: Scenario, folders: Sequence[Path] = ()) -> Scenario:
    """The scenario a rerun of ``cassette`` plays: its file under ``folders`` (found by the
    ``recorded`` scenario's name; it holds the secrets), else the cassette's own copy, unless
    that types a secret, which the cassette holds as bullets: InputError."""
    found = find_scenario(recorded.name, folders) if folders else None
    if found is not None:
        return found
    if REDACTED in repr(unstructure(recorded)):
        raise InputError(
            f"scenario {recorded.name!r} types a secret, which the cassette holds as "
            f"{REDACTED}: give its scenario file to rerun it live",
            str(cassette),
        )
    return recorded


def find_scenario(name: str, folders: Sequence[Path]) -> Scenario | None:
    """The scenario called ``name`` in a ``*.yaml`` file under ``folders`` (None: not there);
    a file that is no scenario is passed over. A file named after the scenario is tried first,
    and only files whose text holds the name are loaded (a folder of many scenarios is not
    parsed whole for each cassette)."""
    from orav.scenario_loader import load_scenario

    for folder in folders:
        paths = sorted(Path(folder).rglob("*.yaml"), key=lambda path: (path.stem != name, path))
        for path in paths:
            try:
                if name not in path.read_text(encoding="utf-8", errors="replace"):
                    continue
                scenario = load_scenario(path)
            except (InputError, OSError):
                continue
            if scenario.name == name:
                return scenario
    return None


@frozen
class Repeated:
    """``runs`` live reruns of one cassette: pass@k and what flipped between them."""

    cassette: Path
    runs: tuple[Rerun, ...]

    @property
    def passed(self) -> int:
        return sum(run.ok for run in self.runs)

    @property
    def flaky(self) -> bool:
        """Some runs passed and some did not."""
        return 0 < self.passed < len(self.runs)

    @property
    def flipped(self) -> tuple[int, ...]:
        """The steps that differed between runs: regressed or healed in some and not in
        others, or on another screen, or another action taken there."""
        marks = [
            {r.step for r in run.regressions} | {h.step for h in run.heals} for run in self.runs
        ]
        every = set().union(*marks) if marks else set()
        flips = {s for s in every if any(s not in m for m in marks)}
        walks = [{w.step: (w.screen, w.action) for w in run.walked} for run in self.runs]
        steps = set().union(*walks) if walks else set()
        flips |= {s for s in steps if len({walk.get(s) for walk in walks}) > 1}
        return tuple(sorted(flips))

    def explain(self) -> str:
        verdict = "flaky" if self.flaky else ("passed" if self.passed else "regressed")
        head = f"{self.cassette.name}: {verdict}, pass@{len(self.runs)} = {self.passed}/{len(self.runs)}"
        flips = f"; steps that flip: {', '.join(map(str, self.flipped))}" if self.flipped else ""
        return head + flips


async def repeat(
    cassette: Path,
    times: int,
    *,
    seeds: Sequence[int] | None = None,
    recorded: Cassette | None = None,
    **options,
) -> Repeated:
    """Rerun ``cassette`` ``times`` times (simulator seed ``i`` for run ``i`` unless given),
    reading it once."""
    from orav.cassette import read_cassette

    if times < 1:
        raise InputError(f"repeat needs at least 1 run, not {times}", "--orav-repeat")
    recorded = recorded or read_cassette(cassette)
    chosen = list(seeds) if seeds is not None else list(range(times))
    runs = [
        await rerun(cassette, seed=seed, recorded=recorded, **options) for seed in chosen[:times]
    ]
    return Repeated(cassette, tuple(runs))
