"""Jotter: a small notes and tasks app written the way Textual apps usually are, not for orav.

It holds, in ordinary places, every benign look-alike of a fault that recovery must leave alone
(issue 9): a tab bar whose current tab does nothing when clicked again, a "Delete all notes?"
dialog the user answers, a dashboard with a static 80 % progress bar, a plain "You're offline"
hint, idempotent buttons (Refresh when already synced, Mark all read twice), an upgrade form
with secure card-number and CVV fields, and a sign-in screen at launch (and after Sign out).

Run it with ``python -m orav.demo.notes``; drive it with
``--device textual:orav.demo.notes:NotesApp``. Account: ada@jotter.app / Analytical-1843.
Data lives in memory, per app instance: every launch starts from the same three notes.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    Footer,
    Header,
    Input,
    Label,
    ListItem,
    ListView,
    ProgressBar,
    Static,
    Switch,
    TabbedContent,
    TabPane,
)

EMAIL = "ada@jotter.app"
PASSWORD = "Analytical-1843"
WEEKLY_GOAL = 10  # notes a week; the dashboard shows how far along this week is
DONE_THIS_WEEK = 8
OFFLINE_HINT = "You're offline. Changes sync later."


class Note:
    """One note: its text and whether it was read since it synced."""

    def __init__(self, text: str, unread: bool = True) -> None:
        self.text = text
        self.unread = unread


def sample_notes() -> list[Note]:
    return [
        Note("Buy oat milk"),
        Note("Call the bank about the card"),
        Note("Sketch the engine diagrams", unread=False),
    ]


class SignInScreen(Screen):
    """The first screen: e-mail, password, Sign in."""

    TITLE = "Jotter"
    SUB_TITLE = "Sign in"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="sign_in_form"):
            yield Label("Welcome back. Sign in to sync your notes.")
            yield Input(placeholder="E-mail", id="email")
            yield Input(placeholder="Password", password=True, id="password")
            yield Button("Sign in", id="sign_in", variant="primary")
            yield Label("", id="sign_in_error")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "email":
            self.query_one("#password", Input).focus()
        else:
            self.sign_in()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.sign_in()

    def sign_in(self) -> None:
        email = self.query_one("#email", Input).value.strip()
        password = self.query_one("#password", Input).value
        if (email, password) == (EMAIL, PASSWORD):
            self.app.switch_screen(MainScreen())
        else:
            self.query_one("#sign_in_error", Label).update("That e-mail and password don't match.")


class ConfirmDelete(ModalScreen[bool]):
    """Asks before deleting every note; answers True for Yes."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Delete all notes?", id="question")
            yield Label("This cannot be undone.")
            with Horizontal(id="answers"):
                yield Button("Yes", id="yes", variant="error")
                yield Button("No", id="no", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class MainScreen(Screen):
    """The signed-in app: Notes, Dashboard, Upgrade, Settings and About tabs."""

    TITLE = "Jotter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "refresh", "Refresh"),
        Binding("ctrl+d", "delete_all", "Delete all"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.notes = sample_notes()
        self.synced = True

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="notes_tab", id="tabs"):
            with TabPane("Notes", id="notes_tab"):
                yield Label("", id="unread")
                yield ListView(id="notes")
                with Horizontal(classes="row"):
                    yield Input(placeholder="New note", id="new_note")
                    yield Button("Add", id="add")
                with Horizontal(classes="row"):
                    yield Button("Refresh", id="refresh")
                    yield Button("Mark all read", id="mark_read")
                    yield Button("Delete all", id="delete_all", variant="error")
                yield Label("", id="sync_status")
                yield Static(OFFLINE_HINT, id="offline_hint")
            with TabPane("Dashboard", id="dashboard_tab"):
                yield Label("This week", classes="heading")
                yield ProgressBar(total=WEEKLY_GOAL, show_eta=False, id="weekly_progress")
                yield Label(
                    f"{100 * DONE_THIS_WEEK // WEEKLY_GOAL}% of weekly goal", id="weekly_text"
                )
                yield Label("", id="note_count")
            with TabPane("Upgrade", id="upgrade_tab"):
                yield Label("Jotter Pro: unlimited notebooks, $4.99 a month.")
                yield Input(placeholder="Name on card", id="card_name")
                yield Input(placeholder="Card number", password=True, id="card_number")
                yield Input(placeholder="CVV", password=True, id="cvv")
                yield Button("Pay $4.99", id="pay", variant="success")
                yield Label("", id="payment_status")
            with TabPane("Settings", id="settings_tab"):
                with Horizontal(classes="row"):
                    yield Label("Work offline", classes="setting")
                    yield Switch(value=False, id="offline_switch")
                with Horizontal(classes="row"):
                    yield Label("Show note count", classes="setting")
                    yield Switch(value=True, id="count_switch")
            with TabPane("About", id="about_tab"):
                yield Label("Jotter 2.4: notes that sync between your devices.")
                yield Label(f"Signed in as {EMAIL}.", id="account")
                yield Button("Sign out", id="sign_out")
        yield Footer()

    async def on_mount(self) -> None:
        self.query_one("#weekly_progress", ProgressBar).update(progress=DONE_THIS_WEEK)
        await self.show_notes()
        self.show_sync()

    # --- notes ---------------------------------------------------------------------------

    async def show_notes(self) -> None:
        listing = self.query_one("#notes", ListView)
        await listing.clear()
        await listing.extend(
            ListItem(Label(("● " if note.unread else "  ") + note.text), id=f"note_{index}")
            for index, note in enumerate(self.notes, start=1)
        )
        unread = sum(note.unread for note in self.notes)
        self.query_one("#unread", Label).update(
            f"{len(self.notes)} notes, {unread} unread" if self.notes else "No notes yet."
        )
        shown = self.query_one("#count_switch", Switch).value
        self.query_one("#note_count", Label).update(
            f"{len(self.notes)} notes in all" if shown else ""
        )

    def show_sync(self) -> None:
        offline = self.query_one("#offline_switch", Switch).value
        self.query_one("#offline_hint", Static).display = offline
        status = "Changes waiting to sync." if not self.synced else "Synced just now."
        self.query_one("#sync_status", Label).update(status)

    async def add_note(self) -> None:
        field = self.query_one("#new_note", Input)
        if field.value.strip():
            self.notes.append(Note(field.value.strip(), unread=False))
            field.value = ""
            self.synced = not self.query_one("#offline_switch", Switch).value
            await self.show_notes()
            self.show_sync()

    def action_refresh(self) -> None:
        """Sync; when online and already synced there is nothing to do, and nothing changes."""
        if not self.query_one("#offline_switch", Switch).value:
            self.synced = True
        self.show_sync()

    def action_delete_all(self) -> None:
        async def answered(yes: bool | None) -> None:
            if yes:
                self.notes.clear()
                await self.show_notes()

        self.app.push_screen(ConfirmDelete(), answered)

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        match event.button.id:
            case "add":
                await self.add_note()
            case "refresh":
                self.action_refresh()
            case "mark_read":
                for note in self.notes:
                    note.unread = False
                await self.show_notes()
            case "delete_all":
                self.action_delete_all()
            case "pay":
                self.pay()
            case "sign_out":
                self.app.switch_screen(SignInScreen())

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "new_note":
            await self.add_note()

    async def on_switch_changed(self, event: Switch.Changed) -> None:
        self.show_sync()
        await self.show_notes()

    # --- upgrade -------------------------------------------------------------------------

    def pay(self) -> None:
        name = self.query_one("#card_name", Input).value.strip()
        number = self.query_one("#card_number", Input).value.replace(" ", "")
        cvv = self.query_one("#cvv", Input).value
        status = self.query_one("#payment_status", Label)
        if not name:
            status.update("Enter the name on the card.")
        elif not (number.isdigit() and 13 <= len(number) <= 19):
            status.update("That card number doesn't look right.")
        elif not (cvv.isdigit() and len(cvv) in (3, 4)):
            status.update("Enter the 3-digit CVV.")
        else:
            status.update("Thanks! You're on Jotter Pro.")


class NotesApp(App):
    """Jotter: sign in, then notes, a dashboard, an upgrade form, settings and about, in tabs."""

    TITLE = "Jotter"
    CSS = """
    #sign_in_form { height: auto; padding: 1 2; }
    #sign_in_form Input { margin-bottom: 1; }
    #sign_in_error { color: $error; }
    #notes { height: auto; max-height: 6; }
    .row { height: auto; }
    #new_note { width: 1fr; }
    .setting { padding: 1 2; width: 22; }
    #weekly_progress { margin: 1 0; }
    ConfirmDelete { align: center middle; }
    #dialog { width: 40; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    #answers { height: auto; margin-top: 1; }
    #answers Button { margin-right: 2; }
    """

    def on_mount(self) -> None:
        self.theme = "textual-light"
        self.push_screen(SignInScreen())


if __name__ == "__main__":
    NotesApp().run()
