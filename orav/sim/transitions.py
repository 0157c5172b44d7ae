"""A transition the running app takes: the first whose condition holds, then its effects in
order (writes, a log line, elements toggled, shown or hidden, navigation, an alert).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from orav.sim.appmodel import BACK, AlertSpec, Transition
from orav.sim.expr import as_text, truthy
from orav.sim.navigation import Navigation
from orav.sim.scope import LIST_CHANGES, evaluate, render, set_value
from orav.sim.screen import Overlay, ScreenState

__all__ = ["Transitions"]


class Transitions(Navigation):
    """The app taking its app model's transitions."""

    def _run(
        self, transitions: Sequence[Transition], bindings: tuple[tuple[str, Any], ...] = ()
    ) -> None:
        """Take the first transition whose condition holds: its effects, in order."""
        current = self.stack[-1]
        scope = self._scope(current, bindings)
        for transition in transitions:
            if self._holds(transition, scope):
                self._apply(transition, current, scope, bindings)
                return

    def _holds(self, transition: Transition, scope: Mapping[str, Any]) -> bool:
        when = transition.when
        if isinstance(when, str):
            return truthy(evaluate(when, scope))
        return all(as_text(scope.get(key, "")) == want for key, want in when.items())

    def _apply(
        self,
        transition: Transition,
        current: ScreenState,
        scope: Mapping[str, Any],
        bindings: tuple[tuple[str, Any], ...],
    ) -> None:
        if transition.animation_ms is not None:
            self.hint_ms = transition.animation_ms
        self._write(transition, current, scope)
        if transition.log is not None:
            self.log.append(f"{self.model.bundle_id}: {render(transition.log, scope)}")
        self._mark(transition, current, scope)
        if transition.tab is not None:
            self._select_tab(transition.tab)
        if transition.to == BACK:
            self._back()
        elif transition.to is not None:
            self._push(transition.to, reset=transition.reset, modal=transition.modal)
        if transition.alert is not None and self.overlay is None:
            self._present(transition.alert, bindings)

    def _write(
        self, transition: Transition, current: ScreenState, scope: Mapping[str, Any]
    ) -> None:
        """``set`` and the list changes: every value is computed from the state before the
        transition, then written."""
        writes = [(k, set_value(v, scope)) for k, v in transition.set.items()]
        for attr, change in LIST_CHANGES:
            for key, item in getattr(transition, attr).items():
                writes.append((key, change(self._get(key), set_value(item, scope))))
        for key, value in writes:
            self._put(current, key, value)

    def _mark(self, transition: Transition, current: ScreenState, scope: Mapping[str, Any]) -> None:
        """Switches toggled; elements shown (with the ``message`` as their label) or hidden."""
        for target in transition.toggle:
            current.values[target] = "0" if current.values.get(target) == "1" else "1"
        message = render(transition.message, scope) if transition.message is not None else None
        for target in transition.show:
            current.shown.add(target)
            current.hidden.discard(target)
            if message is not None:
                current.labels[target] = message
        for target in transition.hide:
            current.hidden.add(target)
            current.shown.discard(target)

    def _present(self, alert: AlertSpec, bindings: tuple[tuple[str, Any], ...]) -> None:
        """The app's alert, its texts read after the transition's effects."""
        self.focus = None  # UIKit resigns the responder under an app's alert
        after = self._scope(self.stack[-1], bindings)
        title = render(alert.title, after)
        text = render(alert.message, after) if alert.message else ""
        self.overlay = Overlay("app_alert", title, text, alert=alert, bindings=bindings)

    def _get(self, key: str) -> Any:
        return self.memory[key] if key in self.memory else self.keychain.get(key, ())

    def _put(self, current: ScreenState, key: str, value: Any) -> None:
        if key in self.memory:
            self.memory[key] = value
        elif key in self.keychain:
            self.keychain[key] = value
        else:
            current.values[key] = as_text(value)  # a field on the screen
