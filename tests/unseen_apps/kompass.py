"""Kompass: a bearing finder whose main screen ends the app on escape, as complexitty 1.0.0
(PyPI) does: one binding names two keys (``f10, escape``) for the app's quit. Its map page
goes back on escape, as pages do. The words and keys are this app's own.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Button, Footer, Static


class Karte(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def compose(self) -> ComposeResult:
        yield Static("Karte\n\nNordost: 45°")
        yield Button("Nordung", id="nordung")
        yield Footer()

    def on_button_pressed(self) -> None:
        self.query_one(Static).update("Karte\n\nGenordet")


class Peilung(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f10, escape", "app.quit", "Beenden"),
        Binding("r", "drehen", "Drehen"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("Peilung\n\nKurs 090", id="kurs")
        yield Button("Karte", id="karte")
        yield Footer()

    def on_button_pressed(self) -> None:
        self.app.push_screen(Karte())

    def action_drehen(self) -> None:
        self.query_one("#kurs", Static).update("Peilung\n\nKurs 270")


class Kompass(App):
    TITLE = "Kompass"

    def on_mount(self) -> None:
        self.push_screen(Peilung())
