"""A model's answer turned into a Decision, or rejected with a reason the model can act on.

Every check a device would otherwise fail on happens here, before anything is performed: the
JSON and its fields (through the codec's bounded JSON path), element references, taps and swipes
off the screen, and text that would type a secret the scenario did not ask for (the API key,
or the test password anywhere but through the password placeholder into a secure field).
Long free text is cut to ``MAX_TEXT_CHARACTERS``: a 50 MB ``reasoning`` does not travel on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from orav.agents.prompt import PASSWORD_PLACEHOLDER, Screen
from orav.codec import JSONRefused, parse_json, structure
from orav.errors import InputError
from orav.model import Decision, Element, Swipe, Tap

_FENCE = re.compile(r"^```[\w-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_TOP_KEYS = ("previous_outcome_met", "reasoning", "element", "action", "expected_outcome")
_REQUIRED = ("reasoning", "action", "expected_outcome")
MAX_ANSWER_CHARACTERS = 64 * 1024  # of one answer's text; a real one is well under 4 KB
MAX_TEXT_CHARACTERS = 2000  # kept of ``reasoning`` and ``expected_outcome``


class InvalidAnswer(ValueError):
    """Why an answer was rejected; the message goes back to the model in the re-ask."""


def strip_fence(text: str) -> str:
    """The JSON inside a markdown code fence, or the text itself."""
    text = text.strip()
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text


def _load(text: str) -> dict[str, Any]:
    if len(text) > MAX_ANSWER_CHARACTERS:
        raise InvalidAnswer(
            f"the answer was {len(text)} characters long, more than {MAX_ANSWER_CHARACTERS}; "
            "keep the reasoning to one sentence"
        )
    body = strip_fence(text)
    if not body:
        raise InvalidAnswer("the answer was empty; reply with the JSON object")
    try:
        data = parse_json(body)
    except JSONRefused as exc:
        where = f" at line {exc.line} column {exc.col}" if exc.line is not None else ""
        raise InvalidAnswer(
            f"not valid JSON ({exc.what}{where}); reply with the JSON object only"
        ) from None
    if not isinstance(data, dict):
        raise InvalidAnswer("expected one JSON object with the keys " + ", ".join(_TOP_KEYS))
    data = _seed_shape(data)
    extra = sorted(set(data) - set(_TOP_KEYS) - {"element_label"})
    if extra:
        raise InvalidAnswer(f"unknown key {extra[0]!r}; expected only {list(_TOP_KEYS)}")
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise InvalidAnswer(f"{missing[0]}: required field is missing")
    return data


def _seed_shape(data: dict[str, Any]) -> dict[str, Any]:
    """The ORAV seed's decision shape (``"action": "tap"``, ``"coordinates": {"x", "y"}``,
    ``"text"``, ``"key"``, ``"element_label"``) as orav's: the action becomes an object."""
    if not isinstance(data.get("action"), str):
        return data
    data = dict(data)
    action: dict[str, Any] = {"kind": data["action"]}
    coordinates = data.pop("coordinates", None)
    if isinstance(coordinates, dict):
        action.update((axis, coordinates[axis]) for axis in ("x", "y") if axis in coordinates)
    for key in ("text", "key", "seconds", "start", "end"):
        if key in data:
            action[key] = data.pop(key)
    data["action"] = action
    return data


def _resolve(ref: Any, refs: dict[str, Element]) -> Element | None:
    """The element a reference names; an exact, unique label or ``#id`` is accepted too."""
    if ref is None:
        return None
    if not isinstance(ref, str):
        raise InvalidAnswer(f"element: expected a reference like 'e12' or null, got {ref!r}")
    if ref in refs:
        return refs[ref]
    wanted = ref.removeprefix("#")
    hits = [e for e in refs.values() if wanted in (e.label, e.unique_id)]
    if len(hits) == 1:
        return hits[0]
    sample = ", ".join(list(refs)[:5])
    raise InvalidAnswer(
        f"element: unknown element reference {ref!r}; cite one listed in the tree"
        + (f" (e.g. {sample})" if sample else "")
    )


def _target(element: Element) -> dict[str, str]:
    if element.label is None and element.unique_id is None:
        return {}
    target = {"label": element.label, "id": element.unique_id}
    return {key: value for key, value in target.items() if value is not None}


def _fill_action(
    action: dict[str, Any],
    element: Element | None,
    focused: Element | None,
    password: str | None,
) -> dict[str, Any]:
    """Null means default; the agent fills in what the model is not asked for."""
    action = {key: value for key, value in action.items() if value is not None}
    kind = action.get("kind")
    if kind == "tap":
        if element is not None:
            center = element.frame.center
            action.update(x=center.x, y=center.y, vision=False)
            target = _target(element)
            if target:
                action["target"] = target
        elif "x" in action and "y" in action and "target" not in action:
            action["vision"] = True
        elif "target" not in action:
            raise InvalidAnswer("action: a tap needs an element reference or both x and y")
    elif kind == "type_text" and isinstance(action.get("text"), str):
        if PASSWORD_PLACEHOLDER in action["text"]:
            if password is None:
                raise InvalidAnswer(
                    f"this scenario has no test password for {PASSWORD_PLACEHOLDER}"
                )
            action["text"] = action["text"].replace(PASSWORD_PLACEHOLDER, password)
            action["secure"] = True
        elif any(e is not None and e.secure for e in (element, focused)):
            action["secure"] = True
    elif kind == "assert" and element is not None:
        given = action.get("target")
        if not isinstance(given, dict) or not any(given.get(k) for k in ("label", "id")):
            action["target"] = _target(element)
    return action


def _cut(text: Any) -> Any:
    """Free text cut to MAX_TEXT_CHARACTERS (anything else is the codec's to refuse)."""
    if isinstance(text, str) and len(text) > MAX_TEXT_CHARACTERS:
        return text[:MAX_TEXT_CHARACTERS] + "… (cut)"
    return text


def _check_secrets(action: dict[str, Any], secrets: Iterable[str]) -> None:
    """Refuse text, as the model wrote it, that holds a secret: the API key, or the password
    typed other than through the placeholder (which the agent fills in, marked secure)."""
    text = action.get("text")
    if isinstance(text, str) and any(secret and secret in text for secret in secrets):
        raise InvalidAnswer(
            "action: that text contains a secret orav will not type (a key or password the "
            f"scenario did not ask for); type the password only as {PASSWORD_PLACEHOLDER}"
        )


def _check_bounds(decision: Decision, screen: Screen | None) -> None:
    if screen is None:
        return
    action = decision.action
    points = []
    if isinstance(action, Tap) and action.x is not None and action.y is not None:
        points = [("tap", action.x, action.y)]
    elif isinstance(action, Swipe):
        points = [("swipe start", action.start.x, action.start.y)]
        points.append(("swipe end", action.end.x, action.end.y))
    for what, x, y in points:
        if not screen.contains(x, y):
            raise InvalidAnswer(
                f"action: {what} at {x:g},{y:g} is outside the screen "
                f"(0 <= x < {screen.width:g}, 0 <= y < {screen.height:g} points)"
            )


def parse_answer(
    text: str,
    refs: dict[str, Element],
    *,
    screen: Screen | None = None,
    focused: Element | None = None,
    password: str | None = None,
    first_step: bool = False,
    secrets: Iterable[str] = (),
) -> Decision:
    """The Decision an answer describes; InvalidAnswer says what to fix.

    ``secrets`` (the API key, the password) must never be typed unless the scenario asked.
    """
    data = _load(text)
    element = _resolve(data.get("element"), refs)
    action = data["action"]
    if not isinstance(action, dict):
        raise InvalidAnswer("action: expected an object with a 'kind'")
    _check_secrets(action, [*secrets, password or ""])
    fields = {
        "action": _fill_action(action, element, focused, password),
        "reasoning": _cut(data["reasoning"]),
        "expected_outcome": _cut(data["expected_outcome"]),
        "previous_outcome_met": None if first_step else data.get("previous_outcome_met"),
    }
    if element is not None:
        fields["element_label"] = element.label or element.unique_id
    elif isinstance(data.get("element_label"), str):  # the seed's shape names it directly
        fields["element_label"] = _cut(data["element_label"])
    try:
        decision = structure({k: v for k, v in fields.items() if v is not None}, Decision)
    except InputError as exc:
        raise InvalidAnswer(exc.what) from None
    _check_bounds(decision, screen)
    return decision
