"""What a Textual driver does in the app: type, press, click and scroll (the events sent by
``quiet``, without Pilot's unbounded waits for idle).

A tap on a target is resolved by orav (one rule, ``orav.model.locate``) among the facts of a
fresh scan, which ``candidates`` keeps with their widgets (a CSS selector narrows them by
Textual's own query); ``click_element`` then lands on a cell of that element nothing covers: a
Toast, an overlay layer or an overflowing footer key take the click otherwise. A target wholly
covered by notifications (toasts) gets them clicked away first, as a person does; one covered
by anything else is refused, naming the cover; a vision tap (the model's estimated coordinates) clicks
where it was told and is reported when it hits something else.
"""

from __future__ import annotations

import math
from typing import Any

from . import compat, quiet
from .facts import Pair, scan
from .session import Refused

Pilot = Any
Widget = Any

# Rounds a tap may click away the notifications (toasts) covering its target: the rack
# slides the next one into the place of one dismissed.
DISMISS_ROUNDS = 4

# Characters of typed text that Textual knows by a key name rather than by themselves.
_TYPED_KEYS = {
    "\n": ("enter", "\r"),
    "\r": ("enter", "\r"),
    "\t": ("tab", "\t"),
    "\b": ("backspace", "\x08"),
}


def typed_keys(text: str, secure: bool) -> list[tuple[str, str | None]]:
    """(Textual key name, character) for each character, as a terminal would send them."""
    keys: list[tuple[str, str | None]] = []
    for index, char in enumerate(text):
        if char in _TYPED_KEYS:
            keys.append(_TYPED_KEYS[char])
        elif char.isprintable():
            keys.append((compat.character_key(char), char))
        else:
            shown = f"character {index + 1}" if secure else repr(char)
            raise Refused(f"cannot type {shown}: it is not a printable character")
    return keys


def candidates(app: Any, selector: str | None) -> list[Pair]:
    """The screen's (fact, widget) pairs now, narrowed to the widgets a CSS selector matches."""
    pairs = scan(app, compat.render_strips(app))
    if selector is None:
        return pairs
    try:
        wanted = {id(w) for w in app.screen.query(selector)}
    except Exception as exc:  # noqa: BLE001 - Textual's query errors for a bad selector
        raise Refused(f"invalid CSS selector {selector!r}: {exc}") from None
    return [pair for pair in pairs if id(pair[1]) in wanted]


async def click_at(pilot: Pilot, x: float, y: float) -> tuple[float, float]:
    """Click the cell ``(int(x), int(y))``."""
    width, height = pilot.app.screen.size
    _check_bounds(x, y, width, height)
    await quiet.send_click(pilot.app, int(x), int(y))
    return x, y


async def click_element(
    pilot: Pilot, pair: Pair, target: str, vision: tuple[float, float] | None
) -> tuple[float, float]:
    """Click an element of ``candidates``: where nothing covers it, or, for a vision tap, at
    the estimated point (refused after the click when that hit something else)."""
    app = pilot.app
    element, widget = pair
    if vision is not None:
        hit = _widget_at(app, *vision)
        if hit is not None and not _reaches(hit, widget):
            await click_at(pilot, *vision)
            raise Refused(
                f"tap at ({vision[0]:g}, {vision[1]:g}) hit {describe_widget(hit)}, not {target}"
            )
        return await click_at(pilot, *vision)
    for _ in range(DISMISS_ROUNDS):
        point, covers = _uncovered(app, element["frame"], widget)
        if point is not None:
            return await click_at(pilot, *point)
        if not all(_is_toast(cover) for cover in covers):
            break
        for toast in covers:  # a click dismisses a notification, as a person clicks it away
            region = app.screen.find_widget(toast).region
            await quiet.send_click(app, region.x + region.width // 2, region.y)
    raise Refused(f"{target} is covered by {describe_widget(covers[0])}; not tapped")


def _check_bounds(x: float, y: float, width: int, height: int) -> None:
    if not (0 <= x < width and 0 <= y < height):
        raise Refused(f"tap at ({x:g}, {y:g}) is outside the {width}x{height} screen")


def _widget_at(app: Any, x: float, y: float) -> Widget | None:
    from textual.errors import NoWidget

    try:
        return app.screen.get_widget_at(int(x), int(y))[0]
    except NoWidget:
        return None


def _reaches(hit: Widget, widget: Widget) -> bool:
    """True when a click on ``hit`` is a click on ``widget`` (it or something inside it)."""
    return widget in hit.ancestors_with_self


def _uncovered(
    app: Any, frame: list[int], widget: Widget
) -> tuple[tuple[float, float] | None, list[Widget]]:
    """The centre of the element when nothing covers it, else its uncovered cell nearest the
    centre; when no cell of it is uncovered, None and what covers it (the centre's cover
    first)."""
    x0, y0, width, height = frame
    centre = (x0 + width / 2, y0 + height / 2)
    hit = _widget_at(app, *centre)
    if hit is None or _reaches(hit, widget):
        return centre, []
    covers = [hit]
    cells = [(x, y) for y in range(y0, y0 + max(1, height)) for x in range(x0, x0 + max(1, width))]
    cells.sort(key=lambda c: math.hypot(c[0] + 0.5 - centre[0], c[1] + 0.5 - centre[1]))
    for x, y in cells:
        hit = _widget_at(app, x, y)
        if hit is not None and _reaches(hit, widget):
            return (x + 0.5, y + 0.5), []
        if hit is not None and hit not in covers:
            covers.append(hit)
    return None, covers


def _is_toast(widget: Widget) -> bool:
    """A notification (Textual's Toast): it goes when clicked, and holds nothing of the test."""
    return any(
        cls.__name__ == "Toast" and cls.__module__.startswith("textual.")
        for cls in type(widget).__mro__
    )


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


async def scroll(
    pilot: Pilot, start: tuple[float, float], end: tuple[float, float]
) -> tuple[float, float]:
    """A swipe scrolls the scrollable widget under its start, like a finger on a list:
    swiping up moves the content up (scrolls down)."""
    app = pilot.app
    widget = _widget_at(app, *start)
    if widget is None:
        raise Refused(f"nothing under the swipe start ({start[0]:g}, {start[1]:g})")
    dx, dy = round(start[0] - end[0]), round(start[1] - end[1])
    node = widget
    while node is not None and not (
        (dy and node.allow_vertical_scroll) or (dx and node.allow_horizontal_scroll)
    ):
        node = node.parent if node.parent is not app else None
    if node is None:
        raise Refused(f"nothing scrollable under the swipe start ({start[0]:g}, {start[1]:g})")
    compat.scroll_by(node, dx, dy)
    await quiet.calm(app, quiet.ACTION_WAIT)
    return start
