"""Leitstelle: a dispatch desk whose options are a modal panel, as meine's settings are: a
switch (saved at once to the app's settings file), a picker and two buttons under a title, no
question asked. One button empties the
desk's log (a file in the working folder, the user's: a deed by its effect) and shows it, with keys
of its own, the first of which goes back; the other opens the credits, which have a page of
their own behind ``n``; F4 shows notes, a modal page of text that takes no focus and
binds no key. Escape on the desk goes nowhere: the desk says so in a toast. The
words and keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Label, Select, Static, Switch

LOG = Path("protokoll.txt")  # the desk's log, in the working folder: the user's


class Mitwirkende(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "weiter", "Nächste Seite"),
        Binding("escape", "app.pop_screen"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("Mitwirkende\n\nFunk: Ada, Bert", id="seite")
        yield Footer()

    def action_weiter(self) -> None:
        self.query_one("#seite", Static).update("Mitwirkende\n\nSeite 2: Carla, Dieter")


class Protokoll(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "app.pop_screen", "Zum Pult"),
        Binding("z", "zaehlen", "Zeilen zählen"),
        Binding("r", "umkehren", "Umkehren"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("Protokoll\n\n(leer)", id="zeilen")
        yield Footer()

    def action_zaehlen(self) -> None:
        self.query_one("#zeilen", Static).update("Protokoll\n\n0 Zeilen")

    def action_umkehren(self) -> None:
        self.query_one("#zeilen", Static).update("Protokoll\n\n(leer, umgekehrt)")


class Optionen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen")]

    def compose(self) -> ComposeResult:
        with Vertical(id="tafel"):
            yield Label("OPTIONEN")
            yield Label("Nachtmodus")
            yield Switch(id="nacht")
            yield Label("Farbschema")
            yield Select([("Bernstein", "b"), ("Moos", "m")], value="b", id="schema")
            yield Button("Protokoll kürzen", id="kuerzen")
            yield Button("Über uns", id="ueber")

    def on_switch_changed(self, event: Switch.Changed) -> None:
        folder = Path.home() / ".config" / "leitstelle"  # the app's own, written as it goes
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "einstellungen.txt").write_text(f"nacht={event.value}\n")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "kuerzen":
            LOG.write_text("")
            self.app.push_screen(Protokoll())
        else:
            self.app.push_screen(Mitwirkende())


class Hinweise(ModalScreen[None]):
    """A page of text over the desk, as meine's About Me is: nothing on it takes focus and it
    binds no key; a click closes it."""

    def compose(self) -> ComposeResult:
        yield Static("Hinweise\n\nFunkdisziplin wahren.\nKanal 4 ist Reserve.")

    def on_click(self) -> None:
        self.dismiss()


class Pult(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "optionen", "Optionen"),
        Binding("f4", "hinweise", "Hinweise"),
        Binding("escape", "daheim"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("Leitstelle\n\n3 Einsätze offen")
        yield Footer()

    def action_optionen(self) -> None:
        self.app.push_screen(Optionen())

    def action_hinweise(self) -> None:
        self.app.push_screen(Hinweise())

    def action_daheim(self) -> None:
        self.notify("Schon am Pult")


class Leitstelle(App):
    TITLE = "Leitstelle"

    def on_mount(self) -> None:
        self.push_screen(Pult())
