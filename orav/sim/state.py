"""The running app: how it reacts to an input.

Inputs arrive already decoded (a tap at a point, a swipe, a character, a named key); the state
answers with a ``View`` of what the screen shows (``Display``). What it stands on, one module
each: what it holds (``orav.sim.appdata``), faults firing (``orav.sim.firing``), navigation
(``orav.sim.navigation``), transitions (``orav.sim.transitions``), the lifecycle
(``orav.sim.lifecycle``) and what an observer sees (``orav.sim.display``).
"""

from __future__ import annotations

from collections.abc import Callable

from orav.model import Point
from orav.sim.appmodel import Direction
from orav.sim.display import Display
from orav.sim.screen import ScreenState
from orav.sim.view import Node

EDGE = 20.0  # a swipe starting this close to the left edge means "back"

__all__ = ["AppState"]


class AppState(Display):
    """The live state of the simulated device and its one app."""

    def begin_input(self) -> bool:
        """Count one input (one hid stream); False when a frozen fault swallows it."""
        self.inputs += 1
        self.hint_ms = None
        if self.frozen_inputs:
            self.frozen_inputs -= 1 if self.frozen_inputs > 0 else 0
            return False
        return True

    def end_input(self) -> None:
        self._check_faults(None)
        self._show_pending()

    def tap(self, point: Point) -> None:
        node = self.view().hit(point)
        if self._close_swipe_actions(node):
            return
        if self._blank(node):
            self.focus = None  # a tap outside the text area ends editing: the keyboard hides
            return
        if node is None or not node.enabled or not node.action:
            return
        kind, _, arg = node.action.partition(":")
        tapped = _TAPPED.get(kind)
        if tapped is not None:
            tapped(self, arg)

    def _close_swipe_actions(self, node: Node | None) -> bool:
        """A tap anywhere closes a row's swipe actions (running the one it hit); True if any
        were open."""
        top = self.stack[-1] if self.foreground and self.stack else None
        if top is None or top.revealed is None or self.overlay is not None:
            return False
        revealed = top.revealed
        top.revealed = None
        if node is not None and node.action.startswith("swipe:"):
            self._swipe_action(top, revealed, int(node.action.partition(":")[2]))
        return True

    def _launch_tapped(self, arg: str) -> None:
        self.launch()

    def _permission_tapped(self, answer: str) -> None:
        """A permission dialog's button: iOS remembers the answer."""
        if self.overlay is not None:
            self.permissions[self.overlay.title] = answer == "Allow"
        self._clear_overlay()

    def _dismiss_tapped(self, arg: str) -> None:
        """An injected alert's button, or retry: the overlay goes."""
        self._clear_overlay()

    def _app_alert_tapped(self, index: str) -> None:
        """An app alert's button: the alert is dismissed first, as the button's effects may
        present another."""
        overlay = self.overlay
        if overlay is None or overlay.alert is None:
            return
        button = overlay.alert.buttons[int(index)]
        self.overlay = None
        self._run(button.on_tap, overlay.bindings)
        self._show_pending()

    def _blank(self, node: Node | None) -> bool:
        """A tap here does nothing but end editing: nothing, or a static element, was hit."""
        if self.overlay is not None or not self.foreground:
            return False  # an alert swallows taps around it; SpringBoard has no editing
        return node is None or (not node.action and node.style != "keyboard")

    def swipe(self, start: Point, end: Point) -> None:
        if not self.foreground or (self.overlay is not None and self.overlay.modal):
            return
        direction = _direction(start, end)
        if direction == "right" and start.x < EDGE and self._can_go_back():
            self._back()
            return
        if self.overlay is not None:
            if self.overlay.kind == "loading" and direction == "down":
                self._clear_overlay()  # pull to refresh
            return
        current = self.stack[-1]
        if current.revealed is not None:
            current.revealed = None  # any swipe closes the swipe actions
            return
        if self._swipe_element(current, start, direction):
            return
        if self._scroll(current, direction, end.y - start.y):
            return
        self._run(current.screen.on_swipe.get(direction, ()))

    def _swipe_element(self, current: ScreenState, start: Point, direction: Direction) -> bool:
        """A swipe on an element: left reveals its swipe actions, else its own ``on_swipe``;
        False when it has neither for this direction."""
        hit = self._instance_at(current, start)
        if hit is None:
            return False
        if direction == "left" and hit.spec.swipe_actions:
            current.revealed = hit.id
            return True
        if direction in hit.spec.on_swipe:
            self._run(hit.spec.on_swipe[direction], hit.bindings)
            return True
        return False

    def _scroll(self, current: ScreenState, direction: Direction, dy: float) -> bool:
        """Scroll a scrolling screen by ``dy``; False when a pull at the top falls through to
        the screen's ``on_swipe``."""
        if not (current.screen.scroll and direction in ("up", "down")):
            return False
        before = current.offset
        current.offset = min(max(before - dy, 0.0), self._max_offset(current))
        return current.offset != before or direction == "up"

    def type_char(self, char: str) -> None:
        """A character from the hardware keyboard (idb's ``ui text``) into the focused field."""
        if char == "\n":
            self.press("return")
            return
        if not self.foreground or self.overlay is not None:
            return
        if self.focus is None:
            self._run(self.stack[-1].screen.on_key.get(char, ()))
            return
        values = self.stack[-1].values
        values[self.focus] = values.get(self.focus, "") + char

    def press(self, key: str) -> None:
        """A named key: return, backspace, tab, escape (ends editing: the keyboard hides).

        Without focus, the screen's ``on_key`` handles it; a focused field's ``on_key`` (and
        ``on_return``) handle its keys.
        """
        if not self.foreground or self.overlay is not None:
            return
        current = self.stack[-1]
        if self.focus is None:
            self._run(current.screen.on_key.get(key, ()))
        elif not self._field_key(current, self.focus, key):
            self._edit(current, self.focus, key)

    def _field_key(self, current: ScreenState, focus: str, key: str) -> bool:
        """The focused field's own ``on_return`` or ``on_key`` for ``key``; False if none."""
        found = self._instance(current, focus)
        if found is None:
            return False
        spec = found.spec
        if key == "return" and spec.on_return:
            self.focus = None
            self._run(spec.on_return, found.bindings)
            return True
        if key in spec.on_key:
            if key in ("return", "escape"):
                self.focus = None
            self._run(spec.on_key[key], found.bindings)
            return True
        return False

    def _edit(self, current: ScreenState, focus: str, key: str) -> None:
        """What a key does to the focused field by itself: end editing, delete, next field."""
        if key in ("escape", "return"):
            self.focus = None
        elif key == "backspace":
            current.values[focus] = current.values.get(focus, "")[:-1]
        elif key == "tab":
            fields = [i.id for i in self._instances(current) if i.spec.is_text_field and i.id]
            if focus in fields:
                self.focus = fields[(fields.index(focus) + 1) % len(fields)]

    def _element_tap(self, element_id: str) -> None:
        blocked = self.overlay is not None and self.overlay.kind in ("loading", "network")
        if blocked and element_id != "back":
            return
        found = self._instance(self.stack[-1], element_id)
        if found is None:
            return
        if found.spec.is_text_field:
            self.focus = element_id
            return
        self.focus = None
        self._run(found.spec.on_tap, found.bindings)

    def _swipe_action(self, current: ScreenState, element_id: str, index: int) -> None:
        found = self._instance(current, element_id)
        if found is not None and index < len(found.spec.swipe_actions):
            self._run(found.spec.swipe_actions[index].on_tap, found.bindings)

    def _key_tap(self, key: str) -> None:
        if key == "shift":
            self.shift = not self.shift
        elif key in ("backspace", "return"):
            self.press(key)
        else:
            self.type_char(key.upper() if self.shift else key)
            self.shift = False


def _direction(start: Point, end: Point) -> Direction:
    """Where a swipe goes: along its longer axis (a diagonal counts as sideways)."""
    dx, dy = end.x - start.x, end.y - start.y
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


_TAPPED: dict[str, Callable[[AppState, str], None]] = {
    "launch": AppState._launch_tapped,
    "key": AppState._key_tap,
    "alert": AppState._dismiss_tapped,
    "retry": AppState._dismiss_tapped,
    "permission": AppState._permission_tapped,
    "app_alert": AppState._app_alert_tapped,
    "tab": AppState._select_tab,
    "el": AppState._element_tap,
}
