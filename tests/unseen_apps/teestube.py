"""Teestube: a tea timer whose first screen is a picture and whose keys are its own (issue 25).

Nothing on its first screen is a control and nothing says a key. ``?`` (read by its own
``on_key``, bound nowhere) opens a help dialog that is a Markdown list: each item a key in code
style and what it does. ``b`` sets the brewing time, ``s`` lists the sorts, ``v`` shows the
kettle's log; none of them is in the tree, and ``s`` and ``v`` lie past the few keys a blind
probe tries. The words and keys are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown, Static

ANLEITUNG = """\
## Tastatur

- `b` Brühzeit einstellen
- `s` Sortenliste
- `v` Verlauf des Kessels
- `escape` Fenster schließen
"""


class Anleitung(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Schließen")]

    def compose(self) -> ComposeResult:
        yield Markdown(ANLEITUNG, id="anleitung")


class Blatt(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def compose(self) -> ComposeResult:
        yield Static(self.words)


class Bruehzeit(Blatt):
    pass


class Sorten(Blatt):
    pass


class Verlauf(Blatt):
    pass


class Teestube(App):
    TITLE = "Teestube"

    def compose(self) -> ComposeResult:
        yield Static("   ( (\n    ) )\n  ........\n  |      |]\n  \\      /\n   `----'", id="kanne")

    def on_key(self, event: events.Key) -> None:
        if self.screen is not self.screen_stack[0]:
            return
        pages = {
            "b": (Bruehzeit, "3 Minuten"),
            "s": (Sorten, "Assam, Darjeeling"),
            "v": (Verlauf, "Kessel: 4 Aufgüsse"),
        }
        if event.key == "question_mark":
            self.push_screen(Anleitung())
        elif event.key in pages:
            page, words = pages[event.key]
            self.push_screen(page(words))
