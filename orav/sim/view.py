"""What the simulated screen shows at one moment: a tree of nodes, drawn and described alike.

A ``View`` is frozen and hashable, so the renderer caches one image per distinct view (the
status-bar clock is part of it, so a new minute is a new image).
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from orav.model import Frame, Point

APP_PID = 4242
SPRINGBOARD_PID = 88

ROLE_DESCRIPTIONS = {
    "AXApplication": "application",
    "AXButton": "button",
    "AXStaticText": "text",
    "AXTextField": "text field",
    "AXSwitch": "switch",
    "AXCell": "cell",
    "AXImage": "image",
    "AXHeading": "heading",
    "AXLink": "link",
    "AXKeyboard": "keyboard",
    "AXAlert": "alert",
    "AXSheet": "sheet",
    "AXActivityIndicator": "progress indicator",
    "AXGroup": "group",
}

DEFAULT_TRAITS = {
    "AXButton": ("button",),
    "AXCell": ("button",),
    "AXSwitch": ("button",),
    "AXStaticText": ("staticText",),
    "AXHeading": ("header",),
    "AXImage": ("image",),
    "AXLink": ("link",),
    "AXActivityIndicator": ("updatesFrequently",),
}


@frozen(cache_hash=True)
class Node:
    """One accessibility element as the companion reports it, plus how to draw and tap it.

    ``style`` is a drawing hint (``title``, ``key``, ``banner``, ``dim``, ``icon`` ...);
    ``action`` names what a tap does (``el:<id>``, ``key:<char>``, ``alert:<button>`` ...);
    neither reaches the accessibility JSON.
    """

    role: str
    label: str | None
    frame: Frame
    unique_id: str | None = None
    value: str | None = None
    subrole: str | None = None
    enabled: bool = True
    traits: tuple[str, ...] = ()
    placeholder: str | None = None
    focused: bool | None = None
    pid: int = APP_PID
    title: str | None = None
    children: tuple[Node, ...] = ()
    style: str = ""
    action: str = ""

    @property
    def role_description(self) -> str:
        if self.subrole == "AXSecureTextField":
            return "secure text field"
        return ROLE_DESCRIPTIONS.get(self.role, self.role.removeprefix("AX").lower())

    def walk(self) -> Iterator[Node]:
        """This node and its descendants in pre-order (the order of idb's flat list)."""
        yield self
        for child in self.children:
            yield from child.walk()


@frozen(cache_hash=True)
class View:
    """The whole screen: the root (the app, or SpringBoard) and the status-bar clock text."""

    root: Node
    clock: str
    running: bool = True

    def hit(self, point: Point) -> Node | None:
        """The front-most node under ``point`` (later in pre-order is drawn on top).

        A node styled ``modal`` (an alert) swallows every point outside itself.
        """
        nodes = list(self.root.walk())[1:]
        modal = [i for i, node in enumerate(nodes) if node.style == "modal"]
        if modal:
            nodes = nodes[modal[-1] :]
        hits = [node for node in nodes if node.frame.contains(point)]
        return hits[-1] if hits else None
