"""A run's id, as the methodology writes it (seed 002): ``run_YYYYMMDD_HHMMSS`` in UTC, the
second the run started, with ``_2``, ``_3``, … when more runs start in the same second.

Runs start in several processes at once (a suite's workers), so the last second given and
how many runs it had are kept in one small file, under an exclusive lock, in the user's
temporary folder; where that file cannot be used, this process's own count stands in. Ids
recorded before (32 hex digits) are read as they are: an id is only ever compared whole.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

_LOCK = threading.Lock()
_LAST: dict[str, int] = {}  # this process's own count, when the shared file cannot be used


def _state_file() -> Path:
    return Path(tempfile.gettempdir()) / f"orav-run-ids-{os.getuid()}"


def new_run_id(now: datetime | None = None, *, state: Path | None = None) -> str:
    """The id of a run starting ``now`` (default: this moment), unique among the ids given
    through the same ``state`` file (default: one per user)."""
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("run_%Y%m%d_%H%M%S")
    with _LOCK:
        try:
            count = _count_in_file(state or _state_file(), stamp)
        except OSError:
            count = _LAST.get(stamp, 0) + 1
            _LAST.clear()
            _LAST[stamp] = count
    return stamp if count == 1 else f"{stamp}_{count}"


def _count_in_file(path: Path, stamp: str) -> int:
    """How many runs ``stamp``'s second has had, this one included, counted in ``path``."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "r+", encoding="ascii") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        last, _, seen = file.read(64).partition(" ")
        count = int(seen) + 1 if last == stamp and seen.strip().isdigit() else 1
        file.seek(0)
        file.truncate()
        file.write(f"{stamp} {count}")
        file.flush()
    return count
