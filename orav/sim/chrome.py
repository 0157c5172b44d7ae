"""What UIKit and SpringBoard draw around an app: keyboard, tab bar, alerts, the home screen.

Pure functions from what to show to accessibility ``Node``s; the app's state decides when.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from orav.model import Frame
from orav.sim.view import SPRINGBOARD_PID, Node

KEYBOARD_HEIGHT = 291.0
TAB_BAR_HEIGHT = 83.0  # 49 pt of buttons over the 34 pt home indicator
HOME_INDICATOR = 34.0
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
HOME_ICONS = ("Settings", "Safari", "Photos")


@frozen
class Button:
    """A button of an alert: its label, id, style and what a tap on it does (``action``)."""

    label: str
    action: str
    id: str | None = None
    style: str = "default"


def keyboard(width: float, height: float, pid: int, shift: bool) -> Node:
    """The software keyboard: letters, shift, delete, space and return, as ``keyboardKey``s."""
    top = height - KEYBOARD_HEIGHT
    key_w, key_h, gap = width / 10, 42.0, 12.0
    keys: list[Node] = []

    def key(label: str, action: str, x: float, y: float, w: float) -> None:
        frame = Frame(round(x + 3, 1), y, round(w - 6, 1), key_h)
        keys.append(
            Node(
                "AXButton",
                label,
                frame,
                traits=("keyboardKey",),
                pid=pid,
                style="key",
                action=f"key:{action}",
            )
        )

    for row, letters in enumerate(KEY_ROWS):
        y = top + 8 + row * (key_h + gap)
        x = (width - len(letters) * key_w) / 2
        if row == 2:
            key("shift", "shift", 0, y, key_w * 1.4)
        for letter in letters:
            key(letter.upper() if shift else letter, letter, x, y, key_w)
            x += key_w
        if row == 2:
            key("delete", "backspace", width - key_w * 1.4, y, key_w * 1.4)
    y = top + 8 + 3 * (key_h + gap)
    key("space", " ", key_w * 2.5, y, key_w * 5)
    key("return", "return", key_w * 7.5, y, key_w * 2.5)
    return Node(
        "AXKeyboard",
        None,
        Frame(0, top, width, KEYBOARD_HEIGHT),
        pid=pid,
        style="keyboard",
        children=tuple(keys),
    )


def tab_bar(
    width: float, height: float, pid: int, tabs: Sequence[tuple[str, str]], selected: str
) -> Node:
    """The tab bar: one button per (id, label), the selected one with the trait ``selected``."""
    top = height - TAB_BAR_HEIGHT
    share = width / len(tabs)
    buttons = tuple(
        Node(
            "AXButton",
            label,
            Frame(i * share, top, share, 49),
            unique_id=tab_id,
            traits=("button", "selected") if tab_id == selected else ("button",),
            pid=pid,
            style="tab",
            action=f"tab:{tab_id}",
        )
        for i, (tab_id, label) in enumerate(tabs)
    )
    frame = Frame(0, top, width, TAB_BAR_HEIGHT)
    return Node("AXGroup", "Tab Bar", frame, pid=pid, style="tab_bar", children=buttons)


def alert(
    width: float,
    height: float,
    pid: int,
    title: str,
    message: str,
    buttons: Sequence[Button],
    *,
    sheet: bool = False,
    alert_id: str | None = None,
) -> Node:
    """An alert (centred, 270 pt wide) or an action sheet (at the bottom, one row a button).

    Two buttons of an alert sit side by side, more stack one row each (as UIKit lays them).
    """
    side_by_side = len(buttons) == 2 and not sheet
    rows = 1 if side_by_side else len(buttons)
    text_height = 50.0 + (40.0 if message else 0.0)  # title, message, a gap
    box_width = width - 16 if sheet else 270.0
    box_height = 16 + text_height + rows * 44  # 270 x 150 for a message and two buttons
    x = (width - box_width) / 2
    y = height - box_height - HOME_INDICATOR if sheet else (height - box_height) / 2
    children = [
        Node(
            "AXStaticText",
            title,
            Frame(x, y + 16, box_width, 44),
            pid=pid,
            traits=("staticText", "header"),
            style="alert_title",
        )
    ]
    if message:
        children.append(
            Node(
                "AXStaticText",
                message,
                Frame(x, y + 60, box_width, 40),
                pid=pid,
                traits=("staticText",),
                style="alert_text",
            )
        )
    top = y + box_height - rows * 44
    for i, button in enumerate(buttons):
        if side_by_side:
            frame = Frame(x + i * box_width / 2, top, box_width / 2, 44)
        else:
            frame = Frame(x, top + i * 44, box_width, 44)
        children.append(
            Node(
                "AXButton",
                button.label,
                frame,
                unique_id=button.id,
                pid=pid,
                traits=("button",),
                style="alert_destructive" if button.style == "destructive" else "alert_button",
                action=button.action,
            )
        )
    return Node(
        "AXSheet" if sheet else "AXAlert",
        title,
        Frame(x, y, box_width, box_height),
        unique_id=alert_id,
        pid=pid,
        style="modal",
        children=tuple(children),
    )


def springboard(width: float, height: float, app_name: str | None) -> Node:
    """The home screen: the app's icon (a tap launches it; None: not installed) and others."""
    icons = []
    names = (app_name, *HOME_ICONS) if app_name else HOME_ICONS
    for i, name in enumerate(names):
        frame = Frame(27 + (i % 4) * 90, 80 + (i // 4) * 100, 64, 64)
        icons.append(
            Node(
                "AXButton",
                name,
                frame,
                pid=SPRINGBOARD_PID,
                traits=("button",),
                style="icon",
                action="launch:" if i == 0 and app_name else "",
            )
        )
    return Node(
        "AXApplication",
        "SpringBoard",
        Frame(0, 0, width, height),
        pid=SPRINGBOARD_PID,
        children=tuple(icons),
    )
