"""Plain data from libyaml's events (ruamel.yaml.clib's C parser), when they decide it.

ruamel's round-trip parser, which remembers every node's line for located errors, reads ~50 KB
of YAML a second; the C parser's events read ~3 MB. ``quick(text)`` builds plain Python from
those events (mappings with text keys, lists, text, numbers, true/false, null) within the same
bounds as the round-trip path, and answers ``UNDECIDED`` for anything it does not settle itself:
a syntax error, nesting past MAX_DEPTH, more than MAX_NODES values once aliases are expanded,
an alias loop, a number past MAX_DIGITS characters, a tag, a date, a merge key, a duplicate
key, a version directive, a second document. The caller then reads the text the round-trip way,
which refuses it at its file:line:col or reads it alike. Building is a loop over events with
its own stack: libyaml's composer recurses in C and a deep document overflows it.
"""

from __future__ import annotations

import copy
import re
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


class _Undecided(Exception):
    """What the events do not settle: the round-trip path reads the text."""


def available() -> bool:
    """Whether the C parser is installed."""
    return CParser is not None


def quick(text: str) -> Any:
    """The plain data of one YAML document, or UNDECIDED."""
    if CParser is None:
        return UNDECIDED
    try:
        return _Builder().build(CParser(text))
    except _Undecided:
        return UNDECIDED
    except Exception:  # noqa: BLE001 - libyaml's errors: the round-trip path locates them
        return UNDECIDED


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

    __slots__ = ("anchor", "key", "size", "value")

    def __init__(self, value: dict[str, Any] | list[Any], anchor: str | None) -> None:
        self.value, self.anchor, self.size = value, anchor, 1
        self.key: str | None = None


class _Builder:
    """Plain data from events, every value counted as it comes (keys too: never fewer than
    the round-trip path counts)."""

    def __init__(self) -> None:
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.nodes = 0
        self.documents = 0
        self.root: Any = None

    def build(self, parser: Any) -> Any:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is ScalarEvent:
                self._add(_scalar(event), 1, event.anchor)
            elif kind is AliasEvent:
                self._alias(event.anchor)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                self._open(event, {} if kind is MappingStartEvent else [])
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                frame = self.stack.pop()
                self._add(frame.value, frame.size, frame.anchor, counted=frame.size - 1)
            elif kind is DocumentStartEvent:
                self.documents += 1
                if self.documents > 1 or event.version or event.tags:
                    raise _Undecided
            elif kind is StreamEndEvent:
                return self.root

    def _at_key(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return top is not None and isinstance(top.value, dict) and top.key is None

    def _open(self, event: Any, value: dict[str, Any] | list[Any]) -> None:
        if event.tag is not None or len(self.stack) >= MAX_DEPTH or self._at_key():
            raise _Undecided  # a tag, too deep, or a mapping or list as a key
        self.stack.append(_Frame(value, event.anchor))

    def _alias(self, anchor: str) -> None:
        if anchor not in self.anchors or self._at_key():  # undefined, a loop, or a key
            raise _Undecided
        value, size = self.anchors[anchor]
        if self.nodes + size > MAX_NODES:  # before the copy: an alias bomb stops here
            raise _Undecided
        self._add(copy.deepcopy(value), size, None)

    def _add(self, value: Any, size: int, anchor: str | None, counted: int = 0) -> None:
        """Put ``value`` (``size`` values, ``counted`` of them already counted) where the
        document is: a key, a mapping's value, a list's item, or the root."""
        self.nodes += size - counted
        if self.nodes > MAX_NODES:
            raise _Undecided
        top = self.stack[-1] if self.stack else None
        if top is None:
            self.root = value
        elif isinstance(top.value, list):
            top.value.append(value)
            top.size += size
        elif top.key is None:
            key = value if isinstance(value, str) else str(value)
            if key in top.value:  # a duplicate, or two keys that read as one text
                raise _Undecided
            top.key = key
        else:
            top.value[top.key] = value
            top.key = None
            top.size += size
        if anchor is not None:
            self.anchors[anchor] = (value, size)
