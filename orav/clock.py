"""The engine's clock: a seam like ``orav.device.Device``, so a run's time can be recorded,
replayed or made virtual.

API::

    class Clock(Protocol):
        def now(self) -> float: ...                  # seconds, monotonic
        async def sleep(self, seconds: float) -> None: ...

    SystemClock()                    # time.monotonic and asyncio.sleep

``orav.cassette`` records and replays a clock (``RecordingClock``, ``ReplayClock``);
``orav.testing.VirtualClock`` takes every sleep without waiting.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Where the engine reads the time and waits: every timeout, settle and duration."""

    def now(self) -> float:
        """Monotonic seconds (only differences mean anything)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``; cancelling the task cuts the wait short."""
        ...


class SystemClock:
    """The real clock: monotonic seconds, real sleeps."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
