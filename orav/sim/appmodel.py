"""The app model: screens, elements and transitions of a simulated app, loaded from YAML.

Structure errors come from ``orav.codec.load_yaml``; this module adds the semantic checks
(unknown screens, duplicate ids, conditions on fields or state that do not exist, expressions
that do not parse, sizes the simulator cannot draw) with file:line:col.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NewType

from attrs import field, frozen

from orav.codec import converter, load_yaml, locate, read_text, show
from orav.errors import InputError
from orav.model import Credentials, Fault, Frame
from orav.sim.expr import ExprError, parse_expr, parse_template

Direction = Literal["up", "down", "left", "right"]
BACK = "back"  # the transition target that pops the navigation stack
# What every expression may read of the device: the launch, permission presets, the location.
LAUNCH_NAMES = ("args", "env", "permissions", "location")

ROLES = (
    "AXButton",
    "AXStaticText",
    "AXTextField",
    "AXSwitch",
    "AXCell",
    "AXImage",
    "AXHeading",
    "AXLink",
)
TEXT_ROLES = ("AXTextField",)
KEYS = ("return", "escape", "tab", "backspace")  # named keys a handler can take (or one char)
LIMIT = 10_000.0  # points: the largest screen side and frame coordinate the simulator draws
MAX_REPEAT = 1_000  # rows one repeat draws at most
MAX_PIXELS = 40_000_000  # of one screenshot: ~120 MB of RGB, drawn in about a second
MAX_ANIMATION_MS = 10_000  # one animation, at most (iOS animations take a fraction of a second)

# Field types with a converter hook of their own. At run time each is a distinct marker the
# converter dispatches on; to the type checker, what the hook returns.
if TYPE_CHECKING:
    Ids = tuple[str, ...]
    Condition = str | dict[str, str]
    Flag = bool | str
else:
    # An id or a list of ids (``show: banner`` or ``show: [banner, total]``).
    Ids = NewType("Ids", tuple)
    # A condition: a mapping of field or state → required value (all must hold), or an
    # expression.
    Condition = NewType("Condition", object)
    # ``enabled``: true / false, or an expression.
    Flag = NewType("Flag", object)


def _ids(value: Any, _: type) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError(f"expected an id or a list of ids, got {show(value)}")


def _condition(value: Any, _: type) -> str | dict[str, str]:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return {str(k): converter.structure(v, str) for k, v in value.items()}
    raise TypeError(f"expected a mapping of id → value or an expression, got {show(value)}")


def _flag(value: Any, _: type) -> bool | str:
    if isinstance(value, (bool, str)):
        return value
    raise TypeError(f"expected true, false or an expression, got {show(value)}")


converter.register_structure_hook(Ids, _ids)
converter.register_structure_hook(Condition, _condition)
converter.register_structure_hook(Flag, _flag)


@frozen
class Transition:
    """What happens on an input: its effects, in order, when its condition holds.

    ``when`` is a mapping of field id or state name → required value (all must hold), or an
    expression (``len(cart) > 0``); the first transition of a list whose ``when`` holds is
    taken. Effects: ``set`` state or field values (templates), ``append`` / ``remove`` (one) /
    ``remove_all`` items of list state, ``toggle`` switches, ``show`` / ``hide`` elements
    (``message`` relabels the shown ones), ``tab`` selects a tab, ``to`` goes to a screen
    (``back`` pops; ``reset`` makes it the root; ``modal`` presents it), ``alert`` presents an
    alert of the app's own.
    """

    to: str | None = None
    when: Condition = field(factory=dict)
    show: Ids = field(factory=tuple)
    message: str | None = None
    hide: Ids = field(factory=tuple)
    toggle: Ids = field(factory=tuple)
    reset: bool = False
    modal: bool = False
    alert: AlertSpec | None = None
    tab: str | None = None
    set: dict[str, Any] = field(factory=dict)
    append: dict[str, Any] = field(factory=dict)
    remove: dict[str, Any] = field(factory=dict)
    remove_all: dict[str, Any] = field(factory=dict)
    log: str | None = None
    animation_ms: int | None = None  # how long what it moves animates (default: the screen's)


@frozen
class AlertButton:
    """One action of an app's alert (or a row's swipe action) and what tapping it does.

    ``style`` is UIAlertAction's: ``destructive`` is drawn red, ``cancel`` is the dismissal.
    """

    label: str
    id: str | None = None
    style: Literal["default", "cancel", "destructive"] = "default"
    on_tap: tuple[Transition, ...] = ()


@frozen
class AlertSpec:
    """An alert or action sheet the app presents itself (a UIAlertController).

    Unlike a system alert it is in the app's own tree, with the app's pid; ``id`` is its
    accessibility identifier. Every tap outside it is swallowed until a button is tapped.
    """

    title: str
    message: str | None = None
    id: str | None = None
    style: Literal["alert", "action_sheet"] = "alert"
    buttons: tuple[AlertButton, ...] = ()


@frozen
class Tab:
    """One tab of the tab bar: its button (``id``, ``label``) and the root screen of its stack."""

    id: str
    label: str
    screen: str


@frozen
class ElementSpec:
    """One element of a screen; ``frame`` is ``[x, y, width, height]`` in points.

    ``label``, ``id``, ``value`` and ``placeholder`` are templates (``"Cart ({len(cart)})"``).
    ``when`` (an expression) keeps the element out of the tree while false; ``enabled`` may be
    one. ``repeat`` (an expression giving a list) makes the element a group drawing its
    ``elements`` once per item, ``step`` points apart, with the item named ``item``.
    ``fixed`` elements stay put while a scrolling screen scrolls. ``swipe_actions`` are
    revealed by a swipe left on the element; ``on_swipe`` and ``on_key`` handle swipes
    starting on it and keys while it has the focus. ``tone`` only changes pixels: ``error``
    text is red, ``success`` text sits on a green banner, a ``destructive`` button is red.
    """

    role: str = "AXStaticText"
    label: str | None = None
    id: str | None = None
    frame: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    value: str | None = None
    placeholder: str | None = None
    secure: bool = False
    enabled: Flag = True
    hidden: bool = False
    when: str | None = None
    traits: tuple[str, ...] = ()
    tone: Literal["normal", "error", "success", "destructive"] = "normal"
    fixed: bool = False
    on_tap: tuple[Transition, ...] = ()
    on_return: tuple[Transition, ...] = ()
    on_swipe: dict[Direction, tuple[Transition, ...]] = field(factory=dict)
    on_key: dict[str, tuple[Transition, ...]] = field(factory=dict)
    swipe_actions: tuple[AlertButton, ...] = ()
    repeat: str | None = None
    item: str = "item"
    step: float = 0.0
    elements: tuple[ElementSpec, ...] = ()

    @property
    def rect(self) -> Frame:
        return Frame(*self.frame)

    @property
    def is_text_field(self) -> bool:
        return self.role in TEXT_ROLES


@frozen
class Screen:
    """A screen: a navigation title, its elements, and what swipes and keys do on it.

    ``title`` is a template. ``scroll`` makes the content scroll: vertical swipes move it, and
    elements outside the area between the navigation bar and the bottom (the tab bar, or
    ``scroll_bottom`` above a footer of ``fixed`` elements) are not in the tree.
    ``hides_tab_bar`` is UIKit's hidesBottomBarWhenPushed: no tab bar while it is on top.
    """

    title: str | None = None
    elements: tuple[ElementSpec, ...] = ()
    on_swipe: dict[Direction, tuple[Transition, ...]] = field(factory=dict)
    on_key: dict[str, tuple[Transition, ...]] = field(factory=dict)
    hides_tab_bar: bool = False
    scroll: bool = False
    scroll_bottom: float | None = None
    animation_ms: int | None = None  # animations while it is in front (default: the app's)

    def element(self, element_id: str) -> ElementSpec | None:
        return next((e for e in self.elements if e.id == element_id), None)


@frozen
class AppModel:
    """A whole app: where it starts, its screens by name, its state, credentials and faults.

    ``state`` holds app-wide values (flags, numbers, text, lists) that a launch starts from;
    ``keychain`` values outlive a relaunch (cleared by clear_keychain or a reinstall); ``data``
    is constant (a catalogue); ``computed`` values are expressions over them, evaluated in
    order whenever read (``total: "subtotal - discount"``). ``start`` may be a template (``"{'home' if token else
    'login'}"``). ``routes`` map URL prefixes of ``open_url`` to transitions. With ``tabs`` the
    app has a tab bar whenever the navigation stack starts at a tab's screen.
    """

    name: str
    bundle_id: str
    start: str
    screens: dict[str, Screen]
    width: float = 390.0
    height: float = 844.0
    credentials: Credentials | None = None
    faults: tuple[Fault, ...] = ()
    tabs: tuple[Tab, ...] = ()
    state: dict[str, Any] = field(factory=dict)
    keychain: dict[str, Any] = field(factory=dict)
    data: dict[str, Any] = field(factory=dict)
    computed: dict[str, str] = field(factory=dict)
    routes: dict[str, tuple[Transition, ...]] = field(factory=dict)
    animation_ms: int = 0  # transitions, alerts, keyboard, spinners (0: instant)
    kind: Literal["app"] = "app"

    def tab_of(self, screen: str) -> Tab | None:
        """The tab whose root ``screen`` is, if any."""
        return next((t for t in self.tabs if t.screen == screen), None)

    def tab(self, tab_id: str) -> Tab | None:
        return next((t for t in self.tabs if t.id == tab_id), None)

    @property
    def names(self) -> frozenset[str]:
        """The names every expression may read: state, keychain, data and the launch's."""
        return frozenset({*self.state, *self.keychain, *self.data, *self.computed, *LAUNCH_NAMES})


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
    if "{" in model.start:
        yield from _template_problem(model.start, model.names, ("start",))
        for constant in _constants(model.start):
            if constant not in screens:
                what = f"start can give {constant!r}, not a screen; screens are {sorted(screens)}"
                yield ("start",), what
    elif model.start not in screens:
        yield ("start",), f"unknown start screen {model.start!r}; screens are {sorted(screens)}"
    yield from _animation_problem(model.animation_ms, ("animation_ms",))
    for side in ("width", "height"):
        size = getattr(model, side)
        if not 0 < size <= LIMIT:  # NaN fails too
            yield (side,), f"{side} must be a number of points above 0 and at most {LIMIT:g}"
    tab_ids: set[str] = set()
    for index, tab in enumerate(model.tabs):
        if tab.id in tab_ids:
            yield ("tabs", index, "id"), f"duplicate tab id {tab.id!r}"
        tab_ids.add(tab.id)
        if tab.screen not in screens:
            yield ("tabs", index, "screen"), f"unknown screen {tab.screen!r}"
        elif model.tab_of(tab.screen) is not tab:
            yield ("tabs", index, "screen"), f"screen {tab.screen!r} is the root of two tabs"
    for screen_name, screen in screens.items():
        yield from _screen_problems(model, screen_name, screen)
    for route, transitions in model.routes.items():
        scope = _Scope(model, frozenset(), frozenset({"url"}))  # routes read the URL
        found = _transitions_problems(transitions, model, scope)
        yield from (((("routes", route, *path), what) for path, what in found))
    for index, fault in enumerate(model.faults):
        if fault.on_screen is not None and fault.on_screen not in screens:
            yield ("faults", index, "on_screen"), f"unknown screen {fault.on_screen!r}"


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
    model = scope.model
    for index, element in enumerate(elements):
        here = (*base, index)
        if element.repeat is not None:
            yield from _expr_problem(element.repeat, scope.names, (*here, "repeat"), scope)
            if not element.elements:
                yield (*here, "elements"), "a repeat needs elements to draw for each item"
            if not element.item.isidentifier():
                yield (*here, "item"), f"{element.item!r} cannot be a name"
            inner = scope.inner(element.item)
            yield from _elements_problems(
                element.elements, (*here, "elements"), inner, seen, screen_name
            )
            continue
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
        for key in ("label", "id", "value", "placeholder"):
            text = getattr(element, key)
            if text is not None:
                yield from _template_problem(text, scope.names, (*here, key), scope)
        if element.when is not None:
            yield from _expr_problem(element.when, scope.names, (*here, "when"), scope)
        if isinstance(element.enabled, str):
            yield from _expr_problem(element.enabled, scope.names, (*here, "enabled"), scope)
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
    if isinstance(transition.when, str):
        yield from _expr_problem(transition.when, scope.names, ("when",), scope)
    else:
        for key in transition.when:
            if key not in scope.names:
                what = f"condition on unknown field or state {key!r}; known are {scope.describe()}"
                yield ("when", key, None), what
    for attr in ("show", "hide", "toggle"):
        for target in getattr(transition, attr):
            if target not in scope.ids:
                yield (attr,), f"unknown element id {target!r}; this screen has {sorted(scope.ids)}"
    for key in ("message", "log"):
        text = getattr(transition, key)
        if text is not None:
            yield from _template_problem(text, scope.names, (key,), scope)
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
    if transition.tab is not None and model.tab(transition.tab) is None:
        yield ("tab",), f"unknown tab {transition.tab!r}; tabs are {[t.id for t in model.tabs]}"
    alert = transition.alert
    if alert is not None:
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
    try:
        expr = parse_expr(text)
    except ExprError as exc:
        yield path, f"{exc.what} (column {exc.col + 1} of {text!r})"
        return
    yield from _unknown_names(expr.names, names, path, scope)


def _template_problem(
    text: str, names: frozenset[str], path: tuple, scope: _Scope | None = None
) -> Iterator[Problem]:
    try:
        template = parse_template(text)
    except ExprError as exc:
        yield path, f"{exc.what} (column {exc.col + 1} of {text!r})"
        return
    yield from _unknown_names(template.names, names, path, scope)


def _unknown_names(
    used: frozenset[str], names: frozenset[str], path: tuple, scope: _Scope | None
) -> Iterator[Problem]:
    unknown = sorted(used - names)
    if unknown:
        known = scope.describe() if scope else f"{sorted(names)}"
        yield path, f"unknown state or field {unknown[0]!r}; known are {known}"
