"""``TextualCalls``: the ``orav.device.Device`` of a Textual app, built on one primitive, a call
to the app's side (``companion.host``) by name with JSON-able arguments.

The in-process driver (``device``) makes the call in orav's event loop, the remote one
(``remote``) over a pipe to a companion in the app's own environment; everything else, what an
observation holds, how an action becomes calls and how a tap's target is chosen, is here once,
so both drivers observe and act the same. Points are terminal cells.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from orav.device import CrashReport
from orav.drivers.textual.companion.session import Refused
from orav.drivers.textual.raster import RasterCache, row_text
from orav.drivers.textual.tree import elements
from orav.errors import InputError
from orav.model import (
    Action,
    ActionResult,
    DeviceInfo,
    Launch,
    Observation,
    Point,
    PressKey,
    Settled,
    Swipe,
    Tap,
    Terminate,
    TypeText,
    Wait,
    locate,
)
from orav.model.keys import textual_key

# How much of what the app printed a crash report keeps (its end: the traceback).
CRASH_TAIL = 8000
# The least a settle waits: the recovery ladder's floor (``Attempt.LADDER``), so a
# change the app makes one frame after an action is never missed.
SETTLE_FLOOR = 0.05
# The most a launch may cost before the app is ready, in CPU seconds of the process the app
# runs in: an interpreter importing Textual and the app, an app composing its first screen
# (5,000 widgets: ~10 s). Work, not the clock: a busy machine slows a start down, it does not
# make it fail. A start that makes no progress (an app awaiting forever) fails after
# STALLED_START seconds of the clock's, not at a call's ``timeout``.
START_SECONDS = 30.0
STALLED_START = 4 * START_SECONDS
POLL = 0.05  # how often a bounded call's progress is read (seconds)


async def progressing(
    call: asyncio.Future[Any], cpu: float, wall: float, spent: Callable[[], float]
) -> Any:
    """``call``'s result; TimeoutError (the call cancelled) once the process doing its work
    spent ``cpu`` more seconds of CPU time (``spent``: its CPU time so far) or ``wall``
    seconds of the clock's passed."""
    loop = asyncio.get_running_loop()
    began, start = spent(), loop.time()
    try:
        while True:
            done, _ = await asyncio.wait({call}, timeout=POLL)
            if done:
                return call.result()
            if spent() - began >= cpu or loop.time() - start >= wall:
                raise TimeoutError
    finally:
        if not call.done():
            call.cancel()
            await asyncio.wait({call}, timeout=cpu)


class TextualCalls:
    """Device, Settling and the crash reports of Lifecycle for one Textual app; subclasses
    supply ``_call``, ``launch``, ``terminate``, ``close`` and ``stderr``."""

    name: str
    size: tuple[int, int]
    timeout: float
    max_wait: float

    def __init__(self) -> None:
        self._rasters = RasterCache()
        self._failed_at: float | None = None  # when the app was last seen failed
        self._failing = False

    async def _call(self, name: str, args: dict[str, Any], takes: float = 0.0) -> Any:
        """Make call ``name`` on the app's side within ``timeout`` (plus ``takes``) seconds;
        Refused when the app cannot take it, DeviceError when it does not answer in time."""
        raise NotImplementedError

    @property
    def stderr(self) -> str:
        raise NotImplementedError

    async def launch(
        self,
        bundle_id: str = "",
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        raise NotImplementedError

    async def terminate(self, bundle_id: str = "") -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    # --- lifecycle ---------------------------------------------------------------------------

    async def describe(self) -> DeviceInfo:
        width, height = self.size
        return DeviceInfo(
            platform="textual",
            name=self.name,
            width=float(width),
            height=float(height),
            scale=1.0,
            address=f"textual:{self.name}",
        )

    async def is_running(self, bundle_id: str = "") -> bool:
        state = await self._call("state", {})
        self._note(state)
        return bool(state["running"])

    def _note(self, state: dict[str, Any]) -> None:
        """Remember when the app was first seen failed (the time of its crash report)."""
        if state.get("running"):
            self._failing = False
        elif state.get("failure") and not self._failing:
            self._failing = True
            self._failed_at = time.time()

    async def crash_reports(self, bundle_id: str = "", since: float = 0.0) -> list[CrashReport]:
        """The app's last failure at or after ``since`` as a crash report: the end of what it
        printed on stderr (Textual's traceback), ``CRASH_TAIL`` characters, read now (a
        relaunch since adds only what the new launch printed)."""
        if self._failed_at is None or self._failed_at < since:
            return []
        contents = self.stderr[-CRASH_TAIL:] or "(nothing on stderr)"
        return [CrashReport(f"{self.name} stderr", contents, self._failed_at)]

    # What a Textual app has no use for: the rest of orav.device.Lifecycle, refused as input.

    def _ios_only(self, call: str) -> InputError:
        return InputError(f"{call} needs an iOS device (idb or sim), not a Textual app")

    async def install(self, bundle: Path) -> str:
        raise self._ios_only("install")

    async def uninstall(self, bundle_id: str) -> None:
        raise self._ios_only("uninstall")

    async def approve(self, bundle_id: str, permissions: Any) -> None:
        raise self._ios_only("approve")

    async def revoke(self, bundle_id: str, permissions: Any) -> None:
        raise self._ios_only("revoke")

    async def clear_keychain(self) -> None:
        raise self._ios_only("clear_keychain")

    async def open_url(self, url: str) -> None:
        raise self._ios_only("open_url")

    # --- observe -----------------------------------------------------------------------------

    async def observe(self) -> Observation:
        """The widget tree, the screen text and a raster; an app that is not running (it quit
        or raised) is ``app_running=False`` with the reason in ``error``."""
        taken_at = time.time()
        look = await self._call("look", {})
        self._note(look)
        if not look["running"]:
            return Observation(
                app=self.name, app_running=False, taken_at=taken_at, error=look.get("failure")
            )
        rows = look["rows"]
        return Observation(
            elements=elements(look["elements"]),
            screenshot=self._rasters.screenshot(rows),
            app=self.name,
            app_running=True,
            taken_at=taken_at,
            text="\n".join(row_text(row).rstrip() for row in rows),
        )

    async def settle(self, limit: float) -> Settled | None:
        """Wait until the app is quiet (``companion.quiet``: nothing queued, animating,
        refreshing or working, the screen unchanged for a frame), at least ``SETTLE_FLOOR`` and
        at most ``limit`` seconds, measured where the app runs: a game that never stops
        animating settles "not quiet" at ``limit``. None when the app is not running."""
        start = time.monotonic()
        try:
            args = {"limit": limit, "floor": min(SETTLE_FLOOR, limit)}
            quiet = await self._call("settle", args, takes=limit)
        except Refused:
            return None
        if quiet is None:
            return None
        return Settled(bool(quiet), round(time.monotonic() - start, 3), "idle")

    # --- perform -----------------------------------------------------------------------------

    async def perform(self, action: Action) -> ActionResult:
        """Do one action; a refused one (no such target, covered, off screen, a raw keycode,
        the app not running) is ``ok=False`` with the reason."""
        start = time.monotonic()
        try:
            point = await self._do(action)
        except Refused as exc:
            return ActionResult(ok=False, error=str(exc), seconds=time.monotonic() - start)
        return ActionResult(ok=True, point=point, seconds=time.monotonic() - start)

    async def _do(self, action: Action) -> Point | None:
        match action:
            case Tap():
                return await self._tap(action)
            case TypeText(text=text, secure=secure):
                await self._call("type", {"text": text, "secure": secure})
            case PressKey(key=str() as key):
                await self._call("press", {"key": textual_key(key)})
            case PressKey(key=code):
                raise Refused(
                    f"keycode {code} is an iOS HID usage; a Textual app takes key names "
                    "(enter, escape, down, ctrl+s, f5, ...)"
                )
            case Swipe(start=start, end=end):
                x, y = await self._call(
                    "scroll", {"start": [start.x, start.y], "end": [end.x, end.y]}
                )
                return Point(x, y)
            case Wait(seconds=seconds):
                if not 0 <= seconds <= self.max_wait:
                    raise Refused(f"wait of {seconds:g} s is outside 0..{self.max_wait:g} s")
                await asyncio.sleep(seconds)
            case Launch(fresh=fresh):
                if fresh:
                    await self.terminate()
                await self.launch()
            case Terminate():
                await self.terminate()
            case _:
                raise Refused(f"{action.kind} is not a device action")
        return None

    async def _tap(self, tap: Tap) -> Point:
        """A click on a cell; with a target, on the element the one rule (``locate``) picks
        among the screen's elements now (a selector narrows them first), where nothing covers
        it, or at a vision tap's estimate."""
        target = tap.target
        if target is None:
            x, y = await self._call("click_at", {"x": tap.x, "y": tap.y}, takes=tap.duration)
            return Point(x, y)
        found = elements(await self._call("candidates", {"selector": target.selector}))
        if target.selector is not None and target.label is None and target.id is None:
            if not found:
                raise Refused(f"no visible widget matches the {target}")
            index = 0
        else:
            element = locate(found, target.label, target.id)
            if element is None:
                raise Refused(f"no element {target} on screen")
            index = next(i for i, e in enumerate(found) if e is element)
        vision = [tap.x, tap.y] if tap.vision and tap.x is not None and tap.y is not None else None
        args = {"index": index, "target": str(target), "vision": vision}
        x, y = await self._call("click", args, takes=tap.duration)
        return Point(x, y)
