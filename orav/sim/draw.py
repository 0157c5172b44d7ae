"""The app's own screen as accessibility ``Node``s: its title, its elements, the swipe actions
a row reveals, and what an overlay draws over it (a spinner, a banner, an alert).

Pure functions of what the app's state decided to show; the system's own UI (keyboard, tab
bar, the alert's box, SpringBoard) is ``orav.sim.chrome``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen

from orav.model import Frame
from orav.sim import chrome
from orav.sim.appmodel import AlertButton
from orav.sim.expr import truthy
from orav.sim.faults import permission_buttons
from orav.sim.scope import evaluate, render
from orav.sim.screen import Instance, Overlay, ScreenState
from orav.sim.view import DEFAULT_TRAITS, SPRINGBOARD_PID, Node

STATUS_BAR = 47.0
NAV_BAR_BOTTOM = 91.0
BULLET = "\u2022"
SWIPE_ACTION_WIDTH = 80.0


def screen_nodes(
    current: ScreenState,
    instances: Sequence[Instance],
    scope: Mapping[str, Any],
    *,
    overlay: Overlay | None,
    focus: str | None,
    pid: int,
    width: float,
    height: float,
) -> list[Node]:
    """The screen on top: its title, its elements (those under the navigation bar hidden by
    a spinner or a network banner), and the spinner or banner."""
    nodes: list[Node] = []
    if current.screen.title:
        nodes.append(
            Node(
                "AXHeading",
                render(current.screen.title, scope),
                Frame(0, STATUS_BAR, width, NAV_BAR_BOTTOM - STATUS_BAR),
                traits=("header",),
                pid=pid,
                style="title",
            )
        )
    blocked = overlay is not None and overlay.blocks_content
    for inst in instances:
        if blocked and inst.frame.y >= NAV_BAR_BOTTOM:
            continue
        nodes.append(element_node(current, inst, scope, focus, pid, covered=overlay is not None))
        if inst.id is not None and inst.id == current.revealed:
            nodes.extend(swipe_action_nodes(inst, scope, pid))
    if overlay is not None and overlay.kind == "loading":
        nodes.append(
            Node(
                "AXActivityIndicator",
                "In progress",
                Frame(width / 2 - 20, height / 2 - 20, 40, 40),
                traits=DEFAULT_TRAITS["AXActivityIndicator"],
                pid=pid,
                style="spinner",
            )
        )
    elif overlay is not None and overlay.kind == "network":
        nodes.append(
            Node(
                "AXStaticText",
                "No connection",
                Frame(0, NAV_BAR_BOTTOM, width, 60),
                traits=("staticText",),
                pid=pid,
                style="banner",
            )
        )
        nodes.append(
            Node(
                "AXButton",
                "Retry",
                Frame(width / 2 - 60, NAV_BAR_BOTTOM + 80, 120, 44),
                unique_id="retry",
                traits=("button",),
                pid=pid,
                action="retry:",
            )
        )
    return nodes


def swipe_action_nodes(inst: Instance, base: Mapping[str, Any], pid: int) -> list[Node]:
    """The buttons a swipe left reveals at the row's trailing edge (UIContextualAction)."""
    f = inst.frame
    actions: Sequence[AlertButton] = inst.spec.swipe_actions
    scope = {**base, **dict(inst.bindings)}
    nodes = []
    for i, action in enumerate(actions):
        x = f.x + f.width - SWIPE_ACTION_WIDTH * (len(actions) - i)
        nodes.append(
            Node(
                "AXButton",
                render(action.label, scope),
                Frame(x, f.y, SWIPE_ACTION_WIDTH, f.height),
                unique_id=render(action.id, scope) if action.id else None,
                traits=("button",),
                pid=pid,
                style="swipe_destructive" if action.style == "destructive" else "swipe",
                action=f"swipe:{i}",
            )
        )
    return nodes


def element_node(
    current: ScreenState,
    inst: Instance,
    base: Mapping[str, Any],
    focus: str | None,
    pid: int,
    *,
    covered: bool = False,
) -> Node:
    """One element: its label (or the one a transition's ``message`` gave it), its value (a
    secure field's as bullets), enabled or not, and the traits that say so. Under an overlay
    (``covered``) no field shows focus."""
    spec = inst.spec
    scope = {**base, **dict(inst.bindings)} if inst.bindings else base
    label = current.labels.get(inst.id or "")
    if label is None and spec.label is not None:
        label = render(spec.label, scope)
    field = _field(current, inst, scope, focus, covered) if spec.is_text_field else _Field()
    value = field.value if spec.is_text_field else _value(current, inst, scope)
    flag = spec.enabled
    enabled = truthy(evaluate(flag, scope)) if isinstance(flag, str) else bool(flag)
    return Node(
        spec.role,
        label,
        inst.frame,
        unique_id=inst.id,
        value=value,
        subrole=field.subrole,
        enabled=enabled,
        traits=_traits(inst, enabled, value),
        placeholder=field.placeholder,
        focused=field.focused,
        pid=pid,
        style="" if spec.tone == "normal" else spec.tone,
        action=f"el:{inst.id}" if inst.id is not None else "",
    )


@frozen
class _Field:
    """What a text field shows beside its label (nothing, for any other element)."""

    value: str | None = None
    placeholder: str | None = None
    focused: bool | None = None
    subrole: str | None = None


def _field(
    current: ScreenState,
    inst: Instance,
    scope: Mapping[str, Any],
    focus: str | None,
    covered: bool,
) -> _Field:
    """A text field: its text (a secure field's as bullets), its placeholder, its focus."""
    spec = inst.spec
    text = current.values.get(inst.id or "", "")
    return _Field(
        value=(BULLET * len(text) if spec.secure else text) or None,
        placeholder=render(spec.placeholder, scope) if spec.placeholder else None,
        focused=focus == inst.id and not covered,
        subrole="AXSecureTextField" if spec.secure else None,
    )


def _value(current: ScreenState, inst: Instance, scope: Mapping[str, Any]) -> str | None:
    """Any other element's value: a switch's "0" or "1", else its templated ``value``."""
    spec = inst.spec
    if spec.role == "AXSwitch":
        return current.values.get(inst.id or "") or (
            render(spec.value, scope) if spec.value else "0"
        )
    return render(spec.value, scope) if spec.value is not None else None


def _traits(inst: Instance, enabled: bool, value: str | None) -> tuple[str, ...]:
    """The role's traits, the element's own, and what its state adds (off, on)."""
    spec = inst.spec
    traits = (*DEFAULT_TRAITS.get(spec.role, ()), *spec.traits)
    if not enabled:
        traits = (*traits, "notEnabled")
    if spec.role == "AXSwitch" and value == "1":
        traits = (*traits, "selected")
    return tuple(dict.fromkeys(traits))


def alert_node(overlay: Overlay, width: float, height: float, pid: int) -> Node:
    """An alert: the app's own (its pid, its id, its buttons), an injected one (the app's
    pid, OK / Cancel) or a permission dialog (SpringBoard's pid: a system alert)."""
    system = overlay.kind == "permission"
    owner = SPRINGBOARD_PID if system else pid
    spec = overlay.alert
    if spec is not None:
        buttons = [
            chrome.Button(b.label, f"app_alert:{i}", b.id, b.style)
            for i, b in enumerate(spec.buttons)
        ]
    else:
        labels = permission_buttons(overlay.title) if system else ("Cancel", "OK")
        buttons = [chrome.Button(label, f"{overlay.kind}:{label}") for label in labels]
    return chrome.alert(
        width,
        height,
        owner,
        overlay.title,
        overlay.message,
        buttons,
        sheet=spec is not None and spec.style == "action_sheet",
        alert_id=spec.id if spec is not None else None,
    )
