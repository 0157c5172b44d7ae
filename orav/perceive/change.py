"""Did the screen change? A perceptual measure that ignores what changes on its own.

A global image hash squashes a tall screenshot into 256 bits, so a changed label can score as
close as a blinking caret. Instead each screenshot is decoded once (cached by its sha256),
turned grayscale and reduced to cells of about 2x2 points; cells under an iOS screen's status
bar (clock, battery: a terminal, whose look carries its text, has none, and its first rows are
the app's own) and under volatile elements (the focused text field's caret, spinners, elements that
update frequently) are masked, and the cells whose gray level moved more than a threshold are
counted. The accessibility tree is compared too (roles, labels, ids, values, frames), so typed
text inside a masked field still counts. ``dhash(16)`` of the reduced image serves only as a
coarse "seen this screen before" key.

Pixels are decoded only when the verdict needs them: a changed tree is a change whatever the
pixels say, and byte-identical screenshots (same sha256) show no change. Most steps of a live
run change the tree, so most never pay the PNG decode; numpy is imported on first need too.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Self

from attrs import field, frozen

from orav.model import Element, Frame, Observation, Screenshot
from orav.perceive.identity import TICKS, steady_label
from orav.perceive.per_tree import per_tree
from orav.perceive.roles import PROGRESS_ROLES, is_text_field

if TYPE_CHECKING:
    import numpy as np

# Height of the iOS status bar in points; its clock ticks every minute.
STATUS_BAR_POINTS = 47.0
# Side of one compared cell, in points.
CELL_POINTS = 2.0
# A cell counts as changed when its mean gray level moves more than this (0..255).
CELL_THRESHOLD = 24
# The screen counts as changed when at least this many unmasked cells changed.
MIN_CHANGED_CELLS = 2
# Volatile frames are masked with this margin (points): antialiasing bleeds past a frame.
MASK_MARGIN_POINTS = 1.0
# Traits of elements that change on their own (besides progress indicators); masked.
VOLATILE_TRAITS = frozenset({"updatesFrequently", "updates_frequently", "UpdatesFrequently", TICKS})

_CACHE_SIZE = 16


@frozen(eq=False)
class Raster:
    """One screenshot decoded once: gray cells of ``cell`` pixels, and the points-per-pixel."""

    cells: np.ndarray = field(repr=False)
    cell: int
    scale: float

    @property
    def points_per_cell(self) -> float:
        return self.cell / self.scale

    def dhash(self) -> str:
        """A 256-bit difference hash (hex): equal or within 4 bits means "seen this screen"."""
        import imagehash  # scipy behind it: only when a key is asked for
        import numpy as np
        from PIL import Image

        return str(imagehash.dhash(Image.fromarray(self.cells.astype(np.uint8)), hash_size=16))


_rasters: OrderedDict[str, Raster | None] = OrderedDict()


def raster(screenshot: Screenshot | None) -> Raster | None:
    """The decoded, reduced grayscale of a screenshot; None without bytes or when undecodable.

    Decoding a 1170x2532 PNG costs tens of milliseconds, so the result is kept for the last
    few screenshots by content hash: every later comparison with it is nearly free.
    """
    if screenshot is None or not screenshot.data:
        return None
    key = screenshot.sha256
    if key in _rasters:
        _rasters.move_to_end(key)
        return _rasters[key]
    result = _decode(screenshot)
    _rasters[key] = result
    if len(_rasters) > _CACHE_SIZE:
        _rasters.popitem(last=False)
    return result


def clear_rasters() -> None:
    """Forget every decoded screenshot (benchmarks measure the first decode this way)."""
    _rasters.clear()


def _decode(screenshot: Screenshot) -> Raster | None:
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    scale = screenshot.scale if screenshot.scale > 0 else 1.0
    cell = max(1, round(CELL_POINTS * scale))
    try:
        image: Image.Image = Image.open(io.BytesIO(screenshot.data))
        full_width = image.width
        # JPEG can decode straight to a smaller size; PNG ignores the hint.
        image.draft("L", (image.width // cell, image.height // cell))
        if image.mode not in ("L", "RGB"):
            image = image.convert("RGB")
        gray = image.convert("L")
        factor = max(1, round(cell * gray.width / full_width))
        gray = gray.reduce(factor) if factor > 1 else gray
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    return Raster(np.asarray(gray, dtype=np.int16), cell, scale)


@frozen
class Change:
    """How two observations differ: changed cells (masked), and whether the tree differs.

    ``cells`` is -1 when the pixels were not compared: the tree differs (the verdict needs no
    pixels), or they cannot be (no screenshot, undecodable, different sizes).
    """

    changed: bool
    cells: int
    tree: bool

    def __bool__(self) -> bool:
        return self.changed


def measure(before: Observation, after: Observation) -> Change:
    """Compare two observations of the same app: status bar, caret and spinners do not count."""
    tree = before.elements != after.elements and (
        _signed(before.elements) != _signed(after.elements)
    )
    if tree:
        return Change(True, -1, True)
    shot_a, shot_b = before.screenshot, after.screenshot
    if shot_a is not None and shot_b is not None and shot_a.data and shot_a == shot_b:
        return Change(False, 0, False)  # the same bytes (and size): nothing moved
    a, b = raster(shot_a), raster(shot_b)
    if a is None or b is None or a.cells.shape != b.cells.shape or a.cell != b.cell:
        same_missing = a is None and b is None
        pixels = not same_missing and (shot_a != shot_b)
        return Change(pixels, -1, False)
    import numpy as np

    diff = np.abs(a.cells - b.cells) > CELL_THRESHOLD
    bar = 0.0 if after.text is not None else STATUS_BAR_POINTS  # a terminal has none
    mask = _mask(diff.shape, a.points_per_cell, (*before.elements, *after.elements), bar)
    cells = int(np.count_nonzero(diff & mask))
    return Change(cells >= MIN_CHANGED_CELLS, cells, False)


def changed(before: Observation, after: Observation) -> bool:
    """True when ``after`` shows a different screen than ``before`` (see ``measure``)."""
    return measure(before, after).changed


def volatile_frames(elements: Iterable[Element]) -> list[Frame]:
    """Frames that change by themselves: the focused text field (caret), spinners, timers."""
    return [
        e.frame
        for e in elements
        if e.role in PROGRESS_ROLES
        or VOLATILE_TRAITS.intersection(e.traits)
        or (e.focused and is_text_field(e))
    ]


def _mask(shape: tuple[int, int], points_per_cell: float, elements: Iterable[Element], bar: float):
    """True for cells that count: everything but the status bar (``bar`` points high) and
    volatile frames."""
    import numpy as np

    rows, cols = shape
    mask = np.ones(shape, dtype=bool)
    mask[: min(rows, math.ceil(bar / points_per_cell)), :] = False
    margin = MASK_MARGIN_POINTS
    for frame in volatile_frames(elements):
        top = max(0, math.floor((frame.y - margin) / points_per_cell))
        left = max(0, math.floor((frame.x - margin) / points_per_cell))
        bottom = min(rows, math.ceil((frame.y + frame.height + margin) / points_per_cell))
        right = min(cols, math.ceil((frame.x + frame.width + margin) / points_per_cell))
        mask[top:bottom, left:right] = False
    return mask


@per_tree
def _signed(elements: tuple[Element, ...]) -> tuple:
    """``tree_signature``, once per tree: a step signs its ``before`` and its ``after`` in
    turn, several times each (measuring the change, the screen's look key), and its ``after``
    is the next step's ``before``."""
    return _Signature(tree_signature(elements))


class _Signature(tuple):
    """A tree's signature that hashes once: the run's tally keys its screens by it several
    times a step (``look_key``), and a tuple hashes every field of every element each time."""

    _hash: int

    def __new__(cls, fields: Iterable) -> Self:
        signature = super().__new__(cls, fields)
        signature._hash = tuple.__hash__(signature)
        return signature

    def __hash__(self) -> int:
        return self._hash


def look_key(observation: Observation) -> tuple:
    """What must be equal for two looks to be the same screen state ("seen before"): the
    tree's signature (values count, volatile ones not), else the text, else the pixels."""
    if observation.elements:
        return (observation.app, _signed(observation.elements))
    shot = observation.screenshot
    return (observation.app, observation.text, shot.sha256 if shot is not None else None)


def tree_signature(elements: Iterable[Element]) -> tuple:
    """What of the tree must stay equal for "unchanged": roles, labels, ids, values, frames.

    Values of volatile elements (a spinner's progress, a timer) are left out, and the numbers
    of a label seen ticking (``orav.perceive.identity.TICKS``).
    """
    return tuple(
        (
            e.role,
            steady_label(e) if TICKS in e.traits else e.label,
            e.unique_id,
            None if e.role in PROGRESS_ROLES or VOLATILE_TRAITS.intersection(e.traits) else e.value,
            round(e.frame.x),
            round(e.frame.y),
            round(e.frame.width),
            round(e.frame.height),
            e.enabled,
            e.focused,
        )
        for e in elements
    )


def screen_digest(observation: Observation) -> str:
    """What a judgement was made on, as 16 hex digits: the tree's signature (``tree_signature``),
    so a screen that did not change is judged once and a changed one is asked again."""
    signature = repr(tree_signature(observation.elements)).encode()
    return hashlib.sha256(signature).hexdigest()[:16]
