"""Record modes, vcrpy's: what a recording does with the cassette already at its path. A leaf
(as vcrpy's ``record_mode.py``): the header names the mode, the command line parses it, and
neither needs the policy (``orav.cassette.slot``) to do so.

API::

    RecordMode.parse("new_episodes")            # RecordMode.NEW_EPISODES; InputError if unknown
    RecordMode.of(None, overwrite=True)         # --overwrite is all; with another mode, an error
"""

from __future__ import annotations

from enum import StrEnum

from orav.errors import InputError


class RecordMode(StrEnum):
    """How a recording treats the cassette already at its path, as vcrpy's record modes.

    ``once`` (the default) records a new cassette and refuses one of a run that passed (one
    that did not pass is no golden: recorded over); ``new_episodes`` records again, reusing
    the old cassette's decisions where the run stands on the same screen; ``all`` records,
    replacing it; ``none`` records nothing and replays it. Every mode but ``once`` writes a
    temp file that replaces the old cassette only when the run ends.
    """

    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"
    NONE = "none"

    @classmethod
    def parse(cls, value: str, where: str = "--record-mode") -> RecordMode:
        """The mode named ``value``; an InputError naming ``where`` and the modes otherwise."""
        try:
            return cls(value)
        except ValueError:
            known = ", ".join(mode.value for mode in cls)
            raise InputError(
                f"unknown record mode {value!r}; expected one of {known}", where
            ) from None

    @classmethod
    def of(cls, value: str | None, *, overwrite: bool = False) -> RecordMode:
        """The mode asked for: ``value``, else ``once``; ``overwrite`` (``--overwrite``) is a
        short way to say ``all`` and contradicts any other mode named."""
        if overwrite and value is not None and value != cls.ALL:
            raise InputError(f"--overwrite means --record-mode all, not {value}", "--overwrite")
        if overwrite:
            return cls.ALL
        return cls.parse(value) if value is not None else cls.ONCE
