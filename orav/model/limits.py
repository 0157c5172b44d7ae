"""Validators that make impossible values (a negative wait, a NaN tap) errors at construction.

Each raises ``InvalidValue``, a ValueError that names the field, so the codec can point at the
field's own file:line:col rather than at the mapping around it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

Validator = Callable[[Any, Any, Any], None]


class InvalidValue(ValueError):
    """``field`` holds a value the type cannot have; ``what`` says what it must be."""

    def __init__(self, field: str, what: str) -> None:
        self.field = field
        self.what = what
        super().__init__(f"{field}: {what}")


def _check(ok: Callable[[float], bool], must: str) -> Validator:
    def validate(_: Any, attribute: Any, value: float) -> None:
        if not math.isfinite(value):
            raise InvalidValue(attribute.name, f"must be a finite number, got {value}")
        if not ok(value):
            raise InvalidValue(attribute.name, f"must be {must}, got {value}")

    return validate


def finite(_: Any, attribute: Any, value: float) -> None:
    """A number that is neither NaN nor infinite."""
    if not math.isfinite(value):
        raise InvalidValue(attribute.name, f"must be a finite number, got {value}")


def at_least(bound: float) -> Validator:
    """A finite number >= ``bound``."""
    return _check(lambda value: value >= bound, f"at least {bound}")


def above(bound: float) -> Validator:
    """A finite number > ``bound``."""
    return _check(lambda value: value > bound, f"greater than {bound}")


def at_most(bound: float) -> Validator:
    """A finite number <= ``bound``."""
    return _check(lambda value: value <= bound, f"at most {bound}")


def between(low: float, high: float) -> Validator:
    """A finite number in [``low``, ``high``]."""
    return _check(lambda value: low <= value <= high, f"between {low} and {high}")


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_NAME = 100


def file_name(_: Any, attribute: Any, value: str) -> None:
    """A name that is safe as a file name: letters, digits, ``.``, ``_``, ``-``; no path."""
    if not _NAME.fullmatch(value) or ".." in value or len(value) > MAX_NAME:
        raise InvalidValue(
            attribute.name,
            f"must be up to {MAX_NAME} letters, digits, '.', '_' or '-' (it names files), "
            f"got {value!r}",
        )


def not_empty(_: Any, attribute: Any, value: str) -> None:
    if not value:
        raise InvalidValue(attribute.name, "must not be empty")


def not_blank(_: Any, attribute: Any, value: str) -> None:
    if not value.strip():
        raise InvalidValue(attribute.name, "must not be empty")
