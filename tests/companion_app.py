"""A small Textual app written for Textual 0.47 through 8.x alike, driven through the companion
in venvs of several Textual versions (tests/test_textual_companion.py) and in-process."""

import time
from typing import ClassVar

from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Button, Footer, Input, Label, Switch


class SmallApp(App):
    BINDINGS: ClassVar = [("f2", "greet_all", "Greet all")]

    def compose(self):
        yield Label("Small app", id="title")
        yield Input(placeholder="Name", id="name")
        yield Button("Greet", id="greet")
        yield Button("Boom", id="boom")
        yield Button("Hang", id="hang")
        yield Switch(id="flag")
        yield Label("nobody yet", id="greeting")
        with VerticalScroll(id="rows"):
            for n in range(30):
                yield Label(f"row {n}", id=f"row_{n}")
        yield Footer()

    def action_greet_all(self):
        self.query_one("#greeting", Label).update("Hello everyone")

    def on_button_pressed(self, event):
        if event.button.id == "greet":
            name = self.query_one("#name", Input).value
            self.query_one("#greeting", Label).update(f"Hello {name}")
        elif event.button.id == "boom":
            print("the app prints this before it fails")
            raise RuntimeError("boom pressed")
        elif event.button.id == "hang":
            time.sleep(15)  # a handler that blocks the app's event loop


class CrowdApp(App):
    """A screen of 5,000 widgets: what both drivers must observe alike."""

    def compose(self):
        with VerticalScroll(id="crowd"):
            for n in range(5000):
                yield Button(f"seat {n}", id=f"seat_{n}")
        yield Label("none taken", id="taken")

    def on_button_pressed(self, event):
        self.query_one("#taken", Label).update(f"took {event.button.id}")
