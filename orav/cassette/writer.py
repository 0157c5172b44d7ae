"""Write a cassette: one JSON line per event, written a step at a time off the run's path.

API::

    writer = CassetteWriter.create(path, header, *, overwrite=False, secrets=(), fsync=True)
    writer.write(event)                      # one line, scrubbed (see orav.secrets)
    writer.put_blob(data, media_type) -> sha256      # stored once, before its first reference
    writer.put_elements(elements) -> sha256          # an element tree, as a JSON blob
    writer.put_json_blob(data) -> sha256             # plain JSON data, scrubbed first
    writer.begin_step(n)                     # a ``step`` event; the lines so far go to disk
    writer.sync()                            # every line so far written and fsynced
    writer.close()                           # the same; also ``with CassetteWriter.create(...)``

The events of a step are kept in memory and handed to the writer's disk thread when the next
step begins (``begin_step``): the thread encodes and scrubs them (each after the blobs it refers
to: base64-encoded screenshots, element trees), applies each ``hold`` where it stands, writes
the batch in one ``write`` call on an unbuffered descriptor, then fsyncs, while the run goes on
with the device. ``sync`` waits for all of it (the scrubber then knows every secret met).
A process killed at any point leaves whole lines plus at most one cut-off last line, which the
reader reports as the place the cassette was cut; what it loses is the step under way and at
most the two steps handed to the disk thread and not yet written (``begin_step`` waits while
two are). The thread's failure (a full disk) is raised by the writer's next call.

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
import queue
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Self

from attrs import frozen

from orav.cassette.events import BlobEvent, Event, Header, ObserveEvent, StepEvent, event_data
from orav.cassette.observation import storing
from orav.codec import unstructure
from orav.errors import InputError
from orav.model import Element
from orav.secrets import Scrubber

_TEXT_MEDIA = ("text/", "application/json")
# fdatasync makes the appended bytes and the new file size durable, as fsync does, without
# also flushing timestamps (~15-30 % less per step on ext4); macOS has no fdatasync.
_datasync = getattr(os, "fdatasync", os.fsync)


_BATCHES = 1  # batches waiting for the disk thread (besides the one it writes) before a wait
_BATCH_BYTES = 32 << 20  # a step's lines handed over early past this size (memory stays bounded)
_TREES = 64  # element trees whose blob a writer remembers (screens a run goes back to)


# One encoder for every line: json.dumps with any argument builds a new one each call.
_to_text = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_to_ascii = json.JSONEncoder(separators=(",", ":")).encode


def _encode(data: Any) -> bytes:
    try:
        return _to_text(data).encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # lone surrogates: escape them so the file stays UTF-8
        return _to_ascii(data).encode("ascii") + b"\n"


@frozen
class _Blob:
    """A screenshot's bytes, encoded as their blob line by the disk thread."""

    sha256: str
    media_type: str
    data: bytes

    def line(self) -> bytes:
        encoded = base64.b64encode(self.data).decode("ascii")
        return _encode(event_data(BlobEvent(self.sha256, self.media_type, encoded)))


@frozen
class _Hold:
    """``Scrubber.hold``, in its place among the lines: the lines before it are scrubbed
    without it, those after with it."""

    label: str | None
    unique_id: str | None


_Item = bytes | _Blob | _Hold | Event


class _Disk:
    """The thread that turns a cassette's batches into lines (``render``), writes them, in
    order, and fsyncs each; the CPU it spends is ``seconds`` (its own thread time, for the
    benches' account of a step). Its failure is ``error``, raised on the run's side."""

    def __init__(self, fd: int, fsync: bool, render: Callable[[list[_Item]], bytes]) -> None:
        self.fd, self.fsync, self.render = fd, fsync, render
        self.error: Exception | None = None
        self.seconds = 0.0
        self._batches: queue.Queue[list[_Item] | None] = queue.Queue(_BATCHES)
        self._thread = threading.Thread(target=self._run, name="orav-cassette", daemon=True)
        self._thread.start()

    def put(self, batch: list[_Item]) -> None:
        self._batches.put(batch)

    def wait(self) -> None:
        """Every batch handed over written (and fsynced)."""
        self._batches.join()

    def stop(self) -> None:
        self._batches.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (batch := self._batches.get()) is not None:
            started = time.thread_time()
            try:
                if self.error is None:
                    self._write(self.render(batch))
            except Exception as exc:  # noqa: BLE001 (a full disk, an event that does not encode: raised by the writer's next call)
                self.error = exc
            finally:
                self.seconds += time.thread_time() - started
                self._batches.task_done()
        self._batches.task_done()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]
        if self.fsync:
            _datasync(self.fd)


class CassetteWriter:
    """An open cassette being recorded; not thread-safe (the engine writes from one task).
    Its lines reach the file through a thread of its own (``_Disk``)."""

    def __init__(self, fd: int, path: Path, scrubber: Scrubber, fsync: bool) -> None:
        self._fd: int | None = fd
        self.path = path
        self.scrubber = scrubber
        self._fsync = fsync
        self._blobs: set[str] = set()
        self._lines: list[_Item] = []  # of the step under way, not yet handed over
        self._size = 0
        self._disk: _Disk | None = None
        self.last_elements: tuple[Element, ...] = ()  # the last tree stored (secure typing)
        # the blob of each tree stored lately, with the scrubber's version it was scrubbed at
        self._trees: dict[tuple[Element, ...], tuple[int, str]] = {}
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
        """Start a cassette at ``path`` with ``header`` (on disk when this returns); an
        existing file is an InputError unless ``overwrite``. ``secrets`` (API key, passwords)
        are scrubbed from every line; a secret of ``typed`` (value to stand-in) typed securely,
        whole, is written as its stand-in (``{{password}}``), which a re-record fills in."""
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

    @property
    def disk_seconds(self) -> float:
        """The CPU time the disk thread has spent (encoding screenshots, writing, syncing)."""
        return self._disk.seconds if self._disk is not None else 0.0

    def write(self, event: Event) -> None:
        """Write one event: the disk thread encodes and scrubs it, in its place among the
        lines; an observation's tree and screenshot go first, as blobs
        (``orav.cassette.observation``)."""
        if isinstance(event, ObserveEvent) and event.observation and event.observation.elements:
            self.last_elements = event.observation.elements
        self._add(event)

    def hold(self, label: str | None, unique_id: str | None) -> None:
        """``Scrubber.hold`` from this point of the cassette on (a secret was typed there)."""
        self._add(_Hold(label, unique_id))

    def begin_step(self, step: int) -> None:
        """Mark the start of step ``step``: everything before it goes to the disk thread."""
        self.write(StepEvent(step))
        self._hand_over()

    def put_blob(self, data: bytes, media_type: str, sha256: str = "") -> str:
        """Store ``data`` once under its sha256 (``sha256`` when the caller has it already)
        and return the hash (text types are scrubbed); a screenshot is encoded off the run's
        path, by the disk thread."""
        return self._blob(data, media_type, sha256, self._add)

    def put_elements(self, elements: tuple[Element, ...]) -> str:
        """Store an element tree as a JSON blob; a tree stored lately (a screen the run comes
        back to) costs a lookup, unless what is scrubbed has changed since."""
        return self._elements(elements, self._add)

    def put_json_blob(self, data: Any) -> str:
        """Store plain JSON data (redacted and scrubbed) as an ``application/json`` blob."""
        return self._json_blob(data, self._add)

    def _blob(self, data: bytes, media_type: str, sha256: str, emit: _Emit) -> str:
        if media_type.startswith(_TEXT_MEDIA):
            data = self.scrubber.text(data.decode("utf-8")).encode("utf-8")
            sha256 = ""
        sha = sha256 or hashlib.sha256(data).hexdigest()
        if sha not in self._blobs:
            if media_type.startswith(_TEXT_MEDIA):
                blob = BlobEvent(sha, media_type, base64.b64encode(data).decode("ascii"))
                emit(_encode(event_data(blob)))
            else:
                emit(_Blob(sha, media_type, data))
            self._blobs.add(sha)
        return sha

    def _elements(self, elements: tuple[Element, ...], emit: _Emit) -> str:
        known = self._trees.pop(elements, None)
        if known is None or known[0] != self.scrubber.version:
            sha = self._json_blob(unstructure(elements), emit)
            known = (self.scrubber.version, sha)  # the version after the tree's secrets
        self._trees[elements] = known  # the most recent last
        if len(self._trees) > _TREES:
            del self._trees[next(iter(self._trees))]
        return known[1]

    def _json_blob(self, data: Any, emit: _Emit) -> str:
        encoded = _encode(self.scrubber.data(data))[:-1]
        sha = hashlib.sha256(encoded).hexdigest()
        if sha not in self._blobs:
            blob = BlobEvent(sha, "application/json", base64.b64encode(encoded).decode("ascii"))
            emit(_encode(event_data(blob)))
            self._blobs.add(sha)
        return sha

    def _render(self, batch: list[_Item]) -> bytes:
        """A batch's lines, on the disk thread: each event encoded and scrubbed after the
        blobs it refers to, each hold applied where it stands."""
        out: list[bytes] = []

        def emit(line: bytes | _Blob) -> None:
            out.append(line if isinstance(line, bytes) else line.line())

        sink = _Sink(self, emit)
        for item in batch:
            if isinstance(item, _Hold):
                self.scrubber.hold(item.label, item.unique_id)
            elif isinstance(item, (bytes, _Blob)):
                emit(item)
            else:
                with storing(sink):
                    data = event_data(item)
                emit(_encode(self.scrubber.data(data)))
        return b"".join(out)

    def sync(self) -> None:
        """Every line so far written (and fsynced, unless the writer was made without)."""
        if self._fd is None:
            return
        self._hand_over()
        if self._disk is not None:
            self._disk.wait()
            self._raise()

    def close(self) -> None:
        if self._fd is None:
            return
        try:
            if self._lines:
                self._put(self._lines)
                self._lines = []
            if self._disk is not None:
                self._disk.stop()
                self._raise()
        finally:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _write_line(self, data: dict[str, Any]) -> None:
        self._add(_encode(self.scrubber.data(data)))

    def _add(self, item: _Item) -> None:
        if self._fd is None:
            raise ValueError(f"cassette {self.path} is closed")
        self._lines.append(item)
        self._size += _size(item)
        if self._size > _BATCH_BYTES:
            self._hand_over()

    def _hand_over(self) -> None:
        """The lines so far, to the disk thread (started on the first batch)."""
        if self._fd is None:
            raise ValueError(f"cassette {self.path} is closed")
        self._raise()
        if self._lines:
            self._put(self._lines)
            self._lines, self._size = [], 0

    def _put(self, batch: list[_Item]) -> None:
        if self._disk is None:
            if self._fd is None:
                raise ValueError(f"cassette {self.path} is closed")
            self._disk = _Disk(self._fd, self._fsync, self._render)
        self._disk.put(batch)

    def _raise(self) -> None:
        """The disk thread's failure, raised on the run's side."""
        if self._disk is not None and self._disk.error is not None:
            raise self._disk.error


_Emit = Callable[[bytes | _Blob], None]


class _Sink:
    """Where the disk thread stores the blobs of the observations it encodes: before the
    line that refers to them (``orav.cassette.observation.BlobSink``)."""

    def __init__(self, writer: CassetteWriter, emit: _Emit) -> None:
        self._writer, self._emit = writer, emit

    def put_elements(self, elements: tuple[Element, ...]) -> str:
        return self._writer._elements(elements, self._emit)

    def put_blob(self, data: bytes, media_type: str, sha256: str = "") -> str:
        return self._writer._blob(data, media_type, sha256, self._emit)


def _size(item: _Item) -> int:
    """About what ``item`` holds in memory until it is written."""
    if isinstance(item, bytes):
        return len(item)
    if isinstance(item, _Blob):
        return len(item.data)
    shot = (
        item.observation.screenshot if isinstance(item, ObserveEvent) and item.observation else None
    )
    return 256 + (len(shot.data) if shot is not None else 0)


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
