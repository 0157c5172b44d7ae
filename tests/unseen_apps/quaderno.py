"""Quaderno: an Italian notebook, written the way a third-party app is, for orav to be tested on
shapes its code never saw.

- Emptying the notebook asks twice, and both answers that go on are icons: "🗑" asks
  "Svuotare il quaderno?" ("➜" or "Annulla"), "➜" asks again ("💣" or "Annulla"), and "💣"
  deletes every note at once.
- Publishing is a bare key, ``p``, that only the footer describes ("Pubblica"): it writes the
  notes to an outbox file, posts them over HTTP to the server ``quaderno.json`` in the working
  folder names (``{"server": "http://…"}``) and clears the outbox once the server took them.
- "＋" adds a note. The notes live in ``$XDG_DATA_HOME/quaderno/note.json``
  (``~/.local/share`` without it).
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Header, Label, ListItem, ListView


def data_folder() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "quaderno"


def load_notes() -> list[str]:
    try:
        return list(json.loads((data_folder() / "note.json").read_text()))
    except (OSError, ValueError):
        return []


def save_notes(notes: list[str]) -> None:
    data_folder().mkdir(parents=True, exist_ok=True)
    (data_folder() / "note.json").write_text(json.dumps(notes))


class Domanda(ModalScreen[bool]):
    """A question with an icon to go on and "Annulla"."""

    DEFAULT_CSS = "Domanda { align: center middle; } #domanda { width: 50; height: auto; }"
    BINDINGS: ClassVar = [("escape", "dismiss(False)", "")]

    def __init__(self, question: str, icon: str) -> None:
        super().__init__()
        self.question, self.icon = question, icon

    def compose(self) -> ComposeResult:
        with Vertical(id="domanda"):
            yield Label(self.question, id="question")
            with Horizontal():
                yield Button(self.icon, id="avanti", variant="error")
                yield Button("Annulla", id="annulla")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "avanti")


class Quaderno(App):
    TITLE = "Quaderno"
    BINDINGS: ClassVar = [Binding("p", "pubblica", "Pubblica")]

    def __init__(self) -> None:
        super().__init__()
        self.notes = load_notes()
        self.status = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ListView(*(ListItem(Label(n)) for n in self.notes), id="note")
        with Horizontal():
            yield Button("＋", id="nuova")
            yield Button("🗑", id="svuota")
        yield Label("", id="stato")
        yield Footer()

    def show(self) -> None:
        view = self.query_one("#note", ListView)
        view.clear()
        view.extend(ListItem(Label(n)) for n in self.notes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "nuova":
            self.notes.append(f"Nota {len(self.notes) + 1}")
            save_notes(self.notes)
            self.show()
        elif event.button.id == "svuota":
            self.push_screen(Domanda("Svuotare il quaderno?", "➜"), self.first_answer)

    def first_answer(self, yes: bool | None) -> None:
        if yes:
            question = "Ultima possibilità: tutte le note spariranno."
            self.push_screen(Domanda(question, "💣"), self.second_answer)

    def second_answer(self, yes: bool | None) -> None:
        if yes:
            (data_folder() / "note.json").unlink(missing_ok=True)
            self.notes = []
            self.show()

    def action_pubblica(self) -> None:
        outbox = data_folder() / "uscita"
        outbox.mkdir(parents=True, exist_ok=True)
        waiting = outbox / f"{len(list(outbox.iterdir())) + 1}.json"
        waiting.write_text(json.dumps(self.notes))
        stato = self.query_one("#stato", Label)
        try:
            server = json.loads(Path("quaderno.json").read_text())["server"]
            request = urllib.request.Request(server, data=waiting.read_bytes(), method="POST")
            urllib.request.urlopen(request, timeout=2).close()
        except (OSError, ValueError, KeyError) as exc:
            stato.update(f"⚠ {exc}")
            return
        waiting.unlink()
        stato.update("✓")


if __name__ == "__main__":
    Quaderno().run()
