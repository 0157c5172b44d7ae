"""The raster of a Textual screen: its rendered strips drawn as a PNG, for vision models and
the change measure, with a small cache keyed by the strips (an unchanged screen is not drawn
twice)."""

from __future__ import annotations

import io
from collections import OrderedDict
from functools import cache
from typing import TYPE_CHECKING

from orav.model import Screenshot

if TYPE_CHECKING:
    from PIL import ImageFont
    from textual.strip import Strip

# Pixels of one terminal cell in the raster.
CELL_WIDTH = 8
CELL_HEIGHT = 16
_DEFAULT_FG = (224, 224, 224)
_DEFAULT_BG = (0, 0, 0)


class RasterCache:
    """The last ``size`` rasters by their strips' segments."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._rasters: OrderedDict[tuple, bytes] = OrderedDict()

    def clear(self) -> None:
        self._rasters.clear()

    def screenshot(self, strips: list[Strip]) -> Screenshot:
        key = tuple(tuple(strip) for strip in strips)
        data = self._rasters.get(key)
        if data is None:
            data = draw_png(strips)
            self._rasters[key] = data
            if len(self._rasters) > self.size:
                self._rasters.popitem(last=False)
        else:
            self._rasters.move_to_end(key)
        width = max((strip.cell_length for strip in strips), default=0)
        return Screenshot.of(data, width * CELL_WIDTH, len(strips) * CELL_HEIGHT, "png", 1.0)


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSansMono.ttf", 13)
    except OSError:  # not installed: Pillow's own font (no box-drawing glyphs)
        return ImageFont.load_default(size=13)


def draw_png(strips: list[Strip]) -> bytes:
    """Draw the strips as a PNG: every cell ``CELL_WIDTH`` x ``CELL_HEIGHT`` px, with its
    background, foreground and reverse video as the terminal would show them."""
    from PIL import Image, ImageDraw
    from rich.cells import get_character_cell_size

    width = max((strip.cell_length for strip in strips), default=0)
    image = Image.new("RGB", (max(width, 1) * CELL_WIDTH, max(len(strips), 1) * CELL_HEIGHT))
    draw = ImageDraw.Draw(image)
    font = _font()
    for row, strip in enumerate(strips):
        top = row * CELL_HEIGHT
        column = 0
        for text, style, _control in strip:
            cells = sum(get_character_cell_size(char) for char in text)
            if not cells:
                continue
            fg, bg = _colours(style)
            left = column * CELL_WIDTH
            draw.rectangle(
                (left, top, left + cells * CELL_WIDTH - 1, top + CELL_HEIGHT - 1), fill=bg
            )
            for char in text:
                if not char.isspace():
                    draw.text((column * CELL_WIDTH, top + 1), char, font=font, fill=fg)
                column += get_character_cell_size(char)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


@cache
def _colours(style) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    if style is None:
        return _DEFAULT_FG, _DEFAULT_BG
    fg = tuple(style.color.get_truecolor()) if style.color is not None else _DEFAULT_FG
    bg = (
        tuple(style.bgcolor.get_truecolor(foreground=False))
        if style.bgcolor is not None
        else _DEFAULT_BG
    )
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = tuple((f + b) // 2 for f, b in zip(fg, bg, strict=True))
    return fg, bg
