"""Where a remedy's tap or swipe lands: pure geometry on an observation, no I/O.

A retried action stays on the element it aims at (a terminal app's points are cells, and 10 of
them are often the next tab); a tap that hides the keyboard lands on plain text or blank space,
never on a field or a button.
"""

from __future__ import annotations

from attrs import evolve

from orav.model import Action, Element, Observation, Point, PressKey, Swipe, Tap
from orav.perceive import keyboard_frame
from orav.perceive.change import STATUS_BAR_POINTS
from orav.perceive.faults import screen_size
from orav.perceive.roles import BUTTON_ROLES, STATIC_ROLES, TEXT_FIELD_ROLES, is_secure
from orav.perceive.targets import target_element


def repeatable(action: Action, observation: Observation) -> bool:
    """Whether ``action`` can be performed again on ``observation`` as it was meant."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        return target_element(observation, action.target) is not None
    return isinstance(action, (Tap, Swipe, PressKey))


def nudged(action: Action, observation: Observation, dx: float, dy: float) -> Action:
    """The action again, moved by (dx, dy) points, never off the element it aims at: a tap's
    point, or a swipe's both ends. Other actions come back as they were."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            point = Point(action.x, action.y)
            element = element_at(observation, point)
        else:
            element = target_element(observation, action.target)
            if element is None:
                return action
            point = element.frame.center
        nx, ny = _within(element, dx, dy)
        return Tap(point.x + nx, point.y + ny, action.target, action.duration, action.vision)
    if isinstance(action, Swipe):
        nx, ny = _within(element_at(observation, action.start), dx, dy)
        return evolve(
            action,
            start=Point(action.start.x + nx, action.start.y + ny),
            end=Point(action.end.x + nx, action.end.y + ny),
        )
    return action


def element_at(observation: Observation, point: Point) -> Element | None:
    """The smallest element under ``point``: what a tap there lands on."""
    under = [e for e in observation.elements if not e.frame.is_empty and e.frame.contains(point)]
    return min(under, key=lambda e: e.frame.width * e.frame.height, default=None)


def point_outside_fields(observation: Observation, attempt: int) -> Point:
    """A point above the keyboard off every field and button, one per ``attempt`` (from 2): a
    label first, then blank space."""
    width, height = screen_size(observation)
    board = keyboard_frame(observation)
    top = board.y if board is not None else height / 2
    blockers = [
        e.frame
        for e in observation.elements
        if e.role in TEXT_FIELD_ROLES or e.role in BUTTON_ROLES or is_secure(e)
    ]
    labels = sorted(
        (
            e.frame.center
            for e in observation.elements
            if e.role in STATIC_ROLES and STATUS_BAR_POINTS < e.frame.center.y < top
        ),
        key=lambda point: -point.y,
    )
    blank = [Point(x, y) for y in _descending(top - 12, 60, 24) for x in (width / 2, 12)]
    free = [p for p in (*labels, *blank) if not any(f.contains(p) for f in blockers)]
    pool = free or [Point(width / 2, top / 2)]
    return pool[(attempt - 2) % len(pool)]


def _within(element: Element | None, dx: float, dy: float) -> tuple[float, float]:
    """(dx, dy) shrunk to a quarter of ``element``'s size, so the point stays on it."""
    if element is None or element.frame.is_empty:
        return dx, dy
    width, height = element.frame.width / 4, element.frame.height / 4
    return max(-width, min(width, dx)), max(-height, min(height, dy))


def _descending(start: float, stop: float, step: float) -> list[float]:
    count = max(0, int((start - stop) // step) + 1)
    return [start - i * step for i in range(count)]
