"""The Textual driver: ``orav.device.Device`` over a Textual app running under Pilot, in-process.

Points are terminal cells on this platform: frames, taps and swipes are in cells, (0, 0) at the
top left, the screen ``width`` x ``height`` cells. The app runs in ``app.run_test(size=...)``
inside a task of its own (so its context is entered and left in one task, whatever task the
engine calls from); every call reaches it through a job queue and is bounded by ``timeout``.

An observation holds one Element per visible widget in pre-order, the screen text (one line per
terminal row) and a PNG raster drawn from the same rendered strips for vision models. Cursor
blinking is switched off in the app, so two looks at an unchanged screen are byte-identical.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, Self, TypeVar

from orav.errors import DeviceError, InputError
from orav.model import (
    Action,
    ActionResult,
    DeviceInfo,
    Element,
    Frame,
    Launch,
    Observation,
    Point,
    PressKey,
    Screenshot,
    Swipe,
    Tap,
    Terminate,
    TypeText,
    Wait,
    locate,
)

if TYPE_CHECKING:
    from PIL import ImageFont
    from textual.app import App
    from textual.geometry import Region
    from textual.pilot import Pilot
    from textual.strip import Strip
    from textual.widget import Widget

T = TypeVar("T")

# Pixels of one terminal cell in the raster.
CELL_WIDTH = 8
CELL_HEIGHT = 16
BULLET = "\u2022"

# orav's named keys as Textual key names.
KEYS = {
    "return": "enter",
    "escape": "escape",
    "tab": "tab",
    "backspace": "backspace",
    "delete": "delete",
    "space": "space",
    "home": "home",
}
# Characters of typed text that Textual knows by a key name rather than by themselves.
_TYPED_KEYS = {
    "\n": ("enter", "\r"),
    "\r": ("enter", "\r"),
    "\t": ("tab", "\t"),
    "\b": ("backspace", "\x08"),
}

# Textual widget classes (by name, along the MRO, textual's own only) → (role, look inside).
ROLES: dict[str, tuple[str, bool]] = {
    "Button": ("AXButton", False),
    "Input": ("AXTextField", False),
    "TextArea": ("AXTextView", False),
    "Switch": ("AXSwitch", False),
    "Checkbox": ("AXSwitch", False),
    "RadioButton": ("AXRadioButton", False),
    "Label": ("AXStaticText", False),
    "Static": ("AXStaticText", False),
    "ListView": ("AXTable", True),
    "ListItem": ("AXCell", True),
    "OptionList": ("AXTable", False),
    "DataTable": ("AXTable", False),
    "Tree": ("AXOutline", False),
    "Select": ("AXPopUpButton", False),
    "Tab": ("AXTab", False),
    "Link": ("AXLink", False),
    "ProgressBar": ("AXProgressIndicator", False),
    "LoadingIndicator": ("AXActivityIndicator", False),
    "Header": ("AXHeading", False),
    "FooterKey": ("AXButton", False),
    "Footer": ("", True),  # its keys only
}
_RASTER_CACHE = 16


class _Refused(Exception):
    """An action the driver refuses or the app cannot take (internal: becomes ``ok=False``)."""


def load_app_factory(spec: str) -> Callable[[], App]:
    """``package.module:AppClass`` → a factory building a fresh app; InputError naming what
    could not be found."""
    module_name, sep, class_name = spec.partition(":")
    if not sep or not module_name or not class_name:
        raise InputError(f"expected textual:package.module:AppClass, got {spec!r}", "--device")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import module {module_name!r}: {exc}", "--device") from None
    app_class = getattr(module, class_name, None)
    from textual.app import App

    if not isinstance(app_class, type) or not issubclass(app_class, App):
        raise InputError(
            f"module {module_name!r} has no Textual App class {class_name!r}", "--device"
        )
    return app_class


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
        self._session: _Session | None = None
        self._rasters: OrderedDict[tuple, bytes] = OrderedDict()

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> TextualDevice:
        """``package.module:AppClass`` (the app class is constructed with no arguments)."""
        factory = load_app_factory(spec)
        return cls(factory, name=factory.__name__, **options)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def app(self) -> App | None:
        """The app of the current launch (None before the first)."""
        return self._session.app if self._session is not None else None

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
                self._session = _Session(self.factory(), self.size)
                await self._session.start()
        except TimeoutError:
            await self._stop()
            raise DeviceError(
                f"textual app {self.name} did not start within {self.timeout:g} s"
            ) from None
        except Exception as exc:  # noqa: BLE001 - whatever the app raised while starting
            await self._stop()
            raise DeviceError(f"textual app {self.name} failed to start: {exc!r}") from None

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
            await session.stop(self.timeout)

    async def _call(self, what: str, job: Callable[[Pilot], Awaitable[T]], takes: float = 0) -> T:
        """Run ``job`` with the pilot in the app's task, within the timeout (plus ``takes``)."""
        session = self._session
        if session is None or session.finished:
            raise _Refused(f"the app is not running ({what})")
        limit = self.timeout + takes
        try:
            async with asyncio.timeout(limit):
                return await session.run(job)
        except TimeoutError:
            raise DeviceError(
                f"textual app {self.name} did not finish {what} within {limit:g} s"
            ) from None
        except _Refused:
            raise
        except Exception as exc:  # noqa: BLE001 - the app raised handling it, or Pilot refused it
            state = "" if session.running else f"; {session.failure}"
            raise _Refused(f"{what} failed: {exc!r}{state}") from None

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
            screenshot=self._screenshot(strips),
            app=self.name,
            app_running=True,
            taken_at=taken_at,
            text="\n".join(strip.text.rstrip() for strip in strips),
        )

    def _screenshot(self, strips: list[Strip]) -> Screenshot:
        key = tuple(tuple(strip) for strip in strips)
        data = self._rasters.get(key)
        if data is None:
            data = draw_png(strips)
            self._rasters[key] = data
            if len(self._rasters) > _RASTER_CACHE:
                self._rasters.popitem(last=False)
        else:
            self._rasters.move_to_end(key)
        width = max((strip.cell_length for strip in strips), default=0)
        return Screenshot.of(data, width * CELL_WIDTH, len(strips) * CELL_HEIGHT, "png", 1.0)

    # --- perform -----------------------------------------------------------------------------

    async def perform(self, action: Action) -> ActionResult:
        """Do one action; a refused one (no such target, off screen, a raw keycode, the app not
        running) is ``ok=False`` with the reason."""
        start = time.monotonic()
        try:
            point = await self._do(action)
        except _Refused as exc:
            return ActionResult(ok=False, error=str(exc), seconds=time.monotonic() - start)
        return ActionResult(ok=True, point=point, seconds=time.monotonic() - start)

    async def _do(self, action: Action) -> Point | None:
        match action:
            case Tap():
                return await self._call("tap", lambda pilot: _tap(pilot, action), action.duration)
            case TypeText(text=text, secure=secure):
                keys = _typed_keys(text, secure)
                await self._call("typing", lambda pilot: _type(pilot, keys))
            case PressKey(key=str() as key):
                await self._call(f"key {key}", lambda pilot: pilot.press(KEYS[key]))
            case PressKey(key=code):
                raise _Refused(
                    f"keycode {code} is an iOS HID usage; a Textual app takes named keys "
                    f"({', '.join(KEYS)})"
                )
            case Swipe(start=start, end=end):
                return await self._call("swipe", lambda pilot: _scroll(pilot, start, end))
            case Wait(seconds=seconds):
                if not 0 <= seconds <= self.max_wait:
                    raise _Refused(f"wait of {seconds:g} s is outside 0..{self.max_wait:g} s")
                await asyncio.sleep(seconds)
            case Launch():
                await self.launch()
            case Terminate():
                await self.terminate()
            case _:
                raise _Refused(f"{action.kind} is not a device action")
        return None


class _Session:
    """One launch of the app: ``run_test`` held open in a task that runs the driver's jobs."""

    def __init__(self, app: App, size: tuple[int, int]) -> None:
        self.app = app
        self.size = size
        self.failure: str | None = None
        self._jobs: asyncio.Queue = asyncio.Queue()
        self._ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._host(), name=f"orav textual {self.app!r}")
        await asyncio.shield(self._ready)

    @property
    def finished(self) -> bool:
        return self._task is None or self._task.done()

    @property
    def running(self) -> bool:
        """Still up: neither quit nor crashed (``return_code`` is set when an app exits)."""
        if self.app.return_code is not None and self.failure is None:
            error = getattr(self.app, "_exception", None)  # kept by Textual for run_test
            self.failure = f"the app raised {error!r}" if error else "the app exited"
        return not self.finished and self.app.return_code is None

    async def run(self, job: Callable[[Pilot], Awaitable[T]]) -> T:
        future = asyncio.get_running_loop().create_future()
        self._jobs.put_nowait((job, future))
        return await future

    async def _host(self) -> None:
        try:
            async with self.app.run_test(size=self.size, notifications=True) as pilot:
                self._ready.set_result(None)
                while (item := await self._jobs.get()) is not None:
                    job, future = item
                    if future.done():  # its caller gave up waiting
                        continue
                    try:
                        result = await job(pilot)
                    except Exception as exc:  # noqa: BLE001 - handed to the caller
                        if not future.done():
                            future.set_exception(exc)
                    else:
                        if not future.done():
                            future.set_result(result)
        except Exception as exc:  # noqa: BLE001 - run_test re-raises what the app raised
            self.failure = f"the app raised {exc!r}"
            if not self._ready.done():
                self._ready.set_exception(exc)
        finally:
            while not self._jobs.empty():
                item = self._jobs.get_nowait()
                if item is not None and not item[1].done():
                    item[1].set_exception(_Refused("the app stopped"))

    async def stop(self, timeout: float) -> None:
        """Leave ``run_test`` (the app shuts down); cancel the task if that takes too long."""
        if self._task is None:
            return
        self._jobs.put_nowait(None)
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=timeout)


# --- observing --------------------------------------------------------------------------------


def render_strips(app: App) -> list[Strip]:
    """The screen as the terminal shows it, one Strip per row.

    Private API: ``Screen._compositor.render_strips()`` of Textual 8 (no public way to get the
    composed lines without the SVG export); keep Textual pinned, tests cover this helper.
    """
    return app.screen._compositor.render_strips()


async def _look(pilot: Pilot) -> tuple[tuple[Element, ...], list[Strip]]:
    app = pilot.app
    if _stop_blinking(app):
        await pilot.pause()
    strips = render_strips(app)
    return tuple(_elements(app, strips)), strips


def _stop_blinking(app: App) -> bool:
    """Switch cursor blinking off (the cursor stays shown): an unchanged screen then renders
    the same twice. True when some widget was still blinking."""
    blinking = [w for w in app.screen.walk_children() if getattr(w, "cursor_blink", False)]
    for widget in blinking:
        widget.cursor_blink = False
    return bool(blinking)


def _elements(app: App, strips: list[Strip]) -> Iterator[Element]:
    from textual.screen import ModalScreen

    screen = app.screen
    width, height = screen.size
    bindings = _bindings(app)
    yield Element(
        role="AXApplication",
        label=app.title,
        frame=Frame(0, 0, width, height),
        traits=(*bindings.pop(id(app), ()), *bindings.pop(id(screen), ())),
    )
    if isinstance(screen, ModalScreen):
        yield Element(
            role="AXDialog",
            label=screen.title,
            unique_id=screen.id,
            frame=_frame(screen.region),
            traits=("modal",),
        )
    for child in screen.children:
        yield from _walk(child, screen, strips, bindings)


def _bindings(app: App) -> dict[int, list[str]]:
    """``binding:KEY`` traits of the shown, enabled bindings, by the id of the node defining them."""
    found: dict[int, list[str]] = {}
    for key, active in app.active_bindings.items():
        if active.enabled and active.binding.show:
            found.setdefault(id(active.node), []).append(f"binding:{key}")
    return found


def _walk(widget: Widget, screen, strips: list[Strip], bindings: dict) -> Iterator[Element]:
    from textual.errors import NoWidget

    if not widget.display:
        return
    try:
        geometry = screen.find_widget(widget)
    except NoWidget:
        return
    visible = geometry.region.intersection(geometry.clip)
    if not visible.area:
        return
    name = _textual_class(widget)
    traits = tuple(bindings.get(id(widget), ()))
    if name is not None:
        role, inside = ROLES[name]
    elif widget.children:  # a container, or a widget made of others
        role, inside = "AXGroup", True
    else:
        role, inside = "AXOther", False
    if role == "AXGroup" and widget.id is None:
        pass  # an anonymous container: its children stand for it
    elif role:
        element = _element(widget, name, role, visible, strips, traits)
        if element.role not in ("AXOther", "AXGroup") or element.label or element.unique_id:
            yield element
    if inside:
        for child in widget.children:
            yield from _walk(child, screen, strips, bindings)


def _textual_class(widget: Widget) -> str | None:
    """The name of the first of Textual's own classes in ``ROLES`` the widget is one of."""
    for cls in type(widget).__mro__:
        if cls.__module__.startswith("textual.") and cls.__name__ in ROLES:
            return cls.__name__
    return None


def _element(
    widget: Widget,
    name: str | None,
    role: str,
    visible: Region,
    strips: list[Strip],
    traits: tuple[str, ...],
) -> Element:
    label = value = placeholder = None
    secure = False
    if name == "Button":
        label = widget.label.plain
    elif name == "Input":
        placeholder = widget.placeholder or None
        label = placeholder
        secure = bool(widget.password)
        value = (BULLET * len(widget.value) if secure else widget.value) or None
    elif name == "TextArea":
        value = widget.text or None
    elif name == "Switch":
        value = "1" if widget.value else "0"
    elif name in ("Checkbox", "RadioButton"):
        label = widget.label.plain
        value = "1" if widget.value else "0"
    elif name == "Header":
        label = widget.screen_title
        traits = ("Header", *traits)
    elif name == "FooterKey":
        label = widget.description or widget.key_display
        traits = (f"binding:{widget.key}", *traits)
    elif name == "ProgressBar":
        value = None if widget.percentage is None else f"{widget.percentage:.0%}"
    elif role == "AXStaticText":
        label = _plain(widget) or _text_in(strips, widget.content_region.intersection(visible))
    elif role in ("AXCell", "AXOther"):
        label = _text_in(strips, widget.content_region.intersection(visible))
    if name == "ListItem" and getattr(widget, "highlighted", False):
        traits = (*traits, "selected")
    return Element(
        role=role,
        label=label or None,
        unique_id=widget.id,
        value=value,
        frame=_frame(visible),
        enabled=not widget.is_disabled,
        traits=traits,
        focused=widget.has_focus,
        placeholder=placeholder,
        secure=secure,
    )


def _plain(widget: Widget) -> str | None:
    """A Static's own text (whole even when wrapped or clipped), when it is plain content."""
    from textual.content import Content

    visual = getattr(widget, "visual", None)
    if isinstance(visual, Content):
        return " ".join(visual.plain.split()) or None
    return None


def _text_in(strips: list[Strip], region: Region) -> str | None:
    rows = (
        strips[y].crop(region.x, region.right).text.strip()
        for y in range(region.y, min(region.bottom, len(strips)))
    )
    return " ".join(row for row in rows if row) or None


def _frame(region: Region) -> Frame:
    return Frame(region.x, region.y, region.width, region.height)


# --- acting -----------------------------------------------------------------------------------


def _typed_keys(text: str, secure: bool) -> list[tuple[str, str]]:
    """(Textual key name, character) for each character, as a terminal would send them.

    ``textual.keys._character_to_key`` is private (Pilot's own ``press`` uses it); keep
    Textual pinned.
    """
    from textual.keys import _character_to_key

    keys = []
    for index, char in enumerate(text):
        if char in _TYPED_KEYS:
            keys.append(_TYPED_KEYS[char])
        elif char.isprintable():
            keys.append((_character_to_key(char), char))
        else:
            shown = f"character {index + 1}" if secure else repr(char)
            raise _Refused(f"cannot type {shown}: it is not a printable character")
    return keys


async def _type(pilot: Pilot, keys: list[tuple[str, str]]) -> None:
    """Post every key at once, then wait twice: for the app to forward them to the focused
    widget, and for that widget to handle them (``pilot.press`` waits ~50 ms per key)."""
    from textual import events

    for key, char in keys:
        pilot.app.post_message(events.Key(key, char))
    await pilot.pause()
    await pilot.pause()


async def _tap(pilot: Pilot, tap: Tap) -> Point:
    # As the idb driver does: a target is found on the screen as it is now (a control before
    # a text with the same label); coordinates serve when there is no target.
    point = Point(tap.x, tap.y) if tap.target is None else _target_point(pilot.app, tap)
    cell = (int(point.x), int(point.y))
    width, height = pilot.app.screen.size
    if not (0 <= cell[0] < width and 0 <= cell[1] < height):
        raise _Refused(f"tap at ({point.x:g}, {point.y:g}) is outside the {width}x{height} screen")
    await pilot.click(offset=cell)
    return point


def _target_point(app: App, tap: Tap) -> Point:
    strips = render_strips(app)
    target = tap.target
    element = locate(_elements(app, strips), target.label, target.id)
    if element is None:
        raise _Refused(f"no element {target} on screen")
    return element.frame.center


async def _scroll(pilot: Pilot, start: Point, end: Point) -> Point:
    """A swipe scrolls the scrollable widget under its start, like a finger on a list:
    swiping up moves the content up (scrolls down)."""
    app = pilot.app
    from textual.errors import NoWidget

    try:
        widget, _ = app.screen.get_widget_at(int(start.x), int(start.y))
    except NoWidget:
        raise _Refused(f"nothing under the swipe start ({start.x:g}, {start.y:g})") from None
    dx, dy = round(start.x - end.x), round(start.y - end.y)
    node = widget
    while node is not None and not (
        (dy and node.allow_vertical_scroll) or (dx and node.allow_horizontal_scroll)
    ):
        node = node.parent if node.parent is not app else None
    if node is None:
        raise _Refused(f"nothing scrollable under the swipe start ({start.x:g}, {start.y:g})")
    node.scroll_relative(x=dx or None, y=dy or None, animate=False, immediate=True)
    await pilot.pause()
    return start


# --- the raster -------------------------------------------------------------------------------


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSansMono.ttf", 13)
    except OSError:  # not installed: Pillow's own font (no box-drawing glyphs)
        return ImageFont.load_default(size=13)


def draw_png(strips: list[Strip]) -> bytes:
    """Draw the strips as a PNG: every cell ``CELL_WIDTH`` x ``CELL_HEIGHT`` px, with its
    background, foreground and reverse video as the terminal would show them."""
    from PIL import Image, ImageDraw
    from rich.cells import get_character_cell_size

    width = max((strip.cell_length for strip in strips), default=0)
    image = Image.new("RGB", (max(width, 1) * CELL_WIDTH, max(len(strips), 1) * CELL_HEIGHT))
    draw = ImageDraw.Draw(image)
    font = _font()
    for row, strip in enumerate(strips):
        top = row * CELL_HEIGHT
        column = 0
        for text, style, _control in strip:
            cells = sum(get_character_cell_size(char) for char in text)
            if not cells:
                continue
            fg, bg = _colours(style)
            left = column * CELL_WIDTH
            draw.rectangle(
                (left, top, left + cells * CELL_WIDTH - 1, top + CELL_HEIGHT - 1), fill=bg
            )
            for char in text:
                if not char.isspace():
                    draw.text((column * CELL_WIDTH, top + 1), char, font=font, fill=fg)
                column += get_character_cell_size(char)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


_DEFAULT_FG = (224, 224, 224)
_DEFAULT_BG = (0, 0, 0)


@cache
def _colours(style) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    if style is None:
        return _DEFAULT_FG, _DEFAULT_BG
    fg = tuple(style.color.get_truecolor()) if style.color is not None else _DEFAULT_FG
    bg = (
        tuple(style.bgcolor.get_truecolor(foreground=False))
        if style.bgcolor is not None
        else _DEFAULT_BG
    )
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = tuple((f + b) // 2 for f, b in zip(fg, bg, strict=True))
    return fg, bg


__all__ = ["KEYS", "TextualDevice", "draw_png", "load_app_factory", "render_strips"]
