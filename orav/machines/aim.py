"""Where a remedy's tap or swipe lands: pure geometry on an observation, no I/O.

A retried action stays on the element it aims at, where nothing covers it (a terminal app's
points are cells, and 10 of them are often the next tab; a banner's buttons lie beside the
target it covers): what a tap lands on is ``orav.perceive.on_top``, the one occlusion rule. A
tap that hides the keyboard lands on plain text or blank space, never on a field or a button.
"""

from __future__ import annotations

from attrs import evolve

from orav.model import Action, Element, Observation, Point, PressKey, Swipe, Tap
from orav.perceive.change import STATUS_BAR_POINTS
from orav.perceive.faults import screen_size
from orav.perceive.occlusion import cover_at, keyboard_frame, on_top, open_point
from orav.perceive.roles import BUTTON_ROLES, STATIC_ROLES, TEXT_FIELD_ROLES, is_secure
from orav.perceive.targets import target_element


def repeatable(action: Action, observation: Observation) -> bool:
    """Whether ``action`` can be performed again on ``observation`` as it was meant."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        return target_element(observation, action.target) is not None
    return isinstance(action, (Tap, Swipe, PressKey))


def nudged(action: Action, observation: Observation, dx: float, dy: float) -> Action:
    """The action again, moved by (dx, dy) points, never off the element it aims at nor onto
    anything covering it (where the move would, it stays where it was): a tap's point, or a
    swipe's both ends. Other actions come back as they were."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            point = Point(action.x, action.y)
            element = on_top(observation, point)
        else:
            element = target_element(observation, action.target)
            if element is None:
                return action
            point = open_point(observation, element) or element.frame.center
        moved = _stay(observation, element, point, dx, dy)
        return Tap(moved.x, moved.y, action.target, action.duration, action.vision)
    if isinstance(action, Swipe):
        moved = _stay(observation, on_top(observation, action.start), action.start, dx, dy)
        nx, ny = moved.x - action.start.x, moved.y - action.start.y
        return evolve(action, start=moved, end=Point(action.end.x + nx, action.end.y + ny))
    return action


def _stay(
    observation: Observation, element: Element | None, point: Point, dx: float, dy: float
) -> Point:
    """``point`` moved by (dx, dy), shrunk to stay on ``element``; ``point`` itself when the
    moved one would land on anything else (on blank space: on any element)."""
    nx, ny = _within(element, dx, dy)
    moved = Point(point.x + nx, point.y + ny)
    if element is None:
        return moved if on_top(observation, moved) is None else point
    if element.frame.contains(moved) and cover_at(observation, element, moved) is None:
        return moved
    return point


def point_outside_fields(observation: Observation, attempt: int) -> Point:
    """A point above the keyboard off every field and button and what covers them, one per
    ``attempt`` (from 2): a label first, then blank space."""
    width, height = screen_size(observation)
    board = keyboard_frame(observation)
    top = board.y if board is not None else height / 2
    blockers = [e.frame for e in observation.elements if _blocks_a_tap(e)]
    blank = [Point(x, y) for y in _descending(top - 12, 60, 24) for x in (width / 2, 12)]
    labels = _labels_above(observation, top)
    free = [
        p
        for p in (*labels, *blank)
        if not any(f.contains(p) for f in blockers) and _harmless(on_top(observation, p))
    ]
    pool = free or [Point(width / 2, top / 2)]
    return pool[(attempt - 2) % len(pool)]


def _blocks_a_tap(element: Element) -> bool:
    """A field, a button or a secure element: a point on it is not off every field."""
    return element.role in TEXT_FIELD_ROLES or element.role in BUTTON_ROLES or is_secure(element)


def _labels_above(observation: Observation, top: float) -> list[Point]:
    """The centres of the plain labels between the status bar and ``top``, lowest first."""
    centres = (
        e.frame.center
        for e in observation.elements
        if e.role in STATIC_ROLES and STATUS_BAR_POINTS < e.frame.center.y < top
    )
    return sorted(centres, key=lambda point: -point.y)


def _harmless(element: Element | None) -> bool:
    """A tap on it does nothing: blank space, or plain text that is no control."""
    return element is None or (element.role in STATIC_ROLES and not element.interactive)


def _within(element: Element | None, dx: float, dy: float) -> tuple[float, float]:
    """(dx, dy) shrunk to a quarter of ``element``'s size, so the point stays on it."""
    if element is None or element.frame.is_empty:
        return dx, dy
    width, height = element.frame.width / 4, element.frame.height / 4
    return max(-width, min(width, dx)), max(-height, min(height, dy))


def _descending(start: float, stop: float, step: float) -> list[float]:
    count = max(0, int((start - stop) // step) + 1)
    return [start - i * step for i in range(count)]
