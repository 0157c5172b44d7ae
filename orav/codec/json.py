"""The one way orav decodes untrusted JSON (cassette lines, blobs, model answers), within bounds.

``json.loads`` alone takes NaN and Infinity, raises RecursionError on deep nesting and
ValueError on an int of more than 4,300 digits: here each is a ``JSONRefused`` that says what,
and ``decode_json`` turns any refusal into one located InputError.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_JSON_BYTES, size
from orav.codec.converter import structure
from orav.errors import InputError

T = TypeVar("T")


class JSONRefused(ValueError):
    """JSON that is malformed or past a bound; ``line``/``col`` (1-based) when known."""

    def __init__(self, what: str, line: int | None = None, col: int | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.line = line
        self.col = col


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise JSONRefused(f"a number of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise JSONRefused(f"a number of {len(text)} characters (at most {MAX_DIGITS})")
    value = float(text)
    if not math.isfinite(value):
        raise JSONRefused(f"the number {text} is too large")
    return value


def _constant(name: str) -> float:
    raise JSONRefused(f"{name} is not a number JSON allows")


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def depth(data: Any) -> int:
    """How deeply lists and mappings nest in ``data`` (a scalar is 0), without recursing:
    one level at a time, looking only at the containers (most values are scalars)."""
    level = [data]
    deepest = 0
    while True:
        containers = [node for node in level if isinstance(node, (dict, list))]
        if not containers or deepest > MAX_DEPTH:
            return deepest
        deepest += 1
        level = []
        for node in containers:
            level.extend(node.values() if isinstance(node, dict) else node)


def _shallow(text: str) -> bool:
    """Short text with no more opening brackets than ``MAX_DEPTH`` cannot nest past it
    (brackets inside strings only raise the count): counting is ~10x cheaper than walking what
    a short event line parsed to. A long text (a blob line: one long string) is walked."""
    return len(text) <= _COUNTED and text.count("[") + text.count("{") <= MAX_DEPTH


_COUNTED = 4096  # characters; past this counting brackets costs more than walking the data


def parse_json(text: str | bytes, *, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """Plain data from JSON text, or JSONRefused: malformed, too large, too deep, a number
    past ``MAX_DIGITS``, NaN or Infinity."""
    if len(text) > max_bytes:
        raise JSONRefused(f"{size(len(text))} of JSON, more than the {size(max_bytes)} allowed")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONRefused("not UTF-8 text", 1, exc.start + 1) from None
    try:
        data = _DECODER.decode(text)
    except JSONRefused:
        raise
    except json.JSONDecodeError as exc:
        raise JSONRefused(exc.msg.removesuffix(" at"), exc.lineno, exc.colno) from None
    except RecursionError:
        raise JSONRefused(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # anything else the decoder can raise
        raise JSONRefused(str(exc)) from None
    if not _shallow(text) and depth(data) > MAX_DEPTH:
        raise JSONRefused(f"nested deeper than {MAX_DEPTH} levels")
    return data


def parse_json_at(text: str, start: int) -> tuple[Any, int]:
    """The JSON value that begins at ``text[start]`` and the index just past it (what follows
    is left alone: prose around an answer), or JSONRefused as ``parse_json`` refuses."""
    if len(text) > MAX_JSON_BYTES:
        raise JSONRefused(
            f"{size(len(text))} of JSON, more than the {size(MAX_JSON_BYTES)} allowed"
        )
    try:
        data, end = _DECODER.raw_decode(text, start)
    except JSONRefused:
        raise
    except json.JSONDecodeError as exc:
        raise JSONRefused(exc.msg.removesuffix(" at"), exc.lineno, exc.colno) from None
    except RecursionError:
        raise JSONRefused(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise JSONRefused(str(exc)) from None
    if depth(data) > MAX_DEPTH:
        raise JSONRefused(f"nested deeper than {MAX_DEPTH} levels")
    return data, end


def decode_json(text: str | bytes, source: str, *, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """``parse_json``, with a refusal as one InputError at ``source[:line:col]``."""
    try:
        return parse_json(text, max_bytes=max_bytes)
    except JSONRefused as exc:
        if exc.line is None:
            raise InputError(exc.what, source) from None
        what = exc.what if exc.what == "not UTF-8 text" else f"not valid JSON: {exc.what}"
        raise InputError(what, f"{source}:{exc.line}:{exc.col}") from None


def from_json(text: str | bytes, cls: type[T], *, source: str = "<json>") -> T:
    """Build ``cls`` from JSON text within the bounds; errors name source:line:col."""
    return structure(decode_json(text, source), cls, source=source)
