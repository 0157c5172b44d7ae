"""Kritzel: a terminal sketch pad whose tree never changes while it draws (issue 26, item 8).

The pad is a widget of its own that paints cells (blank characters on a coloured ground, as
a pixel-art or heat-map app does): no text, so nothing in the accessibility tree names what it
shows, and a stroke changes the picture alone. ``s`` draws a stroke (its own
``on_key``, no binding); ``m`` changes nothing anyone sees (it counts, silently). The words and
keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static

WIDTH, HEIGHT = 40, 10


class Blatt(Widget):
    DEFAULT_CSS = "Blatt { width: 40; height: 10; }"

    def __init__(self) -> None:
        super().__init__()
        self.strokes = 0

    def render(self) -> Text:
        painted = {
            ((n * 3) % HEIGHT, (x + n * 5) % WIDTH)
            for n in range(self.strokes)
            for x in range(WIDTH // 2)
        }
        pad = Text()
        for row in range(HEIGHT):
            for column in range(WIDTH):
                pad.append(" ", style="on dark_orange" if (row, column) in painted else "on grey11")
            pad.append("\n")
        return pad


class Kritzel(App):
    TITLE = "Kritzel"

    def __init__(self) -> None:
        super().__init__()
        self.silent = 0

    def compose(self) -> ComposeResult:
        yield Static("Kritzel: s zeichnet", id="kopf")
        yield Blatt()

    def on_key(self, event: events.Key) -> None:
        if event.key == "s":
            self.query_one(Blatt).strokes += 1
            self.query_one(Blatt).refresh()
        elif event.key == "m":
            self.silent += 1
