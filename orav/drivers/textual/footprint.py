"""What an in-process app changed of orav's process while orav called it, put back.

An app run in orav's own process shares its working folder, its environment, its standard
descriptors and its signal handlers: an app that calls ``os.chdir``, sets ``os.environ``,
closes or ``dup2``s descriptors 1 and 2, takes SIGTERM for itself or sets ``signal.alarm``
changes orav's (its reports written under another folder, its console gone, a SIGTERM
swallowed, the process killed by the app's alarm after the run). The in-process driver makes
each call into the app inside a ``Footprint``, which puts back on the way out what the call
changed, so what the app changes while it handles orav's calls lasts no longer than the call.

API::

    with Footprint():   # a call into the app
        ...
"""

from __future__ import annotations

import os
import signal
import threading
from types import TracebackType
from typing import Any, Self

from orav.watchdog import retrying

DESCRIPTORS = (1, 2)  # the standard output and error orav writes its console to
_SIGNALS = sorted(set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})


def _identity(what: int | str) -> tuple[int, int] | None:
    """The file a descriptor or path is (None: closed, gone)."""
    try:
        found = os.stat(what)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class Footprint:
    """The working folder, environment, standard descriptors, signal handlers and alarm of
    this process as the block starts (signals on the main thread only, where they are set),
    each put back as the block ends if it changed."""

    def __enter__(self) -> Self:
        self.folder = os.open(".", os.O_RDONLY)
        self.environment = dict(os.environ)
        self.descriptors = {fd: os.dup(fd) for fd in DESCRIPTORS if _identity(fd)}
        self.handlers: dict[int, Any] = {}
        self.main = threading.current_thread() is threading.main_thread()
        if self.main:
            self.handlers = {signum: signal.getsignal(signum) for signum in _SIGNALS}
        self.alarm = signal.getitimer(signal.ITIMER_REAL)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if _identity(".") != _identity(self.folder):
            os.fchdir(self.folder)
        os.close(self.folder)
        if os.environ != self.environment:
            os.environ.clear()
            os.environ.update(self.environment)
        for fd, copy in self.descriptors.items():
            if _identity(fd) != _identity(copy):
                os.dup2(copy, fd)
            os.close(copy)
        for signum, handler in self.handlers.items():
            if handler is not None and signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)
        if self.main and self.alarm == (0.0, 0.0) and not retrying():
            signal.setitimer(signal.ITIMER_REAL, 0)  # an alarm the app set, not the watchdog
