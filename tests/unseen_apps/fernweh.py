"""Fernweh: a travel search that answers late (issue 25).

Search shows grey placeholders at once and the results a second later, from a timer: the app
is quiet (no message, no animation, no worker) while the placeholders show. With ``?offline``
the first search meets a "No connection" banner a moment later, during the wait; Retry shows the
results at once. The words are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Input, Label, Static

PLACES = {"alfama": "Alfama, Lissabon", "ribeira": "Ribeira, Porto", "baixa": "Baixa, Coimbra"}
LATE = 1.0  # seconds until the results replace the placeholders
BANNER = 0.8  # seconds until the offline banner shows, after a search (during the wait)


class Fernweh(App):
    TITLE = "Fernweh"

    def __init__(self, offline: str = "") -> None:
        super().__init__()
        self.offline = offline != ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Reiseziel", id="ziel")
        yield Button("Suchen", id="suchen")
        yield Vertical(id="treffer")

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "suchen":
            await self.placeholders()
            if self.offline:
                self.set_timer(BANNER, self.banner)
            else:
                self.set_timer(LATE, self.results)
        elif event.button.id == "retry":
            await self.query_one("#netz").remove()
            self.offline = False
            await self.results()
        elif (event.button.id or "").startswith("result_"):
            await self.query_one("#treffer").remove_children()
            await self.query_one("#treffer").mount(Label(f"Gebucht: {event.button.label}"))

    async def placeholders(self) -> None:
        found = self.query_one("#treffer")
        await found.remove_children()
        await found.mount_all(Static("░░░░░░░░░░░░", id=f"platzhalter_{n}") for n in range(3))

    async def banner(self) -> None:
        await self.mount(
            Vertical(
                Label("No connection. Check your network and try again."),
                Button("Retry", id="retry"),
                id="netz",
            ),
            before=0,
        )

    async def results(self) -> None:
        found = self.query_one("#treffer")
        await found.remove_children()
        await found.mount_all(Button(name, id=f"result_{key}") for key, name in PLACES.items())
