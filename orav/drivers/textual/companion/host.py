"""The calls orav makes on a Textual app, by name, with JSON-able arguments and results.

Both drivers go through here: the in-process one calls ``Host.call`` directly, the companion
reads the same calls from a pipe (``__main__``). So an observation, a refusal and its wording
are the same whichever side of a process boundary the app runs on.

Calls: ``launch``, ``terminate``, ``state`` (running, and why not), ``look`` (element facts and
rendered rows), ``candidates`` (the facts a target is chosen from, kept for ``click``), ``click``
(one of those, where nothing covers it), ``click_at``, ``type``, ``press``, ``scroll``,
``settle`` and ``stderr``. A call the app cannot take raises ``Refused``; an app that cannot
start raises ``Failed``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from . import compat, lines, quiet
from .actions import candidates, click_at, click_element, scroll, typed_keys
from .facts import Pair, composed, scan
from .session import Refused, Session, describe_exception, no_arguments

# Refreshes a look may wait for a newly pushed screen to be composed (its Footer filled: a
# look before that misses the screen's keys). It ends as soon as the screen is: the bound is
# for a Footer that never fills, as the launch's COMPOSE_PAUSES.
LOOK_PAUSES = 20

# What each call is, in the words of a refusal.
_WHAT = {
    "look": "observe",
    "candidates": "tap",
    "click": "tap",
    "click_at": "tap",
    "type": "typing",
    "scroll": "swipe",
}


class Failed(Exception):
    """The app could not be built or started (the reason is the message)."""


def load_app(module_name: str, class_name: str) -> Any:
    """The App class ``module:Class``, its module imported with the working folder on
    ``sys.path`` (as ``python -m`` and pytest put it: under the ``orav`` script it is not) and
    no arguments on its command line;
    ``Failed`` naming what could not be found or what the module raised while importing."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        with no_arguments():  # a module may parse its command line on import
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise Failed(f"cannot import module {module_name!r}: {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - whatever the module raised (argparse exits)
        raise Failed(f"importing module {module_name!r} raised {describe_exception(exc)}") from None
    app_class = getattr(module, class_name, None)
    from textual.app import App

    if not isinstance(app_class, type) or not issubclass(app_class, App):
        raise Failed(f"module {module_name!r} has no Textual App class {class_name!r}")
    return app_class


class Host:
    """The app under test, built by ``factory`` at every launch in a ``size`` terminal."""

    def __init__(
        self, factory: Callable[[], Any], size: tuple[int, int], echo: IO[str] | None = None
    ) -> None:
        self.factory = factory
        self.size = size
        self.echo = echo
        self.session: Session | None = None
        self.failure: str | None = None  # why the last launch is no longer running
        self._stderr = ""
        self._pairs: list[Pair] = []

    @property
    def app(self) -> Any:
        return self.session.app if self.session is not None else None

    @property
    def running(self) -> bool:
        return self.session is not None and self.session.running

    @property
    def stderr(self) -> str:
        """What the current (or last) launch printed on Textual's error console."""
        return self.session.stderr if self.session is not None else self._stderr

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        """Do call ``name``; Refused when the app cannot take it."""
        if name == "launch":
            return await self.launch(**args)
        if name == "terminate":
            return await self.stop(**args)
        if name == "stderr":
            return self.stderr
        if self.session is not None and not self.session.running:
            await self._retire()
        if name == "state" or (name == "look" and self.session is None):
            return {"running": self.session is not None, "failure": self.failure}
        if name == "settle" and self.session is None:
            return None
        return await self._in_app(name, args)

    async def _in_app(self, name: str, args: dict[str, Any]) -> Any:
        """Do job ``name`` in the running app; Refused when none runs or the app refuses it."""
        job = _JOBS.get(name)
        if job is None:
            raise Refused(f"unknown call {name!r}")
        session = self.session
        what = f"key {args.get('key')}" if name == "press" else _WHAT.get(name, name)
        if session is None or session.finished:
            raise Refused(f"the app is not running ({what})")
        try:
            return await session.run(lambda pilot: job(self, pilot, **args))
        except Refused:
            raise
        except Exception as exc:  # noqa: BLE001 - the app raised handling it, or Pilot refused it
            if name == "settle":
                return None  # the app failed meanwhile: the next look says how
            state = "" if session.running else f"; {session.failure}"
            raise Refused(f"{what} failed: {describe_exception(exc)}{state}") from None

    async def launch(self) -> None:
        """Start a fresh app unless one is running (as idb launches: foreground if running)."""
        if self.running:
            return
        await self.stop()
        try:
            with no_arguments():
                app = self.factory()
            self.session = Session(app, self.size, self.echo)
            await self.session.start()
        except asyncio.CancelledError:
            await self.stop()
            raise
        except Failed:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - whatever the app raised (or exit)
            await self.stop()
            raise Failed(describe_exception(exc)) from None

    async def _retire(self) -> None:
        """An app that quit or raised: keep why, and leave its ``run_test`` (where Textual
        prints the app's traceback on its error console, so stderr has it now)."""
        failure = self.session.failure if self.session is not None else None
        await self.stop()
        self.failure = failure

    async def stop(self, timeout: float = 5.0) -> None:
        """Shut the app down (cancelled after ``timeout`` seconds)."""
        self.failure = None
        session, self.session = self.session, None
        self._pairs = []
        if session is not None:
            self._stderr = session.stderr
            await session.stop(timeout)
            self._stderr = session.stderr

    # --- jobs: run in the app's task with its pilot --------------------------------------------

    async def _look(self, pilot: Any) -> dict[str, Any]:
        app = pilot.app
        if _stop_blinking(app):
            await pilot.pause()
        for _ in range(LOOK_PAUSES):
            if composed(app):
                break
            await pilot.pause()
        commands = await compat.provider_commands(app)
        strips = compat.render_strips(app)
        facts = [fact for fact, _ in scan(app, strips, commands)]
        return {"running": True, "elements": facts, "rows": lines.rows(strips)}

    async def _candidates(self, pilot: Any, selector: str | None = None) -> list[dict]:
        self._pairs = candidates(pilot.app, selector)
        return [fact for fact, _ in self._pairs]

    async def _click(
        self, pilot: Any, index: int, target: str, vision: list[float] | None = None
    ) -> list[float]:
        if not 0 <= index < len(self._pairs):
            raise Refused(f"no candidate {index} for {target} (ask for candidates first)")
        pair, self._pairs = self._pairs[index], []
        point = await click_element(pilot, pair, target, (vision[0], vision[1]) if vision else None)
        return list(point)

    async def _click_at(self, pilot: Any, x: float, y: float) -> list[float]:
        return list(await click_at(pilot, x, y))

    async def _type(self, pilot: Any, text: str, secure: bool = False) -> None:
        await quiet.send_keys(pilot.app, typed_keys(text, secure))

    async def _press(self, pilot: Any, key: str) -> None:
        await quiet.send_keys(pilot.app, [compat.pressed_key(key)])

    async def _scroll(self, pilot: Any, start: list[float], end: list[float]) -> list[float]:
        return list(await scroll(pilot, (start[0], start[1]), (end[0], end[1])))

    async def _settle(self, pilot: Any, limit: float, floor: float = 0.0) -> bool:
        """Whether the app fell quiet within ``limit`` seconds (``quiet.settle``: no message,
        animation, refresh or worker waiting, the screen unchanged for a frame), at least
        ``floor`` seconds after it began; measured where the app runs."""
        return await quiet.settle(pilot.app, limit, floor)


_JOBS: dict[str, Callable[..., Any]] = {
    "look": Host._look,
    "candidates": Host._candidates,
    "click": Host._click,
    "click_at": Host._click_at,
    "type": Host._type,
    "press": Host._press,
    "scroll": Host._scroll,
    "settle": Host._settle,
}


def _stop_blinking(app: Any) -> bool:
    """Switch cursor blinking off (the cursor stays shown): an unchanged screen then renders
    the same twice. True when some widget was still blinking."""
    blinking = [w for w in app.screen.walk_children() if getattr(w, "cursor_blink", False)]
    for widget in blinking:
        widget.cursor_blink = False
    return bool(blinking)
