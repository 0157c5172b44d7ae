"""The Textual driver: ``orav.device.Device`` over a Textual app running under Pilot, in-process.

``device`` (TextualDevice: lifecycle, observe, perform), ``session`` (one launch held open in a
task of its own), ``tree`` (the element tree of a screen), ``raster`` (the PNG of a screen),
``actions`` (typing, keys, taps that land where nothing covers them, scrolling).
See docs/textual.md.
"""

from orav.drivers.textual.device import TextualDevice, load_app_factory
from orav.drivers.textual.raster import CELL_HEIGHT, CELL_WIDTH, draw_png
from orav.drivers.textual.tree import elements, render_strips

__all__ = [
    "CELL_HEIGHT",
    "CELL_WIDTH",
    "TextualDevice",
    "draw_png",
    "elements",
    "load_app_factory",
    "render_strips",
]
