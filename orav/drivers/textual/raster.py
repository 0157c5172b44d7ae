"""The raster of a Textual screen: its rendered rows (``companion.lines``: runs of text with
their colours) drawn as a PNG, for vision models and the change measure, with a small cache
keyed by the rows (an unchanged screen is not drawn twice)."""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from orav.model import Screenshot

if TYPE_CHECKING:
    from PIL import ImageFont

# Pixels of one terminal cell in the raster.
CELL_WIDTH = 8
CELL_HEIGHT = 16

Rows = Sequence[Sequence[Sequence[Any]]]  # rows of [text, 0xRRGGBB foreground, background]


def row_text(row: Sequence[Sequence[Any]]) -> str:
    return "".join(run[0] for run in row)


class RasterCache:
    """The last ``size`` rasters by their rows."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._rasters: OrderedDict[tuple, tuple[bytes, int]] = OrderedDict()

    def clear(self) -> None:
        self._rasters.clear()

    def screenshot(self, rows: Rows) -> Screenshot:
        key = tuple(tuple(tuple(run) for run in row) for row in rows)
        found = self._rasters.get(key)
        if found is None:
            found = draw_png(rows), max((_cells(row_text(row)) for row in rows), default=0)
            self._rasters[key] = found
            if len(self._rasters) > self.size:
                self._rasters.popitem(last=False)
        else:
            self._rasters.move_to_end(key)
        data, width = found
        return Screenshot.of(data, width * CELL_WIDTH, len(rows) * CELL_HEIGHT, "png", 1.0)


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSansMono.ttf", 13)
    except OSError:  # not installed: Pillow's own font (no box-drawing glyphs)
        return ImageFont.load_default(size=13)


def draw_png(rows: Rows) -> bytes:
    """Draw the rows as a PNG: every cell ``CELL_WIDTH`` x ``CELL_HEIGHT`` px, with its
    background and foreground (reverse video and dim already applied by the app's side)."""
    from PIL import Image, ImageDraw
    from rich.cells import get_character_cell_size

    width = max((_cells(row_text(row)) for row in rows), default=0)
    image = Image.new("RGB", (max(width, 1) * CELL_WIDTH, max(len(rows), 1) * CELL_HEIGHT))
    draw = ImageDraw.Draw(image)
    font = _font()
    for number, row in enumerate(rows):
        top = number * CELL_HEIGHT
        column = 0
        for text, fg, bg in row:
            cells = sum(get_character_cell_size(char) for char in text)
            if not cells:
                continue
            left = column * CELL_WIDTH
            draw.rectangle(
                (left, top, left + cells * CELL_WIDTH - 1, top + CELL_HEIGHT - 1), fill=_rgb(bg)
            )
            for char in text:
                if not char.isspace():
                    draw.text((column * CELL_WIDTH, top + 1), char, font=font, fill=_rgb(fg))
                column += get_character_cell_size(char)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def _rgb(colour: int) -> tuple[int, int, int]:
    return (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF
