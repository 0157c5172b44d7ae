"""Funkstille: a radio log with no help at all (issue 25, item 4).

Its first screen is text alone, and no word on it names a key. ``d`` (read by its own
``on_key``) opens the frequency list; nothing else says so. ``c`` ends the app from ``on_key``
and ``ctrl+r`` is bound, hidden, to an action of its own that calls ``self.exit()``: a blind
probe may press only what no structure says ends the app. The words and keys are this app's
own: orav's code knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static


class Frequenzen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def compose(self) -> ComposeResult:
        yield Static("144,800 MHz  APRS\n145,500 MHz  Anruf")


class Funkstille(App):
    TITLE = "Funkstille"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+r", "abschalten", show=False)]

    def compose(self) -> ComposeResult:
        yield Static("Logbuch\n\n04:10  nichts empfangen\n04:20  Rauschen", id="logbuch")

    def on_key(self, event: events.Key) -> None:
        if self.screen is not self.screen_stack[0]:
            return
        if event.key == "d":
            self.push_screen(Frequenzen())
        elif event.key == "c":
            self.exit()

    def action_abschalten(self) -> None:
        self.exit()
