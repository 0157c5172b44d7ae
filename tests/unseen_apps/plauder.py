"""Plauder: a small chat client, written the way a third-party app is, for orav to be tested on
deeds whose words orav's code never saw.

``➤`` (or enter in the message line) posts the message over HTTP to the server that
``plauder.json`` in the working folder names (``{"server": "http://…"}``): a deed that leaves
the app. The history is kept in ``$XDG_DATA_HOME/plauder/verlauf.json`` (``~/.local/share``
without it); the settings page puts everything back to the factory state after a question.
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
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, ListItem, ListView, Switch


def history_file() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "plauder" / "verlauf.json"


def load_history() -> list[str]:
    try:
        return list(json.loads(history_file().read_text()))
    except (OSError, ValueError):
        return []


def save_history(lines: list[str]) -> None:
    history_file().parent.mkdir(parents=True, exist_ok=True)
    history_file().write_text(json.dumps(lines))


class Really(ModalScreen[bool]):
    DEFAULT_CSS = "Really { align: center middle; } #really { width: 56; height: auto; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="really"):
            yield Label("Verlauf und Einstellungen gehen verloren. Fortfahren?")
            with Horizontal():
                yield Button("Fortfahren", id="go_on", variant="error")
                yield Button("Zurück", id="back_off")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "go_on")


class Einstellungen(Screen):
    TITLE = "Einstellungen"
    BINDINGS: ClassVar = [("escape", "app.pop_screen", "Zurück")]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield Label("Lesebestätigungen")
            yield Switch(value=True, id="receipts")
        yield Button("↺ Werkszustand", id="factory")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.app.push_screen(Really(), self.factory)

    def factory(self, yes: bool | None) -> None:
        if yes:
            history_file().unlink(missing_ok=True)
            self.app.query_one("#verlauf", ListView).clear()


class Plauder(App):
    TITLE = "Plauder"
    BINDINGS: ClassVar = [Binding("f2", "settings", "⚙")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield ListView(*(ListItem(Label(line)) for line in load_history()), id="verlauf")
        with Horizontal():
            yield Input(placeholder="Nachricht…", id="zeile")
            yield Button("➤", id="los")
        yield Label("", id="hinweis")
        yield Footer()

    def action_settings(self) -> None:
        self.push_screen(Einstellungen())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.post()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.post()

    def post(self) -> None:
        line = self.query_one("#zeile", Input)
        hint = self.query_one("#hinweis", Label)
        if not line.value.strip():
            return
        try:
            server = json.loads(Path("plauder.json").read_text())["server"]
            body = json.dumps({"text": line.value}).encode()
            request = urllib.request.Request(server, body, {"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=2).close()
        except (OSError, ValueError, KeyError) as exc:
            hint.update(f"nicht zugestellt: {exc}")
            return
        lines = [*load_history(), line.value]
        save_history(lines)
        self.query_one("#verlauf", ListView).append(ListItem(Label(line.value)))
        line.value = ""
        hint.update("✓")


if __name__ == "__main__":
    Plauder().run()
