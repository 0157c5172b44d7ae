"""Kiste: a small file manager over the working folder and HOME, written the way a third-party
app is, for orav to be tested on deeds whose words orav's code never saw.

The ``delete`` key removes the highlighted entry at once: a bare binding (its footer shows "✗"), no
question. ``＋📁`` makes a folder, ``✎`` renames the entry, ``Entsorgen…`` removes it after a
confirmation.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Footer,
    Header,
    Input,
    Label,
    ListItem,
    ListView,
    TabbedContent,
    TabPane,
)


class Ask(ModalScreen[bool]):
    DEFAULT_CSS = (
        "Ask { align: center middle; } #ask { width: 50; height: auto; border: thick red; }"
    )

    def __init__(self, name: str) -> None:
        super().__init__()
        self.entry = name

    def compose(self) -> ComposeResult:
        with Vertical(id="ask"):
            yield Label(f"„{self.entry}“ endgültig entsorgen?")
            with Horizontal():
                yield Button("Ja, entsorgen", id="ja", variant="error")
                yield Button("Behalten", id="nein")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "ja")


class NewName(ModalScreen[str]):
    DEFAULT_CSS = "NewName { align: center middle; } #box { width: 50; height: auto; }"

    def __init__(self, old: str) -> None:
        super().__init__()
        self.old = old

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Input(value=self.old, id="neu")
            yield Button("OK", id="ok")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.query_one("#neu", Input).value)


class Kiste(App):
    TITLE = "Kiste"
    BINDINGS: ClassVar = [Binding("delete", "zap", "✗")]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="tools"):
            yield Button("＋📁", id="mkdir")
            yield Button("✎", id="rename")
            yield Button("Entsorgen…", id="dispose")
        with TabbedContent(id="where"):
            with TabPane("📂 .", id="here"):
                yield ListView(id="here_list")
            with TabPane("🏠 ~", id="home"):
                yield ListView(id="home_list")
        yield Footer()

    def on_mount(self) -> None:
        self.refill()

    def folder(self) -> Path:
        return Path.home() if self.query_one(TabbedContent).active == "home" else Path.cwd()

    def listing(self) -> ListView:
        active = self.query_one(TabbedContent).active or "here"
        return self.query_one(f"#{active}_list", ListView)

    def refill(self) -> None:
        for pane, folder in (("here", Path.cwd()), ("home", Path.home())):
            view = self.query_one(f"#{pane}_list", ListView)
            view.clear()
            for entry in sorted(folder.iterdir(), key=lambda p: p.name):
                if entry.name.startswith("."):
                    continue
                mark = "📁" if entry.is_dir() else "📄"
                view.append(ListItem(Label(f"{mark} {entry.name}"), name=entry.name))

    def chosen(self) -> Path | None:
        item = self.listing().highlighted_child
        return self.folder() / item.name if item is not None and item.name else None

    def action_zap(self) -> None:
        entry = self.chosen()
        if entry is not None:
            self.remove_entry(entry)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        entry = self.chosen()
        if event.button.id == "mkdir":
            name, n = "Neuer Ordner", 2
            while (self.folder() / name).exists():
                name, n = f"Neuer Ordner {n}", n + 1
            (self.folder() / name).mkdir()
            self.refill()
        elif event.button.id == "rename" and entry is not None:
            self.push_screen(NewName(entry.name), lambda new: self.rename(entry, new))
        elif event.button.id == "dispose" and entry is not None:
            self.push_screen(Ask(entry.name), lambda yes: self.dispose(entry, yes))

    def rename(self, entry: Path, new: str | None) -> None:
        if new and "/" not in new and new != entry.name:
            entry.rename(entry.with_name(new))
            self.refill()

    def dispose(self, entry: Path, yes: bool | None) -> None:
        if yes:
            self.remove_entry(entry)

    def remove_entry(self, entry: Path) -> None:
        if entry.is_dir():
            shutil.rmtree(entry)
        elif entry.exists():
            entry.unlink()
        self.refill()


if __name__ == "__main__":
    Kiste().run()
