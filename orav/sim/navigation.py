"""The running app's navigation, as UIKit's controllers do it: push, back, a modal, the tab bar
(each tab its own stack); entering a screen fires the faults due on it.
"""

from __future__ import annotations

from orav.sim.firing import FaultFiring
from orav.sim.screen import ScreenState

__all__ = ["Navigation"]


class Navigation(FaultFiring):
    """The app moving between its screens."""

    def _select_tab(self, tab_id: str) -> None:
        """A tap on a tab: another tab shows its own stack as it was left; the selected tab
        pops to its root (at the root nothing changes), as UITabBarController does."""
        tab = self.model.tab(tab_id)
        if self.tab is None or tab is None:
            return
        if tab_id == self.tab:
            if len(self.stack) == 1:
                return
            del self.stack[1:]
        else:
            self.tab_stacks[self.tab] = self.stack
            self.tab = tab_id
            self.stack = self.tab_stacks.pop(tab_id, []) or [self._fresh(tab.screen)]
        self.focus = None
        self._clear_overlay()
        self._entered(self.stack[-1].name)

    def _can_go_back(self) -> bool:
        return len(self.stack) > 1 and not self.stack[-1].modal

    def _back(self) -> None:
        top = self.stack[-1]
        if top.modal:
            self.stack.pop()  # a modal screen (or the login wall) is dismissed
        elif self._can_go_back():
            self.stack.pop()
            self._clear_overlay()
        else:
            return
        self.focus = None
        self._entered(self.stack[-1].name)

    def _fresh(self, name: str, *, modal: bool = False) -> ScreenState:
        screen = self.model.screens[name]
        return ScreenState.fresh(name, screen, modal=modal, scope=self._scope(None))

    def _push(self, name: str, *, reset: bool = False, modal: bool = False) -> None:
        if reset:
            # A new root: inside the tab bar when it is a tab's screen (every tab fresh).
            tab = self.model.tab_of(name)
            self.tab = tab.id if tab else None
            self.tab_stacks = {}
            self.stack = []
        self.stack.append(self._fresh(name, modal=modal and bool(self.stack)))
        self.focus = None
        self._clear_overlay()
        self._entered(name)

    def _entered(self, name: str) -> None:
        self._check_faults(name)
        self._show_pending()
