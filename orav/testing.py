"""Test doubles for the engine's seams, as httpx ships ``MockTransport``: an in-memory Device
and a clock whose sleeps do not wait. orav's own tests and benchmarks use them; so can yours.

API::

    device = FakeDevice({"login": LOGIN, "home": HOME}, goes={"login": {"sign_in": "home"}})
    device = FakeDevice(SCREEN)                 # one screen that never changes
    device.screen, device.running               # what it shows now; whether the app runs
    device.show("home")                         # show a screen (a name, or an Observation)
    device.queue("observe", obs, DeviceError("gone"))  # the next answers of one call, in order
    device.calls, device.performed              # every call by name; every action performed
    device.log                                  # both in order: an action as itself

    SettlingFakeDevice(...)                     # one that says when the app is quiet

    clock = VirtualClock()                      # monotonic time plus every sleep, no waiting
    clock.slept                                 # the seconds it did not wait

A tap lands on the element its target names (or under its point) and goes to the screen that
``goes`` gives for that element (by id or label) on the current screen; its ``ActionResult``
says where it landed. ``respond(device, action)`` decides instead, for anything else. Queued
answers come first: an exception queued is raised, anything else returned.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from typing import Any

from orav.model import (
    Action,
    ActionResult,
    DeviceInfo,
    Element,
    Observation,
    Point,
    Settled,
    Tap,
)
from orav.perceive import target_element

Respond = Callable[["FakeDevice", Action], "ActionResult | None"]

PHONE = DeviceInfo("ios", "FakeDevice", width=390, height=844)


class FakeDevice:
    """An orav Device held in memory: named screens and the taps that lead between them.

    ``screens`` maps names to observations (the first is shown first), or is one
    observation. ``running`` is whether the app runs before any launch; ``launches`` whether
    a launch starts it (False: an app that dies at once). ``SettlingFakeDevice`` is the
    same device that also tells when the app is quiet (``orav.device.Settling``).
    """

    def __init__(
        self,
        screens: Mapping[str, Observation] | Observation | None = None,
        *,
        goes: Mapping[str, Mapping[str, str]] | None = None,
        respond: Respond | None = None,
        info: DeviceInfo = PHONE,
        running: bool = True,
        launches: bool = True,
    ) -> None:
        if screens is None:
            screens = Observation()
        self.screens: dict[str, Observation] = (
            {"screen": screens} if isinstance(screens, Observation) else dict(screens)
        )
        if not self.screens:
            raise ValueError("FakeDevice needs at least one screen")
        self.screen: str = next(iter(self.screens))
        self._shown: Observation | None = None
        self.goes = {name: dict(targets) for name, targets in (goes or {}).items()}
        self.respond = respond
        self.info = info
        self.running = running
        self.launches = launches
        self.calls: list[str] = []  # every call by name; a perform by its action's kind
        self.performed: list[Action] = []
        self.log: list[str | Action] = []  # every call in order, a perform as its action
        self._queued: defaultdict[str, deque[Any]] = defaultdict(deque)

    @property
    def observation(self) -> Observation:
        """What the screen shows now."""
        return self._shown if self._shown is not None else self.screens[self.screen]

    def show(self, screen: str | Observation) -> None:
        """Show ``screen`` from now on: a name of ``screens``, or an observation of its own."""
        if isinstance(screen, Observation):
            self._shown = screen
            return
        if screen not in self.screens:
            raise KeyError(f"no screen {screen!r}; screens: {sorted(self.screens)}")
        self.screen, self._shown = screen, None

    def queue(self, call: str, *answers: Any) -> None:
        """The next answers of ``call`` (``observe``, ``perform``, ``describe``…), in order,
        before the screens answer again; an exception among them is raised."""
        self._queued[call].extend(answers)

    def _called(self, call: str, action: Action | None = None) -> None:
        self.calls.append(action.kind if action is not None else call)
        self.log.append(action if action is not None else call)
        if action is not None:
            self.performed.append(action)

    def _answer(self, call: str, default: Callable[[], Any]) -> Any:
        queued = self._queued[call]
        if not queued:
            return default()
        answer = queued.popleft()
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def describe(self) -> DeviceInfo:
        self._called("describe")
        return self._answer("describe", lambda: self.info)

    async def observe(self) -> Observation:
        self._called("observe")
        return self._answer("observe", lambda: self.observation)

    async def perform(self, action: Action) -> ActionResult:
        self._called("perform", action)
        return self._answer("perform", lambda: self._act(action))

    def _act(self, action: Action) -> ActionResult:
        if self.respond is not None:
            answered = self.respond(self, action)
            if answered is not None:
                return answered
        if not isinstance(action, Tap):
            return ActionResult()
        element = self._tapped(action)
        if element is None:
            return ActionResult()
        following = self.goes.get(self.screen, {})
        for key in (element.unique_id, element.label):
            if key and key in following:
                self.show(following[key])
                break
        return ActionResult(point=element.frame.center)

    def _tapped(self, tap: Tap) -> Element | None:
        shown = self.observation
        if tap.target is not None:
            return target_element(shown, tap.target)
        if tap.x is None or tap.y is None:
            return None
        point = Point(tap.x, tap.y)
        under = [e for e in shown.elements if e.frame.contains(point)]
        return under[-1] if under else None

    async def launch(self, bundle_id: str) -> None:
        self._called("launch")
        self._answer("launch", lambda: None)
        self.running = self.running or self.launches

    async def terminate(self, bundle_id: str) -> None:
        self._called("terminate")
        self._answer("terminate", lambda: None)
        self.running = False

    async def is_running(self, bundle_id: str) -> bool:
        self._called("is_running")
        return self._answer("is_running", lambda: self.running)

    async def close(self) -> None:
        self._called("close")


class SettlingFakeDevice(FakeDevice):
    """A FakeDevice that can tell when the app is quiet (``orav.device.Settling``): at once,
    and a transition queued for ``observe`` is over by then. ``settle_limits`` holds the
    limit of every settle asked for; an answer queued for ``settle`` is returned instead."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.settle_limits: list[float] = []

    async def settle(self, limit: float) -> Settled | None:
        self._called("settle")
        self.settle_limits.append(limit)
        self._queued["observe"].clear()
        return self._answer("settle", lambda: Settled(True, 0.0, "quiescence"))


class VirtualClock:
    """Monotonic time plus every sleep taken, without waiting: real work, virtual waits.

    ``start`` fixes the first reading instead of the real monotonic time (a deterministic
    clock: time then moves only by sleeps).
    """

    def __init__(self, start: float | None = None) -> None:
        self._start = start
        self.slept = 0.0

    def now(self) -> float:
        base = time.monotonic() if self._start is None else self._start
        return base + self.slept

    async def sleep(self, seconds: float) -> None:
        self.slept += seconds
        await asyncio.sleep(0)  # still a point where the task can be cancelled
