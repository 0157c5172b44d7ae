"""The Textual driver: ``orav.device.Device`` over a Textual app running under Pilot.

``device`` (TextualDevice: the app in orav's process), ``remote`` (RemoteTextualDevice: the
app in its own Python environment, through a companion process), ``calls`` (what both do with
one call to the app's side), ``companion`` (the app's side: imports Textual, never orav),
``tree`` (Elements from the app side's facts), ``raster`` (the PNG of a screen), ``spec`` (a
device spec). Importing this package imports no Textual. See docs/textual.md.
"""

from orav.drivers.textual.device import TextualDevice, load_app_factory
from orav.drivers.textual.raster import CELL_HEIGHT, CELL_WIDTH, draw_png
from orav.drivers.textual.remote import RemoteTextualDevice
from orav.drivers.textual.tree import elements

__all__ = [
    "CELL_HEIGHT",
    "CELL_WIDTH",
    "RemoteTextualDevice",
    "TextualDevice",
    "draw_png",
    "elements",
    "load_app_factory",
]
