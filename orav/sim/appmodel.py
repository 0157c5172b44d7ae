"""The app model: screens, elements and transitions of a simulated app, loaded from YAML.

Structure errors come from ``orav.codec.load_yaml``; this module adds the semantic checks
(unknown screens, duplicate ids, conditions on fields that do not exist, sizes the simulator
cannot draw) with file:line:col.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from attrs import field, frozen

from orav.codec import load_yaml, locate, read_text
from orav.errors import InputError
from orav.model import Credentials, Fault, Frame

Direction = Literal["up", "down", "left", "right"]
BACK = "back"  # the transition target that pops the navigation stack

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
LIMIT = 10_000.0  # points: the largest screen side and frame coordinate the simulator draws


@frozen
class Transition:
    """What happens on an input: go to a screen (or ``back``), show or toggle an element.

    ``when`` maps field ids to the value each must have; the first transition of a list whose
    ``when`` holds is taken. ``show`` un-hides an element and ``message`` replaces its label,
    ``hide`` hides one, ``toggle`` flips a switch between "1" and "0";
    ``reset`` makes the target the new root of the navigation stack (no way back).
    ``alert`` presents an alert or action sheet of the app's own; ``tab`` selects a tab.
    """

    to: str | None = None
    when: dict[str, str] = field(factory=dict)
    show: str | None = None
    message: str | None = None
    hide: str | None = None
    toggle: str | None = None
    reset: bool = False
    alert: AlertSpec | None = None
    tab: str | None = None

    def holds(self, values: dict[str, str]) -> bool:
        return all(values.get(key, "") == want for key, want in self.when.items())


@frozen
class AlertButton:
    """One action of an app's alert: its label, and what tapping it does on the screen below.

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

    ``tone`` only changes pixels: ``error`` text is red, ``success`` text sits on a green banner.
    """

    role: str = "AXStaticText"
    label: str | None = None
    id: str | None = None
    frame: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    value: str | None = None
    placeholder: str | None = None
    secure: bool = False
    enabled: bool = True
    hidden: bool = False
    traits: tuple[str, ...] = ()
    tone: Literal["normal", "error", "success"] = "normal"
    on_tap: tuple[Transition, ...] = ()
    on_return: tuple[Transition, ...] = ()

    @property
    def rect(self) -> Frame:
        return Frame(*self.frame)

    @property
    def is_text_field(self) -> bool:
        return self.role in TEXT_ROLES


@frozen
class Screen:
    """A screen: a navigation title, its elements, and what swipes do on it.

    ``hides_tab_bar`` is UIKit's hidesBottomBarWhenPushed: no tab bar while it is on top.
    """

    title: str | None = None
    elements: tuple[ElementSpec, ...] = ()
    on_swipe: dict[Direction, tuple[Transition, ...]] = field(factory=dict)
    hides_tab_bar: bool = False

    def element(self, element_id: str) -> ElementSpec | None:
        return next((e for e in self.elements if e.id == element_id), None)


@frozen
class AppModel:
    """A whole app: where it starts, its screens by name, its credentials and scheduled faults.

    With ``tabs`` the app has a tab bar whenever the navigation stack starts at a tab's screen;
    each tab keeps its own stack.
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

    def tab_of(self, screen: str) -> Tab | None:
        """The tab whose root ``screen`` is, if any."""
        return next((t for t in self.tabs if t.screen == screen), None)

    def tab(self, tab_id: str) -> Tab | None:
        return next((t for t in self.tabs if t.id == tab_id), None)


def load_app_model(source: Path | str, *, name: str | None = None) -> AppModel:
    """Load and check an app model from a file (Path) or YAML text; InputError on any problem."""
    if isinstance(source, Path):
        where = name or str(source)
        text = read_text(source, where)
    else:
        text, where = source, name or "<app model>"
    model = load_yaml(text, AppModel, source=where)
    problem = _first_problem(model)
    if problem is not None:
        path, what = problem
        raise InputError(what, locate(text, path, where))
    return model


def _first_problem(model: AppModel) -> tuple[tuple[Any, ...], str] | None:
    """The first semantic problem as (path into the YAML, message), or None."""
    screens = model.screens
    if not screens:
        return ("screens",), "an app needs at least one screen"
    if model.start not in screens:
        return ("start",), f"unknown start screen {model.start!r}; screens are {sorted(screens)}"
    for side in ("width", "height"):
        size = getattr(model, side)
        if not 0 < size <= LIMIT:  # NaN fails too
            return (side,), f"{side} must be a number of points above 0 and at most {LIMIT:g}"
    tab_ids: set[str] = set()
    for index, tab in enumerate(model.tabs):
        if tab.id in tab_ids:
            return ("tabs", index, "id"), f"duplicate tab id {tab.id!r}"
        tab_ids.add(tab.id)
        if tab.screen not in screens:
            return ("tabs", index, "screen"), f"unknown screen {tab.screen!r}"
        if model.tab_of(tab.screen) is not tab:
            return ("tabs", index, "screen"), f"screen {tab.screen!r} is the root of two tabs"
    for screen_name, screen in screens.items():
        base = ("screens", screen_name)
        ids = {e.id for e in screen.elements if e.id is not None}
        seen: set[str] = set()
        for index, element in enumerate(screen.elements):
            here = (*base, "elements", index)
            if element.role not in ROLES:
                return (*here, "role"), f"unknown role {element.role!r}; expected one of {ROLES}"
            if element.id is not None:
                if element.id in seen:
                    return (*here, "id"), f"duplicate id {element.id!r} on screen {screen_name!r}"
                seen.add(element.id)
            if not all(math.isfinite(v) and abs(v) <= LIMIT for v in element.frame):
                what = f"frame values must be numbers from -{LIMIT:g} to {LIMIT:g}"
                return (*here, "frame"), what
            _, _, w, h = element.frame
            if w <= 0 or h <= 0:
                return (*here, "frame"), "frame needs a positive width and height"
            if element.on_return and not element.is_text_field:
                return (*here, "on_return"), "only text fields have on_return"
            for key in ("on_tap", "on_return"):
                found = _transitions_problem(getattr(element, key), model, ids)
                if found:
                    return (*here, key, *found[0]), found[1]
        for direction, transitions in screen.on_swipe.items():
            found = _transitions_problem(transitions, model, ids)
            if found:
                return (*base, "on_swipe", direction, *found[0]), found[1]
    for index, fault in enumerate(model.faults):
        if fault.on_screen is not None and fault.on_screen not in screens:
            return ("faults", index, "on_screen"), f"unknown screen {fault.on_screen!r}"
    return None


def _transitions_problem(
    transitions: tuple[Transition, ...], model: AppModel, ids: set[str]
) -> tuple[tuple[Any, ...], str] | None:
    """The first problem of a list of transitions (and of the alerts they present)."""
    for index, transition in enumerate(transitions):
        found = _transition_problem(transition, model, ids)
        if found:
            return (index, *found[0]), found[1]
    return None


def _transition_problem(
    transition: Transition, model: AppModel, ids: set[str]
) -> tuple[tuple[Any, ...], str] | None:
    screens = model.screens
    if transition.to is not None and transition.to != BACK and transition.to not in screens:
        what = f"unknown screen {transition.to!r}; screens are {sorted(screens)} or 'back'"
        return ("to",), what
    for key in transition.when:
        if key not in ids:
            what = f"condition on unknown field {key!r}; this screen has {sorted(ids)}"
            return ("when",), what
    for attr in ("show", "hide", "toggle"):
        target = getattr(transition, attr)
        if target is not None and target not in ids:
            return (attr,), f"unknown element id {target!r}; this screen has {sorted(ids)}"
    if transition.tab is not None and model.tab(transition.tab) is None:
        what = f"unknown tab {transition.tab!r}; tabs are {[t.id for t in model.tabs]}"
        return ("tab",), what
    alert = transition.alert
    if alert is not None:
        if not alert.buttons:
            return ("alert", "buttons"), "an alert needs at least one button"
        for index, button in enumerate(alert.buttons):
            found = _transitions_problem(button.on_tap, model, ids)
            if found:
                return ("alert", "buttons", index, "on_tap", *found[0]), found[1]
    return None
