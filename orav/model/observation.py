"""What one look at the app under test saw: pixels, elements, and whether the app runs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from attrs import evolve, field, frozen

from orav.model.element import Element

# What one look may hold, whichever device answered: a phone's screenshot is 1-5 MB and its
# tree a few hundred elements; a device that answers 50 MB a look once made a 700 MB cassette.
MAX_SCREENSHOT_BYTES = 32 * 1024 * 1024
MAX_ELEMENTS = 10_000


@frozen
class Screenshot:
    """A screenshot named by its content hash; the bytes travel beside, never in JSON."""

    sha256: str
    width: int
    height: int
    format: str = "png"
    scale: float = 1.0
    data: bytes = field(default=b"", eq=False, repr=False)

    @classmethod
    def of(cls, data: bytes, width: int, height: int, format: str = "png", scale: float = 1.0):
        return cls(hashlib.sha256(data).hexdigest(), width, height, format, scale, data)


@frozen
class Observation:
    """One observation of the screen: the tree in pre-order, the screenshot, the app state."""

    elements: tuple[Element, ...] = ()
    screenshot: Screenshot | None = None
    app: str | None = None
    app_running: bool | None = True  # None: unknown (the device could not tell)
    taken_at: float = 0.0
    text: str | None = None
    error: str | None = None

    @property
    def focused(self) -> Element | None:
        return next((e for e in self.elements if e.focused), None)


def locate(
    elements: Iterable[Element], label: str | None = None, unique_id: str | None = None
) -> Element | None:
    """The element a tap on ``label``/``unique_id`` means: of the matches with a size, controls
    before plain text ("Sign in" is often a title and a button), enabled ones first, then the
    first in pre-order."""
    matches = [e for e in elements if e.matches(label, unique_id) and not e.frame.is_empty]
    return min(matches, key=lambda e: (not e.interactive, not e.enabled), default=None)


def cut_observation(observation: Observation) -> Observation:
    """``observation`` within what one look may hold: a screenshot past MAX_SCREENSHOT_BYTES
    is left out, elements past MAX_ELEMENTS are cut, and its ``error`` says so."""
    shot, elements = observation.screenshot, observation.elements
    cuts = []
    if shot is not None and len(shot.data) > MAX_SCREENSHOT_BYTES:
        most = MAX_SCREENSHOT_BYTES >> 20
        cuts.append(f"its screenshot of {len(shot.data) >> 20} MB was left out (at most {most} MB)")
        shot = None
    if len(elements) > MAX_ELEMENTS:
        cuts.append(f"{len(elements) - MAX_ELEMENTS} of its {len(elements)} elements were cut")
        elements = elements[:MAX_ELEMENTS]
    if not cuts:
        return observation
    said = f"the device's answer was too large: {', '.join(cuts)}"
    error = f"{observation.error}; {said}" if observation.error else said
    return evolve(observation, screenshot=shot, elements=elements, error=error)
