"""The companion's answers checked by shape before the shared calls read them.

The companion runs in the app's environment, beside code orav does not control, so what it
writes on its pipe is untrusted input: a look whose ``rows`` are strings or whose frame has
three numbers must be a located DeviceError, not a ValueError deep in ``calls``. One shape per
call that returns data (the rest answer nothing orav reads).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

# The optional text fields of an element's facts (``tree.element``), and its flags.
TEXTS = ("label", "unique_id", "value", "placeholder")
FLAGS = ("enabled", "focused", "secure")


class Misshapen(ValueError):
    """An answer that is not the call's shape: ``where`` in it, ``what`` was wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _point(value: Any, where: str) -> None:
    if not (isinstance(value, list) and len(value) == 2 and all(map(_number, value))):
        raise Misshapen(where, "expected a point [x, y] of two finite numbers")


def _fact(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise Misshapen(where, "expected an element's facts (an object)")
    if not isinstance(value.get("role"), str):
        raise Misshapen(f"{where}.role", "expected a string")
    frame = value.get("frame")
    if not (isinstance(frame, list) and len(frame) == 4 and all(map(_number, frame))):
        raise Misshapen(f"{where}.frame", "expected [x, y, width, height] of finite numbers")
    for key in TEXTS:
        if value.get(key) is not None and not isinstance(value[key], str):
            raise Misshapen(f"{where}.{key}", "expected a string or null")
    for key in FLAGS:
        if key in value and not isinstance(value[key], bool):
            raise Misshapen(f"{where}.{key}", "expected true or false")
    traits = value.get("traits", [])
    if not (isinstance(traits, list) and all(isinstance(t, str) for t in traits)):
        raise Misshapen(f"{where}.traits", "expected a list of strings")


def _facts(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise Misshapen(where, "expected a list of elements")
    for index, fact in enumerate(value):
        _fact(fact, f"{where}[{index}]")


def _run(value: Any, where: str) -> None:
    if not (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and all(type(colour) is int and 0 <= colour <= 0xFFFFFF for colour in value[1:])
    ):
        raise Misshapen(where, "expected a run [text, foreground, background] (colours 0xRRGGBB)")


def _rows(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise Misshapen(where, "expected a list of rows")
    for number, row in enumerate(value):
        if not isinstance(row, list):
            raise Misshapen(f"{where}[{number}]", "expected a row (a list of runs)")
        for index, run in enumerate(row):
            _run(run, f"{where}[{number}][{index}]")


def _state(value: Any, where: str) -> None:
    if not isinstance(value, dict) or not isinstance(value.get("running"), bool):
        raise Misshapen(where, "expected an object whose running is true or false")
    failure = value.get("failure")
    if failure is not None and not isinstance(failure, str):
        raise Misshapen(f"{where}.failure", "expected a string or null")


def _look(value: Any, where: str) -> None:
    _state(value, where)
    if value["running"]:
        _facts(value.get("elements"), f"{where}.elements")
        _rows(value.get("rows"), f"{where}.rows")


def _settle(value: Any, where: str) -> None:
    if value is not None and not isinstance(value, bool):
        raise Misshapen(where, "expected true, false or null")


SHAPES: dict[str, Callable[[Any, str], None]] = {
    "state": _state,
    "look": _look,
    "candidates": _facts,
    "click": _point,
    "click_at": _point,
    "scroll": _point,
    "settle": _settle,
}


def check(call: str, result: Any) -> Any:
    """``result`` when it has call ``call``'s shape, else Misshapen naming the wrong part."""
    shape = SHAPES.get(call)
    if shape is not None:
        shape(result, call)
    return result
