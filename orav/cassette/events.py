"""The cassette's line types: the header, then one frozen attrs class per event ``type`` tag.

``event_data(event) -> dict`` and ``event_from_data(data, source) -> Event`` go through the one
converter in orav.codec; the ``type`` tag is handled here so that an unknown or missing type
reads as one plain message. Calls at the Device and Agent boundaries carry either their result
or ``raised`` (an OravError the call raised), so replay can raise it again.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from attrs import field, frozen
from cattrs.gen import make_dict_unstructure_fn

from orav import __version__
from orav.codec import converter, structure, unstructure
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
    ModelCall,
    Scenario,
    Screenshot,
    Settled,
    Verification,
)

FORMAT = "orav-cassette"
VERSION = 1
RecordMode = Literal["none", "once", "new_episodes", "all"]


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _new_run_id() -> str:
    return uuid.uuid4().hex


@frozen(kw_only=True)
class Header:
    """Line 1: what was run, on what, by which agent; ``format``/``version`` gate the reader."""

    type: ClassVar[str] = "header"
    format: str = FORMAT
    version: int = VERSION
    orav_version: str = __version__
    run_id: str = field(factory=_new_run_id)
    created_at: str = field(factory=_now_iso)
    scenario: Scenario
    device: DeviceInfo | None = None
    agent: str = ""
    model: str = ""
    record_mode: RecordMode = "once"


# Every header key is written, defaults included: readers of other versions rely on them.
converter.register_unstructure_hook(
    Header, make_dict_unstructure_fn(Header, converter, _cattrs_omit_if_default=False)
)

DEADLINE = "TimeoutError"
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
    def deadline(cls) -> Raised:
        """The call was cut off by the run's deadline: replay cancels the run at the same
        place (CancelledError, as the deadline did live), so a timed-out run replays as it ran."""
        return cls(DEADLINE, "cut off by a deadline")

    @classmethod
    def interrupted(cls, signal: str) -> Raised:
        """The call was cut off by SIGINT or SIGTERM: replay raises ``Interrupted`` there, so
        an interrupted run replays as interrupted, not as a timeout."""
        return cls(INTERRUPTED, f"interrupted by {signal}")

    def exception(self) -> BaseException:
        if self.error == INTERRUPTED:
            return Interrupted(self.message.removeprefix("interrupted by "))
        if self.error == DEADLINE:
            return asyncio.CancelledError(self.message)  # as the deadline did live
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
class StoredObservation:
    """An Observation with its element list replaced by the sha256 of a JSON blob."""

    elements: str | None = None
    screenshot: Screenshot | None = None
    app: str | None = None
    app_running: bool | None = True
    taken_at: float = 0.0
    text: str | None = None
    error: str | None = None


@frozen
class ObserveEvent:
    type: ClassVar[str] = "observe"
    observation: StoredObservation | None = None
    raised: Raised | None = None


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
class DescribeEvent:
    type: ClassVar[str] = "describe"
    result: DeviceInfo | None = None
    raised: Raised | None = None


@frozen
class DecideEvent:
    """The agent's decision for ``step`` (model call metadata inside ``decision.call``).

    ``reused``: served from an earlier cassette (``--record-mode new_episodes``) without asking
    the agent; ``decision.call`` is then None (it cost nothing) and ``call`` is the model call
    that originally made it, if any.
    """

    type: ClassVar[str] = "decide"
    step: int
    decision: Decision | None = None
    raised: Raised | None = None
    call: ModelCall | None = None  # what a failed decision cost, or where a reused one came from
    reused: bool = False


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
    """A state machine transition, so a report can show the path taken."""

    type: ClassVar[str] = "transition"
    machine: str
    source: str
    event: str
    target: str


@frozen
class RecoveryEvent:
    type: ClassVar[str] = "recovery"
    fault: str
    remedy: str
    outcome: str


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
    | LifecycleEvent
    | DecideEvent
    | ClockEvent
    | SleepEvent
    | VerificationEvent
    | TransitionEvent
    | RecoveryEvent
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
    return structure(fields, cls, source=source)
