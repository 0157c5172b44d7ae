"""Recording, replaying and the demo: the engine wired to devices, agents and cassettes.

These are the library functions behind ``orav record``, ``orav replay`` and ``orav demo``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import evolve, fields, frozen

from orav.agents import Agent
from orav.cassette.regression import DecisionDiff
from orav.cassette.writer import CassetteWriter
from orav.errors import InputError, Interrupted
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
        from orav.sim import SimCompanion, bundled_app

        # plain `sim` serves the shipped app of the scenario's bundle id (the demo or the shop)
        path = Path(spec.removeprefix("sim:")) if spec != "sim" else bundled_app(scenario.app)
        app = app_model(path)
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


def app_model(path: Path):
    """The app model at ``path``, loaded once per version of the file (``orav explore`` needs
    it before the run as well as for it: parsing a large one twice doubled its start-up)."""
    try:
        stat = path.stat()
        version = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        version = None  # let the loader say what is wrong with the path
    if version is None or version not in _APP_MODELS:
        from orav.sim import load_app_model

        model = load_app_model(path)
        if version is None:
            return model
        _APP_MODELS.clear()  # one at a time: a process runs one app
        _APP_MODELS[version] = model
    return _APP_MODELS[version]


_APP_MODELS: dict[tuple[str, int, int], object] = {}


def secrets_of(scenario: Scenario, agent: Agent) -> list[str]:
    """Strings that must never reach a cassette: the test password, the agent's API key."""
    found = list(getattr(agent, "secrets", ()))
    if scenario.credentials is not None:
        found.append(scenario.credentials.password)
    found += [d.action.text for d in scenario.script if getattr(d.action, "secure", False)]
    found += [a.text for a in scenario.preconditions if getattr(a, "secure", False)]
    found += [os.environ.get(name, "") for name in scenario.variables]  # ${NAME} values
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
    progress: Callable[[object], None] | None = None,
) -> Recording | Replay:
    """Run ``scenario`` live and write its cassette to ``out``, in record ``mode`` (as vcrpy's):

    - ``once``: record; an existing cassette is an InputError (nothing is started);
    - ``all`` (or ``overwrite=True``): record, replacing an existing cassette;
    - ``new_episodes``: record, reusing the existing cassette's decisions where the run is on
      the same screen again (``ReusingAgent``); the new cassette replaces the old one only when
      the run ends, so a crash keeps the old one;
    - ``none``: no device, no agent: replay the existing cassette and return the ``Replay``.

    ``out`` is checked before anything starts (``check_out``). Every mode but ``once`` writes
    a temp file beside ``out`` and moves the whole cassette into place when the run ends, so
    two runs never write one cassette; temp files of killed runs are removed first. SIGINT or
    SIGTERM ends the run with an ``interrupted`` report in the cassette and raises
    ``Interrupted``, whose ``recording`` is what was kept (None when an old cassette was).

    A cassette whose run did not pass (failed, aborted, interrupted, cut off) is no golden:
    ``once`` records over it instead of refusing, so a failed attempt never blocks the next.

    ``clock`` replaces the system clock (tests pass one whose sleeps do not wait); ``seed``
    seeds the simulator's probabilistic faults; ``progress`` is called with every event as it
    is recorded (``orav.report.console.Progress`` prints them).
    """
    if overwrite and mode not in ("once", "all"):
        raise InputError(f"--overwrite means --record-mode all, not {mode}", "--overwrite")
    mode = "all" if overwrite else mode
    if mode not in MODES:
        raise InputError(f"unknown record mode {mode!r}; expected one of {MODES}", "--record-mode")
    if mode == "none":
        return await replay(out)
    check_out(out)
    if mode == "once" and out.exists() and did_not_pass(out):
        mode = "all"  # a failed attempt is no golden: record over it
    if mode == "once" and out.exists():
        raise InputError(
            "cassette already exists; replay it with `orav replay`, or record again with "
            "--record-mode new_episodes (reuse its decisions) or all (replace it)",
            str(out),
        )
    from orav.cassette import read_cassette
    from orav.cassette.writer import Beside, remove_stale

    existed = out.exists()
    previous = read_cassette(out) if mode == "new_episodes" and existed else None
    agent = agent or make_agent("scripted")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        for written in (out, out.with_suffix(".report.json"), out.with_suffix(".html")):
            remove_stale(written)  # temp files of runs killed with no chance to clean up
        # Every mode but once writes beside ``out`` and moves the whole cassette into place
        # at the end: a failed run keeps the old one, two runs never write one file at once.
        beside = Beside(out) if mode != "once" else None
    except OSError as exc:
        raise InputError(f"cannot write the cassette: {exc.strerror}", str(out)) from None
    target = beside.path if beside else out
    try:
        with _interruptible() as interruption:
            try:
                recording = await _record(
                    scenario,
                    target,
                    device,
                    agent,
                    mode,
                    previous,
                    clock,
                    seed,
                    interruption,
                    progress,
                )
            except asyncio.CancelledError:
                if interruption["signal"] is None:
                    raise  # a caller's cancellation, not a signal
                asyncio.current_task().uncancel()  # a signal before the run began: no report
                raise Interrupted(interruption["signal"]) from None
    except Interrupted as exc:
        # The interrupted run's cassette (ending in its ``interrupted`` report) is kept,
        # unless it would replace an older one: a re-record cut short keeps the old.
        if beside is not None and (existed or exc.recording is None):
            beside.discard()
            exc.recording = None
        elif beside is not None:
            beside.commit(replace=mode == "all")
        if exc.recording is not None:
            exc.recording = evolve(exc.recording, cassette=out)
        raise
    except BaseException:
        if beside is not None:
            beside.discard()
        raise
    if beside is not None:
        beside.commit(replace=existed or mode == "all")
    return evolve(recording, cassette=out)


def passed(cassette: Path) -> bool:
    """The cassette holds a finished run that met its goal: a golden one (unreadable: no)."""
    report = _ending(cassette)
    return report is not None and report is not False and report.ok


def did_not_pass(cassette: Path) -> bool:
    """The cassette is readable and its run did not pass (failed, aborted, interrupted, cut
    off): no golden, safe to record over. One orav cannot read is never recorded over."""
    report = _ending(cassette)
    return report is not False and (report is None or not report.ok)


def _ending(cassette: Path) -> RunReport | None | bool:
    """The cassette's report, None when it has none, False when it cannot be read."""
    from orav.cassette import read_cassette
    from orav.report.run import recorded_report

    try:
        return recorded_report(read_cassette(cassette))
    except (InputError, OSError):
        return False


def interrupted_report(report: RunReport, signal: str) -> RunReport:
    """The report of a run SIGINT or SIGTERM ended: how far it got (``Engine.unfinished``)."""
    step = report.total_steps + 1
    return evolve(report, status="interrupted", summary=f"interrupted by {signal} at step {step}")


def check_out(out: Path) -> None:
    """Refuse, before anything starts, a cassette path the run could not write at its end:
    a directory, a path under a file, a symlink (orav writes no file through a symlink), or a
    folder it cannot write in."""
    where = str(out)
    if out.is_symlink():
        raise InputError("is a symlink; orav does not write a cassette through one", where)
    if out.is_dir():
        raise InputError("is a directory; --out names the cassette file", where)
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{parent} is not a directory", where)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in {parent}: permission denied", where)


class _Watched(CassetteWriter):
    """A cassette writer that shows ``progress`` every event once it is on disk."""

    progress: Callable[[object], None] | None = None

    def write(self, event) -> None:
        super().write(event)
        if self.progress is not None:
            self.progress(event)


@contextmanager
def _interruptible() -> Iterator[dict[str, Any]]:
    """While recording, SIGINT and SIGTERM cancel the run instead of killing the process, so
    the cassette gets its ``interrupted`` report and temp files are removed. Yields the state
    the handler fills in: ``signal`` (its name) and ``writer`` (to tell it why calls end)."""
    state: dict[str, Any] = {"signal": None, "writer": None}
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def on_signal(name: str) -> None:
        if state["signal"] is None and task is not None:
            state["signal"] = name
            if state["writer"] is not None:
                state["writer"].interrupted = name
            task.cancel()
        for signum in installed:  # a second signal ends the process as it would have
            loop.remove_signal_handler(signum)
        installed.clear()

    installed = []
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, on_signal, signum.name)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            installed.append(signum)
    try:
        yield state
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


async def _record(
    scenario: Scenario,
    out: Path,
    device: str,
    agent: Agent,
    mode: RecordMode,
    previous: Cassette | None,
    clock: Clock | None,
    seed: int,
    interruption: dict[str, Any],
    progress: Callable[[object], None] | None = None,
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
    from orav.cassette.events import ReportEvent
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
        create = CassetteWriter.create if progress is None else _Watched.create
        with create(out, header, overwrite=overwrite, secrets=secrets) as writer:
            if progress is not None:
                writer.progress = progress
            interruption["writer"] = writer
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
            except (asyncio.CancelledError, Interrupted):
                name = interruption["signal"]
                if name is None or engine.unfinished is None:
                    raise  # not a signal: a caller's cancellation
                asyncio.current_task().uncancel()
                report = interrupted_report(engine.unfinished, name)
                writer.write(ReportEvent.of(report))
                writer.sync()
                stopped = Interrupted(name)
                stopped.recording = Recording(report, out, tuple(secrets))
                raise stopped from None
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
    decisions_track = ReplayAgent(cassette)
    clock = ReplayClock(cassette)
    judge = ComparingAgent(decisions_track, agent) if agent is not None else None
    engine = Engine(
        device,
        judge or decisions_track,
        clock=clock,
        run_id=recorded.run_id if recorded else header.run_id,
        deadlines=False,
    )
    differences = []
    if cassette.truncated:
        differences.append(f"the cassette was cut off at {cassette.truncated}")
    try:
        report = await engine.run(header.scenario)
    except Interrupted as exc:  # the recording was interrupted there: so is its replay
        report = interrupted_report(engine.unfinished, exc.signal)
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
            _difference(f.name, getattr(recorded, f.name), getattr(report, f.name))
            for f in fields(RunReport)
            if getattr(recorded, f.name) != getattr(report, f.name)
        ]
    # Faithful means every track was consumed: the device's, the agent's and the clock's.
    for track, pending in (
        ("device calls", device.pending),
        ("decisions", decisions_track.pending),
        ("clock readings and sleeps", clock.pending),
    ):
        if pending:
            differences.append(f"{pending} recorded {track} were not replayed")
    decisions = tuple(judge.differences) if judge else ()
    compared = judge.compared if judge else 0
    return Replay(report, recorded, not differences, tuple(differences), decisions, compared)


def _difference(name: str, recorded: Any, replayed: Any) -> str:
    """One field of the report that replayed otherwise; of a list, the first item that did."""
    if isinstance(recorded, tuple) and isinstance(replayed, tuple):
        at = next(
            (i for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)) if a != b),
            min(len(recorded), len(replayed)),
        )
        was = repr(recorded[at]) if at < len(recorded) else "nothing more"
        now = repr(replayed[at]) if at < len(replayed) else "nothing more"
        return f"{name}[{at}]: recorded {was}, replayed {now}"
    return f"{name}: recorded {recorded!r}, replayed {replayed!r}"
