"""The simulator's time model: after an input the app is in motion for the modelled time.

A push, a pop, a tab switch, an alert coming or going, the keyboard showing or hiding take an
animation time (the app model's ``animation_ms``: per transition, per screen, for the app);
meanwhile the screen really is in flux (observers see the screen as it was before the input)
and idb's quiescence stream says BUSY or SETTLING; a spinner (the loading fault's activity
indicator) keeps the app busy for as long as it shows. A settle that waits too little sees the
old screen; one that waits for QUIET never does.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Hashable
from typing import Literal

from attrs import define, field

from orav.sim.view import View

Quiescence = Literal["busy", "settling", "quiet"]
BUSY_THRESHOLD_MS = 50  # a signal unanswered this long makes the app busy (settling before)
QUIET_WINDOW_MS = 0  # every signal answered this long makes it quiet: at once, by default


@define
class Moment:
    """What a quiescence stream reports at one moment, and when that can next change."""

    state: Quiescence
    until: float  # monotonic seconds; math.inf while nothing is scheduled to change


@define
class Motion:
    """One app's motion: the animation under way (``start``..``end``), what the screen showed
    before it (``shown``), the spinner's start, and the touch sequences completed.

    ``ticker`` is monotonic seconds (inject one in tests). ``flux_reads`` counts the
    observations answered while the screen was in flux: what a settle that waited too little saw.
    """

    ticker: Callable[[], float] = time.monotonic
    start: float = -math.inf
    end: float = -math.inf
    shown: View | None = None
    spinner_since: float | None = None
    touches: int = 0
    flux_reads: int = 0
    _changed: asyncio.Event | None = field(default=None, init=False)

    def moving(self) -> bool:
        return self.ticker() < self.end

    def before(self, view: Callable[[], View]) -> View | None:
        """Before an input: the screen as observers see it (kept while the input animates)."""
        return self.shown if self.moving() else view()

    def after(self, old: Hashable, new: Hashable, shown: View | None, ms: int) -> None:
        """After an input that turned the layout ``old`` into ``new``: animate for ``ms`` when
        the layout moved (an input during an animation extends it)."""
        now = self.ticker()
        if old != new and ms > 0:
            if not self.moving():
                self.start, self.shown = now, shown
            self.end = max(self.end, now + ms / 1000)
        self.wake()

    def touched(self) -> None:
        """A touch sequence (a tap, a swipe) completed: quiescence streams report it."""
        self.touches += 1
        self.wake()

    def spinner(self, running: bool) -> None:
        """A spinner shows (or no longer does): the app is busy while it runs."""
        if running and self.spinner_since is None:
            self.spinner_since = self.ticker()
        elif not running and self.spinner_since is not None:
            self.spinner_since = None
            self.end = max(self.end, self.ticker())  # it stopped now: quiet from now on
        self.wake()

    def stop(self) -> None:
        """The app went away (terminated, crashed, sent home): nothing of it moves any more."""
        self.start = self.end = -math.inf
        self.shown, self.spinner_since = None, None
        self.wake()

    def seen(self, view: View) -> View:
        """What an observer sees now: the screen before the animation while it runs."""
        if self.shown is not None and self.moving():
            self.flux_reads += 1
            return self.shown
        self.shown = None
        return view

    def moment(self, busy_threshold_ms: int, quiet_window_ms: int) -> Moment:
        """The quiescence state now: busy once an animation or spinner runs past the busy
        threshold, settling before that and until the quiet window after it has passed."""
        now = self.ticker()
        threshold, window = busy_threshold_ms / 1000, quiet_window_ms / 1000
        since = self.spinner_since
        if since is None and now < self.end:
            since = self.start
        if since is not None:
            busy_at = since + threshold
            if now >= busy_at:
                return Moment("busy", self.end if self.spinner_since is None else math.inf)
            return Moment("settling", busy_at)
        quiet_at = self.end + window
        if now >= quiet_at:
            return Moment("quiet", math.inf)
        return Moment("settling", quiet_at)

    async def change(self, until: float) -> None:
        """Wait until ``until`` (monotonic seconds) or the next input, whichever comes first."""
        if self._changed is None:
            self._changed = asyncio.Event()
        event = self._changed
        delay = until - self.ticker()
        if delay <= 0:
            return
        try:  # asyncio.timeout, not wait_for: a cancelled stream's task must stay cancelled
            async with asyncio.timeout(min(delay, 1.0)):
                await event.wait()
        except TimeoutError:
            pass

    def wake(self) -> None:
        """Tell the open quiescence streams that something happened."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None
