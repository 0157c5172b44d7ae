"""Kladde: a to-do list whose notices come up as modals (issue 25, item 2).

At launch a notice ("Neu in Kladde 3") covers the list; after the first entry another one
does. Both are modal screens with no button: escape closes them. Under them lies a field
for the next entry and the list, whose screen binds ``x`` to tick the first open entry off:
a key the modal swallows while it is up. The words and keys are this app's own: orav's code
knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, ListItem, ListView, Static


class Hinweis(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Schließen")]

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        yield Static(self.words, id="hinweis")


class Liste(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "abhaken", "Abhaken")]

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Was steht an?", id="eintrag")
        yield ListView(id="liste")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            return
        liste = self.query_one(ListView)
        liste.append(ListItem(Label(f"\u2610 {event.value}")))
        event.input.value = ""
        liste.focus()
        if len(liste.children) == 1:
            self.app.push_screen(Hinweis("Erster Eintrag! Abgehakt wird mit x."))

    def action_abhaken(self) -> None:
        for label in self.query(Label):
            text = str(label.content)
            if text.startswith("\u2610"):
                label.update("\u2611" + text[1:])
                return


class Kladde(App):
    TITLE = "Kladde"

    def on_mount(self) -> None:
        self.push_screen(Liste())
        self.push_screen(Hinweis("Neu in Kladde 3: Einträge lassen sich abhaken."))
