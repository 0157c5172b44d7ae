"""Stellwerk: a signal box whose keys are listed in a plain text legend (issue 25, item 4).

Its first screen is a list of tracks (controls) and a "Legende" button. The legend is one
Static of lines, each a key, some spaces, and what it does, with a title and a closing remark
around them. ``a`` shows the departures, ``n`` the arrivals, ``F2`` the disruptions, from the
app's own ``on_key``. The words and keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Button, ListItem, ListView, Static

LEGENDE = """\
Kürzel im Stellwerk

  a      Abfahrten
  n      Ankünfte
  F2     Störungsliste
  Esc    zurück

Weichen werden mit der Maus gestellt.
"""


class Tafel(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        yield Static(self.words)


class Abfahrten(Tafel):
    pass


class Ankuenfte(Tafel):
    pass


class Stoerungen(Tafel):
    pass


class Legende(Tafel):
    pass


class Gleise(Screen):
    def compose(self) -> ComposeResult:
        yield ListView(ListItem(Static("Gleis 1")), ListItem(Static("Gleis 2")), id="gleise")
        yield Button("Legende", id="legende")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.app.push_screen(Legende(LEGENDE))

    def on_key(self, event: events.Key) -> None:
        pages = {
            "a": (Abfahrten, "RE 7 Kiel 9:12"),
            "n": (Ankuenfte, "RB 3 aus Husum"),
            "f2": (Stoerungen, "Keine Störungen"),
        }
        if event.key in pages:
            page, words = pages[event.key]
            self.app.push_screen(page(words))


class Stellwerk(App):
    TITLE = "Stellwerk"

    def on_mount(self) -> None:
        self.push_screen(Gleise())
