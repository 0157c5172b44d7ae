"""The app-model lint of ``orav validate``: what loads but cannot work as written.

Loading refuses what the simulator cannot run (unknown screens, ids, state); the lint finds
what runs but is surely a mistake: controls nothing can tap (an ``on_tap`` or a text field
without an id), elements that can never show, screens no path reaches, frames off the screen,
screens without elements.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from orav.codec import read_located, read_text, read_yaml
from orav.errors import InputError
from orav.sim.appmodel import BACK, AlertButton, AppModel, ElementSpec, Transition
from orav.sim.draw import NAV_BAR_BOTTOM
from orav.sim.expr import ExprError, parse_template
from orav.sim.loading import Problem, load_app_model

APP_KEYS = {"screens", "bundle_id", "start"}  # the keys that tell an app model from a scenario


def looks_like_app_model(path: Path) -> bool:
    """An app model by its ``kind: app`` or its keys; False for anything else (a scenario)."""
    try:
        root = read_yaml(read_text(path, str(path)), str(path))
    except InputError:
        return False
    if not isinstance(root, dict):
        return False
    return root.get("kind") == "app" or APP_KEYS <= set(root)


def check_app_model(path: Path) -> tuple[AppModel, list[str]]:
    """Load ``path`` (InputError on what cannot run) and lint it: each finding as
    ``file:line:col: what``."""
    model = load_app_model(path)
    _, where = read_located(read_text(path, str(path)), str(path))
    return model, [f"{where(path)}: {what}" for path, what in lint(model)]


def lint(model: AppModel) -> list[Problem]:
    """Every finding as (path into the YAML, what is wrong), in the file's order."""
    found = list(_dead_controls(model))
    found += _unreachable(model)
    return found


def _dead_controls(model: AppModel) -> Iterator[Problem]:
    targets = {i for _, t in _transitions_of(model) for i in (*t.show, *t.hide)}
    for name, screen in model.screens.items():
        base = ("screens", name)
        if not screen.elements:
            yield base, f"screen {name!r} has no elements"
        for index, element in enumerate(screen.elements):
            yield from _element(model, element, (*base, "elements", index), targets, screen.scroll)
            if (
                screen.scroll
                and element.repeat is None
                and not element.fixed
                and element.frame[1] < NAV_BAR_BOTTOM
            ):
                what = "above a scrolling screen's content (the navigation bar) but not fixed"
                yield (*base, "elements", index, "frame"), f"{what}: it never shows (fixed: true)"


def _element(
    model: AppModel, element: ElementSpec, here: tuple, targets: set[str], scroll: bool
) -> Iterator[Problem]:
    if element.repeat is not None:
        for i, child in enumerate(element.elements):
            yield from _element(model, child, (*here, "elements", i), targets, True)
        return
    if element.id is None:
        yield from _without_id(element, here)
    elif element.hidden and element.id not in targets and "{" not in element.id:
        yield (*here, "hidden"), f"{element.id!r} is hidden and no transition shows it"
    x, y, width, height = element.frame
    if x < 0 or x + width > model.width or y < 0 or (not scroll and y + height > model.height):
        where = f"{x:g}, {y:g}, {width:g} x {height:g}"
        yield (
            (*here, "frame"),
            f"frame ({where}) is off the {model.width:g} x {model.height:g} screen",
        )


def _without_id(element: ElementSpec, here: tuple) -> Iterator[Problem]:
    """What an element cannot do without an id: be tapped, typed into, shown."""
    for key in ("on_tap", "swipe_actions", "on_swipe"):
        if getattr(element, key):
            yield (*here, key), f"{key} on an element without an id: nothing can tap it"
    if element.is_text_field:
        yield here, "a text field without an id: typing into it goes nowhere"
    if element.hidden:
        yield (*here, "hidden"), "hidden without an id: no transition can show it"


def _transitions_of(model: AppModel) -> Iterator[tuple[str | None, Transition]]:
    """Every transition with the screen it runs on (None: a route, on any screen)."""
    for name, screen in model.screens.items():
        lists = [*screen.on_swipe.values(), *screen.on_key.values()]
        for element in _walk(screen.elements):
            lists += [element.on_tap, element.on_return, *element.on_swipe.values()]
            lists += [*element.on_key.values(), *(a.on_tap for a in element.swipe_actions)]
        for transitions in lists:
            for transition in _with_alerts(transitions):
                yield name, transition
    for transitions in model.routes.values():
        for transition in _with_alerts(transitions):
            yield None, transition


def _with_alerts(transitions: tuple[Transition, ...]) -> Iterator[Transition]:
    for transition in transitions:
        yield transition
        if transition.alert is not None:
            for button in transition.alert.buttons:
                yield from _with_alerts(button.on_tap)


def _walk(elements: tuple[ElementSpec, ...]) -> Iterator[ElementSpec]:
    for element in elements:
        yield element
        yield from _walk(element.elements)


def _unreachable(model: AppModel) -> list[Problem]:
    """Screens no launch, tab, route or transition leads to."""
    roots = _start_screens(model) | {t.screen for t in model.tabs}
    edges: dict[str | None, set[str]] = {}
    for screen, transition in _transitions_of(model):
        if transition.to is not None and transition.to != BACK:
            edges.setdefault(screen, set()).add(transition.to)
    seen = set(roots) | edges.get(None, set())
    todo = list(seen)
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return [
        (
            ("screens", name, None),
            f"screen {name!r} is unreachable: no launch, tab or transition leads to it",
        )
        for name in model.screens
        if name not in seen
    ]


def _start_screens(model: AppModel) -> set[str]:
    """The screens a launch can start on: the start, or the screen names its template holds."""
    try:
        template = parse_template(model.start)
    except ExprError:
        return set()
    if template.is_constant:
        return {model.start}
    names: set[str] = set()
    for part in template.parts:
        if not isinstance(part, str):
            names |= {
                node.value
                for node in ast.walk(part.tree)
                if isinstance(node, ast.Constant) and node.value in model.screens
            }
    return names


__all__ = ["check_app_model", "lint", "looks_like_app_model"]


def words(model: AppModel) -> tuple[dict[str, re.Pattern[str]], dict[str, re.Pattern[str]]]:
    """What a scenario may name in ``model``: each id and each label as written (for "did you
    mean") with its pattern (a ``{template}`` part matches any text)."""
    ids: set[str] = {tab.id for tab in model.tabs}
    labels: set[str] = {tab.label for tab in model.tabs}

    def button(b: AlertButton) -> None:
        labels.add(b.label)
        ids.update([b.id] if b.id else [])
        transitions(b.on_tap)

    def transitions(found: Iterable[Transition]) -> None:
        for t in found:
            if t.alert is not None:
                labels.add(t.alert.title)
                ids.update([t.alert.id] if t.alert.id else [])
                for b in t.alert.buttons:
                    button(b)

    def element(e: ElementSpec) -> None:
        ids.update([e.id] if e.id else [])
        labels.update([e.label] if e.label else [])
        for b in e.swipe_actions:
            button(b)
        for child in e.elements:
            element(child)
        for found in (e.on_tap, e.on_return, *e.on_swipe.values(), *e.on_key.values()):
            transitions(found)

    for screen in model.screens.values():
        labels.update([screen.title] if screen.title else [])
        for e in screen.elements:
            element(e)
    for route in model.routes.values():
        transitions(route)
    return {i: _pattern(i) for i in ids}, {w: _pattern(w) for w in labels}


def _pattern(word: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]*\})", word)
    return re.compile(
        "".join(".+" if p.startswith("{") else re.escape(p) for p in parts), re.DOTALL
    )
