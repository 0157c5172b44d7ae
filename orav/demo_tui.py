"""A small Textual app for orav to drive: sign in, a list with details, settings.

Run it yourself with ``python -m orav.demo_tui``; drive it with
``orav record orav/scenarios/textual/sign_in.yaml --device textual:orav.demo_tui:DemoApp``.
The account is the iOS demo's: demo@orav.dev / Orav-Demo-1!.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, ListItem, ListView, Static, Switch

EMAIL = "demo@orav.dev"
PASSWORD = "Orav-Demo-1!"

ITEMS = {
    "item_1": ("Getting started", "Sign in, pick an item, read it, come back."),
    "item_2": ("Release notes", "Version 1.0: first release."),
    "item_3": ("Known issues", "None known yet."),
}


class SignInScreen(Screen):
    TITLE = "Sign in"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="form"):
            yield Input(placeholder="Email", id="email")
            yield Input(placeholder="Password", password=True, id="password")
            yield Button("Sign in", id="sign_in", variant="primary")
            yield Label("", id="message")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.sign_in()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "email":
            self.query_one("#password", Input).focus()
        else:
            self.sign_in()

    def sign_in(self) -> None:
        email = self.query_one("#email", Input).value.strip()
        password = self.query_one("#password", Input).value
        message = self.query_one("#message", Label)
        if not email or not password:
            message.update("Enter your email and password.")
        elif (email, password) != (EMAIL, PASSWORD):
            message.update("Wrong email or password.")
        else:
            self.app.switch_screen(HomeScreen())


class HomeScreen(Screen):
    TITLE = "Home"

    def compose(self) -> ComposeResult:
        yield Header()
        yield ListView(
            *(ListItem(Label(title), id=key) for key, (title, _) in ITEMS.items()), id="items"
        )
        yield Button("Settings", id="settings")
        yield Footer()

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        if event.item.id is not None:
            self.app.push_screen(DetailScreen(event.item.id))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.app.push_screen(SettingsScreen())


class DetailScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, item: str) -> None:
        super().__init__()
        self.title, self.body = ITEMS[item]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.body, id="detail_text")
        yield Button("Back", id="back")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.app.pop_screen()


class SettingsScreen(Screen):
    TITLE = "Settings"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="setting"):
            yield Label("Notifications")
            yield Switch(value=True, id="notifications_switch")
        with Horizontal(classes="setting"):
            yield Label("Dark mode")
            yield Switch(value=False, id="dark_switch")
        yield Button("Back", id="back")
        yield Footer()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        if event.switch.id == "dark_switch":
            self.app.theme = "textual-dark" if event.value else "textual-light"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.app.pop_screen()


class DemoApp(App):
    """orav's Textual demo: the same flows as the iOS demo app, in a terminal."""

    TITLE = "orav demo"
    CSS = """
    #form { height: auto; padding: 1 2; }
    #form Input { margin-bottom: 1; }
    #message { color: $error; margin-top: 1; }
    #items { height: auto; max-height: 12; }
    .setting { height: 3; }
    .setting Label { padding: 1 2; width: 20; }
    #detail_text { padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def on_mount(self) -> None:
        self.theme = "textual-light"
        self.push_screen(SignInScreen())


if __name__ == "__main__":
    DemoApp().run()
