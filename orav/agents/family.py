"""Model families: how each answers and in which coordinates, chosen by a flag or the model's
name, and their answers read into orav's own shape.

A family says three things: the unit its coordinates come in (``points``: the tree's own, which
are cells on a terminal; ``pixels`` of the screenshot it was sent, as Qwen2.5-VL grounds;
``thousandths`` of the screenshot's width and height, as Qwen3-VL and UI-TARS do), the block
its vision encoder cuts images into (the screenshot is padded to it, so the model's own resize
does not move a pixel), and the answer format it is asked for. Every family's answers are read
whatever the family: orav's JSON, the ORAV seed's shape (``"action": "tap"``,
``coordinates``, ``element_label``), a verb object (Qwen's ``mobile_use`` arguments,
``bbox_2d`` boxes) and UI-TARS's ``Action: click(start_box='(x1,y1,x2,y2)')`` text all become
``{"action": {"kind": ...}, ...}`` with coordinates in the family's unit.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Literal

from attrs import frozen

from orav.agents.verbs import kind_of, schema_names, sentence_kind
from orav.model.action import ACTION_KINDS
from orav.model.keys import parse_key

Unit = Literal["points", "pixels", "thousandths"]


@frozen
class Family:
    """How a family of models answers: its coordinates' unit, its image block, its format."""

    name: str
    unit: Unit = "points"
    block: int = 0  # pixels: the screenshot is padded to a multiple of it
    response_format: str = "json_schema"  # what it is asked for unless the config says
    guide: str = ""  # what the system prompt adds for it


_UITARS_GUIDE = """\
You may also answer as your family does: "Thought: ..." then one line "Action: ..." with \
click(start_box='(x1,y1,x2,y2)'), long_press(start_box='(x,y)'), type(content='...'), \
hotkey(key='enter'), scroll(start_box='(x,y)', direction='down'), \
drag(start_box='(x1,y1)', end_box='(x2,y2)'), wait() or finished(content='...')."""

FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family("orav"),
        Family("qwen2.5", "pixels", block=28),
        Family("qwen3", "thousandths"),
        Family("uitars", "thousandths", response_format="text", guide=_UITARS_GUIDE),
        Family("gemini", "thousandths"),
    )
}

# Fragments of a model's name (lower case, letters and digits only) and the family they mean:
# data, the one place a new family's names go. The first that matches wins.
NAMES: tuple[tuple[str, str], ...] = (
    ("uitars", "uitars"),
    ("qwen3vl", "qwen3"),
    ("qwen25vl", "qwen2.5"),
    ("qwen2vl", "qwen3"),  # Qwen2-VL grounds in 0-1000, as Qwen3-VL does
    ("gemini", "gemini"),
)


def family_of(model: str, name: str | None = None) -> Family:
    """The family ``name`` names, else the one ``model``'s name shows, else orav's own."""
    if name is not None:
        return FAMILIES[name]
    folded = re.sub(r"[^a-z0-9]", "", model.lower())
    for fragment, family in NAMES:
        if fragment in folded:
            return FAMILIES[family]
    return FAMILIES["orav"]


# The families' own coinages that say no verb of orav's (``orav.agents.verbs`` reads the rest
# by meaning): data, the one place a family's action space adds to.
COINED: dict[str, str] = {
    "left_single": "tap",  # UI-TARS
    "long_press": "tap",  # Qwen, UI-TARS: a tap held
    "system_button": "press_key",  # Qwen: Back, Home, Menu, Enter
    "press_home": "press_key",
    "press_back": "press_key",
}
# Keys as the families name them, as orav names them (``return`` works on iOS and Textual).
_KEYS = {"enter": "return", "back": "escape", "press_back": "escape", "press_home": "home"}
_POINT = ("coordinates", "coordinate", "point", "start_box", "bbox_2d", "bbox", "box", "position")
_END = ("coordinate2", "end_box", "end_point")
_YX = ("box_2d",)  # Gemini's boxes: [ymin, xmin, ymax, xmax]
_TEXT = ("text", "content", "value")
# An Action: line's call: to the text's end (UI-TARS: its text may span lines), else to the
# end of its line (AppAgent: a Summary: line follows).
_ACTION_LINES = (
    re.compile(r"(?:^|\n)\s*Action:\s*(\w+)\s*(?:\((.*)\))?\s*$", re.DOTALL),
    re.compile(r"(?:^|\n)[ \t]*Action:[ \t]*(\w+)[ \t]*(?:\((.*?)\))?[ \t]*(?:\n|$)"),
)
_THOUGHT = re.compile(r"Thought:\s*(.*?)\s*(?:\n\s*Action:|$)", re.DOTALL)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def action_call(text: str) -> dict[str, Any] | None:
    """An ``Action:`` line's call (UI-TARS's ``Action: click(start_box='...')``, AppAgent's
    ``Action: tap(5)``, ``Action: FINISH``) as a verb object, with the ``Thought:`` before it,
    or None when the text has no such line. The call is parsed, never run: a keyword argument
    is its field, a number alone the element it acts on, a text alone its text."""
    calls = [found for line in _ACTION_LINES if (found := line.search(text.strip()))]
    if not calls:
        return None
    parsed = [(found, _call(found.group(2) or "")) for found in calls]
    found, call = next(((f, c) for f, c in parsed if c is not None), parsed[0])
    verb = found.group(1)
    if call is None:
        return {"action": verb, "unreadable": (found.group(2) or "")[:80]}
    data: dict[str, Any] = {"action": verb}
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):  # one call: f(...)
        for argument in call.args[:1]:
            value = argument.value if isinstance(argument, ast.Constant) else None
            if isinstance(value, int) and not isinstance(value, bool):
                data["element"] = value
            elif isinstance(value, str):
                data["text"] = value
        for keyword in call.keywords:
            if keyword.arg and isinstance(keyword.value, ast.Constant):
                data[keyword.arg] = keyword.value.value
    thought = _THOUGHT.search(text)
    if thought is not None:
        data["reasoning"] = thought.group(1)
    return data


def _call(arguments: str) -> ast.expr | None:
    """A call's arguments parsed as ``f(...)`` (never run), or None when they do not parse."""
    try:
        return ast.parse(f"f({arguments})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _point(value: Any) -> dict[str, float] | None:
    """A point from ``{"x", "y"}``, ``[x, y]``, a box ``[x1, y1, x2, y2]`` (its centre) or
    text holding two or four numbers (``'(x1,y1,x2,y2)'``, ``'<point>x y</point>'``)."""
    if isinstance(value, dict) and "x" in value and "y" in value:
        return {"x": value["x"], "y": value["y"]}
    if isinstance(value, str):
        value = [float(n) for n in _NUMBER.findall(value)]
    if not isinstance(value, (list, tuple)) or len(value) not in (2, 4):
        return None
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in value):
        return None
    if len(value) == 4:
        return {"x": (value[0] + value[2]) / 2, "y": (value[1] + value[3]) / 2}
    return {"x": value[0], "y": value[1]}


def orav_shape(data: dict[str, Any]) -> dict[str, Any]:
    """An answer in orav's shape, its action an object with an orav ``kind``, whatever words
    and shape the model gave it: a kind in other words, a verb beside the fields (the seed's, a
    family's), an action that is a list (the first is taken), an object keyed by its verb, or a
    sentence; an answer without ``action`` whose verb is another field (``type``, ``name``)
    with its arguments beside it or in an object. An answer whose verb names no kind is given
    back as it is, for the codec to refuse."""
    data = schema_names(data)
    action = data.get("action")
    if isinstance(action, list) and action:
        action = action[0]  # a batch of actions: one a step
        data = {**data, "action": action}
    if isinstance(action, dict):
        return _action_object(data, action)
    found = _verb(data)
    if found is None:
        return data
    verb, kind, rest = found
    said = _said(verb, rest)
    shaped: dict[str, Any] = {"kind": kind}
    _FIELDS.get(kind, _own_fields)(shaped, rest, said)
    if "label" in rest and "element_label" not in rest and isinstance(rest["label"], str):
        rest["element_label"] = rest.pop("label")
    if isinstance(rest.get("thought"), str) and "reasoning" not in rest:
        rest["reasoning"] = rest.pop("thought")
    return {**rest, "action": shaped}


def _action_object(data: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """An answer whose action is an object: its kind read by meaning when it is not orav's, or
    the verb it is keyed by (``{"click_element_by_index": {"index": 3}}``)."""
    action = schema_names(action)
    data = {**data, "action": action}
    kind = action.get("kind")
    if isinstance(kind, str) and kind not in ACTION_KINDS:
        resolved = COINED.get(kind.lower()) or kind_of(kind, _given(action, data))
        if resolved is not None:  # read as that verb beside its fields (a status, keys, ...)
            rest = {key: value for key, value in data.items() if key != "action"}
            fields = {key: value for key, value in action.items() if key != "kind"}
            return orav_shape({**rest, **fields, "action": kind})
    if kind is None and len(action) == 1:
        verb, arguments = next(iter(action.items()))
        if isinstance(arguments, dict):
            rest = {key: value for key, value in data.items() if key != "action"}
            return orav_shape({**rest, **arguments, "action": verb})
    return data


def _verb(data: dict[str, Any]) -> tuple[str, str, dict[str, Any]] | None:
    """The answer's verb, the kind it names and the rest of the answer: the ``action`` (a word
    or a sentence), else another field's single word (``"type": "click"``, ``"name":
    "click_at"``), its object of arguments merged in; None when there is none."""
    rest = {key: value for key, value in data.items() if key != "action"}
    action = data.get("action")
    if isinstance(action, str):
        kind = _kind(action, data)
        if kind is not None:
            return action, kind, {**rest, **_sentence(action, kind)}
    for key, value in data.items():
        if key == "action" or not isinstance(value, str) or len(value.split()) != 1:
            continue
        kind = COINED.get(value.lower()) or kind_of(value, _given(data))
        if kind is not None:
            others = {k: v for k, v in rest.items() if k != key}
            arguments = [v for v in others.values() if isinstance(v, dict)]
            return value, kind, {**others, **(arguments[0] if len(arguments) == 1 else {})}
    if isinstance(action, str):  # a verb of no kind: the codec says which kinds there are
        return action, action.lower(), rest
    return None


def _kind(action: str, data: dict[str, Any]) -> str | None:
    """The kind an action's word or sentence names."""
    if len(action.split()) > 1:
        return sentence_kind(action, _given(data))
    return COINED.get(action.lower()) or kind_of(action, _given(data))


def _given(*answers: dict[str, Any]) -> list[str]:
    """The fields an answer gives a value (null is none)."""
    return [key for answer in answers for key, value in answer.items() if value is not None]


_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|'([^']+)'")
_REFERENCE = re.compile(r"\b[eE]\d+\b")


def _sentence(action: str, kind: str) -> dict[str, Any]:
    """What an action written as a sentence says besides its verb: the text it quotes (what to
    type, else the name of what it acts on), a reference, a key."""
    if len(action.split()) < 2:
        return {}
    said: dict[str, Any] = {}
    quoted = next((q for m in _QUOTED.finditer(action) for q in m.groups() if q), None)
    reference = _REFERENCE.search(action)
    if reference is not None:
        said["element"] = reference.group()
    if kind == "type_text" and quoted is not None:
        said["text"] = quoted
    elif kind in ("tap", "assert") and reference is None:
        said["element_label"] = quoted or action
    elif kind == "press_key":
        key = next((w for w in action.split() if _is_key(w.strip(".,;:!"))), None)
        said["key"] = key.strip(".,;:!").lower() if key else None
    elif kind == "done":
        said["summary"] = action
    return said


def _is_key(word: str) -> bool:
    try:
        parse_key(word.lower())
    except ValueError:
        return False
    return len(word) > 1 and kind_of(word) is None


@frozen
class _Said:
    """What a verb answer says beside its verb, whatever the family calls it."""

    verb: str
    point: dict[str, float] | None
    end: dict[str, float] | None
    text: str | None


def _said(verb: str, rest: dict[str, Any]) -> _Said:
    """The answer's point (the first of ``_POINT``, else a Gemini box), end point and text,
    taken out of ``rest``."""
    point = next((p for key in _POINT if (p := _point(rest.pop(key, None))) is not None), None)
    if point is None and rest.get("x") is not None and rest.get("y") is not None:
        point = {"x": rest.pop("x"), "y": rest.pop("y")}  # beside the verb, not in an object
    for key in _YX:
        yx = _point(rest.pop(key, None))
        if point is None and yx is not None:
            point = {"x": yx["y"], "y": yx["x"]}
    end = next((p for key in _END if (p := _point(rest.pop(key, None))) is not None), None)
    text = next((rest.pop(key) for key in _TEXT if isinstance(rest.get(key), str)), None)
    return _Said(verb, point, end, text)


def _tap_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    if said.point is not None:
        action.update(said.point)
    for key in ("target", "duration"):
        if key in rest:
            action[key] = rest.pop(key)
    if said.verb.lower() == "long_press":
        action["duration"] = rest.pop("time", 1.0)


def _type_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    action["text"] = said.text


def _key_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    key = rest.pop("key", None) or rest.pop("keys", None) or rest.pop("button", None)
    key = key or said.text or said.verb
    if isinstance(key, list) and all(isinstance(part, str) for part in key):
        key = "+".join(key)  # a combination as a list: ["CTRL", "A"]
    if isinstance(key, str):
        key = "+".join(part for part in re.split(r"[\s+]+", key.lower()) if part)
        key = _KEYS.get(key, key)
    action["key"] = key


def _swipe_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    start = _point(rest.pop("start", None)) or said.point
    end = _point(rest.pop("end", None)) or said.end
    action.update(start=start, end=end)
    if end is None and isinstance(rest.get("direction"), str):
        action["direction"] = rest.pop("direction").lower()


def _wait_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    seconds = rest.pop("seconds", None) or rest.pop("time", None) or rest.pop("duration", None)
    if seconds is not None:
        action["seconds"] = seconds


def _done_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    status = rest.pop("status", None)
    action["success"] = rest.pop("success", status != "failure")
    action["summary"] = said.text or rest.pop("summary", None)


def _own_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    """orav's own kinds in the seed's shape: their fields sit beside the action."""
    for key in ("text", "key", "seconds", "start", "end", "target", "condition"):
        if key in rest:
            action[key] = rest.pop(key)
    if said.text is not None and action["kind"] == "assert":
        action["value"] = said.text


# How each kind's fields are read from a verb answer (``_own_fields`` for the rest).
_FIELDS = {
    "tap": _tap_fields,
    "type_text": _type_fields,
    "press_key": _key_fields,
    "swipe": _swipe_fields,
    "wait": _wait_fields,
    "done": _done_fields,
}
