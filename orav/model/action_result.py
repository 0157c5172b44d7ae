"""What performing one action did on the device, and how the app settled after it."""

from __future__ import annotations

from attrs import frozen

from orav.model.geometry import Point


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
