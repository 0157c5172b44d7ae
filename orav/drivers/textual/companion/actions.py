"""What the Textual driver does in the app: type, press, tap and scroll through Pilot.

A tap on a target is resolved on the screen as it is now (a label or id by the one rule,
``orav.model.locate``; a CSS selector by Textual's own query) and lands on a cell of the target
that nothing covers: a Toast, an overlay layer or an overflowing footer key take the click
otherwise. A wholly covered target is refused, naming the cover; a vision tap (the model's
estimated coordinates) clicks where it was told and is reported when it hits something else.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from orav.drivers.textual.session import Refused
from orav.drivers.textual.tree import render_strips, scan
from orav.model import Element, Point, Tap, Target, locate

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot
    from textual.widget import Widget

# Characters of typed text that Textual knows by a key name rather than by themselves.
_TYPED_KEYS = {
    "\n": ("enter", "\r"),
    "\r": ("enter", "\r"),
    "\t": ("tab", "\t"),
    "\b": ("backspace", "\x08"),
}


def typed_keys(text: str, secure: bool) -> list[tuple[str, str]]:
    """(Textual key name, character) for each character, as a terminal would send them.

    ``textual.keys._character_to_key`` is private (Pilot's own ``press`` uses it); keep
    Textual pinned.
    """
    from textual.keys import _character_to_key

    keys = []
    for index, char in enumerate(text):
        if char in _TYPED_KEYS:
            keys.append(_TYPED_KEYS[char])
        elif char.isprintable():
            keys.append((_character_to_key(char), char))
        else:
            shown = f"character {index + 1}" if secure else repr(char)
            raise Refused(f"cannot type {shown}: it is not a printable character")
    return keys


async def type_keys(pilot: Pilot, keys: list[tuple[str, str]]) -> None:
    """Post every key at once, then wait twice: for the app to forward them to the focused
    widget, and for that widget to handle them (``pilot.press`` waits ~50 ms per key)."""
    from textual import events

    for key, char in keys:
        pilot.app.post_message(events.Key(key, char))
    await pilot.pause()
    await pilot.pause()


async def tap(pilot: Pilot, tap: Tap) -> Point:
    """Click a cell. With a target (resolved on the screen as it is now, a control before a
    text with the same label) the click lands on a part of it that nothing covers."""
    app = pilot.app
    width, height = app.screen.size
    if tap.target is None:
        point = Point(tap.x, tap.y)
    else:
        element, widget = resolve(app, tap.target)
        if tap.vision and tap.x is not None and tap.y is not None:
            point = Point(tap.x, tap.y)  # a vision estimate: the target names what is meant
            hit = _widget_at(app, point)
            if hit is not None and not _reaches(hit, widget):
                _check_bounds(point, width, height)
                await pilot.click(offset=(int(point.x), int(point.y)))
                raise Refused(
                    f"tap at ({point.x:g}, {point.y:g}) hit {describe_widget(hit)}, "
                    f"not {tap.target}"
                )
        else:
            point = _uncovered(app, element, widget, tap.target)
    _check_bounds(point, width, height)
    await pilot.click(offset=(int(point.x), int(point.y)))
    return point


def _check_bounds(point: Point, width: int, height: int) -> None:
    if not (0 <= point.x < width and 0 <= point.y < height):
        raise Refused(f"tap at ({point.x:g}, {point.y:g}) is outside the {width}x{height} screen")


def resolve(app: App, target: Target) -> tuple[Element, Widget]:
    """The element a target means on the current screen, and its widget.

    A ``selector`` is Textual's CSS query on the screen; with a label or id too, the element is
    chosen among those of the matching widgets (a cell of ``#commitments`` by its label).
    """
    pairs = scan(app, render_strips(app))
    if target.selector is not None:
        try:
            wanted = {id(w) for w in app.screen.query(target.selector)}
        except Exception as exc:  # noqa: BLE001 - Textual's query errors for a bad selector
            raise Refused(f"invalid CSS selector {target.selector!r}: {exc}") from None
        pairs = [pair for pair in pairs if id(pair[1]) in wanted]
        if target.label is None and target.id is None:
            if not pairs:
                raise Refused(f"no visible widget matches the {target}")
            return pairs[0]
    element = locate((e for e, _ in pairs), target.label, target.id)
    if element is None:
        raise Refused(f"no element {target} on screen")
    return next(pair for pair in pairs if pair[0] is element)


def _widget_at(app: App, point: Point) -> Widget | None:
    from textual.errors import NoWidget

    try:
        return app.screen.get_widget_at(int(point.x), int(point.y))[0]
    except NoWidget:
        return None


def _reaches(hit: Widget, widget: Widget) -> bool:
    """True when a click on ``hit`` is a click on ``widget`` (it or something inside it)."""
    return widget in hit.ancestors_with_self


def _uncovered(app: App, element: Element, widget: Widget, target: Target) -> Point:
    """The centre of the element when nothing covers it, else its uncovered cell nearest the
    centre; Refused, naming the cover, when no cell of it is uncovered."""
    frame = element.frame
    centre = frame.center
    hit = _widget_at(app, centre)
    if hit is None or _reaches(hit, widget):
        return centre
    cover = hit
    x0, y0 = int(frame.x), int(frame.y)
    cells = [
        (x, y)
        for y in range(y0, y0 + max(1, int(frame.height)))
        for x in range(x0, x0 + max(1, int(frame.width)))
    ]
    cells.sort(key=lambda c: math.hypot(c[0] + 0.5 - centre.x, c[1] + 0.5 - centre.y))
    for x, y in cells:
        hit = _widget_at(app, Point(x, y))
        if hit is not None and _reaches(hit, widget):
            return Point(x + 0.5, y + 0.5)
    raise Refused(f"{target} is covered by {describe_widget(cover)}; not tapped")


def describe_widget(widget: Widget) -> str:
    """``Toast "Saved"`` / ``Button #ok``: what a reader needs to know what a click hit."""
    from textual.widgets import Static

    text = type(widget).__name__
    if widget.id:
        text += f" #{widget.id}"
    if isinstance(widget, Static):
        shown = " ".join(str(widget.render()).split())[:40]
        if shown:
            text += f' "{shown}"'
    return text


async def scroll(pilot: Pilot, start: Point, end: Point) -> Point:
    """A swipe scrolls the scrollable widget under its start, like a finger on a list:
    swiping up moves the content up (scrolls down)."""
    app = pilot.app
    widget = _widget_at(app, start)
    if widget is None:
        raise Refused(f"nothing under the swipe start ({start.x:g}, {start.y:g})")
    dx, dy = round(start.x - end.x), round(start.y - end.y)
    node = widget
    while node is not None and not (
        (dy and node.allow_vertical_scroll) or (dx and node.allow_horizontal_scroll)
    ):
        node = node.parent if node.parent is not app else None
    if node is None:
        raise Refused(f"nothing scrollable under the swipe start ({start.x:g}, {start.y:g})")
    node.scroll_relative(x=dx or None, y=dy or None, animate=False, immediate=True)
    await pilot.pause()
    return start
