"""Textual's API as it differs from 0.47 to 8.x: one function per difference, so the rest of the
package reads one API.

What changed, and where this answers it: active bindings (``App.active_bindings`` since 0.61,
``namespace_bindings`` before), a widget's disabled state (``is_disabled``, ``_check_disabled``
before), the Footer (one ``FooterKey`` child per binding since 0.63, filled a few refreshes late
in 8.x; drawn by itself before), a Static's own text (``Content`` since 2.0, rich ``Text``
before), scrolling at once (``immediate=`` since 0.70) and the composed screen
(``Screen._compositor.render_strips()``, private in every version). Private attributes are read
with a default, so an app on a version without them loses a detail, never the observation.
"""

from __future__ import annotations

import inspect
import unicodedata
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


def pending_messages(app: Any) -> bool:
    """Whether the app or a widget of its screen has messages waiting (private
    ``_message_queue``): older Pilots' pauses return before a bubbling message (a Button's
    Pressed on its way to the App) has been handled."""
    for node in (app, *app.screen.walk_children(with_self=True)):
        queue = getattr(node, "_message_queue", None)
        if queue is not None and not queue.empty():
            return True
    return False
