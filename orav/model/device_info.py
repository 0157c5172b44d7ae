"""What a device says about itself, and what performing one action did."""

from __future__ import annotations

from attrs import frozen

from orav.model.geometry import Point


@frozen
class DeviceInfo:
    """The target: its platform (``ios`` or ``textual``) and screen size in points."""

    platform: str
    name: str
    udid: str = ""
    os_version: str = ""
    width: float = 0.0
    height: float = 0.0
    scale: float = 1.0
    address: str = ""


@frozen
class ActionResult:
    """The outcome of performing one action on the device.

    ``point`` is where a tap landed once its target was resolved; ``error`` says why it failed.
    """

    ok: bool = True
    error: str | None = None
    point: Point | None = None
    seconds: float = 0.0


@frozen
class Settled:
    """How the app settled after an action: ``quiet`` when it reported quiet (or two looks in a
    row were the same) before the wait's cap, ``waited`` seconds, and ``source``: what said so
    (``quiescence`` for idb's stream, ``idle`` for Textual's message queue, ``looks`` for two
    identical observations, ``fixed`` for ``settle_seconds``)."""

    quiet: bool
    waited: float
    source: str
