"""The run's watchdog: a deadline and a signal that hold when the event loop gets no turn.

asyncio's timeouts and signal handlers are callbacks on the loop, and code that computes or
blocks without awaiting (a user's class, an input no bound foresaw) never lets them run: a
run once spun 50 minutes past its deadline, deaf to SIGTERM. So a cancellation goes through
the loop first (the task is cancelled at its next await, as asyncio does it), and a timer
thread that needs no loop waits ``GRACE`` seconds for that: if the loop did not turn, it sends
the main thread SIGALRM, whose handler runs between two bytecodes of whatever holds the loop
(or cuts a blocking call short) and raises ``CancelledError`` there. The loop turns again, and
the run ends with its report. A cut never lands inside an import while the import may still
end (``PATIENCE``): a package half imported stays broken for the process (a C extension
initialises once), so the cut waits for the import and comes right after it. Off the main thread no signal handler can be set, and the loop's
own means are all there is.

API::

    async with Deadline(seconds):       # TimeoutError when the seconds pass, loop or not
        ...
    cancellation = Cancellation(task).watched()  # cancel ``task`` once: deliver() on the
    cancellation.request()  # loop; from a signal handler: the loop, else the watchdog's cut
    raise Cut.of("Class.method", cancelled)  # a cancellation naming the call it cut short
    cut_of(error)                # that Cut behind a TimeoutError, if any
    retrying()                   # the watchdog's own timer (ITIMER_REAL) is set
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Self

GRACE = 2.0  # seconds the loop has to act on a cancellation before the watchdog cuts in
HELD = "it held the thread: the watchdog cut it"  # a cancellation the watchdog raised
YEAR = 365 * 86400.0  # a longer wait is forever (and overflows a timer)
PATIENCE = 10.0  # seconds a cut waits for an import under way to end
RETRY = 0.05  # seconds between two looks at whether the import has ended
IMPORTING = frozenset({"<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>"})

_due: list[Callable[[], None]] = []  # cuts whose time came, run by the SIGALRM handler
_lock = threading.RLock()
_armed = 0  # watches that may still alarm; the handler is ours while any may
_previous: Any = None  # the SIGALRM handler ours replaced
_waiting_since: float | None = None  # when the cuts due began waiting for an import to end
_retrying = False  # our timer will alarm again (to see whether that import has ended)


def _arm() -> bool:
    """Make the SIGALRM handler ours (on the main thread only: False elsewhere)."""
    global _armed, _previous
    if threading.current_thread() is not threading.main_thread():
        return False
    with _lock:
        if _armed == 0 and signal.getsignal(signal.SIGALRM) is not _on_alarm:
            _previous = signal.signal(signal.SIGALRM, _on_alarm)
        _armed += 1
    return True


def _disarm() -> None:
    global _armed, _retrying
    with _lock:
        _armed -= 1
        if _armed == 0:  # no watch may cut now: a cut still due is stale, and so is our timer
            _due.clear()
            if _retrying:
                _retrying = False
                signal.setitimer(signal.ITIMER_REAL, 0)
        # A handler of the caller's comes back; the default (which ends the process) does
        # not, so an alarm still on its way finds a handler with nothing due.
        if _armed == 0 and _previous not in (None, signal.SIG_DFL):
            signal.signal(signal.SIGALRM, _previous)


def _alarm(cut: Callable[[], None]) -> None:
    """From a watch's thread: run ``cut`` on the main thread, between two bytecodes."""
    main = threading.main_thread().ident
    if main is not None:
        _due.append(cut)
        signal.pthread_kill(main, signal.SIGALRM)


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    global _waiting_since, _retrying
    if _due and _importing(frame):
        now = time.monotonic()
        _waiting_since = _waiting_since or now
        if now - _waiting_since < PATIENCE:
            _retrying = True
            signal.setitimer(signal.ITIMER_REAL, RETRY)  # a syscall: no lock, no thread
            return
    _waiting_since, _retrying = None, False
    while _due:
        _due.pop(0)()


def retrying() -> bool:
    """Whether the watchdog's own timer is set (an alarm due that it is waiting to deliver)."""
    return _retrying


def _importing(frame: FrameType | None) -> bool:
    """Whether the main thread is inside an import (the import machinery is on its stack)."""
    while frame is not None:
        if frame.f_code.co_filename in IMPORTING:
            return True
        frame = frame.f_back
    return False


class Watch:
    """A thread that runs ``cut`` on the main thread ``seconds`` after ``start()`` unless
    ``stop()`` came first. ``start()`` is safe in a signal handler (a byte down a pipe: no
    lock, no thread started); ``start=True`` starts the clock at once."""

    def __init__(self, seconds: float, cut: Callable[[], None], start: bool = False) -> None:
        self.seconds = min(seconds, YEAR)
        self.cut = cut
        self.armed = _arm()
        if self.armed:
            self._read, self._write = os.pipe()
            threading.Thread(target=self._watch, name="orav-watchdog", daemon=True).start()
        if start:
            self.start()

    def start(self) -> None:
        if self.armed:
            os.write(self._write, b"s")

    def stop(self) -> None:
        if self.armed:
            self.armed = False
            with contextlib.suppress(OSError):  # the watch is over: it cut, its end is closed
                os.write(self._write, b"x")
            os.close(self._write)
            _disarm()

    def _watch(self) -> None:
        try:
            if os.read(self._read, 1) == b"s":
                ready, _, _ = select.select([self._read], [], [], self.seconds)
                if not ready:
                    _alarm(self.cut)
        finally:
            os.close(self._read)


def _holder() -> asyncio.Task[Any] | None:
    """The task that holds this thread's loop now (None: the loop is between tasks)."""
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


class Cancellation:
    """Cancelling ``task`` once: through its loop when the loop turns (``deliver``), or, when
    it does not, by the watchdog (``cut``) where the code holding the loop runs: in ``task``
    itself when it holds it, else in the task that does, ``task`` being cancelled as well."""

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.loop = task.get_loop()
        self.delivered = False
        self.counted = False  # task.cancel() was called: one uncancel() takes it back
        self.closed = False
        self.watch: Watch | None = None

    def watched(self, seconds: float = GRACE, start: bool = False) -> Cancellation:
        """With a watch that cuts ``seconds`` after it starts (at once with ``start``)."""
        self.watch = Watch(seconds, self.cut, start=start)
        return self

    def request(self) -> None:
        """From a signal handler on the main thread: deliver at the loop's next turn, or cut
        when the watch's seconds have passed and the loop has not turned."""
        self.loop.call_soon_threadsafe(self.deliver)
        if self.watch is not None:
            self.watch.start()

    def deliver(self) -> None:
        """On the loop: cancel the task at its next await."""
        if not self.delivered and not self.closed:
            self.delivered = self.counted = True
            self.task.cancel()

    def cut(self) -> None:
        """On the main thread, the loop not having turned: raise where the loop is held."""
        if self.delivered or self.closed:
            return
        holder = _holder()
        if holder is self.task:
            self.delivered = True
            raise asyncio.CancelledError(HELD)
        self.deliver()
        if holder is not None:
            raise asyncio.CancelledError(HELD)

    def close(self) -> None:
        self.closed = True
        if self.watch is not None:
            self.watch.stop()


class Cut(asyncio.CancelledError):
    """A cancellation that names the call it cut short (``user_class.Bounded`` raises it for a
    user's method), so a run's report says what its deadline cut, and how."""

    @classmethod
    def of(cls, call: str, cancelled: asyncio.CancelledError) -> Cut:
        cut = cls(f"{call} was cut off ({how(cancelled)})")
        cut.call = call
        return cut

    call = ""  # the call cut short: ``module:Class.method``


def how(cancelled: BaseException) -> str:
    """How a cancellation reached the code it cut: at an await, or by the watchdog."""
    return HELD if str(cancelled) == HELD else "it was awaiting"


def cut_of(error: BaseException | None) -> Cut | None:
    """The ``Cut`` behind ``error`` (its cause or context, or itself), if there is one."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, Cut):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


class Deadline:
    """``async with Deadline(seconds)``: the block is cancelled when ``seconds`` pass and
    TimeoutError raised, by the loop's timer when the loop turns, by the watchdog ``GRACE``
    seconds later when it does not (asyncio.timeout, with a watchdog)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.cancellation: Cancellation | None = None

    async def __aenter__(self) -> Self:
        task = asyncio.current_task()
        assert task is not None, "a Deadline is entered in a task"
        cancellation = Cancellation(task).watched(self.seconds + GRACE, start=True)
        self.cancellation = cancellation
        self._timer = cancellation.loop.call_later(min(self.seconds, YEAR), cancellation.deliver)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        cancellation = self.cancellation
        assert cancellation is not None
        self._timer.cancel()
        cancellation.close()
        if cancellation.delivered and kind is not None and issubclass(kind, asyncio.CancelledError):
            if cancellation.counted:
                cancellation.task.uncancel()
            raise TimeoutError(f"over the deadline of {self.seconds:g} s") from error
