"""The errors orav shows to a user: one line that says where and what, never a traceback."""


class OravError(Exception):
    """Base of every error the CLI prints as a plain message (exit status 2 unless noted)."""

    exit_code = 2


class InputError(OravError):
    """Untrusted input (scenario, app model, cassette, model output, flags) is not as expected.

    ``where`` is ``file:line:col`` or ``step N``; the message reads ``where: what``.
    """

    def __init__(self, what: str, where: str | None = None) -> None:
        self.what = what
        self.where = where
        super().__init__(f"{where}: {what}" if where else what)


class DeviceError(OravError):
    """The device or companion failed or could not be reached; names the address."""

    exit_code = 1


class AgentError(OravError):
    """The agent could not produce a valid decision within its budget (fails the step).

    ``call`` is the model call (an ``orav.model.ModelCall``) the failed attempt cost, if any.
    """

    exit_code = 1
    call = None
