"""What an exploration covered: the screens found, their elements, and the screen graph.

The explorer (``orav.agents.explorer``) builds a ``Coverage``; ``orav.report.coverage``
writes it beside the cassette as JSON and markdown and reads it back for the HTML report.
"""

from __future__ import annotations

from attrs import frozen


@frozen
class ScreenCoverage:
    """One screen: its interactive elements (``#id`` or ``'label'``), the gestures and keys
    tried on it (``(swipe left)``, ``(swipe left on #row)``, ``(key down)``), and what became
    of them.

    ``no_effect``: tried, and the screen did not change (input dropped, or a control that does
    nothing). ``skipped``: never tried on purpose (quit; sign-out without credentials to sign
    back in; tried already on the screen ``alike``, one with the same controls for another
    item). ``disabled``: never seen enabled, so never tried: not counted as untried.
    """

    key: str
    name: str
    elements: tuple[str, ...] = ()
    tried: tuple[str, ...] = ()
    no_effect: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    alike: str | None = None
    first_step: int = 0

    @property
    def untried(self) -> tuple[str, ...]:
        """Elements neither tried, nor skipped on purpose, nor disabled whenever seen."""
        left_out = {*self.tried, *self.skipped, *self.disabled}
        return tuple(e for e in self.elements if e not in left_out)

    @property
    def gestures(self) -> tuple[str, ...]:
        """The gestures and keys among the elements."""
        return tuple(e for e in self.elements if e.startswith("("))


@frozen
class ScreenTransition:
    """``source --element--> target`` (screen keys), first seen at ``step``.

    The target is the screen the explorer saw at its next decision: a recovery in between
    (a login wall passed with the scenario's credentials) is folded into the transition.
    """

    source: str
    element: str
    target: str
    step: int = 0


@frozen
class Coverage:
    """The whole exploration: ``finished`` is true when the explorer ran out of things to try
    (rather than out of steps); ``dead_ends`` are screens no observed transition left."""

    screens: tuple[ScreenCoverage, ...] = ()
    transitions: tuple[ScreenTransition, ...] = ()
    dead_ends: tuple[str, ...] = ()
    steps: int = 0
    finished: bool = False
    summary: str = ""

    @property
    def elements_total(self) -> int:
        return sum(len(s.elements) for s in self.screens)

    @property
    def elements_tried(self) -> int:
        return sum(len(s.tried) for s in self.screens)

    @property
    def elements_skipped(self) -> int:
        """Elements never tried on purpose (they quit the app, sign out with no way back, or
        were tried on a screen alike)."""
        return sum(len(s.skipped) for s in self.screens)

    def name_of(self, key: str) -> str:
        return next((s.name for s in self.screens if s.key == key), key)
