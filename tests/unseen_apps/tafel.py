"""Tafel: a small SQLite client, written the way a third-party app is (German, emoji, a menu of
its own), for orav to be tested on deeds whose words orav's code never saw.

It opens ``sample.db`` in its working folder (``TAFEL_DB`` names another) and acts on that
file: its table menu blows a table up at once (``DROP TABLE``), empties one after a
confirmation, writes a CSV beside the database; the query line runs any SQL.
"""

from __future__ import annotations

import csv
import os
import sqlite3
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, OptionList
from textual.widgets.option_list import Option


class Sure(ModalScreen[bool]):
    """Asks before a table is emptied."""

    DEFAULT_CSS = (
        "Sure { align: center middle; } #sure { width: 50; height: auto; border: round red; }"
    )

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="sure"):
            yield Label(self.question, id="question")
            with Horizontal():
                yield Button("Ja, leeren", id="yes", variant="error")
                yield Button("Nein", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class TableMenu(ModalScreen[str]):
    """What can be done with the selected table."""

    DEFAULT_CSS = (
        "TableMenu { align: right top; } #menu { width: 28; height: auto; border: round $accent; }"
    )
    BINDINGS: ClassVar = [("escape", "dismiss('')", "Zu")]

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Button("🧨 Sprengen", id="blast")
            yield Button("🧹 Leeren…", id="empty")
            yield Button("📤 Als CSV", id="csv")
            yield Button("✕", id="close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("" if event.button.id == "close" else str(event.button.id))


class Tafel(App):
    TITLE = "Tafel"
    BINDINGS: ClassVar = [
        Binding("f5", "run", "Ausführen"),
        Binding("ctrl+r", "reload", "Neu laden"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.path = Path(os.environ.get("TAFEL_DB", "sample.db"))
        self.db = sqlite3.connect(self.path)
        self.table = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield OptionList(id="tables")
            with Vertical():
                with Horizontal(id="bar"):
                    yield Label("", id="current")
                    yield Button("☰", id="menu")
                yield DataTable(id="rows")
                with Horizontal():
                    yield Input(placeholder="SELECT …", id="sql")
                    yield Button("▶", id="go")
                yield Label("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.path.name
        self.action_reload()

    def tables(self) -> list[str]:
        rows = self.db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        return [name for (name,) in rows]

    def action_reload(self) -> None:
        names = self.tables()
        options = self.query_one("#tables", OptionList)
        options.clear_options()
        options.add_options([Option(f"▦ {n}", id=n) for n in names])
        self.show(self.table if self.table in names else (names[0] if names else ""))

    def show(self, table: str) -> None:
        self.table = table
        self.query_one("#current", Label).update(table or "(keine Tabellen)")
        grid = self.query_one("#rows", DataTable)
        grid.clear(columns=True)
        if table:
            cursor = self.db.execute(f'SELECT * FROM "{table}" LIMIT 50')
            grid.add_columns(*(c[0] for c in cursor.description))
            grid.add_rows(cursor.fetchall())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.show(str(event.option.id))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "menu" and self.table:
            self.push_screen(TableMenu(), self.menu_chosen)
        elif event.button.id == "go":
            self.action_run()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def action_run(self) -> None:
        sql = self.query_one("#sql", Input).value
        status = self.query_one("#status", Label)
        try:
            cursor = self.db.execute(sql)
            self.db.commit()
        except sqlite3.Error as exc:
            status.update(f"⚠ {exc}")
            return
        status.update(f"✓ {max(cursor.rowcount, 0)}")
        self.action_reload()

    def menu_chosen(self, choice: str | None) -> None:
        table = self.table
        if choice == "blast":
            self.db.execute(f'DROP TABLE "{table}"')
            self.db.commit()
            self.action_reload()
        elif choice == "empty":
            self.push_screen(Sure(f"Alle Zeilen aus {table} entfernen?"), self.empty_chosen)
        elif choice == "csv":
            cursor = self.db.execute(f'SELECT * FROM "{table}"')
            with open(self.path.with_name(f"{table}.csv"), "w", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(c[0] for c in cursor.description)
                writer.writerows(cursor)
            self.notify(f"{table}.csv")

    def empty_chosen(self, yes: bool | None) -> None:
        if yes:
            self.db.execute(f'DELETE FROM "{self.table}"')
            self.db.commit()
            self.action_reload()


def make_sample(path: Path) -> None:
    """A ``sample.db`` with two small tables."""
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE kunden (id INTEGER PRIMARY KEY, name TEXT, stadt TEXT);
        INSERT INTO kunden (name, stadt) VALUES ('Ada', 'Bonn'), ('Grete', 'Kiel'), ('Ole', 'Ulm');
        CREATE TABLE bestellungen (id INTEGER PRIMARY KEY, kunde INTEGER, summe REAL);
        INSERT INTO bestellungen (kunde, summe) VALUES (1, 12.5), (2, 7.0);
        """
    )
    db.commit()
    db.close()


if __name__ == "__main__":
    Tafel().run()
