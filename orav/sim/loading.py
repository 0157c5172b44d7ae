"""Loading an app model: its structure through ``orav.codec.load_yaml`` (errors with
file:line:col), then the semantic checks the types cannot make (unknown screens, duplicate
ids, conditions on fields or state that do not exist, expressions that do not parse, sizes
the simulator cannot draw), the first problem one ``InputError`` at its file:line:col.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from orav.codec import load_yaml, locate, read_text, show
from orav.errors import InputError
from orav.sim.appmodel import (
    BACK,
    KEYS,
    LAUNCH_NAMES,
    LIMIT,
    MAX_ANIMATION_MS,
    MAX_PIXELS,
    ROLES,
    AlertSpec,
    AppModel,
    ElementSpec,
    Screen,
    Transition,
)
from orav.sim.expr import Expr, ExprError, Template, parse_expr, parse_template

Problem = tuple[tuple[Any, ...], str]


def load_app_model(source: Path | str, *, name: str | None = None, scale: float = 1.0) -> AppModel:
    """Load and check an app model from a file (Path) or YAML text; InputError on any problem.

    ``scale`` is the screenshots' pixels per point: a screen it would make too large to draw
    is refused at the model's ``width``.
    """
    if isinstance(source, Path):
        where = name or str(source)
        text = read_text(source, where)
    else:
        text, where = source, name or "<app model>"
    model = load_yaml(text, AppModel, source=where)
    problem = _first_problem(model)
    if problem is None:
        problem = pixels_problem(model, scale)
    if problem is not None:
        path, what = problem
        raise InputError(what, locate(text, path, where))
    return model


def pixels_problem(model: AppModel, scale: float) -> Problem | None:
    """A screenshot larger than MAX_PIXELS (a 10,000-point square at scale 4 would take
    30 s and 6 GB to draw): the problem, at ``width``; None when it fits."""
    pixels = model.width * scale * model.height * scale
    if math.isfinite(pixels) and pixels <= MAX_PIXELS:
        return None
    what = (
        f"a {model.width:g} x {model.height:g} pt screen at scale {scale:g} is "
        f"{pixels / 1e6:,.0f} megapixels a screenshot; the simulator draws at most "
        f"{MAX_PIXELS / 1e6:g} (lower the scale, width or height)"
    )
    return ("width",), what


def _first_problem(model: AppModel) -> Problem | None:
    """The first semantic problem as (path into the YAML, message), or None."""
    return next(_problems(model), None)


def _problems(model: AppModel) -> Iterator[Problem]:
    screens = model.screens
    if not screens:
        yield ("screens",), "an app needs at least one screen"
        return
    yield from _state_problems(model)
    yield from _start_problems(model)
    yield from _animation_problem(model.animation_ms, ("animation_ms",))
    for side in ("width", "height"):
        size = getattr(model, side)
        if not 0 < size <= LIMIT:  # NaN fails too
            yield (side,), f"{side} must be a number of points above 0 and at most {LIMIT:g}"
    yield from _tab_problems(model)
    for screen_name, screen in screens.items():
        yield from _screen_problems(model, screen_name, screen)
    for route, transitions in model.routes.items():
        scope = _Scope(model, frozenset(), frozenset({"url"}))  # routes read the URL
        found = _transitions_problems(transitions, model, scope)
        yield from (((("routes", route, *path), what) for path, what in found))
    for index, fault in enumerate(model.faults):
        if fault.on_screen is not None and fault.on_screen not in screens:
            yield ("faults", index, "on_screen"), f"unknown screen {fault.on_screen!r}"


def _start_problems(model: AppModel) -> Iterator[Problem]:
    """A start screen that is not a screen: named, or among the names a template can give."""
    screens = model.screens
    if "{" in model.start:
        yield from _template_problem(model.start, model.names, ("start",))
        for constant in _constants(model.start):
            if constant not in screens:
                what = f"start can give {constant!r}, not a screen; screens are {sorted(screens)}"
                yield ("start",), what
    elif model.start not in screens:
        yield ("start",), f"unknown start screen {model.start!r}; screens are {sorted(screens)}"


def _tab_problems(model: AppModel) -> Iterator[Problem]:
    tab_ids: set[str] = set()
    for index, tab in enumerate(model.tabs):
        if tab.id in tab_ids:
            yield ("tabs", index, "id"), f"duplicate tab id {tab.id!r}"
        tab_ids.add(tab.id)
        if tab.screen not in model.screens:
            yield ("tabs", index, "screen"), f"unknown screen {tab.screen!r}"
        elif model.tab_of(tab.screen) is not tab:
            yield ("tabs", index, "screen"), f"screen {tab.screen!r} is the root of two tabs"


def _state_problems(model: AppModel) -> Iterator[Problem]:
    seen: dict[str, str] = {}
    for part in ("state", "keychain", "data", "computed"):
        for key, value in getattr(model, part).items():
            if not key.isidentifier() or key in LAUNCH_NAMES:
                yield (part, key, None), f"{key!r} cannot be a name: use letters, digits and _"
            elif key in seen:
                yield (part, key, None), f"{key!r} is in {seen[key]} already"
            seen[key] = part
            if part == "computed":
                earlier = frozenset({*model.state, *model.keychain, *model.data, *LAUNCH_NAMES})
                known = earlier | (seen.keys() & set(model.computed)) - {key}
                yield from _expr_problem(value, frozenset(known), (part, key))
            elif part != "data" and not _plain_value(value):
                what = "a state value is true/false, a number, text or a list of those"
                yield (part, key), f"{what}, got {show(value)}"
    element_ids = {
        e.id for screen in model.screens.values() for e in _walk(screen.elements) if e.id
    }
    for name in sorted(seen.keys() & element_ids):
        what = f"{name!r} is also an element id; expressions could not tell them apart"
        yield (seen[name], name, None), what


def _constants(template: str) -> list[str]:
    """The screens a start template can give that are written out: the text constants its
    expression returns directly (through ``a if c else b`` and ``or``), when it is one hole."""
    try:
        whole = parse_template(template).whole
    except ExprError:
        return []
    return _results(whole.tree) if whole is not None else []


def _results(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.IfExp):
        return [*_results(node.body), *_results(node.orelse)]
    if isinstance(node, ast.BoolOp):
        return [r for value in node.values for r in _results(value)]
    return []


def _plain_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain_value(v) and not isinstance(v, list) for v in value)
    return isinstance(value, (bool, int, float, str))


def _walk(elements: tuple[ElementSpec, ...]) -> Iterator[ElementSpec]:
    for element in elements:
        yield element
        yield from _walk(element.elements)


class _Scope:
    """What the expressions at one place may read: the app's names, the screen's ids, the items
    of the repeats around them."""

    def __init__(self, model: AppModel, ids: frozenset[str], bound: frozenset[str] = frozenset()):
        self.model, self.ids, self.bound = model, ids, bound

    @property
    def names(self) -> frozenset[str]:
        return self.model.names | self.ids | self.bound

    def inner(self, item: str) -> _Scope:
        return _Scope(self.model, self.ids, self.bound | {item})

    def describe(self) -> str:
        state = sorted({*self.model.state, *self.model.keychain, *self.model.data})
        return f"state {state}, ids {sorted(self.ids)}" + (
            f", items {sorted(self.bound)}" if self.bound else ""
        )


def _screen_problems(model: AppModel, screen_name: str, screen: Screen) -> Iterator[Problem]:
    base = ("screens", screen_name)
    yield from _animation_problem(screen.animation_ms, (*base, "animation_ms"))
    ids = frozenset(e.id for e in _walk(screen.elements) if e.id and "{" not in e.id)
    scope = _Scope(model, ids)
    if screen.title is not None:
        yield from _template_problem(screen.title, scope.names, (*base, "title"), scope)
    seen: set[str] = set()
    yield from _elements_problems(screen.elements, (*base, "elements"), scope, seen, screen_name)
    for direction, transitions in screen.on_swipe.items():
        for path, what in _transitions_problems(transitions, model, scope):
            yield (*base, "on_swipe", direction, *path), what
    yield from _keys_problems(screen.on_key, model, scope, base)


def _elements_problems(
    elements: tuple[ElementSpec, ...],
    base: tuple[Any, ...],
    scope: _Scope,
    seen: set[str],
    screen_name: str,
) -> Iterator[Problem]:
    for index, element in enumerate(elements):
        here = (*base, index)
        if element.repeat is not None:
            yield from _expr_problem(element.repeat, scope.names, (*here, "repeat"), scope)
            yield from _repeat_problems(element, here, scope, seen, screen_name)
            continue
        yield from _shape_problems(element, here, seen, screen_name)
        yield from _text_problems(element, here, scope)
        yield from _handler_problems(element, here, scope)


def _repeat_problems(
    element: ElementSpec,
    here: tuple[Any, ...],
    scope: _Scope,
    seen: set[str],
    screen_name: str,
) -> Iterator[Problem]:
    """A repeat's item name and the elements it draws for each item."""
    if not element.elements:
        yield (*here, "elements"), "a repeat needs elements to draw for each item"
    if not element.item.isidentifier():
        yield (*here, "item"), f"{element.item!r} cannot be a name"
    inner = scope.inner(element.item)
    yield from _elements_problems(element.elements, (*here, "elements"), inner, seen, screen_name)


def _shape_problems(
    element: ElementSpec, here: tuple[Any, ...], seen: set[str], screen_name: str
) -> Iterator[Problem]:
    """What one element is: its role, its id (unique on the screen), its frame, and the
    handlers only a text field has."""
    if element.elements:
        yield (*here, "elements"), "only a repeat has elements of its own"
    if element.role not in ROLES:
        yield (*here, "role"), f"unknown role {element.role!r}; expected one of {ROLES}"
    if element.id is not None and "{" not in element.id:
        if element.id in seen:
            yield (*here, "id"), f"duplicate id {element.id!r} on screen {screen_name!r}"
        seen.add(element.id)
    if not all(math.isfinite(v) and abs(v) <= LIMIT for v in element.frame):
        yield (*here, "frame"), f"frame values must be numbers from -{LIMIT:g} to {LIMIT:g}"
    _, _, w, h = element.frame
    if w <= 0 or h <= 0:
        yield (*here, "frame"), "frame needs a positive width and height"
    if element.on_return and not element.is_text_field:
        yield (*here, "on_return"), "only text fields have on_return"
    if element.on_key and not element.is_text_field:
        yield (*here, "on_key"), "only text fields have the focus keys go to"


def _text_problems(element: ElementSpec, here: tuple[Any, ...], scope: _Scope) -> Iterator[Problem]:
    """One element's templates and expressions."""
    for key in ("label", "id", "value", "placeholder"):
        text = getattr(element, key)
        if text is not None:
            yield from _template_problem(text, scope.names, (*here, key), scope)
    if element.when is not None:
        yield from _expr_problem(element.when, scope.names, (*here, "when"), scope)
    if isinstance(element.enabled, str):
        yield from _expr_problem(element.enabled, scope.names, (*here, "enabled"), scope)


def _handler_problems(
    element: ElementSpec, here: tuple[Any, ...], scope: _Scope
) -> Iterator[Problem]:
    """The transitions one element takes: on a tap, a return, a swipe, a key, a swipe action."""
    model = scope.model
    for key in ("on_tap", "on_return"):
        for path, what in _transitions_problems(getattr(element, key), model, scope):
            yield (*here, key, *path), what
    for direction, transitions in element.on_swipe.items():
        for path, what in _transitions_problems(transitions, model, scope):
            yield (*here, "on_swipe", direction, *path), what
    yield from _keys_problems(element.on_key, model, scope, here)
    for i, action in enumerate(element.swipe_actions):
        for path, what in _transitions_problems(action.on_tap, model, scope):
            yield (*here, "swipe_actions", i, "on_tap", *path), what


def _keys_problems(
    handlers: dict[str, tuple[Transition, ...]], model: AppModel, scope: _Scope, here: tuple
) -> Iterator[Problem]:
    for key, transitions in handlers.items():
        if key not in KEYS and len(key) != 1:
            yield (*here, "on_key", key, None), f"unknown key {key!r}; use {KEYS} or one character"
        for path, what in _transitions_problems(transitions, model, scope):
            yield (*here, "on_key", key, *path), what


def _animation_problem(ms: int | None, path: tuple[Any, ...]) -> Iterator[Problem]:
    if ms is not None and not 0 <= ms <= MAX_ANIMATION_MS:
        yield path, f"animation_ms must be 0 to {MAX_ANIMATION_MS} milliseconds"


def _transitions_problems(
    transitions: tuple[Transition, ...], model: AppModel, scope: _Scope
) -> Iterator[Problem]:
    """The problems of a list of transitions (and of the alerts they present)."""
    for index, transition in enumerate(transitions):
        for path, what in _transition_problems(transition, model, scope):
            yield (index, *path), what


def _transition_problems(
    transition: Transition, model: AppModel, scope: _Scope
) -> Iterator[Problem]:
    screens = model.screens
    yield from _animation_problem(transition.animation_ms, ("animation_ms",))
    if transition.to is not None and transition.to != BACK and transition.to not in screens:
        yield ("to",), f"unknown screen {transition.to!r}; screens are {sorted(screens)} or 'back'"
    yield from _condition_problems(transition, scope)
    for attr in ("show", "hide", "toggle"):
        for target in getattr(transition, attr):
            if target not in scope.ids:
                yield (attr,), f"unknown element id {target!r}; this screen has {sorted(scope.ids)}"
    for key in ("message", "log"):
        text = getattr(transition, key)
        if text is not None:
            yield from _template_problem(text, scope.names, (key,), scope)
    yield from _write_problems(transition, model, scope)
    if transition.tab is not None and model.tab(transition.tab) is None:
        yield ("tab",), f"unknown tab {transition.tab!r}; tabs are {[t.id for t in model.tabs]}"
    if transition.alert is not None:
        yield from _alert_problems(transition.alert, model, scope)


def _condition_problems(transition: Transition, scope: _Scope) -> Iterator[Problem]:
    """``when``: an expression, or values by the names of fields and state."""
    if isinstance(transition.when, str):
        yield from _expr_problem(transition.when, scope.names, ("when",), scope)
        return
    for key in transition.when:
        if key not in scope.names:
            what = f"condition on unknown field or state {key!r}; known are {scope.describe()}"
            yield ("when", key, None), what


def _write_problems(transition: Transition, model: AppModel, scope: _Scope) -> Iterator[Problem]:
    """What a transition writes: ``set`` a state or a field, change a list."""
    writable = {*model.state, *model.keychain} | scope.ids
    lists = {k for k, v in {**model.state, **model.keychain}.items() if isinstance(v, list)}
    for attr, allowed, noun in (
        ("set", writable, "state or field"),
        ("append", lists, "list"),
        ("remove", lists, "list"),
        ("remove_all", lists, "list"),
    ):
        for key, value in getattr(transition, attr).items():
            if key not in allowed:
                what = f"unknown {noun} {key!r}; known are {sorted(allowed)}"
                yield (attr, key, None), what
            elif isinstance(value, str):
                yield from _template_problem(value, scope.names, (attr, key), scope)
            elif not _plain_value(value):
                yield (attr, key), f"expected a value or a template, got {show(value)}"


def _alert_problems(alert: AlertSpec, model: AppModel, scope: _Scope) -> Iterator[Problem]:
    """The alert a transition presents: its buttons, its texts, what each button does."""
    if not alert.buttons:
        yield ("alert", "buttons"), "an alert needs at least one button"
    for key in ("title", "message"):
        text = getattr(alert, key)
        if text is not None:
            yield from _template_problem(text, scope.names, ("alert", key), scope)
    for index, button in enumerate(alert.buttons):
        for path, what in _transitions_problems(button.on_tap, model, scope):
            yield ("alert", "buttons", index, "on_tap", *path), what


def _expr_problem(
    text: str, names: frozenset[str], path: tuple, scope: _Scope | None = None
) -> Iterator[Problem]:
    yield from _parse_problem(parse_expr, text, names, path, scope)


def _template_problem(
    text: str, names: frozenset[str], path: tuple, scope: _Scope | None = None
) -> Iterator[Problem]:
    yield from _parse_problem(parse_template, text, names, path, scope)


def _parse_problem(
    parse: Callable[[str], Expr | Template],
    text: str,
    names: frozenset[str],
    path: tuple,
    scope: _Scope | None,
) -> Iterator[Problem]:
    """What is wrong with ``text`` as ``parse`` reads it: its syntax, else names unknown here."""
    try:
        parsed = parse(text)
    except ExprError as exc:
        yield path, f"{exc.what} (column {exc.col + 1} of {text!r})"
        return
    yield from _unknown_names(parsed.names, names, path, scope)


def _unknown_names(
    used: frozenset[str], names: frozenset[str], path: tuple, scope: _Scope | None
) -> Iterator[Problem]:
    unknown = sorted(used - names)
    if unknown:
        known = scope.describe() if scope else f"{sorted(names)}"
        yield path, f"unknown state or field {unknown[0]!r}; known are {known}"
