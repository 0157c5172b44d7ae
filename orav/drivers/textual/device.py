"""``TextualDevice``: ``orav.device.Device`` over a Textual app running under Pilot, in-process.

Points are terminal cells: frames, taps and swipes are in cells, (0, 0) at the top left. Every
call reaches the app through the session's job queue and is bounded by ``timeout``; what each
action does in the app is ``actions``, what an observation holds is ``tree`` and ``raster``.
A device spec names the app, its terminal size and its constructor's arguments.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Self, TypeVar
from urllib.parse import parse_qsl

from orav.drivers.textual.actions import scroll, tap, type_keys, typed_keys
from orav.drivers.textual.raster import RasterCache
from orav.drivers.textual.session import Refused, Session, describe_exception
from orav.drivers.textual.tree import composed, render_strips, scan
from orav.errors import DeviceError, InputError
from orav.model import (
    Action,
    ActionResult,
    DeviceInfo,
    Element,
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
)
from orav.model.keys import textual_key

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot

T = TypeVar("T")

# Refreshes a look may wait for a newly pushed screen to be composed.
_LOOK_PAUSES = 5


def load_app_factory(spec: str) -> Callable[[], App]:
    """``package.module:AppClass`` or ``package.module:AppClass?name=value&...`` → a factory
    building a fresh app (with those keyword arguments, as strings); InputError naming what
    could not be found or what failed while importing."""
    path, _, query = spec.partition("?")
    module_name, sep, class_name = path.partition(":")
    if not sep or not module_name or not class_name:
        raise InputError(
            f"expected textual:package.module:AppClass[?name=value&...], got {spec!r}", "--device"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import module {module_name!r}: {exc}", "--device") from None
    except Exception as exc:  # noqa: BLE001 - whatever the module raised while importing
        raise InputError(
            f"importing module {module_name!r} raised {describe_exception(exc)}", "--device"
        ) from None
    app_class = getattr(module, class_name, None)
    from textual.app import App

    if not isinstance(app_class, type) or not issubclass(app_class, App):
        raise InputError(
            f"module {module_name!r} has no Textual App class {class_name!r}", "--device"
        )
    try:
        arguments = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise InputError(f"expected name=value&... after '?', got {query!r}", "--device") from None
    if not arguments:
        return app_class

    def factory(**more: Any) -> App:
        return app_class(**{**arguments, **more})

    factory.__name__ = class_name
    factory.app_class = app_class
    return factory


MAX_CELLS = 1000


def parse_size(text: str) -> tuple[int, int]:
    """``120x40`` → (120, 40); InputError unless both are whole numbers 1..1000."""
    width, x, height = text.lower().partition("x")
    if x and width.isdigit() and height.isdigit():
        size = int(width), int(height)
        if all(1 <= n <= MAX_CELLS for n in size):
            return size
    raise InputError(
        f"expected a terminal size WIDTHxHEIGHT (1 to {MAX_CELLS} cells each), got {text!r}",
        "--device",
    )


class TextualDevice:
    """One Textual app under test, driven by Pilot in the caller's event loop.

    ``factory`` builds a fresh app at every launch (an App class will do). Use it as
    ``async with TextualDevice(DemoApp) as device`` or call ``close()``.
    """

    def __init__(
        self,
        factory: Callable[[], App],
        *,
        name: str | None = None,
        size: tuple[int, int] = (80, 24),
        timeout: float = 5.0,
        max_wait: float = 30.0,
    ) -> None:
        self.factory = factory
        self.name = name or getattr(factory, "__name__", type(factory).__name__)
        self.size = size
        self.timeout = timeout
        self.max_wait = max_wait
        self._session: Session | None = None
        self._stderr = ""
        self._rasters = RasterCache()

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> TextualDevice:
        """``package.module:AppClass[@WIDTHxHEIGHT][?name=value&...]``: the app (see
        ``load_app_factory``) in a terminal of that size (80x24 unless given)."""
        path, mark, query = spec.partition("?")
        path, at, size = path.partition("@")
        if at:
            options.setdefault("size", parse_size(size))
        factory = load_app_factory(path + mark + query)
        return cls(factory, name=factory.__name__, **options)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def app(self) -> App | None:
        """The app of the current launch (None before the first)."""
        return self._session.app if self._session is not None else None

    @property
    def stderr(self) -> str:
        """What the current (or last) launch printed on Textual's error console."""
        return self._session.stderr if self._session is not None else self._stderr

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

    async def launch(self, bundle_id: str = "") -> None:
        """Start a fresh app unless one is running (as idb launches: foreground if running)."""
        if self._running():
            return
        await self._stop()
        try:
            async with asyncio.timeout(self.timeout):
                self._session = Session(self.factory(), self.size)
                await self._session.start()
        except TimeoutError:
            await self._stop()
            raise DeviceError(
                f"textual app {self.name} did not start within {self.timeout:g} s"
            ) from None
        except Exception as exc:  # noqa: BLE001 - whatever the app raised while starting
            await self._stop()
            raise DeviceError(
                f"textual app {self.name} failed to start: {describe_exception(exc)}"
            ) from None

    async def terminate(self, bundle_id: str = "") -> None:
        await self._stop()

    async def is_running(self, bundle_id: str = "") -> bool:
        return self._running()

    async def close(self) -> None:
        await self._stop()

    def _running(self) -> bool:
        return self._session is not None and self._session.running

    async def _stop(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            self._stderr = session.stderr
            await session.stop(self.timeout)
            self._stderr = session.stderr

    async def _call(self, what: str, job: Callable[[Pilot], Awaitable[T]], takes: float = 0) -> T:
        """Run ``job`` with the pilot in the app's task, within the timeout (plus ``takes``)."""
        session = self._session
        if session is None or session.finished:
            raise Refused(f"the app is not running ({what})")
        limit = self.timeout + takes
        try:
            async with asyncio.timeout(limit):
                return await session.run(job)
        except TimeoutError:
            raise DeviceError(
                f"textual app {self.name} did not finish {what} within {limit:g} s"
            ) from None
        except Refused:
            raise
        except Exception as exc:  # noqa: BLE001 - the app raised handling it, or Pilot refused it
            state = "" if session.running else f"; {session.failure}"
            raise Refused(f"{what} failed: {describe_exception(exc)}{state}") from None

    # --- observe -----------------------------------------------------------------------------

    async def observe(self) -> Observation:
        """The widget tree, the screen text and a raster; an app that is not running (it quit
        or raised) is ``app_running=False`` with the reason in ``error``."""
        taken_at = time.time()
        session = self._session
        if session is None or not session.running:
            error = session.failure if session is not None else None
            return Observation(app=self.name, app_running=False, taken_at=taken_at, error=error)
        elements, strips = await self._call("observe", _look)
        return Observation(
            elements=elements,
            screenshot=self._rasters.screenshot(strips),
            app=self.name,
            app_running=True,
            taken_at=taken_at,
            text="\n".join(strip.text.rstrip() for strip in strips),
        )

    async def settle(self, limit: float) -> Settled | None:
        """Wait until the app is idle: its scheduled animations done and its message queue
        empty (Pilot's own waits), at most ``limit`` seconds, measured where the app runs so a
        game that never stops animating holds nothing up; None when it is not running."""
        session = self._session
        if session is None or not session.running:
            return None
        start = time.monotonic()
        try:
            quiet = await session.run(lambda pilot: _idle(pilot, limit))
        except Exception:  # noqa: BLE001 - the app failed meanwhile: the next look says how
            return None
        return Settled(quiet, round(time.monotonic() - start, 3), "idle")

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
                return await self._call("tap", lambda pilot: tap(pilot, action), action.duration)
            case TypeText(text=text, secure=secure):
                keys = typed_keys(text, secure)
                await self._call("typing", lambda pilot: type_keys(pilot, keys))
            case PressKey(key=str() as key):
                name = textual_key(key)
                await self._call(f"key {key}", lambda pilot: pilot.press(name))
            case PressKey(key=code):
                raise Refused(
                    f"keycode {code} is an iOS HID usage; a Textual app takes key names "
                    "(enter, escape, down, ctrl+s, f5, ...)"
                )
            case Swipe(start=start, end=end):
                return await self._call("swipe", lambda pilot: scroll(pilot, start, end))
            case Wait(seconds=seconds):
                if not 0 <= seconds <= self.max_wait:
                    raise Refused(f"wait of {seconds:g} s is outside 0..{self.max_wait:g} s")
                await asyncio.sleep(seconds)
            case Launch():
                await self.launch()
            case Terminate():
                await self.terminate()
            case _:
                raise Refused(f"{action.kind} is not a device action")
        return None


# --- observing --------------------------------------------------------------------------------


async def _idle(pilot: Pilot, limit: float) -> bool:
    """Whether the app fell idle within ``limit`` seconds (run in the app's own task)."""
    try:
        async with asyncio.timeout(limit):
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
    except TimeoutError:
        return False
    return True


async def _look(pilot: Pilot) -> tuple[tuple[Element, ...], list]:
    app = pilot.app
    if _stop_blinking(app):
        await pilot.pause()
    for _ in range(_LOOK_PAUSES):
        if composed(app):
            break
        await pilot.pause()
    strips = render_strips(app)
    return tuple(element for element, _ in scan(app, strips)), strips


def _stop_blinking(app: App) -> bool:
    """Switch cursor blinking off (the cursor stays shown): an unchanged screen then renders
    the same twice. True when some widget was still blinking."""
    blinking = [w for w in app.screen.walk_children() if getattr(w, "cursor_blink", False)]
    for widget in blinking:
        widget.cursor_blink = False
    return bool(blinking)
