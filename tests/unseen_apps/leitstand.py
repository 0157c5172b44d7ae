"""Leitstand: a server dashboard whose values tick while nobody touches it (issue 25).

A table of hosts keyed by name: an uptime clock and a load percentage that tick every
fraction of a second, and each host's last query as a Rich ``Syntax``; a request counter, a
progress bar that fills, a button whose label counts down. Selecting a host opens its page
(a Rich ``Table`` in a ``Panel``); a second table without row keys ticks too. The words and
shapes are this app's own: orav's code knows none of them.
"""

from __future__ import annotations

from typing import ClassVar

from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Label, ProgressBar, Static

HOSTS = {
    "alpha": "SELECT id FROM kunden",
    "beta": "UPDATE lager SET n = 1",
    "gamma": "DELETE FROM tmp",
}
TICK = 0.25  # seconds between ticks


def clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class HostPage(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Zurück")]

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host

    def compose(self) -> ComposeResult:
        yield Header()
        facts = Table("Feld", "Wert")
        facts.add_row("Rechner", self.host)
        facts.add_row("Abfrage", HOSTS[self.host])
        yield Static(Panel(facts, title=self.host), id="facts")
        yield Button("Zurück", id="zurueck")
        yield Footer()

    def on_button_pressed(self) -> None:
        self.app.pop_screen()


class Leitstand(App):
    TITLE = "Leitstand"

    def __init__(self) -> None:
        super().__init__()
        self.ticks = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(id="rechner", cursor_type="cell")
        yield DataTable(id="lose")
        yield Label("Anfragen: 0", id="anfragen")
        yield ProgressBar(total=10_000, id="fortschritt")
        yield Button("Abgleich in 90s")
        yield Label("", id="zuletzt")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#rechner", DataTable)
        table.add_column("Rechner", key="name")
        table.add_column("Laufzeit", key="uptime")
        table.add_column("Last", key="load")
        table.add_column("Abfrage", key="query")
        for n, (host, query) in enumerate(HOSTS.items()):
            table.add_row(host, clock(n * 100), "0%", Syntax(query, "sql"), key=host)
        loose = self.query_one("#lose", DataTable)
        loose.add_columns("Warteschlange", "Alter")
        loose.add_row("eingang", "0s")
        self.set_interval(TICK, self.tick)

    def tick(self) -> None:
        self.ticks += 1
        table = self.query_one("#rechner", DataTable)
        for n, host in enumerate(HOSTS):
            table.update_cell(host, "uptime", clock(n * 100 + self.ticks))
            table.update_cell(host, "load", f"{(self.ticks * 7 + n * 13) % 100}%")
        loose = self.query_one("#lose", DataTable)
        loose.update_cell_at((0, 1), f"{self.ticks}s")
        self.query_one("#anfragen", Label).update(f"Anfragen: {self.ticks * 3}")
        self.query_one("#fortschritt", ProgressBar).advance(1)
        self.query_one(Button).label = f"Abgleich in {max(90 - self.ticks, 0)}s"

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        if event.data_table.id == "rechner" and event.cell_key.row_key.value is not None:
            self.push_screen(HostPage(event.cell_key.row_key.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.query_one("#zuletzt", Label).update(f"abgeglichen bei {self.ticks}")
