"""Recording, replaying and the demo: the engine wired to devices, agents and cassettes.

These are the library functions behind ``orav record``, ``orav replay`` and ``orav demo``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import evolve, fields, frozen

from orav.agents import Agent
from orav.cassette.regression import DecisionDiff
from orav.errors import InputError
from orav.model import RunReport, Scenario

if TYPE_CHECKING:
    from orav.cassette import Cassette, Clock, RecordMode

DEFAULT_DEVICE = "sim"
MODES: tuple[RecordMode, ...] = ("once", "new_episodes", "all", "none")


@frozen
class Recording:
    """A live run's report and cassette; ``secrets`` must be scrubbed from anything written.

    ``reused`` and ``asked`` count decisions when an old cassette's were reused (new_episodes).
    """

    report: RunReport
    cassette: Path
    secrets: tuple[str, ...] = ()
    reused: int | None = None  # new_episodes: decisions served from the old cassette
    asked: int | None = None  # new_episodes: decisions asked of the agent


@frozen
class Replay:
    """A replay's report and whether it reproduced the recorded run exactly.

    ``report`` is None when the cassette was cut off before the run ended: the replay then
    went as far as the cassette did (``cut_after`` steps), which ``differences`` says.
    """

    report: RunReport | None
    recorded: RunReport | None
    faithful: bool
    differences: tuple[str, ...] = ()
    decisions: tuple[DecisionDiff, ...] = ()
    compared: int = 0
    scenario: str = ""
    cut_after: int | None = None

    @property
    def ok(self) -> bool:
        """Faithful, and a candidate agent (if any) decided as recorded at every step."""
        return self.faithful and not self.decisions


def make_agent(spec: str, **options) -> Agent:
    """``scripted``, ``explorer`` or ``openai:MODEL``; imports the LLM client only when asked."""
    if spec == "scripted":
        from orav.agents.scripted import ScriptedAgent

        return ScriptedAgent()
    if spec == "explorer":
        from orav.agents.explorer import ExplorerAgent

        return ExplorerAgent()
    if spec.startswith("openai:"):
        from orav.agents.openai import OpenAIAgent

        agent = OpenAIAgent.from_spec(spec, **options)
        if agent.missing_key:  # say so before a device is started, as bad input
            raise InputError(agent.missing_key, "--agent")
        return agent
    raise InputError(
        f"unknown agent {spec!r}; expected 'scripted', 'explorer' or 'openai:MODEL'", "--agent"
    )


@asynccontextmanager
async def open_device(
    spec: str, scenario: Scenario, *, timeout: float = 5.0, seed: int = 0
) -> AsyncIterator:
    """``sim`` (the embedded simulator with the demo app), ``sim:APP.yaml`` (the simulator
    with your app model), ``idb:HOST:PORT`` (an idb companion, e.g. on a Mac) or
    ``textual:package.module:AppClass`` (a Textual app, run in-process under Pilot)."""
    if spec.startswith("textual:"):
        from orav.drivers.textual import TextualDevice

        async with TextualDevice.from_spec(spec.removeprefix("textual:"), timeout=timeout) as d:
            yield d
        return
    from orav.drivers.idb import IdbDevice, parse_address

    if spec == "sim" or spec.startswith("sim:"):
        from orav.sim import SimCompanion, load_app_model

        app = load_app_model(Path(spec.removeprefix("sim:"))) if spec != "sim" else None
        async with (
            SimCompanion(app, faults=scenario.faults, seed=seed) as sim,
            IdbDevice.connect(sim.address, bundle_id=scenario.app, timeout=timeout) as d,
        ):
            yield d
    elif spec.startswith("idb:"):
        address = spec.removeprefix("idb:")
        try:
            parse_address(address)
        except InputError as exc:
            raise InputError(str(exc), "--device") from None
        async with IdbDevice.connect(address, bundle_id=scenario.app, timeout=timeout) as d:
            yield d
    else:
        raise InputError(
            f"unknown device {spec!r}; expected 'sim', 'sim:APP.yaml', 'idb:HOST:PORT' or "
            "'textual:package.module:AppClass'",
            "--device",
        )


def secrets_of(scenario: Scenario, agent: Agent) -> list[str]:
    """Strings that must never reach a cassette: the test password, the agent's API key."""
    found = list(getattr(agent, "secrets", ()))
    if scenario.credentials is not None:
        found.append(scenario.credentials.password)
    found += [d.action.text for d in scenario.script if getattr(d.action, "secure", False)]
    found += [a.text for a in scenario.preconditions if getattr(a, "secure", False)]
    return [s for s in found if s]


async def record(
    scenario: Scenario,
    out: Path,
    *,
    device: str = DEFAULT_DEVICE,
    agent: Agent | None = None,
    mode: RecordMode = "once",
    overwrite: bool = False,
    clock: Clock | None = None,
    seed: int = 0,
) -> Recording | Replay:
    """Run ``scenario`` live and write its cassette to ``out``, in record ``mode`` (as vcrpy's):

    - ``once``: record; an existing cassette is an InputError (nothing is started);
    - ``all`` (or ``overwrite=True``): record, replacing an existing cassette;
    - ``new_episodes``: record, reusing the existing cassette's decisions where the run is on
      the same screen again (``ReusingAgent``); the new cassette replaces the old one only when
      the run ends, so a crash keeps the old one;
    - ``none``: no device, no agent: replay the existing cassette and return the ``Replay``.

    ``clock`` replaces the system clock (tests pass one whose sleeps do not wait); ``seed``
    seeds the simulator's probabilistic faults.
    """
    if overwrite and mode not in ("once", "all"):
        raise InputError(f"--overwrite means --record-mode all, not {mode}", "--overwrite")
    mode = "all" if overwrite else mode
    if mode not in MODES:
        raise InputError(f"unknown record mode {mode!r}; expected one of {MODES}", "--record-mode")
    if mode == "none":
        return await replay(out)
    if mode == "once" and out.exists():
        raise InputError(
            "cassette already exists; replay it with `orav replay`, or record again with "
            "--record-mode new_episodes (reuse its decisions) or all (replace it)",
            str(out),
        )
    from orav.cassette import read_cassette

    previous = read_cassette(out) if mode == "new_episodes" and out.exists() else None
    agent = agent or make_agent("scripted")
    out.parent.mkdir(parents=True, exist_ok=True)
    # Replacing a cassette goes through a file beside it: a failed run keeps the old one.
    target = _temporary(out) if mode != "once" and out.exists() else out
    try:
        recording = await _record(scenario, target, device, agent, mode, previous, clock, seed)
    except BaseException:
        if target != out:
            target.unlink(missing_ok=True)
        raise
    if target != out:
        os.replace(target, out)
        _sync_directory(out.parent)
    return evolve(recording, cassette=out)


def _temporary(out: Path) -> Path:
    """A new file beside ``out`` (same file system, so it can be renamed over it), with
    ``out``'s permissions (mkstemp's are owner-only)."""
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        os.fchmod(fd, stat.S_IMODE(out.stat().st_mode))
    finally:
        os.close(fd)
    return Path(name)


def _sync_directory(path: Path) -> None:
    """Make a rename in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


async def _record(
    scenario: Scenario,
    out: Path,
    device: str,
    agent: Agent,
    mode: RecordMode,
    previous: Cassette | None,
    clock: Clock | None,
    seed: int,
) -> Recording:
    from orav.cassette import (
        CassetteWriter,
        Header,
        RecordingAgent,
        RecordingClock,
        RecordingDevice,
        ReusingAgent,
        SystemClock,
    )
    from orav.engine import Engine

    async with open_device(device, scenario, seed=seed) as live:
        header = Header(
            scenario=scenario,
            device=await live.describe(),
            agent=agent.name,
            model=getattr(agent, "model", ""),
            record_mode=mode,
        )
        secrets = secrets_of(scenario, agent)
        overwrite = mode != "once"
        with CassetteWriter.create(out, header, overwrite=overwrite, secrets=secrets) as writer:
            deciding = (
                ReusingAgent(previous, agent, writer=writer)
                if mode == "new_episodes"
                else RecordingAgent(agent, writer)
            )
            engine = Engine(
                RecordingDevice(live, writer),
                deciding,
                clock=RecordingClock(clock or SystemClock(), writer),
                writer=writer,
                run_id=header.run_id,
            )
            try:
                report = await engine.run(scenario)
            finally:
                close = getattr(agent, "close", None)
                if close is not None:
                    await close()
    if isinstance(deciding, ReusingAgent):
        return Recording(report, out, tuple(secrets), deciding.reused, deciding.asked)
    return Recording(report, out, tuple(secrets))


async def replay(path: Path, *, agent: Agent | None = None) -> Replay:
    """Rerun the engine from the cassette alone and compare with what was recorded.

    With ``agent``, a candidate agent is shown every recorded screen as well (decision
    regression): where it would have decided otherwise is in ``decisions``; the replay itself
    follows the recorded decisions, so every step is judged.
    """
    from orav.cassette import (
        ComparingAgent,
        ReplayAgent,
        ReplayClock,
        ReplayDevice,
        ReplayDivergence,
        read_cassette,
    )
    from orav.cassette.events import ReportEvent
    from orav.codec import structure
    from orav.engine import Engine

    cassette = read_cassette(path)
    header = cassette.header
    recorded = next(
        (
            structure(e.report, RunReport, source=str(path))
            for e in cassette.events
            if isinstance(e, ReportEvent)
        ),
        None,
    )
    device = ReplayDevice(cassette)
    judge = ComparingAgent(ReplayAgent(cassette), agent) if agent is not None else None
    engine = Engine(
        device,
        judge or ReplayAgent(cassette),
        clock=ReplayClock(cassette),
        run_id=recorded.run_id if recorded else header.run_id,
        deadlines=False,
    )
    differences = []
    if cassette.truncated:
        differences.append(f"the cassette was cut off at {cassette.truncated}")
    try:
        report = await engine.run(header.scenario)
    except ReplayDivergence as exc:
        if recorded is not None:
            raise
        differences.append(
            f"the recording did not finish: replayed faithfully through step "
            f"{cassette.last_step}, then {exc}"
        )
        return Replay(
            None,
            None,
            False,
            tuple(differences),
            tuple(judge.differences) if judge else (),
            judge.compared if judge else 0,
            scenario=header.scenario.name,
            cut_after=cassette.last_step,
        )
    if recorded is None:
        differences.append("the cassette has no report: the recording did not finish")
    elif report != recorded:
        differences += [
            f"{f.name}: recorded {getattr(recorded, f.name)!r}, replayed {getattr(report, f.name)!r}"
            for f in fields(RunReport)
            if getattr(recorded, f.name) != getattr(report, f.name)
        ]
    if device.pending:
        differences.append(f"{device.pending} recorded device calls were not replayed")
    decisions = tuple(judge.differences) if judge else ()
    compared = judge.compared if judge else 0
    return Replay(report, recorded, not differences, tuple(differences), decisions, compared)
