"""Hafen: a harbour board whose commands live in its own ``on_key`` (issue 25, item 4).

The board is a table of ships (controls a user can click), so nothing invites a blind key. What
the app does with keys is written only in its help (f1, the one key its footer shows): a
DataTable of two columns, "Taste" and "Wirkung", in a layout of its own. Its command palette
has a provider of its own that lists "Lotse bestellen" and "Schlepper rufen". ``g`` opens the tides,
``w`` the weather map, ``ctrl+t`` the timetable, all from ``on_key``; ``z`` is bound, hidden,
to an action of the app's own that ends it (``self.exit()``), described "Feierabend". The words
and keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

LEGENDE = [
    ("g", "Gezeiten anzeigen"),
    ("w", "Wetterkarte öffnen"),
    ("ctrl+t", "Fahrplan der Fähren"),
    ("z", "Feierabend"),
    ("escape", "zurück zur Tafel"),
]


class Seite(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Tafel")]

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        yield Static(self.words)
        yield Footer()


class Gezeiten(Seite):
    pass


class Wetter(Seite):
    pass


class Fahrplan(Seite):
    pass


class Hilfe(Seite):
    def compose(self) -> ComposeResult:
        yield Static("Tastenbelegung der Hafentafel")
        tabelle: DataTable = DataTable(id="legende", cursor_type="none")
        tabelle.add_columns("Taste", "Wirkung")
        tabelle.add_rows(LEGENDE)
        yield tabelle
        yield Footer()


class Tafel(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f1", "app.push_screen('hilfe')", "Hilfe")]

    def compose(self) -> ComposeResult:
        schiffe: DataTable = DataTable(id="schiffe")
        schiffe.add_columns("Schiff", "Liegeplatz")
        schiffe.add_rows([("Möwe", "Kai 3"), ("Albatros", "Kai 7")])
        yield schiffe
        yield Footer()

    def on_key(self, event: events.Key) -> None:
        pages = {"g": Gezeiten, "w": Wetter, "ctrl+t": Fahrplan}
        words = {"g": "Hochwasser 14:02", "w": "Wind 5 Bft", "ctrl+t": "Fähre 9:15"}
        if event.key in pages:
            self.app.push_screen(pages[event.key](words[event.key]))


class Hafenbefehle(Provider):
    BEFEHLE = ("Lotse bestellen", "Schlepper rufen")

    async def discover(self) -> Hits:
        for befehl in self.BEFEHLE:
            yield DiscoveryHit(befehl, self.app.bell)

    async def search(self, query: str) -> Hits:
        for befehl in self.BEFEHLE:
            if query.lower() in befehl.lower():
                yield Hit(1.0, befehl, self.app.bell)


class Hafen(App):
    TITLE = "Hafen"
    COMMANDS = App.COMMANDS | {Hafenbefehle}
    SCREENS: ClassVar = {"hilfe": lambda: Hilfe("")}
    BINDINGS: ClassVar[list[BindingType]] = [Binding("z", "feierabend", "Feierabend", show=False)]

    def on_mount(self) -> None:
        self.push_screen(Tafel())

    def action_feierabend(self) -> None:
        self.exit()
