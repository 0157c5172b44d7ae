"""What stays of an element: THE element identity, read by screen identity, target matching,
coverage and the explorer's tried sets alike, so that all of them mean the same element.

An element is its stable id (``stable_id``: not one a process made up); else, for a table
cell, its column and its row (``column:NAME`` and ``row:N`` traits: a Textual driver gives a
cell of a row the app keyed an id made of its table, row key and column, so such a cell is
its id); else its label with the values that tick written ``#`` (``steady``). Values tick:
times, dates with a time, durations, percentages, progress as ``3/10``, known by their shape;
and any number of an element seen ticking (``TICKS``: in the same place, its text changed in
its numbers alone between two looks with no input between them, ``ticked``). A clock in a
row, a countdown on a button, a progress figure, a counter of queries: the same element from
one second to the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from attrs import evolve

from orav.model import Element, Observation

# The trait of an element seen ticking (``ticked``): its numbers are values, not identity.
TICKS = "ticks"
_DIGITS = re.compile(r"\d+")

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


def steady_label(element: Element) -> str:
    """The element's label with its ticking values written ``#``: those of a ticking shape,
    and every number of an element seen ticking (``TICKS``)."""
    label = steady(element.label or "")
    return _DIGITS.sub("#", label) if TICKS in element.traits else label


Place = tuple[str, str | None, int, int, int]


def place(element: Element) -> Place:
    """Where an element is: its role, id, corner and height (what a value ticking in it
    leaves; its width may follow its text)."""
    f = element.frame
    return (element.role, element.unique_id, round(f.x), round(f.y), round(f.height))


def ticked(before: Observation, after: Observation) -> frozenset[Place]:
    """The places of the elements whose text changed in its numbers alone from ``before`` to
    ``after``, two looks with no input between them: values that tick (a counter, a clock of
    a shape no rule knows). Text that changed in its words is no value: the app moved on."""
    if before.elements is after.elements:
        return frozenset()
    earlier = {place(e): e for e in before.elements if e.label or e.value}
    found = set()
    for element in after.elements:
        was = earlier.get(place(element))
        if was is None:
            continue
        for old, new in ((was.label, element.label), (was.value, element.value)):
            if old != new and old and new and _numbers_only(old, new):
                found.add(place(element))
    return frozenset(found)


def _numbers_only(old: str, new: str) -> bool:
    return bool(_DIGITS.search(new)) and _DIGITS.sub("#", old) == _DIGITS.sub("#", new)


def with_ticks(observation: Observation, places: Iterable[Place]) -> Observation:
    """``observation`` with the elements at ``places`` marked ``TICKS`` (the same look when
    none is there)."""
    places = frozenset(places)
    if not places:
        return observation
    marked = tuple(
        evolve(e, traits=(*e.traits, TICKS)) if TICKS not in e.traits and place(e) in places else e
        for e in observation.elements
    )
    if all(a is b for a, b in zip(marked, observation.elements, strict=True)):
        return observation
    return evolve(observation, elements=marked)


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
    return repr(steady_label(element))
