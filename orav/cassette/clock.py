"""The engine's clock (``orav.clock.Clock``), recorded and replayed like the device and the agent.

API::

    RecordingClock(clock, writer)    # records every reading (``clock``) and sleep (``sleep``)
    ReplayClock(cassette)            # serves recorded readings in order; never sleeps

A replayed run reads the same times as the recorded one, so its timeouts, settle waits and
durations come out the same; a sleep of another length than recorded is a ReplayDivergence.
"""

from __future__ import annotations

import asyncio

from orav.cassette.events import ClockEvent, SleepEvent
from orav.cassette.reader import Cassette
from orav.cassette.replay import Track
from orav.cassette.writer import CassetteWriter
from orav.clock import Clock
from orav.errors import Interrupted


class RecordingClock:
    """Wraps a clock and writes each reading and each sleep to the cassette."""

    def __init__(self, clock: Clock, writer: CassetteWriter) -> None:
        self._clock = clock
        self._writer = writer

    def now(self) -> float:
        now = self._clock.now()
        self._writer.write(ClockEvent(now))
        return now

    async def sleep(self, seconds: float) -> None:
        try:
            await self._clock.sleep(seconds)
        except asyncio.CancelledError:  # a deadline or a signal ended it: replay ends it there
            self._writer.write(SleepEvent(seconds, cut=True, interrupted=self._writer.interrupted))
            raise
        self._writer.write(SleepEvent(seconds))


class ReplayClock:
    """Serves the recorded clock readings in order; sleeps return at once."""

    def __init__(self, cassette: Cassette) -> None:
        self._track = Track(cassette, (ClockEvent, SleepEvent), "clock")

    @property
    def pending(self) -> int:
        return self._track.pending

    def now(self) -> float:
        _, event = self._track.take(ClockEvent, "a clock reading")
        return event.now

    async def sleep(self, seconds: float) -> None:
        actual = f"sleep {seconds:g}s"
        index, event = self._track.peek(SleepEvent, actual)
        if event.seconds != seconds:
            self._track.diverge(index, f"sleep {event.seconds:g}s", actual)
        self._track.advance()
        if event.interrupted:
            raise Interrupted(event.interrupted)
        if event.cut:
            raise asyncio.CancelledError("cut off by a deadline")  # as it was live
