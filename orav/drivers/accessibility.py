"""Reading idb's accessibility JSON into Elements.

The companion answers ``accessibility_info`` with JSON text that the fb-idb client passes on
unparsed: a pre-order array (flat form, application element first), ``[root]`` with
``children`` (nested form), or one object (a point query). Every form becomes one pre-order
tuple of ``orav.model.Element``. The text is read within the codec's bounds: a dump nested past
64 levels or holding a number past 64 digits (a companion that is not idb's) is a malformed dump,
as any other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from orav.codec import JSONRefused, parse_json
from orav.model import Element, Frame

# Roles and subroles by which the companion marks a password field.
_SECURE = frozenset({"AXSecureTextField", "SecureTextField"})


class AccessibilityError(ValueError):
    """The companion's accessibility JSON is not in idb's format."""


def parse_elements(text: str | bytes) -> tuple[Element, ...]:
    """All elements of a dump in pre-order; AccessibilityError says what is malformed.

    Elements the companion marks ``hidden`` are left out: nothing can tap them.
    """
    try:
        data = parse_json(text)
    except JSONRefused as exc:
        raise AccessibilityError(f"accessibility dump is not JSON orav reads: {exc}") from None
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, list):
        raise AccessibilityError(
            f"accessibility dump is a JSON {type(data).__name__}; expected a list of elements"
        )
    return tuple(
        element_from_ax(node, path) for node, path in _preorder(data, "") if not node.get("hidden")
    )


def _preorder(nodes: list, prefix: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    for index, node in enumerate(nodes):
        path = f"{prefix}[{index}]"
        if not isinstance(node, Mapping):
            raise AccessibilityError(f"element {path} is not a JSON object")
        yield node, path
        children = node.get("children")
        if children:
            if not isinstance(children, list):
                raise AccessibilityError(f"element {path}.children is not a list")
            yield from _preorder(children, f"{path}.children")


def element_from_ax(node: Mapping[str, Any], where: str = "element") -> Element:
    """One element from the companion's keys (AXLabel, AXUniqueId, role, frame, ...), or from
    the ORAV seed's (``AXType: "Button"``, ``AXEnabled: false``, ``AXIdentifier``)."""
    kind = node.get("type") or node.get("AXType")
    role = node.get("role") or node.get("AXRole") or (f"AX{kind}" if kind else "AXOther")
    if not str(role).startswith("AX"):
        role = f"AX{role}"  # a seed's bare type name
    subrole = node.get("subrole")
    traits = node.get("traits") or ()
    label = node.get("AXLabel")
    return Element(
        role=str(role),
        label=_text(node.get("title") if label is None else label),
        unique_id=_text(node.get("AXUniqueId", node.get("AXIdentifier"))),
        value=_text(node.get("AXValue")),
        frame=_frame(node, where),
        enabled=node.get("enabled", node.get("AXEnabled")) is not False,
        traits=tuple(str(t) for t in traits) if isinstance(traits, list) else (),
        focused=node.get("focused") is True,
        placeholder=_text(node.get("placeholder")),
        secure=role in _SECURE or subrole in _SECURE or kind in _SECURE,
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _frame(node: Mapping[str, Any], where: str) -> Frame:
    frame = node.get("frame")
    try:
        if isinstance(frame, Mapping):
            return Frame.from_dict(dict(frame))
        ax_frame = node.get("AXFrame")
        if isinstance(ax_frame, str):
            return Frame.parse(ax_frame)
    except (KeyError, TypeError, ValueError) as exc:
        raise AccessibilityError(f"element {where} has a malformed frame: {exc}") from None
    return Frame()
