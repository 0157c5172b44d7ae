"""Pegel: a pump station's panel whose counters tick in no shape orav knows (issue 25, item 3).

``Anfragen 1234`` and ``Liter 88`` count up on a timer while nobody touches the app: bare
numbers, no clock, no unit, no percent. ``Pumpe 3`` names a pump and never changes. The words
are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Label

TICK = 0.1  # seconds between counts


class Pegel(App):
    TITLE = "Pegel"

    def __init__(self) -> None:
        super().__init__()
        self.count = 1234

    def compose(self) -> ComposeResult:
        yield Label("Pumpe 3", id="pumpe")
        yield Label(f"Anfragen {self.count}", id="anfragen")
        yield Label(f"Liter {self.count * 7}")
        yield Button("Spülen", id="spuelen")

    def on_mount(self) -> None:
        self.set_interval(TICK, self.tick)

    def tick(self) -> None:
        self.count += 1
        self.query_one("#anfragen", Label).update(f"Anfragen {self.count}")
        self.query(Label)[2].update(f"Liter {self.count * 7}")
