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


# Verbs of the families' action spaces (Qwen's mobile_use, UI-TARS, the seed) as orav's kinds.
VERBS: dict[str, str] = {
    "click": "tap",
    "left_single": "tap",
    "long_press": "tap",
    "type": "type_text",
    "input": "type_text",
    "key": "press_key",
    "hotkey": "press_key",
    "press": "press_key",
    "system_button": "press_key",
    "press_home": "press_key",
    "press_back": "press_key",
    "swipe": "swipe",
    "drag": "swipe",
    "scroll": "swipe",
    "terminate": "done",
    "finished": "done",
    "finish": "done",
}
# Keys as the families name them, as orav names them (``return`` works on iOS and Textual).
_KEYS = {"enter": "return", "back": "escape", "press_back": "escape", "press_home": "home"}
_POINT = ("coordinates", "coordinate", "point", "start_box", "bbox_2d", "bbox", "box", "position")
_END = ("coordinate2", "end_box", "end_point")
_YX = ("box_2d",)  # Gemini's boxes: [ymin, xmin, ymax, xmax]
_TEXT = ("text", "content", "value")
_ACTION_LINE = re.compile(r"(?:^|\n)\s*Action:\s*(\w+)\s*\((.*)\)\s*$", re.DOTALL)
_THOUGHT = re.compile(r"Thought:\s*(.*?)\s*(?:\n\s*Action:|$)", re.DOTALL)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def action_call(text: str) -> dict[str, Any] | None:
    """UI-TARS's answer (``Thought: ...`` and ``Action: verb(name='value', ...)``) as a verb
    object, or None when the text has no such line. The call is parsed, never run."""
    found = _ACTION_LINE.search(text.strip())
    if found is None:
        return None
    verb, arguments = found.group(1), found.group(2)
    try:
        call = ast.parse(f"f({arguments})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {"action": verb, "unreadable": arguments[:80]}
    data: dict[str, Any] = {"action": verb}
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            if keyword.arg and isinstance(keyword.value, ast.Constant):
                data[keyword.arg] = keyword.value.value
    thought = _THOUGHT.search(text)
    if thought is not None:
        data["reasoning"] = thought.group(1)
    return data


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
    """An answer whose ``action`` is a verb (the seed's, a family's) in orav's shape: the action
    an object with its ``kind``; orav's own answers are returned as they are."""
    verb = data.get("action")
    if not isinstance(verb, str):
        return data
    rest = dict(data)
    del rest["action"]
    kind = VERBS.get(verb.lower(), verb.lower())
    said = _said(verb, rest)
    action: dict[str, Any] = {"kind": kind}
    _FIELDS.get(kind, _own_fields)(action, rest, said)
    if "label" in rest and "element_label" not in rest and isinstance(rest["label"], str):
        rest["element_label"] = rest.pop("label")
    if isinstance(rest.get("thought"), str) and "reasoning" not in rest:
        rest["reasoning"] = rest.pop("thought")
    return {**rest, "action": action}


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
    if said.verb.lower() == "long_press":
        action["duration"] = rest.pop("time", 1.0)


def _type_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    action["text"] = said.text


def _key_fields(action: dict[str, Any], rest: dict[str, Any], said: _Said) -> None:
    key = rest.pop("key", None) or rest.pop("button", None) or said.text or said.verb
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
    seconds = rest.pop("seconds", None) or rest.pop("time", None)
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
