"""The JSON schema a model's answer must follow, generated from the Decision and Action types.

Strict structured outputs (OpenAI ``json_schema`` with ``strict: true``) need every property
listed in ``required`` and ``additionalProperties: false``; an optional field is therefore
*nullable*, and null means "use the default". Fields the agent fills in itself (a tap's
target and ``vision`` flag, a typed text's ``secure`` flag) are not offered to the model: a
tap names an element reference in the answer's ``element`` instead.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import attrs

from orav.model import ACTION_TYPES, Decision, Tap, TypeText

# Filled in by the agent from the element reference or the screen, never by the model.
AGENT_FIELDS: dict[type, frozenset[str]] = {
    Tap: frozenset({"target", "vision"}),
    TypeText: frozenset({"secure"}),
    Decision: frozenset({"call", "element_label", "action"}),
}

# Decision fields with a default that a model must still fill in.
_REQUIRED_TEXT = frozenset({"reasoning", "expected_outcome"})

_PRIMITIVES = {str: "string", float: "number", int: "integer", bool: "boolean"}

DESCRIPTIONS = {
    "previous_outcome_met": "did the previous action's expected outcome happen? null on step 1",
    "reasoning": "one or two sentences: what you see and why this action",
    "element": "reference (ref, index: e.g. e12) of the element acted on or checked; null if none",
    "expected_outcome": "what the screen should show after this action, concretely",
    "notes": "optional memory for your next steps (what you learnt, what is done, what is "
    "left), a few sentences; shown to you again; null keeps your last notes",
    "plan": "optional sub-goals in order, at most 5 short items; shown to you again; null "
    "keeps your last plan",
}


# What each action kind does, said first in the words models use for it: the kind's name, then
# other verbs for it in parentheses. The schema sends it as the kind's description, and
# ``orav.agents.verbs`` reads an answer's kind written in other words by these verbs.
KINDS: dict[str, str] = {
    "tap": "tap (click, press, select, touch, choose, open): an element, or a point",
    "type_text": "type (input, enter, fill, write): text into the focused field",
    "swipe": "swipe (scroll, drag, fling, flick): from a start point to an end point",
    "press_key": "press_key (keypress, hotkey, hit): a key, by its name",
    "wait": "wait (sleep, pause, idle): some seconds, for the app",
    "launch": "launch (start, relaunch): the app under test",
    "terminate": "terminate (kill): the app under test",
    "assert": "assert (check, verify, expect, ensure): what the screen shows",
    "done": "done (finish, complete, finished, completed, success, terminate): the goal is "
    "reached (success true), or cannot be (success false)",
    "recover": "recover (dismiss): ask orav to clear an interruption on the screen",
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and "properties" not in schema:
        out = {**schema, "type": [kind, "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(kind, list):
        return {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _type_schema(tp: Any) -> dict[str, Any]:
    """The schema of one Python annotation: primitives, unions, Literals and attrs classes."""
    origin = typing.get_origin(tp)
    if origin is Literal:
        values = list(typing.get_args(tp))
        return {"type": "string", "enum": values}
    if origin in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(tp) if arg is not type(None)]
        if len(members) == 1:
            return _type_schema(members[0])
        if all(member in _PRIMITIVES for member in members):
            return {"type": [_PRIMITIVES[member] for member in members]}
        return {"anyOf": [_type_schema(member) for member in members]}
    if origin is tuple:  # tuple[X, ...]: an array of X
        return {"type": "array", "items": _type_schema(typing.get_args(tp)[0])}
    if tp in _PRIMITIVES:
        return {"type": _PRIMITIVES[tp]}
    if attrs.has(tp):
        return object_schema(tp)
    raise TypeError(f"no JSON schema for {tp!r}")


def object_schema(cls: type) -> dict[str, Any]:
    """A strict object schema for an attrs class: all properties required, defaults nullable."""
    hints = typing.get_type_hints(cls)
    skip = AGENT_FIELDS.get(cls, frozenset())
    properties: dict[str, Any] = {}
    kind = getattr(cls, "kind", None)
    if isinstance(kind, str):
        properties["kind"] = {"type": "string", "enum": [kind], "description": KINDS[kind]}
    for field in attrs.fields(cls):
        if field.name in skip:
            continue
        schema = _type_schema(hints[field.name])
        if field.default is not attrs.NOTHING and field.name not in _REQUIRED_TEXT:
            schema = _nullable(schema)
        if field.name in DESCRIPTIONS:
            schema["description"] = DESCRIPTIONS[field.name]
        properties[field.name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def answer_schema() -> dict[str, Any]:
    """The whole answer: the Decision's own fields, the ``element`` reference, the action."""
    decision = object_schema(Decision)
    props = decision["properties"]
    ordered = {
        "previous_outcome_met": props["previous_outcome_met"],
        "reasoning": props["reasoning"],
        "element": {"type": ["string", "null"], "description": DESCRIPTIONS["element"]},
        "action": {"anyOf": [object_schema(cls) for cls in ACTION_TYPES]},
        "expected_outcome": props["expected_outcome"],
        "notes": props["notes"],
        "plan": props["plan"],
    }
    if set(ordered) - {"element", "action"} != set(props):
        raise TypeError(f"Decision fields changed; the answer schema lists {sorted(ordered)}")
    return {**decision, "properties": ordered, "required": list(ordered)}


ANSWER_SCHEMA: dict[str, Any] = answer_schema()
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "orav_decision", "strict": True, "schema": ANSWER_SCHEMA},
}
# The same answer as a function to call, for servers that prefer tools to a response format.
TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "decide",
        "description": "Verify the previous step and decide the next action on this screen.",
        "parameters": ANSWER_SCHEMA,
        "strict": True,
    },
}

# Every field name an answer may give: the answer's own and each action kind's.
FIELDS: frozenset[str] = frozenset(ANSWER_SCHEMA["properties"]) | {
    name for kind in ANSWER_SCHEMA["properties"]["action"]["anyOf"] for name in kind["properties"]
}
