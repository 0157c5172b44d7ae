"""One screen of the running app: what the user did on it, and its elements as drawn now.

An element spec becomes zero or more ``Instance``s: its ``repeat`` draws one per item (with
the item bound), its ``when`` and the screen's show / hide decide whether it is there, and
its id and label are templates over the scope.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from attrs import define, field, frozen

from orav.model import Frame
from orav.sim.appmodel import MAX_REPEAT, AlertSpec, ElementSpec, Screen
from orav.sim.expr import truthy
from orav.sim.scope import AppModelError, evaluate, render

Bindings = tuple[tuple[str, Any], ...]  # the items of the repeats around an element


@frozen
class Instance:
    """One element as drawn now: its spec, its id and frame once templated, repeated and
    scrolled, and the items of the repeats around it."""

    spec: ElementSpec
    id: str | None
    frame: Frame
    bindings: Bindings = ()


@define
class ScreenState:
    """One entry of a navigation stack: a screen and what the user did on it."""

    name: str
    screen: Screen
    values: dict[str, str]
    shown: set[str] = field(factory=set)
    hidden: set[str] = field(factory=set)
    labels: dict[str, str] = field(factory=dict)
    modal: bool = False
    offset: float = 0.0  # how far a scrolling screen is scrolled, in points
    revealed: str | None = None  # the element whose swipe actions show

    @classmethod
    def fresh(
        cls,
        name: str,
        screen: Screen,
        *,
        modal: bool = False,
        scope: Mapping[str, Any] | None = None,
    ) -> ScreenState:
        values = {
            e.id: render(e.value, scope or {}) if e.value else ""
            for e in screen.elements
            if e.id is not None and "{" not in e.id and e.repeat is None
        }
        return cls(name, screen, values, modal=modal)

    def visible(self, element: ElementSpec, element_id: str | None) -> bool:
        if element_id in self.hidden:
            return False
        return not element.hidden or element_id in self.shown

    def expand(
        self,
        elements: tuple[ElementSpec, ...],
        scope: Mapping[str, Any],
        bindings: Bindings = (),
        dy: float = 0.0,
    ) -> Iterator[Instance]:
        """The instances of ``elements`` in content coordinates (before any scroll)."""
        for spec in elements:
            if spec.repeat is not None:
                items = evaluate(spec.repeat, scope)
                if not isinstance(items, (tuple, list, dict)):
                    raise AppModelError(f"repeat {spec.repeat!r} gave {items!r}, not a list")
                for index, item in enumerate(list(items)[:MAX_REPEAT]):
                    inner = (*bindings, (spec.item, item))
                    inner_scope = {**scope, spec.item: item}
                    yield from self.expand(
                        spec.elements, inner_scope, inner, dy + index * spec.step
                    )
                continue
            if spec.when is not None and not truthy(evaluate(spec.when, scope)):
                continue
            element_id = render(spec.id, scope) if spec.id is not None else None
            if not self.visible(spec, element_id):
                continue
            x, y, w, h = spec.frame
            yield Instance(spec, element_id, Frame(x, y + dy, w, h), bindings)

    def scrolled(
        self, found: list[Instance], viewport: tuple[float, float], *, clip: bool = True
    ) -> list[Instance]:
        """On a scrolling screen: ``found`` moved by the scroll and (``clip``) kept to the
        visible area between ``viewport``'s top and bottom; fixed elements stay."""
        if not self.screen.scroll:
            return found
        top, bottom = viewport
        out = []
        for inst in found:
            if inst.spec.fixed:
                out.append(inst)
                continue
            f = inst.frame
            moved = Frame(f.x, f.y - self.offset, f.width, f.height)
            if not clip or (moved.y >= top and moved.y + moved.height <= bottom):
                out.append(Instance(inst.spec, inst.id, moved, inst.bindings))
        return out


@define
class Overlay:
    """What covers the screen: a fault (``kind`` alert, permission, network or loading) or an
    alert of the app's own (``kind`` app_alert, with its ``alert``)."""

    kind: str
    title: str = ""
    message: str = ""
    remaining: int = 0  # loading: observations left (0: until remedied)
    alert: AlertSpec | None = None
    bindings: Bindings = ()

    @property
    def modal(self) -> bool:
        """An alert: every tap outside it is swallowed, swipes do nothing."""
        return self.kind in ("alert", "permission", "app_alert")

    @property
    def blocks_content(self) -> bool:
        """A spinner or a network banner: the screen's content is neither drawn nor tapped."""
        return self.kind in ("loading", "network")
