"""When a Textual app is quiet, read where the app runs, and waits that are always bounded.

Pilot's own waits are not bounded by anything but Textual's 30 s: ``pilot.press`` waits until
every animation is complete (a game that animates forever holds it up for good) and each of
``pilot.click``'s four pauses waits until the process's CPU falls idle (up to 1 s each while
anything animates). So the driver sends keys and mouse events itself and waits only with a
bound (``drain``), and the settle after an action asks Textual what it is still doing:

- messages: every node of the app and its screen has handled what was queued (a callback at
  the back of each queue, as Pilot's ``_wait_for_screen`` does, but with a time limit), which
  also waits for a handler still running;
- animations: the animator has none running or scheduled;
- the refresh: the screen has no layout, repaint, dirty widget or ``call_after_refresh``
  callback waiting;
- workers: none pending or running;
- short timers: no one-shot timer of at most ``SHORT_TIMER`` seconds waiting to fire (a
  pressed button's 0.2 s flash, a debounce): what the action set off ends there, and a look
  before or after it would see another screen by chance. A longer one (a toast's expiry) and
  an interval (a clock) are the app's own clock, never waited for;
- the screen: the same screen, the same stack depth and the same rendered rows two frames
  in a row (a screen switch, a tab's underline or a timer's change shows there).

Quiet is all of these, never sooner than ``floor`` after the settle began; an app that never
gets there (an endless animation, a ticking clock every frame) is "not quiet" at ``limit``,
and the caller goes on. Private state is read with a default (``compat``), so an older Textual
loses a signal, never the settle.
"""

from __future__ import annotations

import asyncio
from typing import Any

from . import compat, lines

# Seconds between two looks at the app while settling: a little over a 60 Hz frame.
FRAME = 0.02
# The longest an action waits for the app to handle its events and finish the animations they
# started before it returns (what ``pilot.press`` waits for, without a bound): a scenario with
# a fixed ``settle_seconds`` sees what the action did; an app that animates forever costs this.
ACTION_WAIT = 0.5
# The longest one-shot timer a settle waits for (see the module docstring).
SHORT_TIMER = 0.5


async def drain(app: Any, timeout: float) -> bool:
    """True once two rounds of ``handled`` in a row leave no message waiting anywhere in the
    app and its screen, within ``timeout`` seconds; False when the time is up first. A message
    handled may post the next (a Click a Pressed), and a key's binding may push a screen from
    a task of its own: one round that ends empty is not enough."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    empty = 0
    while empty < 2:
        if not await handled(app, deadline - loop.time()):
            return False
        empty = 0 if any(compat.queued(node) for node in _nodes(app)) else empty + 1
    return True


async def handled(app: Any, timeout: float) -> bool:
    """True once the app and every widget of its screen handled what was queued before (and
    any handler still running finished), within ``timeout`` seconds: one callback at the back
    of each queue, as Pilot's ``_wait_for_screen`` does, with a time limit."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    left = 0

    def one() -> None:
        nonlocal left
        left -= 1
        if left == 0 and not done.done():
            done.set_result(None)

    for node in _nodes(app):
        if node.call_later(one):
            left += 1
    if not left:
        return True
    try:
        await asyncio.wait_for(asyncio.shield(done), max(0.0, timeout))
    except TimeoutError:  # the builtin TimeoutError only from Python 3.11
        return False
    return True


def _nodes(app: Any) -> list[Any]:
    return [app, *app.screen.walk_children(with_self=True)]


def busy(app: Any) -> str | None:
    """What Textual is still doing besides messages (see the module docstring), or None."""
    if compat.animating(app):
        return "animation"
    if compat.refresh_pending(app.screen):
        return "refresh"
    if compat.working(app):
        return "worker"
    if any(compat.timer_due(node, SHORT_TIMER) for node in _nodes(app)):
        return "timer"
    return None


def frame(app: Any) -> tuple[Any, ...]:
    """What the screen shows now: which screen, how deep the stack, the rendered rows."""
    stack = getattr(app, "screen_stack", ())
    return id(app.screen), len(stack), lines.rows(compat.render_strips(app))


async def settle(app: Any, limit: float, floor: float) -> bool:
    """Wait until the app is quiet (True), at least ``floor`` and at most ``limit`` seconds;
    False when ``limit`` passed first (the app is "not quiet")."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + limit
    last: tuple[Any, ...] | None = None
    while True:
        drained = await drain(app, deadline - loop.time())
        now = frame(app) if drained and busy(app) is None else None
        if now is not None and now == last and loop.time() - start >= floor:
            return True
        last = now
        left = deadline - loop.time()
        if left <= 0:
            return False
        await asyncio.sleep(min(FRAME, left))


async def calm(app: Any, timeout: float) -> bool:
    """After an action: its events handled, the animations they started done, and the screen's
    own refresh come and gone with what waited for it (``call_after_refresh``), within
    ``timeout`` seconds (False when the time is up first). The refresh is never forced: a
    refresh out of turn runs those callbacks before the widgets caught up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while await drain(app, deadline - loop.time()):
        if not compat.animating(app) and not compat.refresh_pending(app.screen):
            return True
        left = deadline - loop.time()
        if left <= 0:
            break
        await asyncio.sleep(min(FRAME, left))
    return False


async def send_keys(app: Any, keys: list[tuple[str, str | None]]) -> None:
    """Send keys (name, character) at once as a terminal would, and give the app
    ``ACTION_WAIT`` to handle them (forwarded to the focused widget, and what that posts)."""
    from textual import events

    for key, char in keys:
        app.post_message(events.Key(key, char))
    await calm(app, ACTION_WAIT)


async def send_click(app: Any, x: int, y: int) -> None:
    """A mouse button pressed, released and clicked on cell ``(x, y)``, each after what came
    before was handled, then ``ACTION_WAIT`` for the app to handle the click (``pilot.click``
    without its waits for an idle CPU)."""
    from textual.events import Click, MouseDown, MouseUp

    screen = app.screen
    for kind in (MouseDown, MouseUp, Click):
        await handled(app, ACTION_WAIT)
        app.mouse_position = compat.offset(x, y)
        screen._forward_event(kind(**compat.mouse_arguments(kind, screen, x, y)))
    await calm(app, ACTION_WAIT)
