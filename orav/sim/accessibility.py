"""The accessibility JSON of idb's companion, key for key, from a simulated ``View``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from orav.model import Point
from orav.sim.view import Node, View

# The keys the real companion reports for every element, in its order.
KEYS = (
    "AXLabel",
    "AXFrame",
    "AXValue",
    "AXUniqueId",
    "type",
    "title",
    "frame",
    "help",
    "enabled",
    "custom_actions",
    "role",
    "role_description",
    "subrole",
    "content_required",
    "pid",
    "traits",
)

# AccessibilityActionRequest.SearchableKey: which attribute a marker or match compares.
SEARCHABLE = {0: "AXLabel", 1: "AXUniqueId", 2: "AXValue", 3: "title", 4: "role"}


def element(node: Node, keys: Sequence[str] = ()) -> dict[str, Any]:
    """One element as the companion reports it; ``keys`` restricts the set (empty: all)."""
    data: dict[str, Any] = {
        "AXLabel": node.label,
        "AXFrame": node.frame.to_ax_string(),
        "AXValue": node.value,
        "AXUniqueId": node.unique_id,
        "type": node.role.removeprefix("AX"),
        "title": node.title,
        "frame": {k: _number(v) for k, v in node.frame.to_dict().items()},
        "help": None,
        "enabled": node.enabled,
        "custom_actions": [],
        "role": node.role,
        "role_description": node.role_description,
        "subrole": node.subrole,
        "content_required": False,
        "pid": node.pid,
        "traits": list(node.traits),
    }
    if node.placeholder is not None:
        data["placeholder"] = node.placeholder
    if node.focused is not None:
        data["focused"] = node.focused
    if keys:
        data = {k: v for k, v in data.items() if k in keys}
    return data


def nested(node: Node, keys: Sequence[str] = ()) -> dict[str, Any]:
    data = element(node, keys)
    data["children"] = [nested(child, keys) for child in node.children]
    return data


def flat(nodes: Iterable[Node], keys: Sequence[str] = ()) -> list[dict[str, Any]]:
    return [element(node, keys) for node in nodes]


def describe_all(
    view: View | None,
    *,
    nested_form: bool = False,
    keys: Sequence[str] = (),
    match: str = "",
    match_key: int = 0,
    ignore_case: bool = False,
) -> str:
    """The whole app: a flat pre-order list (application first) or ``[root]`` with children.

    ``view`` None is an empty dump (``[]``). ``match`` keeps the elements whose ``match_key``
    attribute contains it, as the companion's match read does.
    """
    if view is None:
        return "[]"
    if match:
        wanted = SEARCHABLE.get(match_key, "AXLabel")
        hits = [n for n in view.root.walk() if _contains(element(n)[wanted], match, ignore_case)]
        return _dumps(flat(hits, keys))
    if nested_form:
        return _dumps([nested(view.root, keys)])
    return _flat_dump(view, tuple(keys))


@lru_cache(maxsize=8)
def _flat_dump(view: View, keys: tuple[str, ...]) -> str:
    """The flat dump of a view, kept for the next read of the same screen (a view is frozen;
    equal views, hashed once, give the same text)."""
    return _dumps(flat(view.root.walk(), keys))


def describe_point(view: View, point: Point, keys: Sequence[str] = ()) -> str:
    """The one element under a point (the application when nothing else is there)."""
    node = view.hit(point) or view.root
    return _dumps(element(node, keys))


def describe_marker(
    view: View, marker: str, match_key: int, ignore_case: bool, keys: Sequence[str] = ()
) -> str | None:
    """The first element whose ``match_key`` attribute contains ``marker``; None if none does."""
    wanted = SEARCHABLE.get(match_key, "AXLabel")
    for node in view.root.walk():
        if _contains(element(node)[wanted], marker, ignore_case):
            return _dumps(element(node, keys))
    return None


def _number(value: float) -> float | int:
    """Integral points as integers, as the companion's JSON writer prints them."""
    return int(value) if float(value).is_integer() else value


def _contains(value: Any, needle: str, ignore_case: bool) -> bool:
    if not isinstance(value, str):
        return False
    return needle.lower() in value.lower() if ignore_case else needle in value


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
