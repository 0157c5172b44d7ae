"""Cassettes: the complete, replayable record of one run (format: docs/cassette-format.md).

Record at the Device, Agent and Clock boundaries with ``RecordingDevice``, ``RecordingAgent``
and ``RecordingClock`` over a ``CassetteWriter``; read with ``read_cassette`` and replay with
``ReplayDevice``, ``ReplayAgent`` and ``ReplayClock``. A replayed run that asks for anything
other than what was recorded raises ``ReplayDivergence``. ``ReusingAgent`` serves an old
cassette's decisions to a live run that is on the same screens again (``new_episodes``).

``orav.use_cassette(path, scenario, device, agent, record_mode=...)`` wires all of the
recording and the engine in one block (``orav.recorder``, above the cassette); ``RecordMode`` is in
``orav.cassette.record_mode``, its policy in ``orav.cassette.slot``; ``Match`` is how a replayed action is matched to the recorded one.
"""

from orav.cassette.clock import RecordingClock, ReplayClock
from orav.cassette.events import (
    EVENT_TYPES,
    FORMAT,
    VERSION,
    BlobEvent,
    ChangesEvent,
    ClockEvent,
    DecideEvent,
    DescribeEvent,
    ErrorEvent,
    Event,
    Header,
    IsRunningEvent,
    LaunchEvent,
    LifecycleEvent,
    ObserveEvent,
    PerformEvent,
    Raised,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    ReplayedError,
    ReportEvent,
    SettleEvent,
    SleepEvent,
    StepEvent,
    TerminateEvent,
    TransitionEvent,
    VerificationEvent,
)
from orav.cassette.match import MATCHERS, Match
from orav.cassette.reader import Blobs, Cassette, read_cassette
from orav.cassette.record import RecordingAgent, RecordingDevice
from orav.cassette.record_mode import RecordMode
from orav.cassette.redact import matches_redacted
from orav.cassette.regression import ComparingAgent, DecisionDiff, same_action
from orav.cassette.replay import ReplayAgent, ReplayDevice, ReplayDivergence
from orav.cassette.reuse import ReusingAgent
from orav.cassette.writer import CassetteWriter
from orav.moved import moved_name
from orav.secrets import REDACTED, Scrubber

__all__ = [
    "EVENT_TYPES",
    "FORMAT",
    "MATCHERS",
    "REDACTED",
    "VERSION",
    "BlobEvent",
    "Blobs",
    "Cassette",
    "CassetteWriter",
    "ChangesEvent",
    "ClockEvent",
    "ComparingAgent",
    "DecideEvent",
    "DecisionDiff",
    "DescribeEvent",
    "ErrorEvent",
    "Event",
    "Header",
    "IsRunningEvent",
    "LaunchEvent",
    "LifecycleEvent",
    "Match",
    "ObserveEvent",
    "PerformEvent",
    "Raised",
    "RecordMode",
    "RecordingAgent",
    "RecordingClock",
    "RecordingDevice",
    "RecoveryBeginEvent",
    "RecoveryEndEvent",
    "ReplayAgent",
    "ReplayClock",
    "ReplayDevice",
    "ReplayDivergence",
    "ReplayedError",
    "ReportEvent",
    "ReusingAgent",
    "Scrubber",
    "SettleEvent",
    "SleepEvent",
    "StepEvent",
    "TerminateEvent",
    "TransitionEvent",
    "VerificationEvent",
    "matches_redacted",
    "read_cassette",
    "same_action",
]


def __getattr__(name: str) -> object:
    """``use_cassette`` and ``CassetteRecorder`` were here: served from ``orav.recorder`` for
    one release, with a DeprecationWarning (``orav.moved``), once: later lookups find it."""
    value = globals()[name] = moved_name(__name__, name)
    return value
