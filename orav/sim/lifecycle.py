"""The running app's lifecycle: launch (with arguments and environment), the home button, deep
links, the keychain reset, faults scheduled at run time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from orav.model import Fault
from orav.sim.appmodel import AppModel
from orav.sim.scope import AppModelError, initial, render
from orav.sim.transitions import Transitions

__all__ = ["Lifecycle"]


class Lifecycle(Transitions):
    """The app launched, sent home, opened by a URL."""

    def __init__(
        self,
        model: AppModel,
        *,
        seed: int = 0,
        faults: Sequence[Fault] = (),
        clock: Callable[[], datetime] = datetime.now,
        running: bool = True,
        ticker: Callable[[], float] = time.monotonic,
        animation_ms: int | None = None,
    ) -> None:
        """A new app, launched unless ``running`` is False (then SpringBoard shows)."""
        super().__init__(
            model, seed=seed, faults=faults, clock=clock, ticker=ticker, animation_ms=animation_ms
        )
        if running:
            self.launch()

    def launch(self, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        """Start the app at its start screen with ``args`` and ``env``; a running app is only
        brought to the front (a backgrounded one resumes where it was)."""
        if self.running:
            self.background = False
            return
        if not self.installed:
            raise AppModelError(f"{self.model.bundle_id} is not installed")
        self.running = True
        self.background = False
        self.launches += 1
        self.looks = 0
        self.args, self.env = tuple(args), dict(env or {})
        self.memory = initial(self.model.state)
        self.stack = []
        self.focus = None
        self.overlay = None
        self.pending.clear()
        self.empty_dumps = self.frozen_inputs = 0
        self.faults.relaunched()
        self.log.append(f"{self.model.bundle_id}: launched (pid {self.pid})")
        start = render(self.model.start, self._scope(None))
        if start not in self.model.screens:
            raise AppModelError(
                f"app model start {self.model.start!r} gave {start!r}, not a screen"
            )
        self._push(start, reset=True)

    def home(self) -> None:
        """The home button: the app goes to the background with its state; SpringBoard shows."""
        if self.foreground:
            self.background = True
            self.log.append(f"{self.model.bundle_id}: entered the background")

    def clear_keychain(self) -> None:
        self.keychain = initial(self.model.keychain)

    def routes_for(self, url: str) -> list[str]:
        """The app's routes that ``url`` starts with, longest last."""
        return sorted((r for r in self.model.routes if url.startswith(r)), key=len)

    def open_url(self, url: str) -> bool:
        """A deep link: the longest route that prefixes ``url`` runs (launching the app first,
        with the arguments of its last launch); False when no route takes it. The transitions
        read the URL as ``url``."""
        routes = self.routes_for(url)
        if not routes:
            return False
        self.launch(self.args, self.env)
        self.focus = None
        self.overlay = None if self.overlay and self.overlay.kind == "app_alert" else self.overlay
        self._run(self.model.routes[routes[-1]], (("url", url),))
        return True

    def schedule(self, fault: Fault) -> None:
        """Add a fault at run time; it triggers like one from the app model."""
        self.faults.add(fault)
