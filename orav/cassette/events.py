"""The cassette's line types: the header, then one frozen attrs class per event ``type`` tag.

``event_data(event) -> dict`` and ``event_from_data(data, source) -> Event`` go through the one
converter in orav.codec; the ``type`` tag is handled here so that an unknown or missing type
reads as one plain message. Calls at the Device and Agent boundaries carry either their result
or ``raised`` (an OravError the call raised), so replay can raise it again. An ``observe``
event's Observation crosses the converter through a hook (``orav.cassette.observation``) that
stores its tree and screenshot as blobs; the engine's own events carry what it knows (a
transition's step, a recovery's begin and end) so that no reader re-derives it.

One big thing: every line type of the format in one place, its single definition.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any, ClassVar

from attrs import field, frozen
from attrs.validators import optional
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from orav.__version__ import __version__
from orav.cassette.observation import (
    DamagedBlob,
    structure_observation,
    unstructure_observation,
)
from orav.cassette.record_mode import RecordMode
from orav.codec import converter, unstructure
from orav.codec.converter import raise_structure_error
from orav.errors import (
    AgentError,
    DeviceError,
    DeviceTimeout,
    InputError,
    Interrupted,
    OravError,
    ReplayedError,
)
from orav.model import (
    Action,
    ActionResult,
    Decision,
    DeviceInfo,
    FaultKind,
    Judgement,
    ModelCall,
    Observation,
    Scenario,
    Settled,
    Transition,
    Verification,
    WorldChanges,
    show_action,
)
from orav.model.limits import between
from orav.run_ids import new_run_id
from orav.watchdog import Cut

FORMAT = "orav-cassette"
VERSION = 2  # 2: transitions carry their step, recoveries are begin/end events, observations
# are Observations (elements and screenshot as blobs); docs/cassette-format.md says what changed
MAX_DECIDE_SECONDS = 86_400.0  # a decision's recorded duration: a day is already absurd


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@frozen(kw_only=True)
class Header:
    """Line 1: what was run, on what, by which agent; ``format``/``version`` gate the reader."""

    type: ClassVar[str] = "header"
    format: str = FORMAT
    version: int = VERSION
    orav_version: str = __version__
    run_id: str = field(factory=new_run_id)
    created_at: str = field(factory=_now_iso)
    scenario: Scenario
    device: DeviceInfo | None = None
    agent: str = ""
    model: str = ""
    record_mode: RecordMode = RecordMode.ONCE
    # The agent decided again when told its done was unproven (orav.agents.Reconsiders): its
    # replay goes on where the recording did.
    reconsiders: bool = False


# Every header key is written, defaults included: readers of other versions rely on them.
_header_keys = make_dict_unstructure_fn(Header, converter, _cattrs_omit_if_default=False)


def _unstructure_header(header: Header) -> dict[str, Any]:
    """The header's keys, and the scenario's answer to permission dialogs even when it is the
    default: a cassette without it was written while the default was ``allow`` (the reader
    reads it so), before orav granted nothing the test did not ask for."""
    data = _header_keys(header)
    data["scenario"]["permissions"] = header.scenario.permissions
    return data


converter.register_unstructure_hook(Header, _unstructure_header)
# What a scenario answered permission dialogs with when its cassette did not say.
OLD_PERMISSIONS = "allow"

DEADLINE = "TimeoutError"
CUT_OFF = "cut off by a deadline"  # a deadline's cut, of a call no Cut names
UNEXPECTED = "Unexpected"
INTERRUPTED = "Interrupted"


_RAISABLE: dict[str, type[OravError]] = {
    "DeviceTimeout": DeviceTimeout,  # before its family: the first match names it
    "DeviceError": DeviceError,
    "AgentError": AgentError,
    "InputError": InputError,
    "OravError": OravError,
}


@frozen
class Raised:
    """An OravError a recorded call raised: its family and its one-line message."""

    error: str
    message: str

    @classmethod
    def of(cls, exc: OravError) -> Raised:
        family = next(name for name, kind in _RAISABLE.items() if isinstance(exc, kind))
        return cls(family, str(exc))

    @classmethod
    def unexpected(cls, exc: Exception) -> Raised:
        """A call failed with something no callee should raise (a bug): replay raises a
        ``ReplayedError`` that reads the same, so the run ends the same way."""
        return cls(UNEXPECTED, f"{type(exc).__name__}: {exc}")

    @classmethod
    def deadline(cls, cut: str | None = None) -> Raised:
        """The call was cut off by the run's deadline (``cut``: what it cut, when a
        ``watchdog.Cut`` said so): replay cancels the run at the same place (CancelledError,
        as the deadline did live), so a timed-out run replays as it ran."""
        return cls(DEADLINE, cut or CUT_OFF)

    @classmethod
    def interrupted(cls, signal: str) -> Raised:
        """The call was cut off by SIGINT or SIGTERM: replay raises ``Interrupted`` there, so
        an interrupted run replays as interrupted, not as a timeout."""
        return cls(INTERRUPTED, f"interrupted by {signal}")

    def exception(self) -> BaseException:
        if self.error == INTERRUPTED:
            return Interrupted(self.message.removeprefix("interrupted by "))
        if self.error == DEADLINE:  # as the deadline did live
            return (
                asyncio.CancelledError(self.message)
                if self.message == CUT_OFF
                else Cut(self.message)
            )
        if self.error == UNEXPECTED:
            return ReplayedError(self.message)
        kind = _RAISABLE.get(self.error, OravError)
        return kind(self.message)


@frozen
class BlobEvent:
    """Content-addressed bytes (screenshot, accessibility dump), stored once, base64."""

    type: ClassVar[str] = "blob"
    sha256: str
    media_type: str
    data: str


@frozen
class StepEvent:
    """Step ``step`` (1-based) begins; the writer fsyncs here."""

    type: ClassVar[str] = "step"
    step: int


@frozen
class ObserveEvent:
    """A look at the screen. On disk the observation's element tree and screenshot are blobs
    (``orav.cassette.blobs``); read back, it is the Observation the device answered."""

    type: ClassVar[str] = "observe"
    observation: Observation | None = None
    raised: Raised | None = None


converter.register_unstructure_hook(
    ObserveEvent,
    make_dict_unstructure_fn(
        ObserveEvent,
        converter,
        _cattrs_omit_if_default=True,
        observation=override(unstruct_hook=unstructure_observation),
    ),
)
converter.register_structure_hook(
    ObserveEvent,
    make_dict_structure_fn(
        ObserveEvent,
        converter,
        _cattrs_forbid_extra_keys=True,
        observation=override(struct_hook=structure_observation),
    ),
)


@frozen
class PerformEvent:
    type: ClassVar[str] = "perform"
    action: Action
    result: ActionResult | None = None
    raised: Raised | None = None


@frozen
class LaunchEvent:
    type: ClassVar[str] = "launch"
    bundle_id: str
    raised: Raised | None = None


@frozen
class TerminateEvent:
    type: ClassVar[str] = "terminate"
    bundle_id: str
    raised: Raised | None = None


@frozen
class IsRunningEvent:
    type: ClassVar[str] = "is_running"
    bundle_id: str
    result: bool | None = None
    raised: Raised | None = None


@frozen
class LifecycleEvent:
    """A lifecycle call of an iOS target (``orav.device.Lifecycle``): install, uninstall,
    approve, revoke, clear_keychain, launch with arguments, open_url, crash_reports. Its
    arguments and its result as JSON."""

    type: ClassVar[str] = "lifecycle"
    call: str
    arguments: dict[str, Any] = field(factory=dict)
    result: Any = None
    raised: Raised | None = None


@frozen
class SettleEvent:
    """A device's settle call: how the app settled, or None when it could not tell."""

    type: ClassVar[str] = "settle"
    limit: float
    result: Settled | None = None
    raised: Raised | None = None


@frozen
class ChangesEvent:
    """A world's changes call (``orav.device.World``): what changed since the last one."""

    type: ClassVar[str] = "changes"
    result: WorldChanges = field(factory=WorldChanges)
    raised: Raised | None = None


@frozen
class DescribeEvent:
    type: ClassVar[str] = "describe"
    result: DeviceInfo | None = None
    raised: Raised | None = None


@frozen
class DecideEvent:
    """The agent's decision for ``step`` (model call metadata inside ``decision.call``).

    ``reused``: served from an earlier cassette (``--record-mode new_episodes``) without asking
    the agent; ``decision.call`` is then None (it cost nothing) and ``call`` is the model call
    that originally made it, if any. ``seconds``: how long the agent took to decide, as the
    recorder measured it (absent in cassettes from before it was recorded).
    """

    type: ClassVar[str] = "decide"
    step: int
    decision: Decision | None = None
    raised: Raised | None = None
    call: ModelCall | None = None  # what a failed decision cost, or where a reused one came from
    reused: bool = False
    seconds: float | None = field(default=None, validator=optional(between(0, MAX_DECIDE_SECONDS)))


@frozen
class JudgeEvent:
    """A claim in words judged at ``step`` (0: a precondition) on the screen whose digest is
    ``screen`` (``orav.perceive.change.screen_digest``): the judgement, its evidence and what
    the model call cost (``judgement.call``), or what the judge raised. A replay serves it
    without a model; a live rerun serves it while the screen is the recorded one."""

    type: ClassVar[str] = "judge"
    step: int
    claim: str
    screen: str
    judgement: Judgement | None = None
    raised: Raised | None = None


@frozen
class ClockEvent:
    """One reading of the engine's clock (seconds, monotonic)."""

    type: ClassVar[str] = "clock"
    now: float


@frozen
class SleepEvent:
    """A sleep of ``seconds``; ``cut`` when a deadline ended it early, ``interrupted`` (the
    signal's name) when SIGINT or SIGTERM did."""

    type: ClassVar[str] = "sleep"
    seconds: float
    cut: bool = False
    interrupted: str | None = None


@frozen
class VerificationEvent:
    type: ClassVar[str] = "verification"
    verification: Verification


@frozen
class TransitionEvent:
    """A state machine transition taken at ``step`` (the step under way, as the engine counts
    it), so a report can show the path taken without re-deriving where."""

    type: ClassVar[str] = "transition"
    machine: str
    source: str
    event: str
    target: str
    step: int = 0

    @classmethod
    def of(cls, transition: Transition) -> TransitionEvent:
        t = transition
        return cls(t.machine, t.source, t.event, t.target, t.step)

    @property
    def transition(self) -> Transition:
        return Transition(self.machine, self.source, self.event, self.target, self.step)


@frozen
class RecoveryBeginEvent:
    """A recovery starts: the fault it recovers from and the step it belongs to (for an action
    that changed nothing, the step that took it). ``set_aside``: the agent's decision for
    ``step`` was not acted on; it decides again after the recovery."""

    type: ClassVar[str] = "recovery_begin"
    step: int
    fault: FaultKind
    note: str = ""
    set_aside: bool = False


@frozen
class RecoveryEndEvent:
    """A recovery ends: the remedy's actions, whether the fault is gone, and if not, why.

    ``handed_back``: a retried action still changed nothing; no failure, the agent's turn
    (``reason`` says so)."""

    type: ClassVar[str] = "recovery_end"
    step: int
    fault: FaultKind
    actions: tuple[Action, ...] = ()
    resolved: bool = False
    handed_back: bool = False
    reason: str | None = None

    @property
    def shown_remedy(self) -> str:
        """The remedy's actions, as a person reads them."""
        return ", ".join(show_action(a) for a in self.actions) or "none"

    @property
    def outcome(self) -> str:
        """``resolved``, the hand-back, or ``failed: why``, as a person reads it."""
        if self.resolved:
            return "resolved"
        return self.reason or "" if self.handed_back else f"failed: {self.reason}"


@frozen
class ErrorEvent:
    type: ClassVar[str] = "error"
    message: str
    error: str = "OravError"


@frozen
class ReportEvent:
    """The final report as plain JSON data; ``report_type`` names the attrs class it came from."""

    type: ClassVar[str] = "report"
    report_type: str
    report: Any

    @classmethod
    def of(cls, report: Any) -> ReportEvent:
        return cls(type(report).__name__, unstructure(report))


Event = (
    StepEvent
    | ObserveEvent
    | PerformEvent
    | LaunchEvent
    | TerminateEvent
    | IsRunningEvent
    | DescribeEvent
    | SettleEvent
    | ChangesEvent
    | LifecycleEvent
    | DecideEvent
    | JudgeEvent
    | ClockEvent
    | SleepEvent
    | VerificationEvent
    | TransitionEvent
    | RecoveryBeginEvent
    | RecoveryEndEvent
    | ErrorEvent
    | ReportEvent
)
EVENT_TYPES: dict[str, type] = {cls.type: cls for cls in (BlobEvent, *Event.__args__)}
DEVICE_EVENTS = (
    ObserveEvent,
    PerformEvent,
    LaunchEvent,
    TerminateEvent,
    IsRunningEvent,
    DescribeEvent,
    SettleEvent,
    ChangesEvent,
    LifecycleEvent,
)


def event_data(event: Event | BlobEvent | Header) -> dict[str, Any]:
    """The JSON-able form of one line, ``type`` first."""
    return {"type": event.type, **unstructure(event)}


def event_from_data(data: Any, source: str) -> Event | BlobEvent:
    """Build an event from one parsed line; InputError naming ``source`` when it is not one."""
    if not isinstance(data, dict):
        raise InputError("expected an event object", source)
    tag = data.get("type")
    cls = EVENT_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        what = "event has no 'type'" if tag is None else f"unknown event type {tag!r}"
        raise InputError(f"{what}; expected one of {sorted(EVENT_TYPES)}", source)
    fields = {key: value for key, value in data.items() if key != "type"}
    try:
        return converter.structure(fields, cls)
    except Exception as exc:
        missing = _damaged_blob(exc)
        if missing is not None:
            raise missing from None
        raise_structure_error(exc, fields, source, lambda path: None)
        raise  # unreachable


def _damaged_blob(exc: BaseException) -> DamagedBlob | None:
    """The DamagedBlob an observation's hook raised, however deep cattrs grouped it."""
    while isinstance(exc, BaseExceptionGroup):
        group = exc.subgroup(lambda e: isinstance(e, DamagedBlob))
        if group is None:
            return None
        exc = group.exceptions[0]
    return exc if isinstance(exc, DamagedBlob) else None
