"""One run recorded into one cassette at all three boundaries, as vcrpy's ``use_cassette``.

Recording by hand takes a writer, a header, three wrappers and an engine, each handed the
writer; forget one wrapper and the cassette does not replay. ``use_cassette`` does all of it::

    async with use_cassette("login.cassette", scenario, MyDevice(), record_mode="all") as rec:
        report = await rec.run()

``rec.device``, ``rec.agent`` and ``rec.clock`` are the recording wrappers, ``rec.writer``
the cassette writer, ``rec.engine(**options)`` an ``Engine`` wired to all of them (for a run
of your own). The record mode's policy (``orav.cassette.slot``) applies: ``once`` refuses a
passing cassette, the others write a temp file that replaces ``path`` when the block ends
without an error. Secrets (the scenario's password, secure text, ``${VAR}`` values, the
agent's ``secrets``) are scrubbed from everything written. The device stays the caller's:
it is described for the header, never closed here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from orav.agents import Agent, HoldsSecrets, model_of, reconsiders
from orav.cassette.clock import RecordingClock
from orav.cassette.events import Event, Header
from orav.cassette.judgements import RecordingJudge
from orav.cassette.record import RecordingAgent, RecordingDevice
from orav.cassette.record_mode import RecordMode
from orav.cassette.reuse import ReusingAgent
from orav.cassette.slot import Slot
from orav.cassette.writer import CassetteWriter
from orav.clock import Clock, SystemClock
from orav.device import Device
from orav.engine import Engine
from orav.errors import DeviceError, Interrupted
from orav.judges import Judge
from orav.model import DeviceInfo, Heal, Scenario
from orav.secrets import Shows, scenario_secrets, scrubbed_logs
from orav.watchdog import Deadline, cut_of, how


class CassetteRecorder:
    """The recording wrappers of one run, over one writer (made by ``use_cassette``)."""

    def __init__(
        self,
        scenario: Scenario,
        writer: CassetteWriter,
        header: Header,
        device: Device,
        agent: Agent,
        clock: Clock,
        slot: Slot,
        secrets: tuple[str, ...],
        judge: Judge | None = None,
    ) -> None:
        self.scenario = scenario
        self.writer = writer
        self.header = header
        self.mode = slot.mode
        self.secrets = secrets
        self.device = RecordingDevice(device, writer)
        self.agent: RecordingAgent | ReusingAgent = (
            ReusingAgent(slot.previous, agent, writer=writer)
            if slot.mode is RecordMode.NEW_EPISODES
            else RecordingAgent(agent, writer)
        )
        self.clock = RecordingClock(clock, writer)
        self.judge = RecordingJudge(judge, writer) if judge is not None else None

    def engine(self, **options: Any) -> Engine:
        """An Engine over the recording wrappers that writes its own events (transitions,
        verifications, the report) to the cassette; ``options`` go to ``Engine``."""
        return Engine(
            self.device,
            self.agent,
            clock=self.clock,
            writer=self.writer,
            run_id=self.header.run_id,
            judge=self.judge,
            **options,
        )

    async def run(self, **options: Any) -> Any:
        """Run the scenario on ``engine(**options)``: the RunReport."""
        return await self.engine(**options).run(self.scenario)

    @property
    def reused(self) -> int | None:
        """new_episodes: the decisions served from the old cassette (None in other modes)."""
        return self.agent.reused if isinstance(self.agent, ReusingAgent) else None

    @property
    def heals(self) -> tuple[Heal, ...]:
        """new_episodes: the reused taps re-aimed on a changed screen."""
        return tuple(self.agent.heals) if isinstance(self.agent, ReusingAgent) else ()

    @property
    def asked(self) -> int | None:
        """new_episodes: the decisions asked of the agent (None in other modes)."""
        return self.agent.asked if isinstance(self.agent, ReusingAgent) else None


@asynccontextmanager
async def use_cassette(
    path: str | Path,
    scenario: Scenario,
    device: Device,
    agent: Agent | None = None,
    *,
    record_mode: RecordMode | str = RecordMode.ONCE,
    clock: Clock | None = None,
    secrets: Iterable[str] = (),
    progress: Callable[[Event], None] | None = None,
    judge: Judge | None = None,
) -> AsyncIterator[CassetteRecorder]:
    """Record the run of ``scenario`` on ``device`` by ``agent`` (default: the scenario's
    script) to the cassette at ``path``, in ``record_mode`` (``none`` only replays: refused).

    ``clock`` replaces the system clock; ``secrets`` adds strings to keep out of the cassette;
    ``progress`` is called with every event once it is on disk; ``judge`` decides the claims
    in words (``orav.judges``), each judgement recorded.
    """
    slot = Slot.prepare(Path(path), RecordMode.parse(record_mode))
    async with recording(
        slot,
        scenario,
        device,
        agent,
        clock=clock,
        secrets=secrets,
        progress=progress,
        judge=judge,
    ) as recorder:
        yield recorder


@asynccontextmanager
async def recording(
    slot: Slot,
    scenario: Scenario,
    device: Device,
    agent: Agent | None = None,
    *,
    clock: Clock | None = None,
    secrets: Iterable[str] = (),
    progress: Callable[[Event], None] | None = None,
    judge: Judge | None = None,
) -> AsyncIterator[CassetteRecorder]:
    """``use_cassette`` into a ``Slot`` prepared already (``orav.session.record`` prepares it
    before it starts a device: a refused cassette starts nothing)."""
    if agent is None:
        from orav.agents.scripted import ScriptedAgent

        agent = ScriptedAgent()
    try:
        header = Header(
            scenario=scenario,
            device=await _described(device, max(scenario.timeout_seconds, DESCRIBE_SECONDS)),
            agent=agent.name,
            model=model_of(agent),
            record_mode=slot.mode,
            reconsiders=reconsiders(agent),
        )
        held = [*secrets_of(scenario, agent), *_judge_secrets(judge), *filter(None, secrets)]
        kept = tuple(dict.fromkeys(held))
        writer_type = CassetteWriter if progress is None else _Watched
        typed = scenario_secrets(scenario)  # a secret typed whole is written as its stand-in
        with (
            writer_type.create(
                slot.path, header, overwrite=slot.overwrite, secrets=kept, typed=typed
            ) as w,
            scrubbed_logs(w.scrubber),
        ):
            if isinstance(w, _Watched):
                w.progress = progress
                if isinstance(progress, Shows):  # the console, scrubbed as the cassette
                    progress.scrubber = w.scrubber
            yield CassetteRecorder(
                scenario, w, header, device, agent, clock or SystemClock(), slot, kept, judge
            )
    except Interrupted as exc:
        # The interrupted run's cassette (ending in its ``interrupted`` report) is kept,
        # unless it would replace an older one.
        if not slot.keep_interrupted(exc.recording is not None):
            exc.recording = None
        raise
    except BaseException:
        slot.discard()
        raise
    slot.keep()


def secrets_of(scenario: Scenario, agent: Agent) -> list[str]:
    """Strings that must never reach a cassette: the test password, secure text the scenario
    types, ``${NAME}`` values, the agent's own secrets (an API key)."""
    found = list(agent.secrets) if isinstance(agent, HoldsSecrets) else []
    return [s for s in [*found, *scenario_secrets(scenario)] if s]


def _judge_secrets(judge: Judge | None) -> list[str]:
    """A judge's own secrets (a separate model's API key)."""
    return list(judge.secrets) if isinstance(judge, HoldsSecrets) else []


class _Watched(CassetteWriter):
    """A cassette writer that shows ``progress`` every event once it is on disk."""

    progress: Callable[[Event], None] | None = None

    def write(self, event: Event) -> None:
        super().write(event)
        if self.progress is not None:
            self.progress(event)


DESCRIBE_SECONDS = 5.0  # at least, for the header's describe(): a short run's budget is its own


async def _described(device: Device, seconds: float) -> DeviceInfo:
    """The device's description for the cassette's header, within the run's own budget (it
    is asked before the run's deadline starts, and a device may never answer)."""
    try:
        async with Deadline(seconds):
            return await device.describe()
    except TimeoutError as timeout:
        cut = cut_of(timeout)  # a user's describe(), named
        if cut is None:
            raise DeviceError(f"the device did not describe itself within {seconds:g} s") from None
        what = f"{cut.call} did not return within {seconds:g} s ({how(cut.__cause__ or cut)})"
        raise DeviceError(what) from None
