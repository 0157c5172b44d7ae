"""Sternwarte: a star-chart viewer that takes its keys itself (issue 25).

Its first screen is text alone: no button, no field, no footer key for what it does. Its own
``on_key`` handles ``n`` (the next chart) and ``k`` (a catalogue), as the hint line says; a
hidden binding of its own (``show=False``) opens the log on ``l``, as does a command of its
own in the command palette; ``x`` is bound, hidden, to
Textual's quit, and ``e`` ends the app from ``on_key``, its hint saying so. The words and
keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static


class Page(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        yield Static(self.words)


class Chart(Page):
    pass


class Catalogue(Page):
    pass


class Log(Page):
    pass


class Sternwarte(App):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "log", "Protokoll", show=False),
        Binding("x", "quit", "Schluss", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static("Sternkarte Orion\n\n  *   .  *\n .  *    .\n", id="karte")
        yield Static("n nächste Karte   k Katalog   e beenden", id="hinweis")

    def on_key(self, event: events.Key) -> None:
        if not isinstance(self.screen, Page) and event.key == "n":
            self.push_screen(Chart("Sternkarte Kassiopeia"))
        elif not isinstance(self.screen, Page) and event.key == "k":
            self.push_screen(Catalogue("Katalog: Beteigeuze, Rigel"))
        elif not isinstance(self.screen, Page) and event.key == "e":
            self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sternbild suchen", "Eine Karte nach Namen", self.action_log)

    def action_log(self) -> None:
        self.push_screen(Log("Protokoll: 3 Nächte"))
