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
import traceback
from collections.abc import Awaitable, Callable, Iterator
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
        self.console: io.StringIO = io.StringIO() if echo is None else _Tee(echo)
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
            with no_browser(self.console), no_arguments():
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


class _Tee(io.StringIO):
    """Keeps what is written and copies it to another stream at once."""

    def __init__(self, echo: IO[str]) -> None:
        super().__init__()
        self._echo = echo

    def write(self, text: str) -> int:
        self._echo.write(text)
        self._echo.flush()
        return super().write(text)
