"""``TextualDevice``: ``orav.device.Device`` over a Textual app running under Pilot, in-process.

The app runs in orav's own event loop (``companion.host``, called directly), so it must share
orav's Textual; an app pinned to another one runs in its own environment instead
(``remote``). The processes it starts end when it is stopped (``sandbox.Brood``), and what it
changes of orav's process while orav calls it (working folder, environment, descriptors 1 and
2, signal handlers, an alarm) is put back after each call (``footprint``). Every call is
bounded by ``timeout``; what an observation holds and how actions become calls is ``calls``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from orav.drivers.textual.calls import (
    STALLED_START,
    START_SECONDS,
    TextualCalls,
    progressing,
)
from orav.drivers.textual.companion.host import Failed, Host, load_app
from orav.drivers.textual.footprint import Footprint
from orav.drivers.textual.spec import parse_spec
from orav.errors import DeviceError, InputError
from orav.sandbox import Brood

if TYPE_CHECKING:
    from textual.app import App


def load_app_factory(spec: str) -> Callable[[], App]:
    """``package.module:AppClass`` or ``package.module:AppClass?name=value&...`` → a factory
    building a fresh app (with those keyword arguments, as strings); InputError naming what
    could not be found or what failed while importing."""
    parsed = parse_spec(spec)
    if importlib.util.find_spec("textual") is None:
        raise InputError(
            "Textual is not installed beside orav: pip install 'orav[textual]' for an app on "
            f"Textual 8, or run the app in its own venv: textual+PATH/TO/python:{parsed.app}",
            "--device",
        )
    try:
        app_class = load_app(parsed.module, parsed.class_name)
    except Failed as exc:
        raise InputError(str(exc), "--device") from None
    arguments = dict(parsed.arguments)
    if not arguments:
        return app_class  # type: ignore[no-any-return]

    def factory(**more: Any) -> App:
        return app_class(**{**arguments, **more})  # type: ignore[no-any-return]

    factory.__name__ = parsed.class_name
    factory.app_class = app_class  # type: ignore[attr-defined]
    return factory


class TextualDevice(TextualCalls):
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
        super().__init__()
        self.factory = factory
        self.name = name or str(getattr(factory, "__name__", type(factory).__name__))
        self.size = size
        self.timeout = timeout
        self.max_wait = max_wait
        self.host = Host(factory, size)
        self._brood: Brood | None = None

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> TextualDevice:
        """``package.module:AppClass[@WIDTHxHEIGHT][?name=value&...]``: the app (see
        ``load_app_factory``) in a terminal of that size (80x24 unless given)."""
        parsed = parse_spec(spec)
        if parsed.size is not None:
            options.setdefault("size", parsed.size)
        path, mark, query = spec.partition("?")
        factory = load_app_factory(path.partition("@")[0] + mark + query)
        return cls(factory, name=parsed.class_name, **options)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def app(self) -> App | None:
        """The app of the current launch (None before the first)."""
        return self.host.app  # type: ignore[no-any-return]

    @property
    def stderr(self) -> str:
        """What the current (or last) launch printed on Textual's error console."""
        return self.host.stderr

    async def launch(
        self,
        bundle_id: str = "",
        *,
        arguments: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """Start a fresh app unless one is running (as idb launches: foreground if running):
        until the app is ready, at most ``START_SECONDS`` of this process's CPU time, or
        ``timeout`` when that is longer (``calls.progressing``)."""
        if arguments or environment:
            raise self._ios_only("launch with arguments or an environment")
        bound = max(START_SECONDS, self.timeout)
        if self._brood is None:
            self._brood = Brood.start()  # what the app starts, ended with it
        starting = asyncio.ensure_future(self.host.launch())
        try:
            with Footprint():
                await progressing(starting, bound, STALLED_START, time.process_time)
        except TimeoutError:
            await self._stop()
            raise DeviceError(
                f"textual app {self.name} did not start within {bound:g} s of CPU time"
            ) from None
        except Failed as exc:
            raise DeviceError(f"textual app {self.name} failed to start: {exc}") from None

    async def terminate(self, bundle_id: str = "") -> None:
        await self._stop()

    async def close(self) -> None:
        await self._stop()

    async def _stop(self) -> None:
        """The app stopped, and every process it started killed (``sandbox.Brood``)."""
        try:
            with Footprint():
                await self.host.stop(self.timeout)
        finally:
            if self._brood is not None:
                self._brood.end()
                self._brood = None

    async def _call(self, name: str, args: dict[str, Any], takes: float = 0.0) -> Any:
        """The call's answer; a DeviceError once it took ``timeout`` (and what it ``takes``)
        seconds of this process's CPU time, or ``START_SECONDS`` of the clock's when that is
        longer: a busy machine slows the app down, it does not hang it."""
        limit = self.timeout + takes
        call = asyncio.ensure_future(self.host.call(name, args))
        try:
            with Footprint():
                return await progressing(call, limit, max(START_SECONDS, limit), time.process_time)
        except TimeoutError:
            raise DeviceError(
                f"textual app {self.name} did not finish {name} within {limit:g} s"
            ) from None
