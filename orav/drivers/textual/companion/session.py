"""One launch of a Textual app: ``app.run_test()`` held open in a task of its own.

The app's context is entered and left in one task, whatever task the caller calls from; every
call reaches the app through a job queue. What the app prints on its error console (the
traceback Textual shows when an app crashes) is kept here instead of spilled on the terminal
(and copied to ``echo``, the companion's stderr, when given), and the app's exception is
summarised as type, message and where it was raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, TypeVar

from . import compat, quiet
from .facts import composed

T = TypeVar("T")
App = Any
Pilot = Any

# Refreshes the first look may wait for the screen to be composed (its Footer filled).
COMPOSE_PAUSES = 20
# Seconds a launch may wait, after that, for the app to fall quiet (``quiet.settle``): an app
# that pushes its first screen or loads its data from on_mount shows the same first screen in
# every run (the ladder's network rung: start-up often loads).
LAUNCH_SETTLE = 2.0
KEPT = 256 * 1024  # characters of what an app printed that are kept (its end)


class Refused(Exception):
    """An action the driver refuses or the app cannot take (becomes ``ok=False``)."""


def describe_exception(error: BaseException) -> str:
    """``RuntimeError: boom (at app.py:12 in on_click)``: type, message, and the innermost frame."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        text += f" (at {Path(last.filename).name}:{last.lineno} in {last.name})"
    return text


class Session:
    """One launch of the app; ``failure`` says why it is no longer running."""

    def __init__(self, app: App, size: tuple[int, int], echo: IO[str] | None = None) -> None:
        from rich.console import Console

        self.app = app
        self.size = size
        self.failure: str | None = None
        self.console = Kept(echo)
        self.captures = echo is None  # in orav's process: the app's prints kept from its streams
        if self.captures:  # Textual passes a headless app's prints on: through the router
            compat.print_to(app, _Routed(_true(sys.__stdout__)), _Routed(_true(sys.__stderr__)))
        app.error_console = Console(file=self.console, width=100, markup=False, highlight=False)
        self._jobs: asyncio.Queue = asyncio.Queue()
        self._ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._host(), name=f"orav textual {self.app!r}")
        await asyncio.shield(self._ready)

    @property
    def finished(self) -> bool:
        return self._task is None or self._task.done()

    @property
    def stderr(self) -> str:
        """What the app printed on its error console (Textual's crash report)."""
        return self.console.getvalue()

    @property
    def running(self) -> bool:
        """Still up: neither quit nor crashed (``return_code`` is set when an app exits; an
        app that raised is failed at once, whatever its version sets later)."""
        error = compat.app_exception(self.app)
        if (self.app.return_code is not None or error is not None) and self.failure is None:
            self.failure = (
                f"the app raised {describe_exception(error)}" if error else "the app exited"
            )
        return not self.finished and self.app.return_code is None and error is None

    async def run(self, job: Callable[[Pilot], Awaitable[T]]) -> T:
        future = asyncio.get_running_loop().create_future()
        self._jobs.put_nowait((job, future))
        return await future

    async def _host(self) -> None:
        try:
            with no_browser(self.console), no_arguments(), self._captured():
                await self._drive()
        except Exception as exc:  # noqa: BLE001 - run_test re-raises what the app raised
            self.failure = f"the app raised {describe_exception(exc)}"
            if not self._ready.done():
                self._ready.set_exception(exc)
        finally:
            while not self._jobs.empty():
                item = self._jobs.get_nowait()
                if item is not None and not item[1].done():
                    item[1].set_exception(Refused("the app stopped"))

    async def _drive(self) -> None:
        """Hold ``run_test`` open and run the jobs the calls queue, one at a time."""
        async with self.app.run_test(size=self.size, notifications=True) as pilot:
            for _ in range(COMPOSE_PAUSES):
                if composed(self.app):
                    break
                await pilot.pause()
            with contextlib.suppress(Exception):  # the app failed starting: a look says how
                await quiet.settle(self.app, LAUNCH_SETTLE, 0.0)
            self._ready.set_result(None)
            while (item := await self._jobs.get()) is not None:
                job, future = item
                if future.done():  # its caller gave up waiting
                    continue
                try:
                    result = await job(pilot)
                except Exception as exc:  # noqa: BLE001 - handed to the caller
                    if not future.done():
                        future.set_exception(exc)
                else:
                    if not future.done():
                        future.set_result(result)

    def _captured(self) -> contextlib.AbstractContextManager[None]:
        return captured(self.console) if self.captures else contextlib.nullcontext()

    async def stop(self, timeout: float) -> None:
        """Leave ``run_test`` (the app shuts down); cancel the task if that takes too long."""
        if self._task is None:
            return
        self._jobs.put_nowait(None)
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=timeout)


# The error consoles of the apps running now, the latest last: while any runs, the browser
# functions are orav's (installed by the first to start, restored by the last to stop).
_RUNNING: list[IO[str]] = []
_BROWSER = ("open", "open_new", "open_new_tab")
_saved: dict[str, Any] = {}


@contextlib.contextmanager
def no_browser(console: IO[str]) -> Iterator[None]:
    """While the app runs, a URL it opens (``App.open_url``, ``webbrowser.open``) is written on
    its error console instead of opening the machine's browser: a link the test taps must not
    leave the app under test, nor reach the network."""
    import webbrowser

    def opened(url: str, *args: Any, **kwargs: Any) -> bool:
        _RUNNING[-1].write(f"orav: the app opened {url} (no browser is opened under test)\n")
        return True

    if not _RUNNING:
        _saved.update((name, getattr(webbrowser, name)) for name in _BROWSER)
        for name in _BROWSER:
            setattr(webbrowser, name, opened)
    _RUNNING.append(console)
    try:
        yield
    finally:
        _RUNNING.remove(console)
        if not _RUNNING:
            for name, function in _saved.items():
                setattr(webbrowser, name, function)
            _saved.clear()


_argv: list[list[str]] = []  # orav's own argv while any app runs (one entry per app)


@contextlib.contextmanager
def no_arguments() -> Iterator[None]:
    """While the app is built and runs, ``sys.argv`` holds the program's name only, as when the
    app is started with no arguments: an app that reads its command line (a path to open in
    ``sys.argv[1]``) must not take orav's (``orav explore --device ...``) for its own."""
    import sys

    _argv.append(sys.argv)
    sys.argv = sys.argv[:1]
    try:
        yield
    finally:
        saved = _argv.pop()
        if not _argv:
            sys.argv = saved


class Kept(io.StringIO):
    """What an app printed: its last ``KEPT`` characters (an app may print without end), each
    copied to ``echo`` at once when given."""

    def __init__(self, echo: IO[str] | None = None) -> None:
        super().__init__()
        self._echo = echo
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        if self._echo is not None:
            self._echo.write(text)
            self._echo.flush()
        self._parts.append(text)
        self._size += len(text)
        if self._size > 2 * KEPT:
            self._parts = [self.getvalue()]
            self._size = len(self._parts[0])
        return len(text)

    def getvalue(self) -> str:
        return "".join(self._parts)[-KEPT:]


# The console of the app whose task writes (None: orav's own code): an app in orav's process
# prints into its own console, never on orav's streams (``captured``).
_printing: ContextVar[Kept | None] = ContextVar("orav_app_console", default=None)
_replaced: list[Any] = []  # orav's sys.stdout and sys.stderr while any app is captured
_captured = [0]  # apps captured now


@contextlib.contextmanager
def captured(console: Kept) -> Iterator[None]:
    """In the app's task (and every task it starts, which inherits the context), what is
    printed on ``sys.stdout`` or ``sys.stderr``, text or bytes, goes to ``console``; orav's
    own writes, from its own tasks, still reach its streams. A write to file descriptors 1
    or 2 themselves (``os.write``, a C extension) is beyond this: the app then runs out of
    process (``textual:``, the companion points them elsewhere)."""
    if not _captured[0]:
        _replaced[:] = [sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__]
        sys.stdout, sys.stderr = _Routed(sys.stdout), _Routed(sys.stderr)  # type: ignore[assignment]
        sys.__stdout__ = _Routed(_replaced[2] or _replaced[0])  # type: ignore[misc,assignment]
        sys.__stderr__ = _Routed(_replaced[3] or _replaced[1])  # type: ignore[misc,assignment]
    _captured[0] += 1
    token = _printing.set(console)
    try:
        yield
    finally:
        _printing.reset(token)
        _captured[0] -= 1
        if not _captured[0]:
            sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = _replaced  # type: ignore[misc,assignment]
            _replaced.clear()


def _true(stream: Any) -> Any:
    """The stream a ``_Routed`` one stands for (or ``stream`` itself)."""
    return stream._stream if isinstance(stream, _Routed) else stream


class _Routed:
    """A stream that writes to the printing app's console when an app's task writes, else to
    the stream it stands for."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.buffer = _RoutedBytes(stream)

    def write(self, text: str) -> int:
        console = _printing.get()
        return self._stream.write(text) if console is None else console.write(text)

    def flush(self) -> None:
        if _printing.get() is None:
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _RoutedBytes:
    """``sys.stdout.buffer`` of a ``_Routed`` stream: bytes an app writes reach its console
    as text (undecodable bytes replaced), never orav's stream."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        console = _printing.get()
        if console is None:
            return int(self._stream.buffer.write(data))
        console.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        if _printing.get() is None:
            self._stream.buffer.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream.buffer, name)
