"""What stays of an element: THE element identity, read by screen identity, target matching,
coverage and the explorer's tried sets alike, so that all of them mean the same element.

An element is its stable id (``stable_id``: not one a process made up); else, for a table
cell, its column and its row (``column:NAME`` and ``row:N`` traits: a Textual driver gives a
cell of a row the app keyed an id made of its table, row key and column, so such a cell is
its id); else its label with the values that tick written ``#`` (``steady``). Values tick:
times, dates with a time, durations, percentages, progress as ``3/10``, known by their shape.
A clock in a row, a countdown on a button, a progress figure: the same element from one
second to the next.
"""

from __future__ import annotations

import re

from orav.model import Element

# Ids a process makes up (Python's ``id()`` in Textual's Markdown headings, pointers, UUIDs):
# a long run of digits or of hex. They differ from one run of the app to the next.
_PROCESS_ID = re.compile(r"\d{8,}|[0-9a-f]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-", re.IGNORECASE)

_NUMBER = r"\d+(?:[.,]\d+)?"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s?[AaPp]\.?[Mm]\.?)?"
_UNIT = r"(?:ms|µs|us|ns|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)"
_DURATION = rf"{_NUMBER}\s?{_UNIT}(?:\s?{_NUMBER}\s?{_UNIT})*"
# The shapes of a value that ticks, longest first: a timestamp, a clock, a duration, a
# percentage, progress as done/total. Each stands alone (not inside a word or a longer number).
TICKING = re.compile(
    r"(?<![\w.:/])(?:"
    rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]{_CLOCK})?|{_CLOCK}|{_DURATION}|{_NUMBER}\s?%|\d+\s?/\s?\d+"
    r")(?![\w:/])"
)


def stable_id(element: Element) -> str | None:
    """The element's id when it names the element in every run of the app, else None."""
    uid = element.unique_id
    return None if uid is None or _PROCESS_ID.search(uid) else uid


def steady(text: str) -> str:
    """The text with its ticking values written ``#``."""
    return TICKING.sub("#", text)


def cell_place(element: Element) -> str | None:
    """A table cell's column and row (``Time@3``), from its traits; None for anything else."""
    column = _trait(element, "column:")
    row = _trait(element, "row:")
    return None if column is None or row is None else f"{column}@{row}"


def _trait(element: Element, prefix: str) -> str | None:
    return next((t.removeprefix(prefix) for t in element.traits if t.startswith(prefix)), None)


def element_key(element: Element) -> str:
    """What stays of an element (the module docstring's rule), as text: ``#id``, a cell's
    ``column@row``, else its steady label quoted."""
    uid = stable_id(element)
    if uid:
        return f"#{uid}"
    place = cell_place(element)
    if place is not None:
        return f"cell {place}"
    return repr(steady(element.label or ""))
