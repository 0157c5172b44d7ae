"""A model's answer turned into a Decision, or rejected with a reason the model can act on.

The answer's object is found wherever the server put it (``orav.agents.reply``) and read in
orav's shape whatever the family wrote (``orav.agents.family``). Then, before anything is
performed: the element it names (``orav.agents.refs``: a reference, a name, the point a tap
lands on; a tap by coordinates on an element is a tap on that element, a "vision" tap only
where no element is), its coordinates in device points (``orav.agents.space``) and on the
screen, its fields (through the codec), and text that would type a secret the scenario did not
ask for (the API key, or the test password anywhere but through the password placeholder into
a secure field). Long free text is cut to ``MAX_TEXT_CHARACTERS``. Every rejection names the
field and why, bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from orav.agents.family import orav_shape
from orav.agents.prompt import Screen
from orav.agents.refs import ELEMENT_WORDS, cited, element_at, is_ref, named, nearest
from orav.agents.reply import (
    MAX_ANSWER_CHARACTERS,
    InvalidAnswer,
    ToolCall,
    answer_object,
    strip_fence,
)
from orav.agents.schema import ANSWER_SCHEMA
from orav.agents.space import Space
from orav.codec import structure
from orav.errors import InputError
from orav.model import Decision, Element
from orav.model.action import ACTION_KINDS
from orav.model.decision import (
    MAX_NOTES_CHARACTERS,
    MAX_PLAN_ITEM_CHARACTERS,
    MAX_PLAN_ITEMS,
    MAX_TEXT_CHARACTERS,
)
from orav.secrets import PASSWORD

__all__ = [
    "MAX_ANSWER_CHARACTERS",
    "MAX_TEXT_CHARACTERS",
    "InvalidAnswer",
    "ToolCall",
    "parse_answer",
    "strip_fence",
]

_SCROLL = 0.3  # of the screen a scroll by direction moves
_NAMING = ("element", "element_label", "label", "target")  # what an action may carry inside


def _cut(text: Any, limit: int = MAX_TEXT_CHARACTERS) -> Any:
    """Free text cut to ``limit`` characters (anything else is the codec's to refuse)."""
    if isinstance(text, str) and len(text) > limit:
        return text[:limit] + "… (cut)"
    return text


def _plan(plan: Any) -> Any:
    """Sub-goals as a list of at most MAX_PLAN_ITEMS short strings (one per line when the
    model wrote them as one string); anything else is the codec's to refuse."""
    if isinstance(plan, str):
        plan = [line.strip(" -*") for line in plan.splitlines() if line.strip(" -*")]
    if not isinstance(plan, list):
        return plan
    return [_cut(item, MAX_PLAN_ITEM_CHARACTERS) for item in plan[:MAX_PLAN_ITEMS]]


def _hoisted(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The answer and its action, with what the action names (an ``element`` or a label put
    inside it) lifted to the answer, where orav reads it."""
    action = data.get("action")
    if not isinstance(action, dict):
        raise InvalidAnswer("action: expected an object with a 'kind'")
    action, data = dict(action), dict(data)
    for key in _NAMING:
        value = action.get(key)
        if key == "target" and not isinstance(value, str):
            continue  # a target object is the action's own (a label and/or an id)
        if key in action:
            del action[key]
            data.setdefault("element" if key in ("element", "target") else "element_label", value)
    return data, action


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?|[-+]?\.\d+")
_TRUTH = {"true": True, "yes": True, "false": False, "no": False}


def _kind_schema(kind: Any) -> dict[str, Any]:
    """The schema of the action kind ``kind`` (empty for no kind of orav's)."""
    kinds = ANSWER_SCHEMA["properties"]["action"]["anyOf"]
    return next((k for k in kinds if k["properties"]["kind"]["enum"][0] == kind), {})


def _typed(values: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A number or a truth written as text (``"195"``, ``"true"``, ``"yes"``) where the schema
    wants one, read as one; anything else as it is (the codec's to refuse)."""
    properties = schema.get("properties", {})
    typed = dict(values)
    for key, value in values.items():
        if not isinstance(value, str) or key not in properties:
            continue
        kinds = properties[key].get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds:  # text is meant as such (a key named "5" is no keycode)
            continue
        text = value.strip().casefold()
        if {"number", "integer"} & set(kinds) and _NUMBER.fullmatch(text):
            typed[key] = float(text) if "number" in kinds else int(float(text))
        elif "boolean" in kinds and text in _TRUTH:
            typed[key] = _TRUTH[text]
    return typed


def _target(element: Element) -> dict[str, str]:
    if element.label is None and element.unique_id is None:
        return {}
    target = {"label": element.label, "id": element.unique_id}
    return {key: value for key, value in target.items() if value is not None}


def _point(value: Any, what: str, space: Space | None) -> tuple[float, float] | None:
    """A point of the answer in device points (None when it gives none)."""
    if not isinstance(value, dict) or value.get("x") is None or value.get("y") is None:
        return None
    x, y = value["x"], value["y"]
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in (x, y)):
        raise InvalidAnswer(f"action: {what} x and y must be numbers, got {x!r}, {y!r}")
    if space is None:
        return float(x), float(y)
    points = space.points(x, y)
    if points is None:
        raise InvalidAnswer(f"action: {what} at {x:g},{y:g} is outside the screen ({space.bounds})")
    return points


def _reference(value: Any) -> str | None:
    """The answer's element reference (``e12``; a number where one goes is a mark's)."""
    if isinstance(value, int) and not isinstance(value, bool) or str(value).strip().isdigit():
        value = f"e{str(value).strip()}"
    if value is not None and not isinstance(value, str):
        raise InvalidAnswer(f"element: expected a reference like 'e12' or null, got {value!r}")
    return value


def _element_field(data: dict[str, Any]) -> Any:
    """The answer's ``element``, else a field the schema's own words for it name (``ref``,
    ``index``, ``element_id``); of an object given for it, the reference or name inside."""
    found = data.get("element")
    for key, value in data.items():
        said = re.findall(r"[^\W_]+", key.casefold())
        if found is None and said and set(said) <= ELEMENT_WORDS and isinstance(value, int | str):
            found = value
    if isinstance(found, dict):  # an object for the element: its reference, else its name
        names = (value for value in found.values() if isinstance(value, str))
        return _element_field(found) or next(names, None)
    return found


class _Naming:
    """What an answer names, resolved against the screen's references."""

    def __init__(
        self,
        data: dict[str, Any],
        action: dict[str, Any],
        refs: dict[str, Element],
        space: Space | None,
    ) -> None:
        self.refs, self.space = refs, space
        self.said: list[str] = []
        self.stale: str | None = None
        self.element: Element | None = None
        ref = _reference(_element_field(data))
        if ref is not None:
            self._cite(ref)
        label = data.get("element_label")
        if isinstance(label, str) and label.strip():
            self.said.append(label)
        target = action.get("target")
        if isinstance(target, dict) and target.get("selector") is None:  # selectors: the driver's
            self.said += [t for t in (target.get("label"), target.get("id")) if isinstance(t, str)]
        if self.element is None:
            found = (named(said, refs) for said in self.said)
            self.element = next((e for e in found if e is not None), None)
        if self.element is None and self.stale is None:
            ref = next((r for said in self.said if (r := cited(said)) is not None), None)
            if ref is not None:
                self._cite(ref)

    def _cite(self, ref: str) -> None:
        """A reference on this screen, one from another (stale), or a name said in its place."""
        if ref.strip() in self.refs:
            self.element = self.refs[ref.strip()]
        elif is_ref(ref):
            self.stale = ref.strip()
        elif ref.strip():
            self.said.append(ref)

    def missing(self, hint: str) -> InvalidAnswer:
        """The rejection of a name that names nothing here, with the nearest elements."""
        if self.stale is not None:
            what = f"element: {self.stale[:20]!r} is not on this screen (references change with it)"
        elif self.said:
            what = f"element: no element here is called {self.said[0][:80]!r}"
        else:
            what = "element: the answer names no element"
        near = nearest([*self.said, hint], self.refs, self.space)
        return InvalidAnswer(f"{what}; the nearest are: {near}; cite one of their references")


def _tap(action: dict[str, Any], naming: _Naming, space: Space | None, hint: str) -> Element | None:
    """A tap on the element it names, else on the element under its point (its centre), else
    at its point as a vision tap; a name that names nothing, without a point, is re-asked."""
    point = _point(action, "tap", space)
    element = naming.element
    under = element_at(*point, naming.refs) if point is not None else None
    # a point on an element is that element; of two with the name, the one it points at
    if under is not None and (
        element is None or any(named(said, {"under": under}) is under for said in naming.said)
    ):
        element = naming.element = under
    target = action.get("target")
    selector = isinstance(target, dict) and target.get("selector") is not None
    if element is None and point is None and not selector:
        if naming.said or naming.stale or naming.refs:
            raise naming.missing(hint)
        raise InvalidAnswer("action: a tap needs an element reference or both x and y")
    if element is not None:
        _on(action, element)
    elif point is not None:
        action.update(x=point[0], y=point[1], vision=not selector)
    return element


def _on(action: dict[str, Any], element: Element) -> None:
    """A tap at the element's centre, its target the element's own label and id."""
    center = element.frame.center
    action.update(x=center.x, y=center.y, vision=False)
    action.pop("target", None)
    if _target(element):
        action["target"] = _target(element)


def _swipe(action: dict[str, Any], space: Space | None) -> None:
    """A swipe's points in device points; a scroll by ``direction`` from its start point."""
    start = _point(action.get("start"), "swipe start", space)
    end = _point(action.get("end"), "swipe end", space)
    direction = action.pop("direction", None)
    if start is not None and end is None and direction is not None and space is not None:
        width, height = space.width * space.x_points, space.height * space.y_points
        dx, dy = {
            "down": (0, -height),
            "up": (0, height),
            "left": (width, 0),
            "right": (-width, 0),
        }.get(str(direction), (None, None))
        if dx is None or dy is None:
            raise InvalidAnswer(f"action: scroll direction {direction!r}: up, down, left or right")
        x = min(max(start[0] + dx * _SCROLL, 0), width - 1)
        y = min(max(start[1] + dy * _SCROLL, 0), height - 1)
        end = (x, y)
    for key, point in (("start", start), ("end", end)):
        if point is not None:
            action[key] = {"x": point[0], "y": point[1]}


def _secure(
    action: dict[str, Any],
    element: Element | None,
    focused: Element | None,
    fills: Mapping[str, str],
) -> None:
    """Fill in the secrets the model typed by their stand-ins (marked secure); text typed into
    a secure field is secure too."""
    text = action.get("text")
    if action.get("kind") != "type_text" or not isinstance(text, str):
        return
    named = [stand_in for stand_in in fills if stand_in in text]
    if PASSWORD in text and PASSWORD not in fills:
        raise InvalidAnswer(f"this scenario has no test password for {PASSWORD}")
    for stand_in in named:
        text = text.replace(stand_in, fills[stand_in])
    action["text"] = text
    if named or any(e is not None and e.secure for e in (element, focused)):
        action["secure"] = True


def _check_secrets(action: dict[str, Any], secrets: Iterable[str]) -> None:
    """Refuse text, as the model wrote it, that holds a secret: the API key, or a known secret
    typed other than through its stand-in (which the agent fills in, marked secure)."""
    text = action.get("text")
    if isinstance(text, str) and any(secret and secret in text for secret in secrets):
        raise InvalidAnswer(
            "action: that text contains a secret orav will not type (a key or password the "
            f"scenario did not ask for); type the password only as {PASSWORD}"
        )


def parse_answer(
    text: str | None,
    refs: dict[str, Element],
    *,
    screen: Screen | None = None,
    space: Space | None = None,
    focused: Element | None = None,
    fills: Mapping[str, str] = {},
    first_step: bool = False,
    secrets: Iterable[str] = (),
    tool_calls: Sequence[ToolCall] = (),
) -> Decision:
    """The Decision an answer describes; InvalidAnswer says what to fix, and where.

    ``space`` is the prompt's coordinate space (the ``screen``'s points when not given);
    ``fills`` maps each stand-in the model may type (``{{password}}``, ``{{NAME}}``) to its
    secret; ``secrets`` (the API key) and those values must never be typed as such.
    """
    data = orav_shape(answer_object(text, tool_calls))
    if "unreadable" in data:
        raise InvalidAnswer(f"Action: cannot read the arguments {data['unreadable']!r}")
    if space is None and screen is not None:
        space = Space("points", screen.width, screen.height)
    data, action = _hoisted(data)
    action = {key: value for key, value in action.items() if value is not None}
    data, action = _typed(data, ANSWER_SCHEMA), _typed(action, _kind_schema(action.get("kind")))
    _check_secrets(action, [*secrets, *fills.values()])
    naming = _Naming(data, action, refs, space)
    hint = str(data.get("reasoning") or "")[:MAX_TEXT_CHARACTERS]
    kind = action.get("kind")
    element = naming.element
    if kind == "tap":
        element = _tap(action, naming, space, hint)
    elif kind == "swipe":
        _swipe(action, space)
    elif kind == "assert":
        _assert(action, naming, hint)
    _secure(action, element, focused, fills)
    return _decision(data, action, element, first_step)


def _assert(action: dict[str, Any], naming: _Naming, hint: str) -> None:
    """An assert's target: the element it names when it gives none, else the name it said (a
    name not on screen: what an ``absent`` check is for)."""
    given = action.get("target")
    if naming.element is not None:
        if not isinstance(given, dict) or not any(given.get(k) for k in ("label", "id")):
            action["target"] = _target(naming.element)
    elif not isinstance(given, dict):
        if naming.stale:
            raise naming.missing(hint)
        if naming.said:
            action["target"] = {"label": naming.said[0]}


def _decision(
    data: dict[str, Any], action: dict[str, Any], element: Element | None, first_step: bool
) -> Decision:
    """The Decision of an answer whose action is in orav's shape; fields its kind does not
    have are the model's own, left aside (a tap's ``button``, a done's ``confidence``)."""
    name = action.get("kind")
    kind = ACTION_KINDS.get(name) if isinstance(name, str) else None
    if kind is not None:
        known = {field.name for field in attrs.fields(kind)}
        action = {key: value for key, value in action.items() if key == "kind" or key in known}
    fields = {
        "action": action,
        "reasoning": _cut(data.get("reasoning") or ""),
        "expected_outcome": _cut(data.get("expected_outcome") or ""),
        "previous_outcome_met": None if first_step else data.get("previous_outcome_met"),
        "notes": _cut(data.get("notes") or None, MAX_NOTES_CHARACTERS),
        "plan": _plan(data.get("plan") or None),
    }
    if element is not None:
        fields["element_label"] = element.label or element.unique_id
    elif isinstance(data.get("element_label"), str):  # the seed's shape names it directly
        fields["element_label"] = _cut(data["element_label"])
    try:
        return structure({k: v for k, v in fields.items() if v is not None}, Decision)
    except InputError as exc:
        raise InvalidAnswer(exc.what) from None
