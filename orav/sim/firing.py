"""Injected faults as they fire in the running app: a crash, an empty dump, frozen input, a
login wall, an alert, a permission dialog, no network, a spinner. When each is due is
``orav.sim.faults``; a fault waits while an overlay shows.
"""

from __future__ import annotations

from orav.model import Fault
from orav.sim.appdata import AppData
from orav.sim.diagnostics import MAX_CRASHES, crash_report
from orav.sim.faults import RPC_FAULTS, login_wall, permission_message, service
from orav.sim.screen import Overlay, ScreenState

__all__ = ["FaultFiring"]


class FaultFiring(AppData):
    """The app with its faults firing when due."""

    def _check_faults(self, entered: str | None) -> None:
        """Fire the faults due now: after an input (``entered`` None) or on entering a screen."""
        for fault in self.faults.due(entered, self.inputs):
            if fault.type in RPC_FAULTS:
                self.faults.arm(fault)  # no overlay to wait for, and a crash must not drop it
            else:
                self.pending.append(fault)

    def _show_pending(self) -> None:
        while self.pending and self.foreground and self.overlay is None:
            self._fire(self.pending.popleft())

    def _fire(self, fault: Fault) -> None:
        until_relaunch = -1
        if fault.type == "crash":
            report = crash_report(
                app=self.model.name,
                bundle_id=self.model.bundle_id,
                pid=self.pid,
                screen=self.screen,
                fault=fault,
                inputs=self.inputs,
                now=self.clock(),
                number=len(self.crashes) + 1,
            )
            self.crashes = [*self.crashes[-(MAX_CRASHES - 1) :], report]
            self.log.append(f"{self.model.bundle_id}: crashed (EXC_BAD_ACCESS)")
            self.terminate()
        elif fault.type == "empty_dump":
            self.empty_dumps = fault.duration or until_relaunch
        elif fault.type == "frozen":
            self.frozen_inputs = fault.duration or until_relaunch
        elif fault.type == "login":
            self.focus = None
            wall = login_wall(self.model)
            self.stack.append(ScreenState.fresh("login_wall", wall, modal=True))
        elif fault.type == "alert":
            title = fault.message or "Something went wrong"
            self.overlay = Overlay("alert", title, "Please try again later.")
        elif fault.type == "permission":
            title = fault.message or f"Allow \u201c{self.model.name}\u201d to use your location?"
            if title in self.permissions or service(title) in self.grants:
                return  # iOS asks once and remembers the answer (or it was set up front)
            self.overlay = Overlay("permission", title, permission_message(title))
        elif fault.type == "network":
            self.focus = None
            self.overlay = Overlay("network", "No connection", "Check your connection.")
        elif fault.type == "loading":
            self.focus = None
            self.overlay = Overlay("loading", "In progress", remaining=fault.duration)

    def _clear_overlay(self) -> None:
        self.overlay = None
        self._show_pending()
