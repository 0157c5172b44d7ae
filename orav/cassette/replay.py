"""Replay at the boundaries: a Device and an Agent that serve a cassette's recorded calls.

API::

    device = ReplayDevice(cassette, scrubber=None, match=None)  # an orav.device.Device
    agent = ReplayAgent(cassette)   # an orav.agents.Agent; name from the header
    device.pending, agent.pending   # recorded calls not served yet

Each boundary has its own track through the cassette, in recorded order, so a new agent can be
replayed against the recorded device (decision regression). Every call must be the next one
recorded on its track: same kind of call, same arguments (``perform`` matches the action by
``match``, an ``orav.cassette.match.Match``: by default all of it, in its redacted form).
Anything else raises ``ReplayDivergence``, naming the step and the expected and actual call,
the way vcrpy names a request that matched nothing.
A call recorded as raising an OravError raises it again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from orav.agents import AgentContext
from orav.cassette.events import (
    DEVICE_EVENTS,
    ChangesEvent,
    ClockEvent,
    DecideEvent,
    DescribeEvent,
    Event,
    IsRunningEvent,
    LaunchEvent,
    LifecycleEvent,
    ObserveEvent,
    PerformEvent,
    Raised,
    SettleEvent,
    SleepEvent,
    TerminateEvent,
)
from orav.cassette.lifecycle import LifecycleCalls
from orav.cassette.match import Match
from orav.cassette.reader import Cassette
from orav.cassette.redact import matches_redacted
from orav.codec import unstructure
from orav.errors import ReplayDivergence
from orav.model import (
    Action,
    ActionResult,
    Decision,
    DeviceInfo,
    Observation,
    Settled,
    WorldChanges,
    show_action,
)
from orav.secrets import Scrubber


def _show_call(event: Event) -> str:
    match event:
        case PerformEvent(action=action):
            return show_action(action)
        case LaunchEvent(bundle_id=bundle_id) | TerminateEvent(bundle_id=bundle_id):
            return f"{event.type} {bundle_id}"
        case IsRunningEvent(bundle_id=bundle_id):
            return f"is_running {bundle_id}"
        case DecideEvent(step=step):
            return f"decide (step {step})"
        case SleepEvent(seconds=seconds):
            return f"sleep {seconds:g}s"
        case ClockEvent():
            return "a clock reading"
    return event.type


def _differences(expected: Action, actual: Action) -> str:
    """Which fields of two actions of one kind differ, for actions that print alike."""
    if type(expected) is not type(actual):
        return ""
    names = [f.name for f in attrs.fields(type(expected))]
    return ", ".join(
        f"{name}: {getattr(expected, name)!r} vs {getattr(actual, name)!r}"
        for name in names
        if not matches_redacted(
            unstructure(getattr(expected, name)), unstructure(getattr(actual, name))
        )
    )


class Track:
    """One boundary's recorded calls in order, served one at a time."""

    def __init__(self, cassette: Cassette, types: tuple[type, ...], boundary: str) -> None:
        self.cassette = cassette
        self.boundary = boundary
        self._indices = [i for i, e in enumerate(cassette.events) if isinstance(e, types)]
        self._next = 0

    @property
    def pending(self) -> int:
        return len(self._indices) - self._next

    def take(self, kind: type, actual: str) -> tuple[int, Any]:
        """The next recorded call, which must be of ``kind``; ``actual`` describes the call."""
        index, event = self.peek(kind, actual)
        self.advance()
        return index, event

    def advance(self) -> None:
        self._next += 1

    def peek(self, kind: type, actual: str) -> tuple[int, Any]:
        """Like ``take``, but the call stays next until ``advance``."""
        if self._next >= len(self._indices):
            last = self.cassette.last_step
            cut = f" (it was cut off: {self.cassette.truncated})" if self.cassette.truncated else ""
            raise ReplayDivergence(
                f"the cassette ends after step {last}{cut}: no recorded {self.boundary} call "
                f"left for {actual}",
                step=last + 1,
                expected="end of cassette",
                actual=actual,
            )
        index = self._indices[self._next]
        event = self.cassette.events[index]
        if not isinstance(event, kind):
            self.diverge(index, _show_call(event), actual)
        return index, event

    def diverge(self, index: int, expected: str, actual: str, detail: str = "") -> None:
        step = self.cassette.steps[index]
        where = f"step {step}" if step else "before step 1"
        message = f"{where}: expected {expected}, got {actual}"
        raise ReplayDivergence(
            message + (f" ({detail})" if detail else ""),
            step=step,
            expected=expected,
            actual=actual,
        )


def _raise_if(raised: Raised | None) -> None:
    if raised is not None:
        raise raised.exception()


class ReplayDevice(LifecycleCalls):
    """A Device that serves the recorded device calls of a cassette; no I/O, no waiting."""

    def __init__(
        self, cassette: Cassette, *, scrubber: Scrubber | None = None, match: Match | None = None
    ) -> None:
        self._track = Track(cassette, DEVICE_EVENTS, "device")
        self._scrubber = scrubber if scrubber is not None else Scrubber()
        self._match = match or Match()
        self._world = any(isinstance(event, ChangesEvent) for event in cassette.events)
        self.disposable = False  # as the recorded device described itself

    @property
    def pending(self) -> int:
        return self._track.pending

    async def describe(self) -> DeviceInfo:
        _, event = self._track.take(DescribeEvent, "describe")
        _raise_if(event.raised)
        if event.result is not None:
            self.disposable = event.result.disposable
        return event.result

    async def observe(self) -> Observation:
        index, event = self._track.take(ObserveEvent, "observe")
        _raise_if(event.raised)
        return self._track.cassette.observation(index)

    async def perform(self, action: Action) -> ActionResult:
        shown = show_action(action)
        index, event = self._track.peek(PerformEvent, shown)
        if not self._match(event.action, action, self._scrubber):
            expected = show_action(event.action)
            detail = _differences(event.action, action) if expected == shown else ""
            self._track.diverge(index, expected, shown, detail)
        self._track.advance()
        _raise_if(event.raised)
        return event.result

    async def launch(
        self,
        bundle_id: str,
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        if arguments or environment:
            given = {"arguments": list(arguments), "environment": dict(environment or {})}
            await self._lifecycle("launch", {"bundle_id": bundle_id, **given})
            return
        await self._bundle_call(LaunchEvent, bundle_id)

    async def _lifecycle(self, call: str, arguments: dict[str, Any]) -> Any:
        actual = f"{call} {arguments}"
        index, event = self._track.peek(LifecycleEvent, actual)
        if event.call != call or event.arguments != arguments:
            self._track.diverge(index, f"{event.call} {event.arguments}", actual)
        self._track.advance()
        _raise_if(event.raised)
        return event.result

    async def terminate(self, bundle_id: str) -> None:
        await self._bundle_call(TerminateEvent, bundle_id)

    async def is_running(self, bundle_id: str) -> bool:
        event = await self._bundle_call(IsRunningEvent, bundle_id)
        return event.result

    async def settle(self, limit: float) -> Settled | None:
        actual = f"settle (at most {limit:g}s)"
        index, event = self._track.peek(SettleEvent, actual)
        if event.limit != limit:
            self._track.diverge(index, f"settle (at most {event.limit:g}s)", actual)
        self._track.advance()
        _raise_if(event.raised)
        return event.result

    async def changes(self) -> WorldChanges:
        """The recorded world's changes; a cassette of a device that was no world recorded
        none, and nothing changed."""
        if not self._world:
            return WorldChanges()
        _, event = self._track.take(ChangesEvent, "changes")
        _raise_if(event.raised)
        return event.result

    async def close(self) -> None:
        return None

    async def _bundle_call(
        self, kind: type[LaunchEvent | TerminateEvent | IsRunningEvent], bundle_id: str
    ) -> Any:
        actual = f"{kind.type} {bundle_id}"
        index, event = self._track.peek(kind, actual)
        if event.bundle_id != bundle_id:
            self._track.diverge(index, _show_call(event), actual)
        self._track.advance()
        _raise_if(event.raised)
        return event


class ReplayAgent:
    """An Agent that serves the recorded decisions of a cassette, checking the step asked for."""

    def __init__(self, cassette: Cassette) -> None:
        self.name = cassette.header.agent
        self.reconsiders = cassette.header.reconsiders  # it goes on where the recording did
        self._track = Track(cassette, (DecideEvent,), "agent")

    @property
    def pending(self) -> int:
        return self._track.pending

    async def decide(self, context: AgentContext) -> Decision:
        actual = f"decide (step {context.step})"
        index, event = self._track.peek(DecideEvent, actual)
        if event.step != context.step:
            self._track.diverge(index, _show_call(event), actual)
        self._track.advance()
        if event.raised is not None:
            error = event.raised.exception()
            error.call = event.call
            raise error
        return event.decision
