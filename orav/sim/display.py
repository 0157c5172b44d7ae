"""What an observer of the running app sees: the screen as a ``View``, field values, the
keyboard and tab bar, what animates and for how long; one accessibility read counts down the
faults that answer it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from orav.model import Frame
from orav.sim import chrome, draw
from orav.sim.appmodel import LAUNCH_NAMES
from orav.sim.lifecycle import Lifecycle
from orav.sim.scope import names_read, render
from orav.sim.view import Node, View

__all__ = ["Display"]


class Display(Lifecycle):
    """The app as it shows itself."""

    @property
    def values(self) -> dict[str, str]:
        """Text-field and switch values of the current screen, by element id."""
        if not self.stack:
            return {}
        top = self.stack[-1]
        kept = {
            i.id for i in self._instances(top) if i.spec.is_text_field or i.spec.role == "AXSwitch"
        }
        return {key: value for key, value in top.values.items() if key in kept}

    @property
    def keyboard_shown(self) -> bool:
        """A focused field shows the keyboard; an alert hides it and keeps the focus, so the
        keyboard comes back once the alert is dismissed (as UIKit restores the responder)."""
        return self.foreground and self.overlay is None and self.focus is not None

    def layout(self) -> Hashable:
        """What an animation moves: the screen on top, the tab, an overlay, the keyboard (a
        value typed or a switch toggled changes none of them: it does not animate)."""
        top = id(self.stack[-1]) if self.foreground and self.stack else None
        overlay = None if self.overlay is None else (self.overlay.kind, id(self.overlay))
        return self.foreground, top, self.tab, overlay, self.keyboard_shown

    def animation_time(self) -> int:
        """Milliseconds the last input's movement takes: its transition's ``animation_ms``, else
        the screen's in front, else the app's (or the companion's ``animation_ms``)."""
        if self.hint_ms is not None:
            return self.hint_ms
        top = self.stack[-1].screen if self.foreground and self.stack else None
        if top is not None and top.animation_ms is not None:
            return top.animation_ms
        return self.animation_ms if self.animation_ms is not None else self.model.animation_ms

    @property
    def spinning(self) -> bool:
        """A spinner runs (the loading fault's activity indicator) in an animated app."""
        loading = self.foreground and self.overlay is not None and self.overlay.kind == "loading"
        return loading and self.animation_time() > 0

    def clock_text(self) -> str:
        now = self.clock()
        return f"{now.hour}:{now.minute:02d}"

    def view(self) -> View:
        """The screen as drawn now; the same View object while nothing it is drawn from
        changed (``_view_key``), so an unchanged screen is neither drawn nor compared again."""
        key = self._view_key()
        last = getattr(self, "_last_view", None)
        if last is not None and last[0] == key:
            return last[1]
        view = self._draw()
        self._last_view = (key, view)
        return view

    def _view_key(self) -> tuple[Any, ...]:
        """Everything a view is drawn from: the screen on top and what the user did on it, the
        overlay, focus, tab, keyboard, clock, and the values of the app's names that any of the
        model's expressions or templates read (``names_read``, found once). Field values are
        kept as a copy, compared in C: a screen of 1,000 fields is keyed in well under 1 ms."""
        if not self.foreground or not self.stack:
            return self.foreground, self.installed, self.clock_text()
        reads = getattr(self, "_reads", None)
        if reads is None:
            model = self.model
            names = {*model.data, *model.keychain, *model.state, *model.computed, *LAUNCH_NAMES}
            reads = self._reads = tuple(sorted(names_read(model) & names))
        current = self.stack[-1]
        # A computed name may read a field; without one the app's names need no field values.
        scope = self._scope(current if self.model.computed else None)
        return (
            id(current),
            id(current.screen),
            dict(current.values),
            repr((sorted(current.shown), sorted(current.hidden))),
            repr((current.labels, current.modal, current.offset, current.revealed)),
            repr(self.overlay),
            (self.focus, self.pid, self.tab, self.tab_bar_shown, self.keyboard_shown),
            (self.shift, self.clock_text(), self.model.width, self.model.height),
            repr([(name, scope[name]) for name in reads if name in scope]),
        )

    def _draw(self) -> View:
        width, height = self.model.width, self.model.height
        if not self.foreground:
            root = chrome.springboard(width, height, self.model.name if self.installed else None)
            return View(root, self.clock_text(), running=False)
        current = self.stack[-1]
        base = self._scope(current)
        children = draw.screen_nodes(
            current,
            self._instances(current, scope=base),
            base,
            overlay=self.overlay,
            focus=self.focus,
            pid=self.pid,
            width=width,
            height=height,
        )
        if self.tab_bar_shown:
            tabs = [(t.id, render(t.label, base)) for t in self.model.tabs]
            children.append(chrome.tab_bar(width, height, self.pid, tabs, self.tab or ""))
        if self.keyboard_shown:
            children.append(chrome.keyboard(width, height, self.pid, self.shift))
        if self.overlay is not None and self.overlay.modal:
            children.append(draw.alert_node(self.overlay, width, height, self.pid))
        root = Node(
            "AXApplication",
            self.model.name,
            Frame(0, 0, width, height),
            pid=self.pid,
            children=tuple(children),
        )
        return View(root, self.clock_text())

    def observe_tree(self) -> View | None:
        """One accessibility read: counts down loading and empty-dump faults; None means ``[]``."""
        self.looks += 1
        if self.empty_dumps:
            self.empty_dumps -= 1 if self.empty_dumps > 0 else 0
            return None
        if self.overlay is not None and self.overlay.kind == "loading" and self.overlay.remaining:
            self.overlay.remaining -= 1
            if self.overlay.remaining == 0:
                view = self.view()
                self._clear_overlay()
                return view
        return self.view()
