"""Textual's API as it differs from 0.47 to 8.x: one function per difference, so the rest of the
package reads one API.

What changed, and where this answers it: active bindings (``App.active_bindings`` since 0.61,
``namespace_bindings`` before), a widget's disabled state (``is_disabled``, ``_check_disabled``
before), the Footer (one ``FooterKey`` child per binding since 0.63, filled a few refreshes late
in 8.x; drawn by itself before), a Static's own text (``Content`` since 2.0, rich ``Text``
before), scrolling at once (``immediate=`` since 0.70), the composed screen
(``Screen._compositor.render_strips()``, private in every version), what a settle asks (the
animator, the screen's refresh flags, workers) and the events Pilot sends (mouse events name
their widget and a Click its chain in 8.x). Private attributes are read
with a default, so an app on a version without them loses a detail, never the observation.
"""

from __future__ import annotations

import contextlib
import inspect
import unicodedata
import weakref
from functools import cache
from typing import Any


def version() -> str:
    try:
        from importlib.metadata import version as installed

        return installed("textual")
    except Exception:  # noqa: BLE001 - a vendored or renamed Textual
        return "unknown"


def render_strips(app: Any) -> list:
    """The screen as the terminal shows it, one Strip per row (private in every version).

    A Screen renders itself over the screens beneath it, read from a context variable that the
    app's own refresh sets in its task: set here too, in the caller's (a copy: rendering pops
    it); without it 0.47 failed a look right after a launch."""
    try:
        from textual._context import visible_screen_stack
    except ImportError:
        pass
    else:
        visible_screen_stack.set(list(getattr(app, "_background_screens", [])))
    return app.screen._compositor.render_strips()


def disabled(widget: Any) -> bool:
    """Disabled itself or through an ancestor."""
    is_disabled = getattr(widget, "is_disabled", None)
    if isinstance(is_disabled, bool):
        return is_disabled
    check = getattr(widget, "_check_disabled", None)
    return bool(check()) if check is not None else bool(getattr(widget, "disabled", False))


def bindings(app: Any) -> list[tuple[str, Any, Any, bool]]:
    """(key, node defining it, Binding, enabled) of every active binding of the focused chain."""
    active = getattr(app, "active_bindings", None)
    if isinstance(active, dict):
        return [(key, a.node, a.binding, bool(a.enabled)) for key, a in active.items()]
    return [(key, node, binding, True) for key, (node, binding) in app.namespace_bindings.items()]


def system_commands(app: Any) -> list[Any]:
    """The command palette's system commands for the current screen (``get_system_commands``,
    0.80 on; none before). An app's override may fail: then none."""
    get = getattr(app, "get_system_commands", None)
    if get is None:
        return []
    try:
        return list(get(app.screen))
    except Exception:  # noqa: BLE001 - the app's own code: a look never fails on it
        return []


PALETTE_SECONDS = 0.5  # an app's palette provider answers within this, or lists nothing
PALETTE_HITS = 60  # hits read from the app's own providers at most
# What the providers listed, read once per screen (a provider is the app's code: not at every
# look), forgotten with the screen.
_PROVIDED: weakref.WeakKeyDictionary[Any, list[str]] = weakref.WeakKeyDictionary()


async def provider_commands(app: Any) -> list[str]:
    """What the app's own command palette providers list before anything is typed (their
    ``discover`` hits, 0.48 on: ``App.COMMANDS`` and the screen's, Textual's own left out): the
    commands an app such as dolphie keeps there. A provider that fails or outlasts
    ``PALETTE_SECONDS`` lists nothing; the look goes on."""
    import asyncio

    try:
        from textual.command import Provider
    except ImportError:
        return []
    screen = app.screen
    if screen in _PROVIDED:
        return _PROVIDED[screen]
    found: list[str] = []
    for source in [*getattr(app, "COMMANDS", ()), *getattr(screen, "COMMANDS", ())]:
        own = inspect.isclass(source) and issubclass(source, Provider)
        if not own or source.__module__.split(".")[0] == "textual":
            continue
        with contextlib.suppress(Exception):  # the app's own code: a look never fails on it
            await asyncio.wait_for(_discovered(source(screen), found), PALETTE_SECONDS)
    _PROVIDED[screen] = found[:PALETTE_HITS]
    return _PROVIDED[screen]


async def _discovered(provider: Any, found: list[str]) -> None:
    await provider.startup()
    async for hit in provider.discover():
        text = getattr(hit, "text", None) or getattr(hit, "display", None)
        if hit is not NotImplemented and text:
            found.append(str(getattr(text, "plain", text)))
        if len(found) >= PALETTE_HITS:
            return


def footer_keys() -> bool:
    """Whether this Textual's Footer shows its keys as ``FooterKey`` children (0.63 on)."""
    try:
        from textual.widgets._footer import FooterKey  # noqa: F401
    except ImportError:
        return False
    return True


def footer_ready(footer: Any, app: Any) -> bool:
    """True once the Footer shows the screen's shown bindings (8.x fills it a few refreshes
    after the screen mounts; older ones draw it at once)."""
    if not footer_keys():
        return True
    if not getattr(footer, "_bindings_ready", True):  # private, 8.x
        return False
    return bool(footer.children) or not any(
        binding.show for _key, _node, binding, _enabled in bindings(app)
    )


def plain_content(widget: Any) -> str | None:
    """A Static's own text (whole even when wrapped or clipped) when it is plain ``Content``
    (2.0 on); None otherwise (the caller reads the rendered cells)."""
    try:
        from textual.content import Content
    except ImportError:
        return None
    visual = getattr(widget, "visual", None)
    if isinstance(visual, Content):
        return " ".join(visual.plain.split()) or None
    return None


@cache
def _scrolls_immediately(method: Any) -> bool:
    return "immediate" in inspect.signature(method).parameters


def scroll_by(widget: Any, dx: int, dy: int) -> None:
    """Scroll a widget by cells, without animation, applied before the next refresh."""
    options: dict[str, Any] = {"animate": False}
    if _scrolls_immediately(type(widget).scroll_relative):
        options["immediate"] = True
    widget.scroll_relative(x=dx or None, y=dy or None, **options)


def character_key(char: str) -> str:
    """Textual's key name of a printable character (private ``_character_to_key`` where it
    exists; the same rule otherwise)."""
    try:
        from textual.keys import _character_to_key

        return _character_to_key(char)
    except ImportError:
        pass
    if char.isalnum():
        return char
    return unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")


def app_exception(app: Any) -> BaseException | None:
    """The exception an app under ``run_test`` raised (kept privately by Textual)."""
    error = getattr(app, "_exception", None)
    return error if isinstance(error, BaseException) else None


def animating(app: Any) -> bool:
    """Whether an animation runs or is scheduled (the animator's private completion event;
    its private tables where that is missing)."""
    animator = getattr(app, "animator", None) or getattr(app, "_animator", None)
    complete = getattr(animator, "_complete_event", None)
    if complete is not None:
        return not complete.is_set()
    return bool(getattr(animator, "_animations", None) or getattr(animator, "_scheduled", None))


def refresh_pending(screen: Any) -> bool:
    """Whether the screen has a layout, a repaint, dirty widgets or callbacks waiting for its
    next refresh (``call_after_refresh``; private flags and lists)."""
    return any(
        getattr(screen, name, False)
        for name in ("_layout_required", "_repaint_required", "_dirty_widgets", "_callbacks")
    )


def working(app: Any) -> bool:
    """Whether a worker of the app is pending or running."""
    for worker in getattr(app, "workers", ()):
        state = getattr(getattr(worker, "state", None), "name", "")
        if state in ("PENDING", "RUNNING"):
            return True
    return False


def timer_due(node: Any, within: float) -> bool:
    """Whether the node has a one-shot timer (``set_timer``) of at most ``within`` seconds
    still to fire (its private timer set; a timer's repeat count, interval and task)."""
    for timer in list(getattr(node, "_timers", ())):
        task = getattr(timer, "_task", None)
        if task is None or task.done() or getattr(timer, "_repeat", None) != 0:
            continue
        if getattr(timer, "_interval", within + 1) <= within:
            return True
    return False


def offset(x: int, y: int) -> Any:
    from textual.geometry import Offset

    return Offset(x, y)


@cache
def _takes_chain(event_class: Any) -> bool:
    return "chain" in inspect.signature(event_class).parameters


def mouse_arguments(event_class: Any, screen: Any, x: int, y: int) -> dict[str, Any]:
    """The arguments of a mouse event at cell ``(x, y)``, as Pilot builds them (8.x names the
    widget, a Click its chain; 0.47 neither)."""
    from textual.pilot import _get_mouse_message_arguments

    arguments = _get_mouse_message_arguments(screen, (x, y))
    if _takes_chain(event_class):
        arguments["chain"] = 1
    return arguments


def pressed_key(key: str) -> tuple[str, str | None]:
    """The key event Pilot's ``press`` sends for ``key``: its name (``?`` → ``question_mark``)
    and the character a terminal sends with it (``escape`` → ``\\x1b``; None for ``up``)."""
    from textual.keys import REPLACED_KEYS, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = character_key(key)
    try:
        return key, unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        return key, key if len(key) == 1 else None


def queued(node: Any) -> bool:
    """Whether a message pump has messages waiting (its private queue), a timer's tick aside:
    an animation or a clock ticks every frame, and a tick is no input still being handled."""
    from textual.events import Timer

    queue = getattr(node, "_message_queue", None)
    if queue is None or queue.empty():
        return False
    # Textual's own Queue keeps ``values`` (8.x); asyncio.Queue its private ``_queue`` (0.47)
    waiting = getattr(queue, "values", None)
    if waiting is None:
        waiting = getattr(queue, "_queue", None)
    if waiting is None:
        return True
    return any(message is not None and not isinstance(message, Timer) for message in waiting)


def print_to(app: Any, stdout: Any, stderr: Any) -> None:
    """Where a headless app's prints go: Textual sends them on to the streams it found at the
    app's start (``_original_stdout``, ``_original_stderr``, private in every version; an app
    of a version without them prints through ``sys.stdout`` itself)."""
    if hasattr(app, "_original_stdout"):
        app._original_stdout, app._original_stderr = stdout, stderr
