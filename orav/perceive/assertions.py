"""What a screen shows, checked against what a test expects of it (pure, no I/O).

- an ``Assert`` action or success criterion: ``check`` it, ``describe_assertion`` it in the
  user's terms, and say what the screen showed instead when it missed (``found_instead``);
- a decision's expected outcome: the quoted names verification can look for
  (``expected_labels``, ``displays``);
- the focused field: whether a secret typed into it would show (``revealing_field``), and whether
  a tap on it is expected to change nothing (``taps_focused_field``).

Every element is found by the one target rule (``orav.perceive.targets``).
"""

from __future__ import annotations

import re

from orav.model import Action, Assert, Element, Observation, Tap, Target
from orav.model.action import TEXT_CONDITIONS, screen_text
from orav.perceive.roles import is_secure, is_text_field
from orav.perceive.targets import near_miss, target_element

_QUOTED = re.compile(r'["“]([^"”]{1,80})["”]')


def expected_labels(expected_outcome: str) -> list[str]:
    """The quoted names in an expected outcome: what verification can check on screen."""
    return _QUOTED.findall(expected_outcome)


def displays(observation: Observation, text: str) -> bool:
    """True when an element's label, value or id is ``text``."""
    return any(text in (e.label, e.value, e.unique_id) for e in observation.elements)


def check(assertion: Assert, observation: Observation) -> bool:
    """Evaluate one assertion against an observation (the one target rule finds its element)."""
    if assertion.target is None:  # contains / matches on the whole screen's text
        return assertion.finds(screen_text(observation))
    element = target_element(observation, assertion.target)
    if assertion.condition == "absent":
        return element is None
    if assertion.condition == "value_equals":
        return element is not None and element.value == assertion.value
    if assertion.condition in TEXT_CONDITIONS:
        return element is not None and (
            assertion.finds(element.label) or assertion.finds(element.value)
        )
    return element is not None


def found_instead(assertion: Assert, observation: Observation | None) -> str:
    """What ``observation`` shows where ``assertion`` looked, in the user's terms: the evidence
    a missed check needs beside what was expected ("#switch has value '1'": value '0')."""
    if observation is None:
        return "nothing was observed"
    if assertion.target is None:
        text = " ".join(screen_text(observation).split())
        return f"the screen reads {_clip(text)!r}" if text else "an empty screen"
    element = target_element(observation, assertion.target)
    if element is None:
        near = near_miss(observation, assertion.target)
        return f"no {checked(assertion.target)} on the last screen" + (f"; {near}" if near else "")
    if assertion.condition == "value_equals":
        return f"value {element.value!r}"
    if assertion.condition == "absent":
        return f"it is still there ({_clip(element.label or element.value or '')!r})"
    return f"label {_clip(element.label or '')!r}, value {_clip(element.value or '')!r}"


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_assertion(assertion: Assert) -> str:
    """An assertion in the user's terms (``#switch has value '1'``): how a report names a goal."""
    where = "the screen" if assertion.target is None else checked(assertion.target)
    if assertion.condition in TEXT_CONDITIONS:
        return f"{where} {assertion.condition} {assertion.value!r}"
    if assertion.condition == "value_equals":
        return f"{where} has value {assertion.value!r}"
    return f"{where} is {assertion.condition}"


def checked(target: Target) -> str:
    """A checked target as a goal names it: both its id and its label when it gives both
    (the check needs both to match), else as the target names itself."""
    if target.id is not None and target.label is not None:
        return f"#{target.id} labelled {target.label!r}"
    return str(target)


def revealing_field(observation: Observation) -> Element | None:
    """The focused field when it would show a secret typed into it (it is no secure field)."""
    focused = observation.focused
    return focused if focused and is_text_field(focused) and not is_secure(focused) else None


def show_target(element: Element) -> str:
    """An element as a message names it: its id, else its label or role."""
    return f"#{element.unique_id}" if element.unique_id else repr(element.label or element.role)


def taps_focused_field(action: Action, observation: Observation) -> bool:
    """A tap on the text field that already has focus is expected to change nothing."""
    if not isinstance(action, Tap) or action.target is None:
        return False
    element = target_element(observation, action.target)
    return element is not None and element.focused and is_text_field(element)
