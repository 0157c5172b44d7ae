"""Plain data from libyaml's events (ruamel.yaml.clib's C parser), when they decide it.

ruamel's round-trip parser, which remembers every node's line for located errors, reads ~50 KB
of YAML a second; the C parser's events read ~3 MB. ``read(text)`` builds plain Python from
those events (mappings with text keys, lists, text, numbers, true/false, null) within the same
bounds as the round-trip path, and answers ``UNDECIDED`` for anything it does not settle itself:
a syntax error, nesting past MAX_DEPTH, more than MAX_NODES values once aliases are expanded,
an alias loop, a number past MAX_DIGITS characters, a tag, a date, a merge key, a duplicate
key, a version directive, a second document. The caller then reads the text the round-trip way,
which refuses it at its file:line:col or reads it alike. Building is a loop over events with
its own stack: libyaml's composer recurses in C and a deep document overflows it.

Where each value is written comes along (``Spot``), so that an error found after loading is
located without parsing the text again: ``Spot.position`` answers as ``codec.locate.position``
does on round-trip nodes.
"""

from __future__ import annotations

import bisect
import copy
import re
from collections.abc import Sequence
from typing import Any

from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.resolver import VersionedResolver

from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_NODES

try:
    from _ruamel_yaml import CParser  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # ruamel.yaml.clib not installed (or not CPython): every text is undecided
    CParser = None

UNDECIDED: Any = object()

_TAG = "tag:yaml.org,2002:"
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")  # the ints that read alike in every YAML reading
_FLOAT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\.[0-9]+")
# ruamel's own implicit resolvers for YAML 1.2 (the first character, or "" for the empty scalar,
# to (tag, pattern)), read once so that a plain scalar means here what it means to ruamel.
_TABLE = VersionedResolver().versioned_resolver
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    key: [*found, *_TABLE.get(None, [])] for key, found in _TABLE.items() if key is not None
}
_ANY = list(_TABLE.get(None, []))  # for a scalar whose first character has none of its own
# Characters libyaml and ruamel read apart: line breaks to libyaml (YAML 1.1) but not to
# ruamel (1.2), the byte-order mark, which shifts libyaml's columns, and the tab, which ruamel
# refuses in places libyaml takes it (``:#<tab>``). A text with one is read the round-trip way.
_COUNTED_APART = ("\x85", "\u2028", "\u2029", "\ufeff", "\t")
# After an empty value: the rest of its line blank, then blank or comment lines, then indent.
_TO_NEXT_LINE = re.compile(r"[ \t]*\r?\n(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*")


class _Undecided(Exception):
    """What the events do not settle: the round-trip path reads the text."""


class TooDeep(Exception):
    """A list nested past MAX_DEPTH, at its mark: refused here, where and as the round-trip
    path would refuse it, without reading the rest (a 512 KB run of ``[`` took the round-trip
    reader 3.5 s of CPU to refuse)."""

    def __init__(self, at: Mark) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")
        self.at = at


def available() -> bool:
    """Whether the C parser is installed."""
    return CParser is not None


def read(text: str) -> Any:
    """(plain data, its Spot) of one YAML document, or UNDECIDED; TooDeep for nesting past
    MAX_DEPTH."""
    if CParser is None or any(c in text for c in _COUNTED_APART):
        return UNDECIDED
    try:
        return _Builder(text).build(CParser(text))
    except TooDeep:
        raise
    except _Undecided:
        return UNDECIDED
    except Exception:  # noqa: BLE001 - libyaml's errors: the round-trip path locates them
        return UNDECIDED


Mark = tuple[int, int]  # 0-based line and column, as ruamel's nodes keep them


class Spot:
    """Where a mapping or list is written (``at``) and where each of its values is: for a
    mapping, each key's (key's mark, value's mark or Spot); for a list, each item's."""

    __slots__ = ("at", "items")

    def __init__(self, at: Mark, items: dict[str, tuple[Mark, Any]] | list[Any]) -> None:
        self.at, self.items = at, items

    def position(self, path: Sequence[Any], source: str) -> str:
        """file:line:col of the deepest value on ``path`` that exists; a trailing None asks
        for the key of the last step (``codec.locate.position``'s rules)."""
        parts = [part for part in path if part is not None]
        key = self._key_at(parts) if path and path[-1] is None else None
        line, col = key or self._deepest(parts) or self.at
        return f"{source}:{line + 1}:{col + 1}"

    def _child(self, part: Any) -> tuple[Mark, Any] | None:
        """(where ``part`` is written: a key for a mapping or list, else its value; the child
        itself), or None."""
        if isinstance(self.items, dict):
            if not isinstance(part, str) or part not in self.items:
                return None
            key_at, child = self.items[part]
            return (key_at if isinstance(child, Spot) else child), child
        if isinstance(part, int) and 0 <= part < len(self.items):
            child = self.items[part]
            return (child.at if isinstance(child, Spot) else child), child
        return None

    def _key_at(self, parts: Sequence[Any]) -> Mark | None:
        node: Any = self
        for part in parts[:-1]:
            found = node._child(part) if isinstance(node, Spot) else None
            if found is None:
                return None
            node = found[1]
        if isinstance(node, Spot) and isinstance(node.items, dict) and parts[-1] in node.items:
            return node.items[parts[-1]][0]
        return None

    def _deepest(self, parts: Sequence[Any]) -> Mark | None:
        at: Mark | None = None
        node: Any = self
        for part in parts:
            found = node._child(part) if isinstance(node, Spot) else None
            if found is None:
                if at is None and isinstance(node, Spot) and isinstance(node.items, dict):
                    at = node.at
                break
            at, node = found
        return at


def _scalar(event: Any) -> Any:
    """A scalar event's value as the round-trip path reads it, or _Undecided."""
    value: str = event.value
    if event.tag is not None:
        raise _Undecided
    if not event.implicit[0]:  # quoted or block: text
        return value
    resolvers = _RESOLVERS.get(value[:1], _ANY)
    tag = next((tag for tag, pattern in resolvers if pattern.match(value)), None)
    if tag is None:
        return value
    if tag == _TAG + "null":
        return None
    if tag == _TAG + "bool":
        return value.lower() == "true"
    if len(value) <= MAX_DIGITS:
        if tag == _TAG + "int" and _INT.fullmatch(value):
            return int(value)
        if tag == _TAG + "float" and _FLOAT.fullmatch(value):
            return float(value)
    raise _Undecided  # hex, octal, exponents, .inf, dates, merge keys: ruamel decides


class _Frame:
    """A mapping or list being built: its value, its size in values, its anchor, and for a
    mapping the key waiting for its value."""

    __slots__ = ("anchor", "flow", "key", "key_at", "size", "spot", "value")

    def __init__(
        self, value: dict[str, Any] | list[Any], anchor: str | None, at: Mark, flow: bool
    ) -> None:
        self.value, self.anchor, self.size, self.flow = value, anchor, 1, flow
        self.spot = Spot(at, {} if isinstance(value, dict) else [])
        self.key: str | None = None
        self.key_at: Mark = at


class _Builder:
    """Plain data from events, every value counted as it comes (keys too: never fewer than
    the round-trip path counts)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: list[int] | None = None  # where each line starts, once an empty value needs it
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int, Any]] = {}
        self.nodes = 0
        self.documents = 0
        self.root: tuple[Any, Any] = (None, Spot((0, 0), {}))

    def build(self, parser: Any) -> tuple[Any, Spot]:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is ScalarEvent:
                mark = event.start_mark
                at = (mark.line, mark.column)
                self._depth(at)
                if not event.value and event.implicit[0]:
                    at = self._empty_value(at)
                self._add(_scalar(event), 1, event.anchor, at)
            elif kind is AliasEvent:
                self._alias(event)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                self._open(event, {} if kind is MappingStartEvent else [])
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                frame = self.stack.pop()
                size = frame.size
                self._add(frame.value, size, frame.anchor, frame.spot, counted=size - 1)
            elif kind is DocumentStartEvent:
                self.documents += 1
                if self.documents > 1 or event.version or event.tags:
                    raise _Undecided
            elif kind is StreamEndEvent:
                data, spot = self.root
                return data, spot if isinstance(spot, Spot) else Spot((0, 0), {})  # as _start

    def _empty_value(self, at: Mark) -> Mark:
        """Where the round-trip parser places a mapping's empty value: one that ends its line
        (``key:`` then a new line) at the next token past blank and comment lines, one in
        braces (``{a: , b: 1}``) right after its colon; libyaml, at the next token in braces
        and right after the colon on a line."""
        top = self.stack[-1] if self.stack else None
        if top is None or top.key is None:
            return at
        if self.lines is None:
            self.lines = [0, *(m.end() for m in re.finditer("\n", self.text))]
        index = self.lines[at[0]] + at[1]
        if top.flow:
            while index > 0 and self.text[index - 1] in " \t":
                index -= 1
        else:
            gap = _TO_NEXT_LINE.match(self.text, index)
            index = gap.end() if gap else index
        line = bisect.bisect_right(self.lines, index) - 1
        return line, index - self.lines[line]

    def _at_key(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return top is not None and isinstance(top.value, dict) and top.key is None

    def _depth(self, at: Mark | None) -> None:
        """A value about to be added is one level below the open mappings and lists: past
        MAX_DEPTH, TooDeep at ``at`` when it is a list's item, else the round-trip path's to
        place (it places a value of a too-deep mapping elsewhere)."""
        if len(self.stack) >= MAX_DEPTH:
            if at is not None and isinstance(self.stack[-1].value, list):
                raise TooDeep(at)
            raise _Undecided

    def _open(self, event: Any, value: dict[str, Any] | list[Any]) -> None:
        mark = event.start_mark
        self._depth((mark.line, mark.column) if isinstance(value, list) else None)
        if event.tag is not None or self._at_key():
            raise _Undecided  # a tag, or a mapping or list as a key
        frame = _Frame(value, event.anchor, (mark.line, mark.column), bool(event.flow_style))
        self.stack.append(frame)

    def _alias(self, event: Any) -> None:
        self._depth(None)
        anchor = event.anchor
        if anchor not in self.anchors or self._at_key():  # undefined, a loop, or a key
            raise _Undecided
        value, size, spot = self.anchors[anchor]
        if self.nodes + size > MAX_NODES:  # before the copy: an alias bomb stops here
            raise _Undecided
        self._add(copy.deepcopy(value), size, None, spot)  # where its anchor wrote it

    def _add(self, value: Any, size: int, anchor: str | None, spot: Any, counted: int = 0) -> None:
        """Put ``value`` (``size`` values, ``counted`` of them already counted) written at
        ``spot`` (a Mark, or a Spot for a mapping or list) where the document is: a key, a
        mapping's value, a list's item, or the root."""
        self.nodes += size - counted
        if self.nodes > MAX_NODES:
            raise _Undecided
        top = self.stack[-1] if self.stack else None
        if top is None:
            self.root = (value, spot)
        elif isinstance(top.value, list):
            top.value.append(value)
            top.spot.items.append(spot)  # type: ignore[union-attr]
            top.size += size
        elif top.key is None:
            key = value if isinstance(value, str) else str(value)
            if key in top.value:  # a duplicate, or two keys that read as one text
                raise _Undecided
            top.key, top.key_at = key, spot
        else:
            top.value[top.key] = value
            top.spot.items[top.key] = (top.key_at, spot)  # type: ignore[call-overload]
            top.key = None
            top.size += size
        if anchor is not None:
            self.anchors[anchor] = (value, size, spot)
