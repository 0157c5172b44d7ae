"""Werkbank: a workshop's order book whose commands live in key handler methods (Textual calls
``key_ctrl_g`` when ctrl+g is pressed), as meine's do: no binding, no footer, no help names
them, and a text field is on screen, so no blind probe runs. ``ctrl+g`` (the app's) opens the
tools, ``F7`` (the field's own, while it has focus) the stock, ``F9`` (the screen's) the
calendar; ``ctrl+x`` ends the app from its handler. The words and keys are this app's own:
orav's code knows none of them.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static


class Seite(Screen):
    TEXT = ""

    def compose(self) -> ComposeResult:
        yield Static(self.TEXT)

    def key_escape(self) -> None:
        self.app.pop_screen()


class Werkzeuge(Seite):
    TEXT = "Drehbank, Fräse"


class Lager(Seite):
    TEXT = "Schrauben M4: 300"


class Kalender(Seite):
    TEXT = "Dienstag: Abnahme"


class Auftragsfeld(Input):
    def key_f7(self) -> None:
        self.app.push_screen(Lager())


class Buch(Screen):
    def compose(self) -> ComposeResult:
        yield Static("Auftragsbuch\n\n12 offen, 3 in Arbeit")
        yield Auftragsfeld(placeholder="Auftragsnummer", id="auftrag")

    def key_f9(self) -> None:
        self.app.push_screen(Kalender())


class Werkbank(App):
    TITLE = "Werkbank"

    def on_mount(self) -> None:
        self.push_screen(Buch())

    def key_ctrl_g(self) -> None:
        self.push_screen(Werkzeuge())

    def key_ctrl_x(self) -> None:
        self.exit()
