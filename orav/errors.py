"""The errors orav shows to a user: one line that says where and what, never a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # errors sit below every layer: the names are for the type checker only
    from orav.model.decision import ModelCall
    from orav.model.recording import Recording


class OravError(Exception):
    """Base of every error the CLI prints as a plain message (exit status 2 unless noted)."""

    exit_code = 2


class InputError(OravError):
    """Untrusted input (scenario, app model, cassette, model output, flags) is not as expected.

    ``where`` is ``file:line:col`` or ``step N``; the message reads ``where: what``.
    """

    def __init__(self, what: str, where: str | None = None) -> None:
        self.what = _clip(what)
        self.where = _clip(where) if where is not None else None
        super().__init__(f"{self.where}: {self.what}" if where else self.what)


MESSAGE_LINE_LIMIT = 400  # characters of one message line: a 1 MB value is not echoed whole


def _clip(text: str) -> str:
    return "\n".join(
        line if len(line) <= MESSAGE_LINE_LIMIT else f"{line[:MESSAGE_LINE_LIMIT]}… (cut)"
        for line in text.split("\n")
    )


class DeviceError(OravError):
    """The device or companion failed or could not be reached; names the address."""

    exit_code = 1


class DeviceTimeout(DeviceError):
    """One device call did not answer within its rung of the timeout ladder: a slow call, not
    a lost device. The engine rides it out (re-dump, relaunch) within the retry budgets."""


class AgentError(OravError):
    """The agent could not produce a valid decision within its budget: the run ends
    ``aborted``, this message its error at the step.

    ``call`` is the model call (an ``orav.model.ModelCall``) the failed attempt cost, if any.
    """

    exit_code = 1
    call: ModelCall | None = None


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM ended a run; ``signal`` names it. A KeyboardInterrupt, so no
    ``except Exception`` on the way takes it for a failure, and a caller that handles Ctrl-C
    (pytest, a REPL) handles it as one.

    ``recording`` is what the interrupted recording kept (an ``orav.model.Recording``), if anything.
    """

    def __init__(self, signal: str = "SIGINT") -> None:
        super().__init__(f"interrupted by {signal}")
        self.signal = signal
        self.recording: Recording | None = None

    @property
    def exit_code(self) -> int:
        """128 + the signal's number, as a shell reports a process the signal ended."""
        return 143 if self.signal == "SIGTERM" else 130


class ReplayedError(Exception):
    """The replay of an unexpected exception a recorded call raised; reads as the original
    ("TypeError: ..."), which is how the engine reports any unexpected exception."""


class ReplayDivergence(OravError):
    """A replay asked for something other than what the cassette recorded next.

    The replay's failure, not the run's: nothing on the way (a recovery, the engine's phases)
    may take it for a device fault, so it is raised through them to the caller, first.
    """

    exit_code = 1

    def __init__(self, message: str, *, step: int, expected: str, actual: str) -> None:
        self.step = step
        self.expected = expected
        self.actual = actual
        super().__init__(message)
