"""Where a recording writes its cassette, by its record mode (``orav.cassette.record_mode``):
the one place the modes' policy is enforced.

API::

    slot = Slot.prepare(out, mode)              # check ``out``, refuse or reuse what is there
    slot.path                                   # where the writer writes (a temp file, or ``out``)
    slot.keep() / slot.keep_interrupted(kept) / slot.discard()
    passed(out), did_not_pass(out)              # what an existing cassette holds

The policy, mode by mode:

- ``once``: record; a cassette of a run that passed is refused (nothing is started), one
  that did not pass (failed, aborted, interrupted, cut off) is no golden and is recorded over;
- ``new_episodes``: record, reusing the old cassette's decisions (``slot.previous``) where
  the run is on the same screen again;
- ``all``: record, replacing the cassette;
- ``none``: record nothing: replay the cassette (``orav.session.replay``).

Every mode but ``once`` writes a temp file beside ``out`` (``Beside``) and moves the whole
cassette into place when the run ends, so a crash keeps the old one and two runs never write
one file; temp files of killed runs are removed first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from orav.cassette.reader import Cassette, read_cassette
from orav.cassette.record_mode import RecordMode
from orav.cassette.writer import Beside, remove_stale
from orav.errors import InputError
from orav.model import RunReport


class Slot:
    """Where one recording in ``mode`` writes its cassette, and how that lands at ``out``.

    ``prepare`` applies the policy before anything starts; ``keep`` moves the finished
    cassette into place, ``keep_interrupted`` decides for a run a signal ended, ``discard``
    drops the temp file of a run that failed to finish.
    """

    def __init__(
        self, out: Path, mode: RecordMode, previous: Cassette | None, beside: Beside | None
    ) -> None:
        self.out = out
        self.mode = mode
        self.previous = previous
        self._existed = out.exists()
        self._beside = beside

    @classmethod
    def prepare(cls, out: Path, mode: RecordMode) -> Slot:
        """Check ``out`` and apply ``mode``'s policy to what is there (InputError: refused)."""
        if mode is RecordMode.NONE:
            raise InputError("record mode none records nothing: replay the cassette", str(out))
        check_out(out)
        if mode is RecordMode.ONCE and out.exists() and did_not_pass(out):
            mode = RecordMode.ALL  # a failed attempt is no golden: record over it
        if mode is RecordMode.ONCE and out.exists():
            raise InputError(
                "cassette already exists; replay it with `orav replay`, or record again with "
                "--record-mode new_episodes (reuse its decisions) or all (replace it)",
                str(out),
            )
        previous = read_cassette(out) if mode is RecordMode.NEW_EPISODES and out.exists() else None
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            for written in (out, out.with_suffix(".report.json"), out.with_suffix(".html")):
                remove_stale(written)  # temp files of runs killed with no chance to clean up
            beside = Beside(out) if mode is not RecordMode.ONCE else None
        except OSError as exc:
            raise InputError(f"cannot write the cassette: {exc.strerror}", str(out)) from None
        return cls(out, mode, previous, beside)

    @property
    def path(self) -> Path:
        """The file the writer writes: the temp file beside ``out``, or ``out`` itself (once)."""
        return self._beside.path if self._beside is not None else self.out

    @property
    def overwrite(self) -> bool:
        """Whether the writer may replace what is at ``path`` (every mode but once)."""
        return self.mode is not RecordMode.ONCE

    def keep(self) -> None:
        """The run ended: move its cassette to ``out``, replacing an old one."""
        if self._beside is not None:
            beside, self._beside = self._beside, None
            beside.commit(replace=self._existed or self.mode is RecordMode.ALL)

    def keep_interrupted(self, finished: bool) -> bool:
        """A signal ended the run; ``finished``: its cassette ends in an ``interrupted``
        report. Kept at ``out`` unless it would replace an older one (a re-record cut short
        keeps the old); whether it was kept."""
        beside, self._beside = self._beside, None
        if beside is None:
            return finished
        if self._existed or not finished:
            beside.discard()
            return False
        beside.commit(replace=self.mode is RecordMode.ALL)
        return True

    def discard(self) -> None:
        """The run failed to finish: drop its temp file (``once`` wrote ``out`` itself).
        Nothing once the cassette was kept or dropped already."""
        beside, self._beside = self._beside, None
        if beside is not None:
            beside.discard()


def check_out(out: Path) -> None:
    """Refuse, before anything starts, a cassette path the run could not write at its end:
    a directory, a path under a file, a symlink (orav writes no file through a symlink), or a
    folder it cannot write in."""
    where = str(out)
    if out.is_symlink():
        raise InputError("is a symlink; orav does not write a cassette through one", where)
    if out.is_dir():
        raise InputError("is a directory; --out names the cassette file", where)
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{parent} is not a directory", where)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in {parent}: permission denied", where)


def passed(cassette: Path) -> bool:
    """The cassette holds a finished run that met its goal: a golden one (unreadable: no)."""
    report = _ending(cassette)
    return report is not None and report is not False and report.goal_met


def did_not_pass(cassette: Path) -> bool:
    """The cassette is readable and its run did not pass (failed, aborted, interrupted, cut
    off): no golden, safe to record over. One orav cannot read is never recorded over."""
    report = _ending(cassette)
    return report is not False and (report is None or not report.goal_met)


def _ending(cassette: Path) -> RunReport | None | Literal[False]:
    """The cassette's report, None when it has none, False when it cannot be read."""
    try:
        return read_cassette(cassette).report()
    except (InputError, OSError):
        return False
