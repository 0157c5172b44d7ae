"""A record or replay session: the engine wired to a device, an agent and a cassette.

API::

    await record(scenario, "login.cassette", device=MyDevice())    # a Device, or a spec: "sim"
    await record(scenario, out, device="sim", mode="new_episodes")  # -> Recording (or Replay)
    await replay("login.cassette")                                   # -> Replay
    await replay(path, agent=candidate, match=Match.on("kind", "target"))

These are the library functions behind ``orav record`` and ``orav replay``. The record modes
and their policy live in ``orav.cassette.slot``, the recording wrappers in
``orav.recorder``; a session adds the device spec, signals (SIGINT, SIGTERM end a
run with an ``interrupted`` report) and the comparison of a replay with its recording.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from attrs import evolve, fields, frozen

from orav.agents import Agent, AgentContext, Closable, close_agent
from orav.cassette.clock import ReplayClock
from orav.cassette.events import Event, ReportEvent
from orav.cassette.judgements import ComparingJudge, JudgementDiff, ReplayJudge
from orav.cassette.match import Match
from orav.cassette.reader import Cassette, read_cassette
from orav.cassette.record_mode import RecordMode
from orav.cassette.regression import ComparingAgent, DecisionDiff
from orav.cassette.replay import ReplayAgent, ReplayDevice
from orav.cassette.slot import Slot
from orav.clock import Clock
from orav.device import Device
from orav.engine import Engine
from orav.errors import InputError, Interrupted, ReplayDivergence
from orav.judges import Judge
from orav.model import Assert, Decision, Done, Recording, RunReport, Scenario
from orav.recorder import recording
from orav.sandbox import WorldOptions
from orav.specs import check_app, device_for, judge_for, open_device, resolve_app
from orav.watchdog import Cancellation


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
    judgements: tuple[JudgementDiff, ...] = ()  # where a candidate judge judged otherwise
    judged: int = 0  # judgements a candidate judge was compared on

    @property
    def ok(self) -> bool:
        """Faithful, and a candidate agent or judge (if any) decided as recorded throughout."""
        return self.faithful and not self.decisions and not self.judgements


async def record(
    scenario: Scenario,
    out: str | Path,
    *,
    device: str | Device | None = None,
    agent: Agent | None = None,
    mode: RecordMode | str | None = None,
    overwrite: bool = False,
    clock: Clock | None = None,
    seed: int = 0,
    progress: Callable[[Event], None] | None = None,
    judge: Judge | None = None,
    world: WorldOptions | None = None,
) -> Recording | Replay:
    """Run ``scenario`` live on ``device`` and write its cassette to ``out``, in record
    ``mode`` (default ``once``; ``orav.cassette.slot`` has the policy; ``overwrite=True`` is
    mode ``all``).

    ``device`` is a Device of your own, or a spec (``orav.specs.open_device``: ``sim``,
    ``sim:APP.yaml``, ``idb:HOST:PORT``, ``textual:package.module:AppClass``,
    ``class:package.module:Class``) opened for the run and closed after it (default: the
    scenario's ``device:``, else ``orav.specs.device_for``'s); a Device given stays open.
    ``agent`` defaults to the scenario's script and is closed when the run ends
    (``orav.agents.Closable``). Mode ``none`` starts nothing and returns the ``Replay`` of the
    existing cassette. ``out`` is checked before anything starts.

    SIGINT or SIGTERM ends the run with an ``interrupted`` report in the cassette and raises
    ``Interrupted``, whose ``recording`` is what was kept (None when an old cassette was).
    ``clock`` replaces the system clock (``orav.testing.VirtualClock`` never waits); ``seed``
    seeds the simulator's probabilistic faults; ``progress`` is called with every event as it
    is recorded (``orav.report.console.Progress`` prints them). ``judge`` decides the claims in
    words (``orav.judges``; default: the LLM agent's model, else none), every judgement
    recorded. A scenario without ``app:`` runs the device spec's only app
    (``orav.specs.resolve_app``). ``world`` says how the app's
    world is made (``orav.sandbox.WorldOptions``: a Textual app's sandbox, the network).
    """
    out = Path(out)
    if device is None or isinstance(device, str):
        device = device_for(scenario, device)
        scenario = resolve_app(device, scenario)
        check_app(device, scenario)
    elif not scenario.app:
        raise InputError(f"scenario {scenario.name!r} names no app: name it with `app:`", "app")
    mode = RecordMode.of(mode, overwrite=overwrite)
    if mode is RecordMode.NONE:
        return await replay(out)
    if agent is None:
        from orav.agents.scripted import ScriptedAgent

        agent = ScriptedAgent()
    judge = _judge_for(scenario, judge_for(scenario, judge, agent))
    slot = Slot.prepare(out, mode)  # refused: nothing is started
    try:
        with _interruptible() as interruption:
            try:
                if isinstance(device, str):
                    world = _skipping(world or WorldOptions(), out)
                    async with open_device(device, scenario, seed=seed, world=world) as live:
                        run = await _record(
                            slot, scenario, live, agent, clock, interruption, progress, judge
                        )
                else:
                    run = await _record(
                        slot, scenario, device, agent, clock, interruption, progress, judge
                    )
            except asyncio.CancelledError:
                if interruption["signal"] is None:
                    raise  # a caller's cancellation, not a signal
                _uncancel()  # a signal before the run began (no report), or after it ended
                stopped = Interrupted(interruption["signal"])
                stopped.recording = interruption["recording"]  # kept: its reports are written
                raise stopped from None
    except Interrupted as exc:
        if exc.recording is not None:
            exc.recording = evolve(exc.recording, cassette=out)
        slot.discard()
        raise
    except BaseException:
        slot.discard()  # a device that did not open, a run that failed to finish
        raise
    return evolve(run, cassette=out)


def _judge_for(scenario: Scenario, judge: Judge | None) -> Judge | None:
    """The run's judge; an InputError before anything starts when the scenario has claims in
    words and nothing can judge them."""
    claims = claims_of(scenario)
    if claims and judge is None:
        what = (
            f"scenario {scenario.name!r} has claims in words ({claims[0]!r}"
            + (f" and {len(claims) - 1} more" if len(claims) > 1 else "")
            + "): give a judge (--judge table:FILE or openai:MODEL, or `judge:` in the scenario), "
            "or an openai agent"
        )
        raise InputError(what, "--judge")
    return judge


def claims_of(scenario: Scenario) -> list[str]:
    """The claims in words a run of ``scenario`` asks a judge: its preconditions', criteria's
    and scripted ``assert`` steps'."""
    steps = [*scenario.preconditions, *scenario.success_criteria]
    steps += [decision.action for decision in scenario.script]
    return [step.claim for step in steps if isinstance(step, Assert) and step.claim is not None]


def interrupted_report(report: RunReport, signal: str) -> RunReport:
    """The report of a run SIGINT or SIGTERM ended: how far it got (``Engine.unfinished``)."""
    step = report.total_steps + 1
    return evolve(report, status="interrupted", summary=f"interrupted by {signal} at step {step}")


@contextmanager
def _interruptible() -> Iterator[dict[str, Any]]:
    """While recording, SIGINT and SIGTERM cancel the run instead of killing the process, so
    the cassette gets its ``interrupted`` report and temp files are removed: at the loop's
    next turn, or where the loop is held when it does not turn (``orav.watchdog``). Yields the
    state the handler fills in: ``signal`` (its name) and ``writer`` (to tell it why calls
    end), and ``recording`` once the run's cassette is kept (a later signal still writes its
    reports)."""
    state: dict[str, Any] = {"signal": None, "writer": None, "recording": None}
    task = asyncio.current_task()
    cancellation = Cancellation(task).watched() if task is not None else None
    previous: dict[signal.Signals, Any] = {}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if state["signal"] is not None or cancellation is None:  # ends it as it would have
            if signum == signal.SIGINT:
                signal.default_int_handler(signum, frame)
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
            return
        state["signal"] = name
        if state["writer"] is not None:
            state["writer"].interrupted = name
        cancellation.request()

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, on_signal)
    try:
        yield state
    finally:
        if cancellation is not None:
            cancellation.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


async def _record(
    slot: Slot,
    scenario: Scenario,
    device: Device,
    agent: Agent,
    clock: Clock | None,
    interruption: dict[str, Any],
    progress: Callable[[Event], None] | None,
    judge: Judge | None = None,
) -> Recording:
    try:
        async with recording(
            slot, scenario, device, agent, clock=clock, progress=progress, judge=judge
        ) as recorder:
            interruption["writer"] = recorder.writer
            engine = recorder.engine()
            try:
                report = await engine.run(scenario)
            except (asyncio.CancelledError, Interrupted):
                name = interruption["signal"]
                if name is None or engine.unfinished is None:
                    raise  # not a signal: a caller's cancellation
                _uncancel()
                report = interrupted_report(engine.unfinished, name)
                recorder.writer.write(ReportEvent.of(report))
                recorder.writer.sync()
                stopped = Interrupted(name)
                stopped.recording = Recording(report, slot.path, recorder.secrets)
                raise stopped from None
        kept = Recording(
            report, slot.path, recorder.secrets, recorder.reused, recorder.asked, recorder.heals
        )
        interruption["recording"] = kept  # a signal from here on still gets its reports
    finally:
        await close_agent(agent)
        if isinstance(judge, Closable) and judge is not agent:
            await judge.close()
    return kept


class _Glance:
    """The agent of a first look: it acts on nothing and gives up at once."""

    name = "first-look"

    async def decide(self, context: AgentContext) -> Decision:
        done = Done(success=False, summary="a first look only: nothing was done")
        return Decision(action=done, reasoning="orav validate looks at the first screen only")


async def first_look(
    scenario: Scenario,
    device: str | Device | None = None,
    *,
    judge: Judge | None = None,
    world: WorldOptions | None = None,
) -> RunReport:
    """A run of ``scenario`` on ``device`` that stops at its first look (the app launched, the
    preconditions done) and acts on nothing, recorded nowhere: its report's ``warnings`` name
    the success criteria that already hold there (a pass would prove nothing the run did), as
    a run's report does; its ``errors`` say why the app could not be brought there. A
    precondition in words needs ``judge``; a criterion in words is not judged (no call is paid
    for a look)."""
    if device is None or isinstance(device, str):
        device = device_for(scenario, device)  # the scenario's own device unless told
        scenario = resolve_app(device, scenario)
    judge = judge_for(scenario, judge, None)  # --judge, else the scenario's own
    words = [a.claim for a in scenario.preconditions if isinstance(a, Assert) and a.claim]
    if words and judge is None:
        what = f"precondition {words[0]!r} is a claim in words: give a judge (--judge)"
        raise InputError(f"scenario {scenario.name!r}: {what}", "--judge")
    if not isinstance(device, str):
        return await Engine(device, _Glance(), judge=judge).run(scenario)
    async with open_device(device, scenario, world=world or WorldOptions()) as live:
        return await Engine(live, _Glance(), judge=judge).run(scenario)


def _uncancel() -> None:
    """Take back the cancellation a signal asked for: the run ends with its report instead."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


def _skipping(world: WorldOptions, out: Path) -> WorldOptions:
    """``world`` whose sandbox leaves out the cassette's folder when it is one of the working
    folder's own (orav's output is not the app's)."""
    folder = out.parent.resolve()
    if folder == Path.cwd().resolve() or not folder.is_relative_to(Path.cwd().resolve()):
        return world
    return evolve(world, skip=(*world.skip, str(folder)))


async def replay(
    path: str | Path,
    *,
    agent: Agent | None = None,
    match: Match | None = None,
    judge: Judge | None = None,
) -> Replay:
    """Rerun the engine from the cassette alone and compare with what was recorded.

    With ``agent``, a candidate agent is shown every recorded screen as well (decision
    regression): where it would have decided otherwise is in ``decisions``; the replay itself
    follows the recorded decisions, so every step is judged. ``match`` is how a replayed
    action is matched to the recorded one (``orav.cassette.match``; default: all of it).
    The recorded judgements are served (no model); with ``judge``, a candidate judge is asked
    each recorded question as well, and where it judged otherwise is in ``judgements``.
    """
    cassette = read_cassette(path)
    recorded = cassette.report()
    tracks = _Tracks(cassette, agent=agent, match=match, judge=judge)
    engine = tracks.engine(recorded.run_id if recorded else cassette.header.run_id)
    cut = [f"the cassette was cut off at {cassette.truncated}"] if cassette.truncated else []
    try:
        report = await engine.run(cassette.header.scenario)
    except Interrupted as exc:  # the recording was interrupted there: so is its replay
        if engine.unfinished is None:
            raise
        report = interrupted_report(engine.unfinished, exc.signal)
    except ReplayDivergence as exc:
        if recorded is not None:
            raise
        unfinished = (
            f"the recording did not finish: replayed faithfully through step "
            f"{cassette.last_step}, then {exc}"
        )
        return Replay(
            None,
            None,
            False,
            (*cut, unfinished),
            scenario=cassette.header.scenario.name,
            cut_after=cassette.last_step,
            **tracks.verdicts(),
        )
    differences = [*cut, *_report_differences(recorded, report), *tracks.unreplayed()]
    return Replay(report, recorded, not differences, tuple(differences), **tracks.verdicts())


class _Tracks:
    """The recorded tracks a replay serves (device calls, decisions, clock, judgements) and
    the candidate agent and judge compared on them."""

    def __init__(
        self, cassette: Cassette, *, agent: Agent | None, match: Match | None, judge: Judge | None
    ) -> None:
        self.device = ReplayDevice(cassette, match=match or Match())
        self.decisions = ReplayAgent(cassette)
        self.clock = ReplayClock(cassette)
        self.judgements = ReplayJudge(cassette)
        self.agent = ComparingAgent(self.decisions, agent) if agent is not None else None
        self.judge = ComparingJudge(self.judgements, judge) if judge is not None else None

    def engine(self, run_id: str) -> Engine:
        return Engine(
            self.device,
            self.agent or self.decisions,
            clock=self.clock,
            run_id=run_id,
            deadlines=False,
            judge=self.judge or self.judgements,
        )

    def unreplayed(self) -> list[str]:
        """Faithful means every track was consumed: what each left over."""
        pending = (
            ("device calls", self.device.pending),
            ("decisions", self.decisions.pending),
            ("clock readings and sleeps", self.clock.pending),
            ("judgements", self.judgements.pending),
        )
        return [f"{left} recorded {track} were not replayed" for track, left in pending if left]

    def verdicts(self) -> dict[str, Any]:
        """Where the candidates decided or judged otherwise, and on how many."""
        return {
            "decisions": tuple(self.agent.differences) if self.agent else (),
            "compared": self.agent.compared if self.agent else 0,
            "judgements": tuple(self.judge.differences) if self.judge else (),
            "judged": self.judge.compared if self.judge else 0,
        }


def _report_differences(recorded: RunReport | None, report: RunReport) -> list[str]:
    """How the replayed report differs from the recorded one, field by field."""
    if recorded is None:
        return ["the cassette has no report: the recording did not finish"]
    return [
        _difference(f.name, getattr(recorded, f.name), getattr(report, f.name))
        for f in fields(RunReport)
        if getattr(recorded, f.name) != getattr(report, f.name)
    ]


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
