"""What the running app holds (its navigation stacks, app-wide state, field values, focus, an
overlay, the faults' counters) and what it reads from them: the expressions' scope, the
elements drawn now.

No I/O and no clocks of its own: the time comes from injected callables (the status bar's and
the animations' ``Motion``), randomness from a seeded generator. The classes above add, one
each, the faults firing, navigation, transitions, the lifecycle, what an observer sees and
input (``orav.sim.state``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from orav.model import Fault, Point
from orav.sim.appmodel import AppModel
from orav.sim.chrome import TAB_BAR_HEIGHT
from orav.sim.diagnostics import AppLog, CrashReport
from orav.sim.draw import NAV_BAR_BOTTOM
from orav.sim.faults import FaultSchedule
from orav.sim.motion import Motion
from orav.sim.scope import Env, evaluate, initial
from orav.sim.screen import Instance, Overlay, ScreenState
from orav.sim.view import APP_PID

__all__ = ["AppData"]


class AppData:
    """The simulated device's one app: its data, not yet reacting to anything."""

    def __init__(
        self,
        model: AppModel,
        *,
        seed: int = 0,
        faults: Sequence[Fault] = (),
        clock: Callable[[], datetime] = datetime.now,
        ticker: Callable[[], float] = time.monotonic,
        animation_ms: int | None = None,
    ) -> None:
        self.model = model
        self.clock = clock
        self.motion = Motion(ticker)  # what animates after an input, and until when
        self.animation_ms = animation_ms  # replaces the model's default (orav sim --animation-ms)
        self.hint_ms: int | None = None  # the animation time of the transition an input took
        self.faults = FaultSchedule([*model.faults, *faults], seed)
        self.running = False
        self.installed = True
        self.background = False  # the home button sent it away; a launch resumes it
        self.launches = 0
        self.inputs = 0
        self.looks = 0  # accessibility reads since launch: what a running stopwatch shows
        self.stack: list[ScreenState] = []  # the selected tab's stack when there is a tab bar
        self.tab: str | None = None  # the selected tab, None while no tab bar shows
        self.tab_stacks: dict[str, list[ScreenState]] = {}  # the stacks of the other tabs
        self.memory: dict[str, Any] = {}  # app-wide state, as a launch starts it
        self.keychain: dict[str, Any] = initial(model.keychain)  # outlives a relaunch
        self.args: tuple[str, ...] = ()  # the launch's arguments and environment
        self.env: dict[str, str] = {}
        self.focus: str | None = None
        self.shift = False
        self.overlay: Overlay | None = None
        self.pending: deque[Fault] = deque()
        self.permissions: dict[str, bool] = {}
        self.empty_dumps = 0  # accessibility reads left that answer [] (-1: until relaunch)
        self.frozen_inputs = 0  # inputs left that are ignored (-1: until relaunch)
        self.grants: dict[str, bool] = {}  # permissions approved (True) or revoked up front
        self.location: tuple[float, float] | None = None
        self.crashes: list[CrashReport] = []  # oldest first, the newest MAX_CRASHES kept
        self.log = AppLog()  # what the app logged

    @property
    def screen(self) -> str | None:
        """The name of the screen on top (``login_wall`` during a login fault), None if down."""
        return self.stack[-1].name if self.foreground and self.stack else None

    @property
    def foreground(self) -> bool:
        return self.running and not self.background

    @property
    def pid(self) -> int:
        return APP_PID + self.launches

    @property
    def tab_bar_shown(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return (
            self.tab is not None
            and top is not None
            and not top.modal
            and not (top.screen.hides_tab_bar)
        )

    def terminate(self) -> None:
        if self.running:
            self.log.append(f"{self.model.bundle_id}: terminated")
        self.running = False
        self.background = False
        self.focus = None
        self.overlay = None

    def _scope(
        self, current: ScreenState | None, bindings: tuple[tuple[str, Any], ...] = ()
    ) -> dict[str, Any]:
        """What expressions read: data, keychain, state, the launch, the screen's field values
        and the items of the repeats around them."""
        scope: dict[str, Any] = {
            **self.model.data,
            **self.keychain,
            **self.memory,
            "args": self.args,
            "env": Env(self.env),
            "permissions": Env({k: "allow" if v else "deny" for k, v in self.grants.items()}),
            "location": self.location or (),
            "looks": self.looks,
        }
        if current is not None:
            scope.update(current.values)
        scope.update(bindings)
        for name, expression in self.model.computed.items():
            scope[name] = evaluate(expression, scope)
        return scope

    def _viewport(self) -> tuple[float, float]:
        """The top and bottom of a scrolling screen's visible content."""
        bottom = self.model.height - (TAB_BAR_HEIGHT if self.tab_bar_shown else 0.0)
        custom = self.stack[-1].screen.scroll_bottom if self.stack else None
        return NAV_BAR_BOTTOM, min(bottom, custom) if custom is not None else bottom

    def _instances(
        self,
        current: ScreenState,
        *,
        clip: bool = True,
        scope: Mapping[str, Any] | None = None,
    ) -> list[Instance]:
        """The elements drawn now: templated, repeated, filtered by ``when`` and show / hide,
        and (on a scrolling screen) moved by the scroll and kept to the visible area."""
        scope = scope if scope is not None else self._scope(current)
        found = list(current.expand(current.screen.elements, scope))
        return current.scrolled(found, self._viewport(), clip=clip)

    def _instance(self, current: ScreenState, element_id: str) -> Instance | None:
        return next((i for i in self._instances(current) if i.id == element_id), None)

    def _instance_at(self, current: ScreenState, point: Point) -> Instance | None:
        hits = [i for i in self._instances(current) if i.frame.contains(point)]
        return hits[-1] if hits else None

    def _max_offset(self, current: ScreenState) -> float:
        """How far the content can scroll: its bottom (plus a margin) to the visible bottom."""
        instances = self._instances(current, clip=False)
        content = max(
            (i.frame.y + current.offset + i.frame.height for i in instances if not i.spec.fixed),
            default=0.0,
        )
        _, bottom = self._viewport()
        return max(0.0, content + 20 - bottom)
