"""What an app model's expressions read and write: the scope, and errors while the app runs.

Expressions and templates are parsed once (``orav.sim.expr``); here they meet the running
app's values, and a failure becomes one ``AppModelError`` that names the expression.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import fields, has

from orav.sim.expr import ExprError, parse_expr, parse_template


class AppModelError(RuntimeError):
    """An app model's expression failed while the app ran (a type error, an unknown screen)."""


class Env(dict[str, str]):
    """The launch environment (and the permission presets) as expressions read them: a name
    not set reads as ""."""

    def __missing__(self, key: str) -> str:
        return ""


def names_read(data: Any) -> frozenset[str]:
    """Every name an expression or a template anywhere in ``data`` (an app model, its parts)
    may read: each text that parses as either gives its free names. More than are read is
    harmless; a drawn view depends on the scope only through these."""
    found: set[str] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            for parse in (parse_expr, parse_template):
                try:
                    found |= parse(node).names
                except (ExprError, SyntaxError, ValueError, RecursionError):
                    pass
        elif isinstance(node, Mapping):
            stack += [*node.keys(), *node.values()]
        elif isinstance(node, (list, tuple, set, frozenset)):
            stack += list(node)
        elif has(type(node)):
            stack += [getattr(node, a.name) for a in fields(type(node))]
    return frozenset(found)


def initial(values: Mapping[str, Any]) -> dict[str, Any]:
    """State as a launch starts it: lists become tuples (values are never shared)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


def evaluate(text: str, scope: Mapping[str, Any]) -> Any:
    try:
        return parse_expr(text).evaluate(scope)
    except ExprError as exc:
        raise AppModelError(f"app model expression {text!r}: {exc.what}") from None


def render(text: str, scope: Mapping[str, Any]) -> str:
    try:
        return parse_template(text).render(scope)
    except ExprError as exc:
        raise AppModelError(f"app model template {text!r}: {exc.what}") from None


def set_value(value: Any, scope: Mapping[str, Any]) -> Any:
    """A ``set`` value: a template (one ``{expression}`` alone keeps its type) or a literal."""
    if isinstance(value, str):
        try:
            return parse_template(value).value(scope)
        except ExprError as exc:
            raise AppModelError(f"app model template {value!r}: {exc.what}") from None
    return tuple(value) if isinstance(value, list) else value


def _append(items: Any, item: Any) -> tuple:
    return (*items, item)


def _remove(items: Any, item: Any) -> tuple:
    items = list(items)
    if item in items:
        items.remove(item)
    return tuple(items)


def _purge(items: Any, item: Any) -> tuple:
    return tuple(i for i in items if i != item)


# A transition's list effects, by field name: the new list from the old one and the item.
LIST_CHANGES: tuple[tuple[str, Callable[[Any, Any], tuple]], ...] = (
    ("append", _append),
    ("remove", _remove),
    ("remove_all", _purge),
)
