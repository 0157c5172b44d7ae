"""Farbrad: a colour wheel that paints with a channel past 255, as complexitty 1.0.0 (PyPI)
does (its rainbow starts at ``Color(288, 3, 3)``): Textual and Rich pass such a colour on as
it is, and a terminal shows it at full red. The words are this app's own."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Static


class Farbrad(App):
    def compose(self) -> ComposeResult:
        yield Static("Regenbogen", id="rad")

    def on_mount(self) -> None:
        self.query_one("#rad").styles.background = Color(288, 3, 3)
        self.query_one("#rad").styles.color = Color(-4, 300, 12)
