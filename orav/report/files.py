"""Report files written whole and never through a symlink.

A report is written to a temp file beside its path and renamed over it: a reader never sees half
a report, and a symlink (or anything else) already at the path is replaced, not followed, so a
planted ``NAME.html -> ~/.bashrc`` cannot make orav overwrite another file. The temp file is
locked while it is written, so the next recording removes only those of killed runs.
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_text(path: Path, text: str | Iterable[str]) -> Path:
    """Write ``text`` (UTF-8; or its parts, one after the other, each dropped once written) to
    ``path`` atomically, replacing (not following) a symlink."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # the parent is a file: say so as writing under it would
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)) from None
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)  # live: writer.remove_stale keeps it
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(file.fileno(), 0o666 & ~mask)  # what a new file gets (mkstemp's is 0600)
            file.writelines([text] if isinstance(text, str) else text)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return path
