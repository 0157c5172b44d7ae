"""The ``orav`` command group: every error becomes one line on stderr and an exit status.

SIGINT and SIGTERM end a command at any moment as ``Interrupted`` (one line, 130 or 143): a
run turns it into its ``interrupted`` report (``orav.session``), anything else ends where it
is, its temp files removed on the way out. Before orav's code runs (the interpreter's own
start, ~0.1 s) the signals are Python's; once the command's output is out, a signal ends the
process at once with that status, and a thread left running (an in-process app's) is not waited
for.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import click

from orav.__version__ import __version__
from orav.errors import Interrupted, OravError

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted(signal.Signals(signum).name)


def _leave(signum: int, frame: object) -> None:
    """The command's work is done: end as the signal asks, with nothing left to say."""
    os._exit(128 + signum)


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Interrupted`` while a command runs (the main thread only:
    elsewhere no handler can be set); the handlers before are put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with _handled_by(_interrupt):
        yield


@contextlib.contextmanager
def _handled_by(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """``handler`` takes SIGINT and SIGTERM while the block runs; the handlers before are put
    back after."""
    previous = {signum: signal.signal(signum, handler) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A signal that comes while the block runs ends the command after it (the reports of a
    run that ended are written whole); a second one at once."""
    if signal.getsignal(signal.SIGTERM) is not _interrupt:
        yield
        return
    came: list[int] = []

    def hold(signum: int, frame: object) -> None:
        if came:
            _interrupt(signum, frame)
        came.append(signum)

    with _handled_by(hold):
        yield
    if came:
        _interrupt(came[0], None)


def _interrupted(exc: Interrupted) -> NoReturn:
    click.echo(f"orav: {exc}", err=True)
    sys.exit(exc.exit_code)


class OravGroup(click.Group):
    """Turns every OravError into one line on stderr and its exit status: no traceback."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with _interruptible():
            return super().main(*args, **kwargs)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except Interrupted as exc:  # click would say "Aborted!" and exit 1
            _interrupted(exc)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except Interrupted as exc:  # the run's cassette and reports say how far it got
            _interrupted(exc)
        except KeyboardInterrupt:  # raised by code of the user's, or under a handler of theirs
            _interrupted(Interrupted("SIGINT"))
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise  # usage errors (exit 2), --help and friends: click reports them itself
        except BrokenPipeError:  # `orav audit … | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # a bug in orav: one line, the traceback only when asked for
            if os.environ.get("ORAV_DEBUG"):
                raise
            click.echo(
                f"orav: internal error: {type(exc).__name__}: {exc} "
                "(set ORAV_DEBUG=1 for the traceback, and please report it)",
                err=True,
            )
            sys.exit(1)


@click.group(cls=OravGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orav")
def cli() -> None:
    """AI-driven UI acceptance testing: Observe, Reason, Act, Verify, with replayable cassettes."""


def main() -> None:
    try:
        cli(prog_name="orav")
    except SystemExit as done:
        _end(done.code)
        raise


def _end(code: int | str | None) -> None:
    """The command's work is done: its output is flushed, and a signal from here on ends the
    process at once, as does a thread left running that Python would wait for at its exit (an
    in-process app's: orav's own are daemons or joined)."""
    status = code if isinstance(code, int) else 0 if code is None else 1
    left = [
        thread.name
        for thread in threading.enumerate()
        if thread is not threading.current_thread() and not thread.daemon and thread.is_alive()
    ]
    if left:
        click.echo(f"orav: note: ended without waiting for thread {', '.join(left)}", err=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    for signum in SIGNALS:
        signal.signal(signum, _leave)
    if left:
        os._exit(status)
