"""Which screen an observation shows, and what to call it: the one screen identity.

The engine names the screens a run visited, the explorer keys its map of the app, the report
groups steps, and a re-record decides whether a recorded decision still holds: all of them
ask this module, so a screen is the same screen everywhere.

- ``screen_id``: the app, its headings and its interactive elements by role and id (or label).
  Values, frames, focus, static text, the keyboard and a terminal app's footer keys are left
  out, so typed text, a flipped switch, a ticking clock, an error shown under a field, the
  keyboard coming up or focus moving do not make a new screen.
- ``screen_name``: a readable name: the navigation title, else a header, else the first label.
- ``screen_state``: everything a decision may depend on (values, focus, frames, text): equal
  states mean a recorded decision can be reused as it is.
"""

from __future__ import annotations

import hashlib
from typing import Any

from orav.codec import unstructure
from orav.model import Element, Observation
from orav.perceive.roles import (
    TAPPABLE_ROLES,
    TAPPABLE_TRAITS,
    TEXT_FIELD_ROLES,
    is_heading,
    is_keyboard,
    is_secure,
)


def app_elements(observation: Observation) -> list[Element]:
    """The app's own elements: no keyboard, no keys, not the application element itself.

    Elements the keyboard covers stay: they are still in the tree, and still the same screen.
    """
    return [e for e in observation.elements if not is_keyboard(e) and e.role != "AXApplication"]


def is_footer_key(element: Element) -> bool:
    """A terminal app's footer key: it shows the bindings of whatever has focus."""
    return element.role == "AXButton" and any(t.startswith("binding:") for t in element.traits)


def is_control(element: Element) -> bool:
    """An element an agent can act on and name in a Target."""
    if not (element.label or element.unique_id):
        return False
    traits = {t.casefold() for t in element.traits}
    return (
        element.role in TAPPABLE_ROLES
        or element.role in TEXT_FIELD_ROLES
        or is_secure(element)
        or bool(TAPPABLE_TRAITS & traits)
    )


def screen_id(observation: Observation) -> str:
    """Which screen this is (see the module docstring): 12 hex digits."""
    parts = [observation.app or ""]
    for element in app_elements(observation):
        if is_footer_key(element):
            continue
        if is_heading(element):
            parts.append(f"heading\x1f{element.label}")
        elif is_control(element):
            parts.append(f"{element.role}\x1f{element.unique_id or element.label}")
    return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()[:12]


def screen_name(observation: Observation) -> str:
    """A readable name: the first navigation title, else the first header, else the first
    label, else the screen's id."""
    elements = app_elements(observation)
    for element in elements:
        if element.role == "AXHeading" and element.label:
            return element.label
    for element in elements:
        if is_heading(element):
            return element.label
    return next((e.label for e in elements if e.label), None) or screen_id(observation)


def screen_state(observation: Observation) -> dict[str, Any]:
    """Everything on screen a decision may depend on: what must be equal for a recorded
    decision to hold on a live screen (a field holding other text asks for a new decision;
    a tap by coordinates needs the same layout). The screenshot counts only when there is
    neither a tree nor text."""
    key: dict[str, Any] = {
        "app": observation.app,
        "app_running": observation.app_running,
        "error": observation.error,
        "text": observation.text,
        "elements": unstructure(observation.elements),
    }
    if not observation.elements and observation.text is None and observation.screenshot:
        key["screenshot"] = observation.screenshot.sha256
    return key
