"""Write a cassette: one JSON line per event, each written whole, fsynced at every step.

API::

    writer = CassetteWriter.create(path, header, *, overwrite=False, secrets=(), fsync=True)
    writer.write(event)                      # one line, scrubbed (see orav.secrets)
    writer.put_blob(data, media_type) -> sha256      # stored once, before its first reference
    writer.put_elements(elements) -> sha256          # an element tree, as a JSON blob
    writer.put_json_blob(data) -> sha256             # plain JSON data, scrubbed first
    writer.begin_step(n)                     # writes a ``step`` event, then fsyncs
    writer.close()                           # fsyncs; also ``with CassetteWriter.create(...)``

Each line goes to the kernel in one ``write`` call on an unbuffered descriptor, so a process
killed at any point leaves whole lines plus at most one cut-off last line, which the reader
reports as the place the cassette was cut.

A cassette that replaces one, or that another run could create at the same time, is written
beside it (``Beside``: a locked temp file) and moved into place whole when the run ends
(``Beside.commit``): two writers never interleave, a failed run keeps the old cassette, and the
temp files of runs killed with no chance to clean up are removed by the next (``remove_stale``).
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Self

from orav.cassette.events import BlobEvent, Event, Header, StepEvent, event_data
from orav.cassette.observation import storing
from orav.codec import unstructure
from orav.errors import InputError
from orav.model import Element
from orav.secrets import Scrubber

_TEXT_MEDIA = ("text/", "application/json")
# fdatasync makes the appended bytes and the new file size durable, as fsync does, without
# also flushing timestamps (~15-30 % less per step on ext4); macOS has no fdatasync.
_datasync = getattr(os, "fdatasync", os.fsync)


def _encode(data: Any) -> bytes:
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # lone surrogates: escape them so the file stays UTF-8
        return json.dumps(data, separators=(",", ":")).encode("ascii") + b"\n"


class CassetteWriter:
    """An open cassette being recorded; not thread-safe (the engine writes from one task)."""

    def __init__(self, fd: int, path: Path, scrubber: Scrubber, fsync: bool) -> None:
        self._fd: int | None = fd
        self.path = path
        self.scrubber = scrubber
        self._fsync = fsync
        self._blobs: set[str] = set()
        self.last_elements: tuple[Element, ...] = ()  # the last tree stored (secure typing)
        self._last_sha = ""
        # The signal (SIGINT, SIGTERM) that is ending the run, set by orav.session: a call cut
        # off then is recorded as interrupted, not as cut by a deadline.
        self.interrupted: str | None = None

    @classmethod
    def create(
        cls,
        path: str | Path,
        header: Header,
        *,
        overwrite: bool = False,
        secrets: Iterable[str] = (),
        typed: Mapping[str, str] = {},
        fsync: bool = True,
    ) -> CassetteWriter:
        """Start a cassette at ``path`` with ``header``; an existing file is an InputError
        unless ``overwrite``. ``secrets`` (API key, passwords) are scrubbed from every line;
        a secret of ``typed`` (value to stand-in) typed securely, whole, is written as its
        stand-in (``{{password}}``), which a re-record fills in again."""
        path = Path(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        flags |= os.O_TRUNC if overwrite else os.O_EXCL
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            raise InputError("cassette already exists; use --overwrite to replace it", str(path))
        except OSError as exc:
            raise InputError(f"cannot create cassette: {exc.strerror}", str(path)) from None
        writer = cls(fd, path, Scrubber(secrets, typed=typed), fsync)
        try:
            writer._write_line(event_data(header))
            writer.sync()
            if fsync:  # make the new directory entry durable too
                dir_fd = os.open(path.parent, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
        except BaseException:
            writer.close()
            raise
        return writer

    @property
    def closed(self) -> bool:
        return self._fd is None

    def write(self, event: Event) -> None:
        """Write one event; an observation's tree and screenshot go first, as blobs
        (``orav.cassette.observation``)."""
        with storing(self):
            data = event_data(event)
        self._write_line(data)

    def begin_step(self, step: int) -> None:
        """Mark the start of step ``step``; everything before it is on disk when this returns."""
        self.write(StepEvent(step))
        self.sync()

    def put_blob(self, data: bytes, media_type: str) -> str:
        """Store ``data`` once under its sha256 and return the hash (text types are scrubbed)."""
        if media_type.startswith(_TEXT_MEDIA):
            data = self.scrubber.text(data.decode("utf-8")).encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        if sha not in self._blobs:
            blob = BlobEvent(sha, media_type, base64.b64encode(data).decode("ascii"))
            self._write_raw(_encode(event_data(blob)))
            self._blobs.add(sha)
        return sha

    def put_elements(self, elements: tuple[Element, ...]) -> str:
        """Store an element tree as a JSON blob; the same tree as the last costs nothing."""
        if elements != self.last_elements or not self._last_sha:
            self._last_sha = self.put_json_blob(unstructure(elements))
            self.last_elements = elements
        return self._last_sha

    def put_json_blob(self, data: Any) -> str:
        """Store plain JSON data (redacted and scrubbed) as an ``application/json`` blob."""
        encoded = _encode(self.scrubber.data(data))[:-1]
        sha = hashlib.sha256(encoded).hexdigest()
        if sha not in self._blobs:
            blob = BlobEvent(sha, "application/json", base64.b64encode(encoded).decode("ascii"))
            self._write_raw(_encode(event_data(blob)))
            self._blobs.add(sha)
        return sha

    def sync(self) -> None:
        if self._fd is not None and self._fsync:
            _datasync(self._fd)

    def close(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if self._fsync:
                _datasync(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _write_line(self, data: dict[str, Any]) -> None:
        self._write_raw(_encode(self.scrubber.data(data)))

    def _write_raw(self, line: bytes) -> None:
        if self._fd is None:
            raise ValueError(f"cassette {self.path} is closed")
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Beside:
    """A temp file beside cassette ``out`` (``.NAME.XXXX.tmp``, on the same file system), held
    under an exclusive flock for as long as it is open, so ``remove_stale`` leaves it alone.

    Its mode is ``out``'s when replacing one, else what a new file gets (mkstemp's is 0600).
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        self.path = Path(name)
        self._lock: int | None = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                mode = stat.S_IMODE(out.stat().st_mode)
            except OSError:
                mode = 0o666 & ~_umask()
            os.fchmod(fd, mode)
        except BaseException:
            self.discard()
            raise

    def commit(self, *, replace: bool) -> None:
        """Move the finished cassette to ``out``: a hard link when ``out`` must be new (it
        fails if another run got there first), a rename over it when ``replace``."""
        try:
            if replace:
                os.replace(self.path, self.out)
            else:
                try:
                    os.link(self.path, self.out)
                except FileExistsError:
                    raise InputError(
                        "another run created this cassette while this one recorded; "
                        "this run's cassette was not kept",
                        str(self.out),
                    ) from None
                self.path.unlink()
            _sync_directory(self.out.parent)
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the temp file (if it is still there) and let go of its lock."""
        self.path.unlink(missing_ok=True)
        if self._lock is not None:
            fd, self._lock = self._lock, None
            os.close(fd)


def remove_stale(out: Path) -> list[Path]:
    """Remove the temp files beside ``out`` that no live run holds (a run killed by SIGKILL
    leaves its temp file unlocked); the paths removed."""
    removed: list[Path] = []
    try:
        candidates = list(out.parent.glob(f".{glob_escape(out.name)}.*.tmp"))
    except OSError:
        return removed
    for path in candidates:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live run's
        else:
            path.unlink(missing_ok=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


def glob_escape(name: str) -> str:
    """``name`` with glob's special characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _sync_directory(path: Path) -> None:
    """Make a rename or link in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
