"""A planner demo app for orav to drive: chat that turns promises into commitments, triage,
an integrity dashboard, a planning hierarchy and settings, over a SQLite database.

It exists to be tested: its five acceptance workflows are scenarios in orav/scenarios/planner/.
One app in one module (its screens are small and read together); its data is planner_store.
Run it yourself with ``python -m orav.demo.planner``; drive it with
``orav record orav/scenarios/planner/navigation.yaml --device
'textual:orav.demo.planner:PlannerApp?seed=demo&today=2026-11-23'``.

``PlannerApp(database=None, seed="empty", today=None)``: the database file (a temporary one,
removed at exit, when not given), what to fill an empty database with (``empty``, ``demo``,
``large``; see planner_store) and the date the app believes is today (ISO; the real date when
not given), so that seeded screens are the same on every run.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import date
from pathlib import Path
from typing import ClassVar, NamedTuple, cast

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Button,
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    Link,
    OptionList,
    ProgressBar,
    Select,
    Static,
    Switch,
    Tree,
)
from textual.widgets.option_list import Option

from orav.demo.planner_store import LEVELS, TYPES, Draft, Item, Store, parse_commitment, show_due


def planner(node: DOMNode) -> PlannerApp:
    """The planner app a screen belongs to (Textual types ``node.app`` as any App)."""
    return cast("PlannerApp", node.app)


class PlannerScreen(Screen):
    """A screen that is not home: escape returns to the previous one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    @property
    def store(self) -> Store:
        return planner(self).store


class HomeScreen(Screen):
    TITLE = "Home"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "open('chat')", "Chat"),
        Binding("l", "open('commitments')", "List"),
        Binding("p", "open('plan')", "Plan"),
        Binding("s", "open('settings')", "Settings"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home"):
            yield Static("", id="summary")
            yield Button("Chat", id="open_chat")
            yield Button("Commitments", id="open_commitments")
            yield Button("Triage", id="open_triage")
            yield Button("Integrity", id="open_integrity")
            yield Button("Plan", id="open_plan")
            yield Button("Settings", id="open_settings")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_summary()

    def on_screen_resume(self) -> None:
        self.refresh_summary()

    def refresh_summary(self) -> None:
        store = planner(self).store
        inbox = len(store.inbox())
        at_risk = sum(store.at_risk(item) for item in store.commitments())
        self.query_one("#summary", Static).update(
            f"{inbox} in your inbox, {at_risk} commitments at risk"
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_open((event.button.id or "").removeprefix("open_"))

    def action_open(self, name: str) -> None:
        planner(self).open(name)


class ChatScreen(PlannerScreen):
    """Messages, a prompt, and a data panel in one of four modes: draft, list, view, empty."""

    TITLE = "Chat"
    AUTO_FOCUS = "#prompt"

    def __init__(self) -> None:
        super().__init__()
        self.draft: Draft | None = None
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with Vertical(id="conversation"):
                yield VerticalScroll(id="messages")
                yield Input(
                    placeholder="Message (try: I will call the dentist by Friday)", id="prompt"
                )
            with Vertical(id="data_panel"):
                yield Label("empty", id="panel_mode")
                yield Label("", id="panel_type")
                yield Static("Nothing to show.", id="panel_summary")
                with Horizontal(id="draft_buttons"):
                    yield Button("Confirm", id="confirm", variant="primary")
                    yield Button("Discard", id="discard")
        yield Footer()

    def on_mount(self) -> None:
        self.show_panel("empty")
        self.say("bot", "Tell me what you will do, or type /help.")

    def say(self, who: str, text: str) -> None:
        self.count += 1
        message = Static(text, id=f"message_{self.count}", classes=f"message {who}")
        messages = self.query_one("#messages", VerticalScroll)
        messages.mount(message)
        messages.scroll_end(animate=False)

    def show_panel(self, mode: str, kind: str = "", summary: str = "Nothing to show.") -> None:
        self.query_one("#panel_mode", Label).update(mode)
        self.query_one("#panel_type", Label).update(kind)
        self.query_one("#panel_summary", Static).update(summary)
        self.query_one("#draft_buttons").display = mode == "draft"

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.say("user", text)
            self.answer(text)

    def answer(self, text: str) -> None:
        command = text.lower()
        if command in ("/triage", "/t"):
            planner(self).open("triage")
        elif command == "/list":
            items = self.store.commitments()
            lines = [f"{item.title} ({show_due(item.due)})" for item in items]
            self.show_panel("list", "commitment", "\n".join(lines) or "No commitments yet.")
            self.say("bot", f"You have {len(items)} commitments.")
        elif command in ("yes", "confirm", "/confirm") and self.draft is not None:
            self.confirm()
        elif command == "/help":
            self.say("bot", "Promise something (I will ... by Friday), /list, /triage, or escape.")
        elif (draft := parse_commitment(text, planner(self).today)) is not None:
            self.draft = draft
            self.show_panel("draft", "commitment", f"{draft.title}, due {show_due(draft.due)}")
            self.say("bot", f"Draft: {draft.title}, due {show_due(draft.due)}. Confirm?")
        else:
            self.store.add("note", text, status="inbox")
            self.say("bot", "Saved to your inbox as a note; triage it later.")

    def confirm(self) -> None:
        draft, self.draft = self.draft, None
        if draft is None:
            return
        item_id = self.store.add("commitment", draft.title, due=draft.due)
        self.show_panel("view", "commitment", f"{draft.title}, due {show_due(draft.due)}, saved")
        self.say("bot", f"Saved commitment #{item_id}.")
        self.app.notify(f"Saved: {draft.title}", title="Commitment")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm" and self.draft is not None:
            self.confirm()
        elif event.button.id == "discard":
            self.draft = None
            self.show_panel("empty")
            self.say("bot", "Draft discarded.")


class CommitmentsScreen(PlannerScreen):
    """All commitments, or only those at risk, in a DataTable."""

    def __init__(self, at_risk: bool = False) -> None:
        super().__init__()
        self.at_risk = at_risk
        self.title = "At-risk commitments" if at_risk else "Commitments"

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(id="commitments", cursor_type="row")
        yield Label("", id="count")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Due", "Status")
        items = self.store.commitments()
        if self.at_risk:
            items = [item for item in items if self.store.at_risk(item)]
        for item in items:
            status = "at risk" if self.store.at_risk(item) else item.status
            table.add_row(item.title, show_due(item.due), status, key=str(item.id))
        self.query_one("#count", Label).update(f"{len(items)} shown")


class TriageScreen(PlannerScreen):
    """The inbox one item at a time: accept, change type, delete (confirmed) or skip."""

    TITLE = "Triage"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "accept", "Accept"),
        Binding("c", "change_type", "Change type"),
        Binding("d", "delete", "Delete"),
        Binding("s", "skip", "Skip"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.queue: list[Item] = []
        self.processed = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="triage"):
            yield Label("", id="triage_progress")
            yield Static("", id="triage_item")
            yield Label("", id="triage_type")
            with Horizontal(id="triage_actions"):
                yield Button("Accept", id="accept", variant="success")
                yield Button("Change type", id="change_type")
                yield Button("Delete", id="delete", variant="error")
                yield Button("Skip", id="skip")
        yield Footer()

    def on_mount(self) -> None:
        self.queue = self.store.inbox()
        self.total = len(self.queue)
        self.show_item()

    @property
    def item(self) -> Item | None:
        return self.queue[0] if self.queue else None

    def show_item(self) -> None:
        item = self.item
        self.query_one("#triage_actions").display = item is not None
        if item is None:
            self.query_one("#triage_progress", Label).update("")
            self.query_one("#triage_item", Static).update(
                f"Triage complete: {self.processed} processed."
            )
            self.query_one("#triage_type", Label).update("")
            return
        position = self.total - len(self.queue) + 1
        self.query_one("#triage_progress", Label).update(f"Item {position} of {self.total}")
        self.query_one("#triage_item", Static).update(item.title)
        self.query_one("#triage_type", Label).update(f"Type: {item.type}")

    def next_item(self, processed: bool = True) -> None:
        self.queue.pop(0)
        self.processed += processed
        self.show_item()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        getattr(self, f"action_{event.button.id}")()

    def action_accept(self) -> None:
        if self.item is not None:
            self.store.update(self.item.id, status="active")
            self.next_item()

    def action_skip(self) -> None:
        if self.item is not None:
            self.next_item(processed=False)

    def action_change_type(self) -> None:
        if self.item is not None:
            self.app.push_screen(TypeDialog(self.item.type), self.changed_type)

    def changed_type(self, new_type: str | None) -> None:
        if new_type is not None and self.item is not None:
            self.store.update(self.item.id, type=new_type, status="active")
            self.next_item()

    def action_delete(self) -> None:
        if self.item is not None:
            self.app.push_screen(ConfirmDelete(self.item.title), self.deleted)

    def deleted(self, confirmed: bool | None) -> None:
        if confirmed and self.item is not None:
            self.store.delete(self.item.id)
            self.next_item()


class TypeDialog(ModalScreen[str | None]):
    """Pick a new type for the item under triage."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Change type (now {self.current}) to:")
            yield OptionList(*(Option(t.capitalize(), id=t) for t in TYPES), id="types")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class ConfirmDelete(ModalScreen[bool]):
    """Deleting cannot be undone: ask first."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(False)", "Cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.item_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Delete {self.item_title!r}? This cannot be undone.")
            with Horizontal():
                yield Button("Delete", id="confirm_delete", variant="error")
                yield Button("Cancel", id="cancel_delete")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm_delete")


GRADES = (("A", 0.9), ("B", 0.8), ("C", 0.7), ("D", 0.6), ("F", 0))


class Kept(NamedTuple):
    """How well commitments are kept by a day: how many were done on time, done late, are
    overdue; and those at risk."""

    kept: int
    late: int
    overdue: int
    at_risk: list[Item]

    @classmethod
    def of(cls, store: Store, today: str) -> Kept:
        items = store.commitments()
        finished = [(i.done_on, i.due) for i in items if i.status == "done"]
        done = [on <= due for on, due in finished if on and due]  # on time, else late
        overdue = [i for i in items if i.status != "done" and i.due and i.due < today]
        at_risk = [i for i in items if store.at_risk(i)]
        return cls(done.count(True), done.count(False), len(overdue), at_risk)

    @property
    def judged(self) -> int:
        return self.kept + self.late + self.overdue

    @property
    def score(self) -> float:
        return self.kept / self.judged if self.judged else 1.0

    @property
    def grade(self) -> str:
        return next(grade for grade, floor in GRADES if self.score >= floor)


class IntegrityScreen(PlannerScreen):
    """How well commitments are kept: a grade, metrics, a meter, and the at-risk ones."""

    TITLE = "Integrity"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "at_risk", "At risk")]

    def compose(self) -> ComposeResult:
        kept = Kept.of(self.store, planner(self).today.isoformat())
        at_risk = kept.at_risk
        yield Header()
        with Vertical(id="integrity"):
            yield Label(f"Grade {kept.grade}", id="grade")
            yield Label(f"Kept {kept.kept} of {kept.judged} due so far", id="kept")
            yield ProgressBar(total=100, show_eta=False, id="kept_meter")
            yield Label(f"Overdue {kept.overdue}, done late {kept.late}", id="missed")
            yield Label(f"At risk {len(at_risk)}", id="at_risk_count")
            for item in at_risk[:5]:
                yield Label(f"- {item.title} ({show_due(item.due)})", classes="at_risk")
            yield Button(f"View at-risk ({len(at_risk)})", id="view_at_risk")
        yield Footer()
        self.score = kept.score

    def on_mount(self) -> None:
        self.query_one(ProgressBar).update(progress=round(self.score * 100))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_at_risk()

    def action_at_risk(self) -> None:
        self.app.push_screen(CommitmentsScreen(at_risk=True))


class PlanScreen(PlannerScreen):
    """The planning hierarchy as a Tree; Add puts a new item one level below the selected node."""

    TITLE = "Plan"
    AUTO_FOCUS = "#new_title"

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="plan_row"):
            yield Tree("Plan", id="plan")
            with Vertical(id="plan_side"):
                yield Input(placeholder="Title of the new item", id="new_title")
                yield Button("Add", id="add", variant="primary")
                yield Static("Select a node to see it here.", id="plan_detail")
        yield Footer()

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        tree.auto_expand = False  # a click selects; space expands and collapses
        self.current = tree.root  # the node Add puts a new item under
        tree.root.data = None
        self.fill(tree.root, None)
        tree.root.expand_all()

    def fill(self, node, parent_id: int | None) -> None:
        for item in self.store.children(parent_id):
            child = node.add(self.label(item), data=item.id, expand=True)
            if item.type != "commitment":
                self.fill(child, item.id)
            else:
                child.allow_expand = False

    @staticmethod
    def label(item: Item) -> str:
        due = f" ({show_due(item.due)})" if item.due else ""
        return f"{item.type.capitalize()}: {item.title}{due}"

    def level_under(self, node) -> str | None:
        if node.data is None:
            return LEVELS[0]
        item = self.store.get(node.data)
        index = LEVELS.index(item.type) if item and item.type in LEVELS else len(LEVELS) - 1
        return LEVELS[index + 1] if index + 1 < len(LEVELS) else None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.add()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.add()

    def add(self) -> None:
        field = self.query_one("#new_title", Input)
        title = field.value.strip()
        tree = self.query_one(Tree)
        node = self.current or tree.root
        level = self.level_under(node)
        detail = self.query_one("#plan_detail", Static)
        if not title:
            detail.update("Type a title first.")
            return
        if level is None:
            detail.update("A commitment is the last level; select a milestone.")
            return
        parsed = parse_commitment(title, planner(self).today) if level == "commitment" else None
        due = parsed.due if parsed else None
        title = parsed.title if parsed else title
        item_id = self.store.add(level, title, due=due, parent_id=node.data)
        item = self.store.get(item_id)
        assert item is not None  # just added
        child = node.add(self.label(item), data=item_id, expand=True)
        child.allow_expand = level != "commitment"
        node.expand()
        self.current = child
        self.call_after_refresh(self.highlight, child)
        field.value = ""
        field.focus()
        detail.update(f"Added {level} {title!r}.")

    def highlight(self, node, tries: int = 10) -> None:
        """Move the cursor to a node added just now once the tree has laid it out (before,
        its line is -1 and the cursor would land on the root, whenever the refresh came);
        ``current`` is the node already, so a tree that takes longer only shows it later."""
        if node.line >= 0:
            self.query_one(Tree).move_cursor(node)
        elif tries:
            self.call_after_refresh(self.highlight, node, tries - 1)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        node = self.current = event.node
        detail = self.query_one("#plan_detail", Static)
        if node.data is None:
            detail.update("The whole plan.")
            return
        chain = []
        item = self.store.get(node.data)
        while item is not None:
            chain.append(f"{item.type.capitalize()}: {item.title}")
            item = self.store.get(item.parent_id) if item.parent_id else None
        detail.update(" > ".join(reversed(chain)))


class SettingsScreen(PlannerScreen):
    TITLE = "Settings"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="settings"):
            with Horizontal(classes="setting"):
                yield Label("Reminders")
                yield Switch(value=True, id="reminders")
            with Horizontal(classes="setting"):
                yield Label("Week starts on")
                yield Select(
                    [("Monday", "monday"), ("Sunday", "sunday")],
                    value="monday",
                    allow_blank=False,
                    id="week_start",
                )
            yield Link("About orav", url="https://github.com/orav-dev/orav", id="about")
        yield Footer()


class PlannerApp(App):
    """orav's planner demo (see the module docstring for its arguments)."""

    TITLE = "Planner"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #home { height: auto; padding: 0 2; }
    #home Button { width: 24; }
    #summary { margin: 1 0; }
    #conversation { width: 1fr; }
    #messages { height: 1fr; }
    .message { margin: 0 1; }
    .message.user { color: $accent; }
    #data_panel { width: 32; border: round $primary; padding: 0 1; }
    #panel_mode { text-style: bold; }
    #draft_buttons { height: auto; }
    #draft_buttons Button { min-width: 10; }
    #triage, #integrity, #settings { padding: 1 2; height: auto; }
    #triage_actions { height: auto; margin-top: 1; }
    #kept_meter { margin: 0 0 1 0; }
    #plan { width: 1fr; }
    #plan_side { width: 34; padding: 0 1; }
    .setting { height: 3; }
    .setting Label { padding: 1 2 0 0; width: 18; }
    TypeDialog, ConfirmDelete { align: center middle; }
    #dialog { width: 50; height: auto; border: thick $error; background: $surface; padding: 1; }
    #dialog Horizontal { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "open('triage')", "Triage"),
        Binding("i", "open('integrity')", "Integrity"),
        Binding("q", "quit", "Quit"),
    ]
    SCREENS_BY_NAME: ClassVar[dict[str, type[Screen]]] = {
        "chat": ChatScreen,
        "commitments": CommitmentsScreen,
        "triage": TriageScreen,
        "integrity": IntegrityScreen,
        "plan": PlanScreen,
        "settings": SettingsScreen,
    }

    def __init__(
        self, database: str | Path | None = None, seed: str = "empty", today: str | None = None
    ) -> None:
        super().__init__()
        self._temporary: Path | None = None
        if database is None:  # a temporary one, removed at exit
            self._temporary = Path(tempfile.mkdtemp("orav-planner"))
            database = self._temporary / "planner.db"
        self.database = Path(database)
        self.today = date.fromisoformat(today) if today else date.today()
        self.store = Store(self.database, self.today)
        self.store.seed(seed)

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.push_screen(HomeScreen())

    def on_unmount(self) -> None:
        self.store.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    def action_open(self, name: str) -> None:
        self.open(name)

    def open(self, name: str) -> None:
        """Show one of the screens over the current one (escape comes back)."""
        if isinstance(self.screen, self.SCREENS_BY_NAME[name]):
            return
        self.push_screen(self.SCREENS_BY_NAME[name]())


if __name__ == "__main__":
    PlannerApp(seed="demo").run()
