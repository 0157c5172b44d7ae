"""Scribe: a Textual app that reaches into its world, for the sandbox's tests
(tests/test_sandbox.py). Each button does what a real app might do to the user's files or the
network, in words orav's code does not know: it appends to ``~/notes.md``, throws away
``scratch.txt`` in the working folder, wipes the ``people`` table of ``sample.db`` (SQLite) and
knocks on a port given as ``?port=``."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Button, Label


class Scribe(App):
    def __init__(self, port: str = "0") -> None:
        super().__init__()
        self.port = int(port)

    def compose(self) -> ComposeResult:
        yield Label("Scribe", id="title")
        yield Button("Jot", id="jot")
        yield Button("Tidy", id="tidy")
        yield Button("Wipe", id="wipe")
        yield Button("Knock", id="knock")
        yield Label("", id="said")

    def say(self, text: str) -> None:
        self.query_one("#said", Label).update(text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "jot":
            with (Path.home() / "notes.md").open("a") as notes:
                notes.write("- jotted\n")
            self.say("jotted")
        elif event.button.id == "tidy":
            Path("scratch.txt").unlink(missing_ok=True)
            self.say("tidied")
        elif event.button.id == "wipe":
            with sqlite3.connect("sample.db") as db:
                db.execute("DELETE FROM people")
            self.say("wiped")
        elif event.button.id == "knock":
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                    self.say("answered")
            except OSError as exc:
                self.say(f"no answer: {type(exc).__name__}")
