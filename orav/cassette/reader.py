"""Read a cassette back: header, events, blobs, and where it was cut off if it was.

API::

    cassette = read_cassette(path)   # InputError naming file:line for anything unreadable
    cassette.header                  # Header
    cassette.events                  # tuple of events (blob lines excluded)
    cassette.lines, cassette.steps   # per event: its line number and the step it belongs to
    cassette.blobs[sha256] -> bytes  # decoded and checked against its hash when read
    read_cassette(path, screenshots=False)  # screenshots checked, their bytes left in the file
    cassette.observation(i)          # the Observation of observe event i, elements resolved
    cassette.report()                # the RunReport the engine wrote, or None (cut short)
    cassette.truncated               # None, or "line N (byte B): what was wrong"

A cassette cut off anywhere (a killed writer, a truncated last line, a garbage tail) reads up to
its last whole event. A bad line followed by whole events is damage, not a cut: InputError. So is
a blob that is not base64 or does not match its hash, a screenshot or element tree an
observation refers to that is missing, and elements that are not a list of elements: reading
finds them, not a replay halfway through. Every line and blob is decoded by the codec's one
bounded JSON path (orav.codec.json): no NaN, no number past 64 digits, no nesting past 64.
A cassette of the older four-phase run machine is read as today's (``orav.cassette.upgrade``).
The file is read a line at a time: a cassette is never whole in memory. What one process has
read is read again for nothing: an element tree is structured once (by its blob's sha256), and
a blob line byte for byte the same as one checked before is not decoded again (a suite's
goldens share their sign-in and home screens).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from orav.cassette.events import (
    FORMAT,
    OLD_PERMISSIONS,
    VERSION,
    BlobEvent,
    Event,
    Header,
    ObserveEvent,
    ReportEvent,
    StepEvent,
    event_from_data,
)
from orav.cassette.observation import DamagedBlob, resolving
from orav.cassette.upgrade import fold_verifying, four_phase
from orav.codec import JSONRefused, parse_json, structure
from orav.errors import InputError
from orav.model import Element, Observation, RunReport

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# Read a line at a time through a buffer a blob line fits in (a screenshot's is 10-300 KB):
# through the default 8 KB one, reading a cassette's lines costs ~4x as much.
_BUFFER = 1024 * 1024
_EMPTY = hashlib.sha256(b"").hexdigest()  # a screenshot without data has no blob


class Blobs(Mapping[str, bytes]):
    """The cassette's blobs by sha256, base64-decoded and verified as they are read.

    With ``keep_images`` false a screenshot's bytes are checked, then left in the file: the
    blob is read again (by its line's offset) when asked for, so a report of a long run holds
    one screen at a time, not every screen it saw."""

    def __init__(self, source: str, keep_images: bool = True, file: BinaryIO | None = None) -> None:
        self._source = source
        self._keep_images = keep_images
        # The file as it was opened, not its path: a cassette written again meanwhile (a
        # second record of it) replaces the path, never the bytes these offsets point into.
        self._file: BinaryIO | None = None
        if not keep_images and file is not None:
            self._file = os.fdopen(os.dup(file.fileno()), "rb")
            weakref.finalize(self, self._file.close)
        self._where: dict[str, tuple[int, str]] = {}
        self._data: dict[str, bytes] = {}
        self._offsets: dict[str, int] = {}  # of blobs left in the file: their line's offset

    def _add(self, line: int, blob: CheckedBlob, offset: int) -> None:
        """One blob line, its bytes checked against its sha256."""
        sha256, media_type, data = blob
        if sha256 not in self._where:
            self._where[sha256] = (line, media_type)
            if self._keep_images or not media_type.startswith("image/"):
                self._data[sha256] = data
            else:
                self._offsets[sha256] = offset

    def left_in_file(self, sha256: str) -> bool:
        """Whether the blob's bytes were checked and left in the file (read when asked for)."""
        return sha256 in self._offsets

    def __getitem__(self, sha256: str) -> bytes:
        if sha256 not in self._offsets:
            return self._data[sha256]
        line = self._where[sha256][0]
        where = f"{self._source}:{line}"
        try:
            assert self._file is not None  # blobs are left in the file only when it is held
            self._file.seek(self._offsets[sha256])
            chunk = self._file.readline()
        except OSError as exc:
            raise InputError(f"cannot read cassette: {exc.strerror}", where) from None
        event = _parse_line(chunk, where)
        if not isinstance(event, BlobEvent) or event.sha256 != sha256:
            raise InputError("the cassette changed while it was read", where)
        return _decoded(event, where)

    def media_type(self, sha256: str) -> str:
        return self._where[sha256][1]

    def line(self, sha256: str) -> int:
        return self._where[sha256][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, sha256: object) -> bool:
        return sha256 in self._where


# A blob line's sha256, media type and bytes, the bytes checked against the sha256.
CheckedBlob = tuple[str, str, bytes]


class _CheckedLines:
    """Blob lines checked in this process, by the sha256 they hold: a line byte for byte the
    same as one checked (a screen a suite's goldens share: its sign-in, its home) is neither
    parsed nor decoded again. Kept while screenshots are read into memory (a replay), not
    while they are left in the file (a report). Bounded by the bytes kept (lines and their
    bytes): the least recently met goes first."""

    # how the writer begins a blob line: the sha256 follows (a line written otherwise is
    # only never found here)
    START = b'{"type":"blob","sha256":"'

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._kept = 0
        self._lines: OrderedDict[bytes, tuple[bytes, CheckedBlob]] = OrderedDict()
        self._lock = threading.Lock()  # the suite's threads may read cassettes at once

    def find(self, chunk: bytes) -> CheckedBlob | None:
        """The checked blob of ``chunk``, when the same line was checked before."""
        if not chunk.startswith(self.START):
            return None
        key = chunk[len(self.START) : len(self.START) + 64]
        with self._lock:
            known = self._lines.get(key)
            if known is None or known[0] != chunk:
                return None
            self._lines.move_to_end(key)
            return known[1]

    def keep(self, chunk: bytes, blob: CheckedBlob) -> None:
        """Remember ``chunk``, a blob line just checked, as ``blob``."""
        if not chunk.startswith(self.START + blob[0].encode()):
            return
        key = chunk[len(self.START) : len(self.START) + 64]
        with self._lock:
            if key in self._lines:
                return
            self._lines[key] = (chunk, blob)
            self._kept += len(chunk) + len(blob[2])
            while self._kept > self._budget:
                _, (line, (_, _, data)) = self._lines.popitem(last=False)
                self._kept -= len(line) + len(data)


_CHECKED = _CheckedLines(16 * 1024 * 1024)


def _decoded(blob: BlobEvent, where: str) -> bytes:
    """A blob line's bytes, checked against its sha256; InputError at ``where`` if damaged."""
    try:
        data = base64.b64decode(blob.data, validate=True)
    except (binascii.Error, ValueError):
        raise InputError("blob data: expected base64", where) from None
    if hashlib.sha256(data).hexdigest() != blob.sha256:
        raise InputError(f"blob {blob.sha256[:12]}… does not match its sha256", where)
    return data


class Cassette:
    """A cassette read from ``path``; see the module docstring."""

    def __init__(
        self,
        path: Path,
        header: Header,
        events: tuple[Event, ...],
        lines: tuple[int, ...],
        steps: tuple[int, ...],
        blobs: Blobs,
        truncated: str | None,
    ) -> None:
        self.path = path
        self.header = header
        self.events = events
        self.lines = lines
        self.steps = steps
        self.blobs = blobs
        self.truncated = truncated

    @property
    def last_step(self) -> int:
        """The number of the last step begun (0 when none was)."""
        return self.steps[-1] if self.steps else 0

    def where(self, index: int) -> str:
        """``file:line`` of event ``index``."""
        return f"{self.path}:{self.lines[index]}"

    def observation(self, index: int) -> Observation:
        """The Observation recorded by observe event ``index``."""
        event = self.events[index]
        if not isinstance(event, ObserveEvent) or event.observation is None:
            raise ValueError(f"event {index} is not an observation")
        return event.observation

    def report(self) -> RunReport | None:
        """The RunReport the engine wrote at the end of the run, or None if it never got there."""
        for index, event in enumerate(self.events):
            if isinstance(event, ReportEvent) and event.report_type == RunReport.__name__:
                return structure(event.report, RunReport, source=self.where(index))
        return None


# Element trees structured by any cassette read in this process, by the sha256 their blob was
# checked against: a suite's goldens share most screens (its sign-in, its home), and a tree
# costs ~1 ms to structure. Bounded: the first kept goes first.
_TREES: OrderedDict[str, tuple[Element, ...]] = OrderedDict()
_TREES_KEPT = 1024


class _Resolver:
    """The blobs an observation refers to, as the line being read finds them
    (``orav.cassette.observation.BlobSource``): element trees decoded once each."""

    def __init__(self, source: str, blobs: Blobs) -> None:
        self.source = source
        self.blobs = blobs
        self.where = source
        self._elements: dict[str, tuple[Element, ...]] = {}

    def elements_of(self, sha256: str) -> tuple[Element, ...]:
        cached = self._elements.get(sha256)
        if cached is not None:
            return cached
        if sha256 not in self.blobs:
            raise DamagedBlob(
                f"observation refers to blob {sha256[:12]}… not in the cassette", self.where
            )
        known = _TREES.get(sha256)  # its blob was checked against its sha256: the same tree
        if known is not None:
            self._elements[sha256] = known
            return known
        where = f"{self.source}:{self.blobs.line(sha256)}"
        try:
            data = parse_json(self.blobs[sha256])
        except JSONRefused as exc:
            what = "element blob: expected a JSON list of elements"
            if exc.line is None:  # past a bound rather than malformed: say which
                what += f" ({exc.what})"
            raise DamagedBlob(what, where) from None
        try:
            elements = structure(data, tuple[Element, ...], source=where)
        except InputError as exc:
            raise DamagedBlob(exc.what, exc.where) from None
        self._elements[sha256] = _TREES[sha256] = elements
        if len(_TREES) > _TREES_KEPT:
            _TREES.popitem(last=False)
        return elements

    def screenshot_data(self, sha256: str) -> bytes | None:
        if self.blobs.left_in_file(sha256):
            return None  # read when a page shows it (Blobs)
        if sha256 in self.blobs:
            return self.blobs[sha256]
        if sha256 == _EMPTY:
            return None
        raise DamagedBlob(
            f"observation refers to screenshot blob {sha256[:12]}… not in the cassette",
            self.where,
        )


def read_cassette(path: str | Path, *, screenshots: bool = True) -> Cassette:
    """Read the cassette at ``path``; see the module docstring for what is checked.

    ``screenshots`` false: every screenshot is checked, but its bytes stay in the file (an
    observation's Screenshot has none; ``cassette.blobs[sha256]`` reads them again), for a
    report of a run of any length. Replay needs them: the default keeps them."""
    path = Path(path)
    source = str(path)
    try:
        with path.open("rb", buffering=_BUFFER) as file:
            return _read(file, path, screenshots)
    except OSError as exc:
        raise InputError(f"cannot read cassette: {exc.strerror}", source) from None


def _read(file: BinaryIO, path: Path, screenshots: bool) -> Cassette:
    """The cassette read line by line from ``file``: one line in memory at a time."""
    source = str(path)
    first = file.readline()
    header = _read_header(first.rstrip(b"\n"), not first.endswith(b"\n"), source)
    blobs = Blobs(source, keep_images=screenshots, file=file)
    resolver = _Resolver(source, blobs)
    read = _Events(source)
    truncated = None
    offset = len(first)
    number = 1
    with resolving(resolver):
        while line := file.readline():
            number += 1
            whole = line.endswith(b"\n")
            chunk = line[:-1] if whole else line
            resolver.where = f"{source}:{number}"
            checked = _CHECKED.find(chunk) if screenshots else None
            if checked is not None:
                blobs._add(number, checked, offset)
            else:
                try:
                    event = _parse_line(chunk, resolver.where)
                except DamagedBlob:
                    raise  # a whole line that refers to what is not there: damage, not a cut
                except InputError as exc:
                    truncated = _cut_off(file, exc, offset, whole, number, source)
                    break
                if isinstance(event, BlobEvent):  # a whole line: damage here is not a cut
                    checked = (event.sha256, event.media_type, _decoded(event, resolver.where))
                    if screenshots:  # a report holds one screen at a time, never a cache
                        _CHECKED.keep(chunk, checked)
                    blobs._add(number, checked, offset)
                else:
                    read.add(event, number)
            if not whole:
                break
            offset += len(line)
    events, lines, steps = read.events, read.lines, read.steps
    if four_phase(events):  # recorded before acting verified (issue 15): read as today's
        return Cassette(path, header, *fold_verifying(events, lines, steps), blobs, truncated)
    return Cassette(path, header, tuple(events), tuple(lines), tuple(steps), blobs, truncated)


class _Events:
    """The run's events as read, each with its line and the step under way; nothing after
    the report."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.events: list[Event] = []
        self.lines: list[int] = []
        self.steps: list[int] = []
        self.step = 0

    def add(self, event: Event, number: int) -> None:
        if self.events and isinstance(self.events[-1], ReportEvent):
            raise InputError(
                f"a {event.type!r} event after the run's report; the report ends a cassette",
                f"{self.source}:{number}",
            )
        if isinstance(event, StepEvent):
            self.step = event.step
        self.events.append(event)
        self.lines.append(number)
        self.steps.append(self.step)


def _cut_off(
    file: BinaryIO, exc: InputError, offset: int, whole: bool, number: int, source: str
) -> str:
    """Where and why the cassette was cut off at line ``number`` that does not parse; when a
    whole event follows it, the cassette is damaged, not cut: an InputError."""
    cut = exc.what if whole else "an incomplete event (no newline at the end)"
    following = _next_whole_event(file, number + 1) if whole else None
    if following is not None:
        raise InputError(
            f"{exc.what}; the cassette is damaged here (a whole event follows on "
            f"line {following}), expected one event per line",
            f"{source}:{number}",
        ) from None
    return f"line {number} (byte {offset}): {cut}"


def _read_header(line: bytes, cut: bool, source: str) -> Header:
    where = f"{source}:1"
    expected = f"expected an {FORMAT} header (is this a cassette?)"
    if not line.strip():
        raise InputError(f"empty first line; {expected}", where)
    try:
        data = parse_json(line)
    except JSONRefused:
        what = "the header line is cut off" if cut else "line 1 is not JSON"
        raise InputError(f"{what}; {expected}", where) from None
    if not isinstance(data, dict) or data.get("type") != "header":
        raise InputError(f"line 1 is not a header; {expected}", where)
    if data.get("format") != FORMAT:
        raise InputError(f"unknown format {data.get('format')!r}; {expected}", where)
    version = data.get("version")
    if version != VERSION:
        older = isinstance(version, int) and version < VERSION
        remedy = "record it again with this orav" if older else "read it with a newer orav"
        raise InputError(
            f"cassette format version {version!r} is not supported; this orav reads version "
            f"{VERSION} (written by orav {data.get('orav_version', '?')}): {remedy}",
            where,
        )
    scenario = data.get("scenario")
    if isinstance(scenario, dict):
        scenario.setdefault("permissions", OLD_PERMISSIONS)  # written by an older orav
    return structure({k: v for k, v in data.items() if k != "type"}, Header, source=where)


def _parse_line(chunk: bytes, where: str) -> Event | BlobEvent:
    try:
        data: Any = parse_json(chunk)
    except JSONRefused as exc:
        if exc.what == "not UTF-8 text":
            raise InputError("not UTF-8 text; expected a JSON event", where) from None
        problem = f"{exc.what} at column {exc.col}" if exc.col is not None else exc.what
        raise InputError(f"not valid JSON ({problem}); expected a JSON event", where) from None
    event = event_from_data(data, where)
    if isinstance(event, BlobEvent) and not _SHA256.match(event.sha256):
        raise InputError("blob sha256: expected 64 lowercase hex digits", where)
    return event


def _next_whole_event(file: BinaryIO, number: int) -> int | None:
    """The number of the first later line of ``file`` that parses as an event, if any."""
    for line in file:
        if not line.endswith(b"\n"):
            return None
        chunk = line[:-1]
        if b'"type"' in chunk:
            try:
                _parse_line(chunk, "")
                return number
            except InputError:
                pass
        number += 1
    return None
