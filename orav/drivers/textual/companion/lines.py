"""The rendered screen as plain data: one row per terminal line, each a list of runs
``[text, foreground, background]`` with the colours as ``0xRRGGBB`` integers, reverse video and
dim already applied. orav draws its raster from these rows (``orav.drivers.textual.raster``)
and reads the screen's text from them, so the app's side needs neither Pillow nor orav.
"""

from __future__ import annotations

from functools import cache
from typing import Any

DEFAULT_FG = 0xE0E0E0
DEFAULT_BG = 0x000000

Row = list[list[Any]]


def rows(strips: list[Any]) -> list[Row]:
    """The runs of every strip, neighbouring segments of the same colours joined."""
    found = []
    for strip in strips:
        row: Row = []
        for text, style, _control in strip:
            if not text:
                continue
            fg, bg = _colours(style)
            if row and row[-1][1] == fg and row[-1][2] == bg:
                row[-1][0] += text
            else:
                row.append([text, fg, bg])
        found.append(row)
    return found


def _rgb(colour: Any, foreground: bool = True) -> int:
    """The colour as 0xRRGGBB; a channel past its range (an app's ``Color(288, 3, 3)``, which
    Textual and Rich pass on as it is) at its bound, as a terminal shows it."""
    red, green, blue = (
        min(max(int(channel), 0), 0xFF) for channel in colour.get_truecolor(foreground=foreground)
    )
    return (red << 16) | (green << 8) | blue


@cache
def _colours(style: Any) -> tuple[int, int]:
    if style is None:
        return DEFAULT_FG, DEFAULT_BG
    fg = _rgb(style.color) if style.color is not None else DEFAULT_FG
    bg = _rgb(style.bgcolor, foreground=False) if style.bgcolor is not None else DEFAULT_BG
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = sum(
            ((((fg >> shift) & 0xFF) + ((bg >> shift) & 0xFF)) // 2) << shift
            for shift in (16, 8, 0)
        )
    return fg, bg
