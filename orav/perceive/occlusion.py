"""What is on top: the one occlusion rule. What a user cannot touch, orav does not tap.

A target is **covered** where something else would take a tap on it, worked out from the
tree's structure alone:

- an alert, dialog, sheet or modal (a role or trait says so) covers everything that is not its
  own, wherever it is: it swallows every tap around it (a terminal's modal screen has no
  frame and covers the whole screen);
- the keyboard covers what lies under its frame;
- any other element drawn later (later in pre-order: UIKit draws later subviews on top, as the
  simulator and a terminal's layers do) whose frame holds the point and that is not part of
  the target covers it there: a cookie banner, a toast, a popover, a sheet without a role.
  The target's own parts (its label, icon, badge) follow it at once, inside its frame.

Target resolution prefers what a tap can reach, the engine reports a covered target as the
cover (never as "no effect"), a remedy's nudge stays on what it aims at and off every cover,
and rerun's healing never picks an element under one: all ask here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from attrs import frozen

from orav.model import Element, Frame, Observation, Point
from orav.perceive.per_tree import per_tree
from orav.perceive.roles import (
    KEY_ROLES,
    KEYBOARD_ROLES,
    ROOT_ROLES,
    is_alert,
    is_keyboard,
    text_of,
)
from orav.perceive.words import dismissible

CoverKind = Literal["modal", "keyboard", "overlay"]
# Points of an element tried for an uncovered spot, per axis (fractions of its size): a sliver
# at its edge is no place to tap.
_SPOTS = (0.5, 0.35, 0.65, 0.2, 0.8)
# Points between two elements of one overlay (a banner's text and its buttons).
_GAP = 8.0


@frozen
class Cover:
    """What covers a target: ``modal`` (an alert, sheet or dialog), ``keyboard``, or an
    ``overlay`` (a banner, toast, popover, a sheet without a role). ``elements``: the cover
    and what belongs to it, its outermost element first."""

    kind: CoverKind
    elements: tuple[Element, ...]

    @property
    def name(self) -> str:
        """``the keyboard``, ``alert "Delete draft?"``, ``AXOther "We use cookies"``."""
        if self.kind == "keyboard":
            return "the keyboard"
        head = self.elements[0]
        said = text_of(head) or next((text_of(e) for e in self.elements if text_of(e)), None)
        role = "alert" if self.kind == "modal" else head.role
        return f"{role} {said!r}" if said else role

    @property
    def buttons(self) -> tuple[Element, ...]:
        """The cover's own controls (its answers, a close button)."""
        return tuple(e for e in self.elements if e.interactive and not is_keyboard(e))


def clearable(cover: Cover) -> bool:
    """Whether the remedies can clear ``cover`` without consenting to anything: the keyboard,
    or a cover they may dismiss (``dismissible``: a toast, one with a declining answer). Any
    other (a banner whose every answer consents) stays until the test answers it."""
    return cover.kind == "keyboard" or dismissible(cover.buttons)


@per_tree
def modal_elements(elements: tuple[Element, ...]) -> tuple[Element, ...]:
    """The first alert or modal and what belongs to it: the elements after it in pre-order
    inside its frame (the whole rest of the tree when it has no frame, as a terminal modal)."""
    index = next((i for i, e in enumerate(elements) if is_alert(e)), None)
    if index is None:
        return ()
    frame = elements[index].frame
    inside = tuple(
        e
        for e in elements[index + 1 :]
        if frame.is_empty or e.frame.is_empty or frame.contains(e.frame.center)
    )
    return (elements[index], *inside)


@per_tree
def keyboard_keys(elements: tuple[Element, ...]) -> tuple[Element, ...]:
    """The keyboard element, or its keys when the tree has no keyboard container."""
    board = tuple(e for e in elements if e.role in KEYBOARD_ROLES)
    return board or tuple(e for e in elements if e.role in KEY_ROLES)


def keyboard_frame(observation: Observation) -> Frame | None:
    """Where the on-screen keyboard is, or None when it is hidden."""
    return _keyboard_frame(observation.elements)


@per_tree
def _keyboard_frame(elements: tuple[Element, ...]) -> Frame | None:
    frames = [k.frame for k in keyboard_keys(elements) if not k.frame.is_empty]
    if not frames:
        return None
    left = min(f.x for f in frames)
    top = min(f.y for f in frames)
    right = max(f.x + f.width for f in frames)
    bottom = max(f.y + f.height for f in frames)
    return Frame(left, top, right - left, bottom - top)


def cover_at(observation: Observation, element: Element, point: Point) -> Cover | None:
    """What covers ``element`` at ``point`` (a point on it), or None when a tap there reaches
    it: the modal it is not part of, the keyboard over the point, else the outermost element
    drawn after it over the point that is not part of it."""
    elements = observation.elements
    modal = modal_elements(elements)
    if modal and element not in modal:
        return Cover("modal", modal)
    if not is_keyboard(element):
        board = keyboard_frame(observation)
        if board is not None and board.contains(point):
            return Cover("keyboard", keyboard_keys(elements))
    index = _index(elements, element)
    if index is None:
        return None
    for i in range(_own_end(elements, index), len(elements)):
        other = elements[i]
        if _covers(other, point) and not (modal and other in modal):
            return Cover("overlay", _overlay(elements, i, index))
    return None


def overlay(observation: Observation) -> Cover | None:
    """The first overlay drawn over a control of the screen (a banner over a heart, its
    outermost element first), or None: what a person meets before the control, and must
    answer or wait out to reach it. The keyboard is none (``keyboard_frame``), nor is a
    modal (``modal_elements``: it covers everything not its own)."""
    return first_overlay(observation.elements)


@per_tree
def first_overlay(elements: tuple[Element, ...]) -> Cover | None:
    """``overlay`` of a tree."""
    for index, element in enumerate(elements):
        if not element.interactive or element.frame.is_empty or is_keyboard(element):
            continue
        centre = element.frame.center
        for i in range(_own_end(elements, index), len(elements)):
            if _covers(elements[i], centre) and not is_keyboard(elements[i]):
                return Cover("overlay", _overlay(elements, i, index))
    return None


def open_point(observation: Observation, element: Element) -> Point | None:
    """A point of ``element`` that nothing covers, its centre first, then the nearest of a
    grid over it; None when it is covered wholly (or has no size)."""
    if element.frame.is_empty:
        return None
    return _open_point(observation.elements, element)


@per_tree
def _open_point(elements: tuple[Element, ...], element: Element) -> Point | None:
    observation = Observation(elements=elements)
    for point in _spots(element.frame):
        if cover_at(observation, element, point) is None:
            return point
    return None


def reachable(observation: Observation, element: Element) -> bool:
    """Whether a tap can reach ``element`` somewhere: some point of it nothing covers."""
    return open_point(observation, element) is not None


def cover_of(observation: Observation, element: Element) -> Cover | None:
    """What covers ``element`` wholly (at its centre first: the cover named), or None."""
    if element.frame.is_empty or reachable(observation, element):
        return None
    return cover_at(observation, element, element.frame.center)


def on_top(observation: Observation, point: Point) -> Element | None:
    """What a tap at ``point`` lands on: the innermost element there that nothing covers
    (while a modal is up, only its own elements can be hit)."""
    under = [
        e
        for e in observation.elements
        if not e.frame.is_empty and e.frame.contains(point) and e.role not in ROOT_ROLES
    ]
    for element in reversed(under):
        if cover_at(observation, element, point) is None:
            return element
    return None


def _index(elements: tuple[Element, ...], element: Element) -> int | None:
    """The element's place in pre-order (equal elements: the first)."""
    try:
        return elements.index(element)
    except ValueError:
        return None


def _own_end(elements: tuple[Element, ...], index: int) -> int:
    """Where the element's own parts end: its descendants follow it at once in pre-order,
    each inside its frame (its label, icon, badge); the first element that is not ends them,
    and whatever comes after is drawn over it, inside its frame or not (a toast on a row)."""
    frame = elements[index].frame
    end = index + 1
    while end < len(elements) and (
        elements[end].frame.is_empty or _within(elements[end].frame, frame)
    ):
        end += 1
    return end


def _covers(other: Element, point: Point) -> bool:
    """Whether ``other``, drawn over an element, takes a tap at ``point`` from it."""
    return not other.frame.is_empty and other.role not in ROOT_ROLES and other.frame.contains(point)


def _within(inner: Frame, outer: Frame) -> bool:
    """Whether ``inner`` lies in ``outer`` (a child's frame: the element's own part)."""
    return (
        inner.x >= outer.x
        and inner.y >= outer.y
        and inner.x + inner.width <= outer.x + outer.width
        and inner.y + inner.height <= outer.y + outer.height
    )


def _overlay(elements: tuple[Element, ...], index: int, after: int) -> tuple[Element, ...]:
    """The overlay around ``elements[index]``: it and its neighbours in pre-order (drawn
    after the target, at ``after``) that touch it, one after another (a banner's title, text
    and answers, with or without a container), outermost first. Before it: the controls in a
    row with it (its sibling answers), then only text and containers: a control drawn before
    the overlay's text lies under it."""
    region = elements[index].frame
    first, last = index, index
    siblings = elements[index].interactive  # answers before it in the same row belong to it
    while first - 1 > after and _touches(elements[first - 1], region):
        interactive = elements[first - 1].interactive
        if interactive and not siblings:
            break  # a control before the overlay's text lies under it
        siblings = siblings and interactive
        first -= 1
        region = _union(region, elements[first].frame)
    while last + 1 < len(elements) and _touches(elements[last + 1], region):
        last += 1
        region = _union(region, elements[last].frame)
    group = elements[first : last + 1]
    outer = max(group, key=lambda e: e.frame.width * e.frame.height)
    if not all(_within(e.frame, outer.frame) for e in group):
        outer = elements[index]
    return (outer, *(e for e in group if e is not outer))


def _touches(element: Element, region: Frame) -> bool:
    """Whether ``element`` (no keyboard, no root) lies on ``region`` or within a gap of it."""
    frame = element.frame
    if frame.is_empty or is_keyboard(element) or element.role in ROOT_ROLES:
        return False
    return (
        frame.x <= region.x + region.width + _GAP
        and region.x <= frame.x + frame.width + _GAP
        and frame.y <= region.y + region.height + _GAP
        and region.y <= frame.y + frame.height + _GAP
    )


def _union(a: Frame, b: Frame) -> Frame:
    left, top = min(a.x, b.x), min(a.y, b.y)
    right, bottom = max(a.x + a.width, b.x + b.width), max(a.y + a.height, b.y + b.height)
    return Frame(left, top, right - left, bottom - top)


def _spots(frame: Frame) -> Iterator[Point]:
    """Points over ``frame``, nearest its centre first (the grid only when the centre is
    covered: most targets are open at their centre)."""
    centre = frame.center
    yield centre
    points = {
        (frame.x + frame.width * fx, frame.y + frame.height * fy) for fx in _SPOTS for fy in _SPOTS
    }
    ordered = sorted(points, key=lambda p: (p[0] - centre.x) ** 2 + (p[1] - centre.y) ** 2)
    yield from (Point(x, y) for x, y in ordered)
