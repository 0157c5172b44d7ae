"""Elements from the facts the app's side reports (``companion.facts``): the one place a
Textual screen's facts become ``orav.model.Element``s, for both drivers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from orav.model import Element, Frame


def element(fact: dict[str, Any]) -> Element:
    """One fact: Element's fields, the frame as ``[x, y, width, height]``, defaults left out."""
    return Element(
        role=fact["role"],
        label=fact.get("label"),
        unique_id=fact.get("unique_id"),
        value=fact.get("value"),
        frame=Frame(*fact["frame"]),
        enabled=fact.get("enabled", True),
        traits=tuple(fact.get("traits", ())),
        focused=fact.get("focused", False),
        placeholder=fact.get("placeholder"),
        secure=fact.get("secure", False),
    )


def elements(facts: Iterable[dict[str, Any]]) -> tuple[Element, ...]:
    return tuple(element(fact) for fact in facts)
