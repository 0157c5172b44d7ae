"""What the Textual driver sees and presses, on small real Textual apps under Pilot: every item
kind as an element, every Textual key name, taps that something covers, CSS-selector targets,
and the app's own failures."""

from __future__ import annotations

import asyncio
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import (
    Button,
    ContentSwitcher,
    DataTable,
    Footer,
    Label,
    Link,
    Markdown,
    OptionList,
    Select,
    Static,
    Tab,
    TabbedContent,
    TabPane,
    Tabs,
    Tree,
)

from orav.drivers.textual import TextualDevice, load_app_factory
from orav.drivers.textual.spec import parse_size
from orav.errors import DeviceError, InputError
from orav.model import Observation, PressKey, Tap, Target
from orav.model.keys import parse_key, textual_key
from orav.perceive import screen_id, screen_name, target_element

TEXTUAL_KEYS = [k.value for k in __import__("textual.keys").keys.Keys]
PRESSABLE = [k for k in TEXTUAL_KEYS if not k.startswith("<") and k != "ctrl-at"]


class Widgets(App):
    def compose(self) -> ComposeResult:
        table = DataTable(id="table", cursor_type="row")
        table.add_columns("Name", "Due")
        for n in range(30):
            table.add_row(f"Task {n}", f"2026-12-{n + 1:02d}", key=f"t{n}")
        yield table
        yield OptionList("Apple", "Banana", id="fruit")
        tree: Tree[str] = Tree("Root", id="tree")
        branch = tree.root.add("Branch", expand=True)
        branch.add_leaf("Leaf")
        tree.root.add("Closed").add_leaf("Hidden")
        tree.root.expand()
        yield tree
        yield Select([("Red", 1), ("Green", 2)], value=2, id="colour")
        yield Tabs(Tab("First", id="first"), Tab("Second", id="second"), id="tabs")
        yield Link("Docs", url="https://example.com", id="docs")

    CSS = "#table { height: 8; } #fruit { height: 4; } #tree { height: 6; }"


def by_label(observation: Observation, label: str):
    return [e for e in observation.elements if e.label == label]


async def test_every_item_kind_is_a_labelled_element():
    async with TextualDevice(Widgets, size=(60, 40)) as device:
        await device.launch()
        seen = await device.observe()
        first = by_label(seen, "Task 0")[0]
        assert first.role == "AXCell" and "row:0" in first.traits and "selected" in first.traits
        assert "column:Name" in first.traits
        assert by_label(seen, "2026-12-01")[0].frame.y == first.frame.y
        assert not by_label(seen, "Task 20")  # scrolled out of the table's 8 rows
        lines = seen.text.split("\n")
        for label in ("Task 0", "Apple", "Banana", "Branch", "Leaf"):
            (element,) = by_label(seen, label)
            row = lines[int(element.frame.y)]
            assert label in row[int(element.frame.x) :], (label, row)
        assert by_label(seen, "Apple")[0].role == "AXCell"
        assert by_label(seen, "Branch")[0].value == "expanded"
        assert by_label(seen, "Closed")[0].value == "collapsed" and not by_label(seen, "Hidden")
        assert "depth:2" in by_label(seen, "Leaf")[0].traits
        colour = target_element(seen, Target(id="colour"))
        assert (colour.role, colour.label, colour.value) == ("AXPopUpButton", "Green", "Green")
        tab = target_element(seen, Target(id="first"))
        assert (tab.role, tab.label, "selected" in tab.traits) == ("AXTab", "First", True)
        assert target_element(seen, Target(id="docs")).label == "Docs"
        # A tap on a row by its label moves the cursor there.
        assert (await device.perform(Tap(target=Target(label="Task 3")))).ok
        assert "selected" in by_label(await device.observe(), "Task 3")[0].traits
        # Keys move through the table and scroll it.
        assert (await device.perform(PressKey("pagedown"))).ok
        assert by_label(await device.observe(), "Task 12")


class Screens(App):
    BINDINGS: ClassVar[list[Binding]] = [Binding("n", "notify_me", "Notify")]

    def compose(self) -> ComposeResult:
        yield Label("No header here", id="plain")
        yield Footer()

    def action_notify_me(self) -> None:
        self.notify("Saved", title="Done")


async def test_the_screen_class_and_the_footer_are_in_the_first_look():
    async with TextualDevice(Screens) as device:
        await device.launch()
        seen = await device.observe()
        window = seen.elements[1]
        assert (window.role, window.label, window.traits) == (
            "AXWindow",
            "Screen",
            ("screen:Screen",),
        )
        assert [e.label for e in seen.elements if "binding:n" in e.traits] == ["Screens", "Notify"]


class Covered(App):
    CSS = (
        "#target { dock: bottom; width: 100%; height: 5; } Toast { width: 100%; max-width: 100%; }"
    )

    def compose(self) -> ComposeResult:
        yield Button("Press me", id="target")

    BINDINGS: ClassVar[list[Binding]] = [Binding("n", "notify_me", "Notify")]

    def on_mount(self) -> None:
        self.pressed = 0

    def action_notify_me(self) -> None:
        self.notify("A message covers the button", timeout=30)

    def on_button_pressed(self) -> None:
        self.pressed += 1


async def test_a_tap_lands_where_nothing_covers_the_target_or_is_refused():
    async with TextualDevice(Covered, size=(40, 12)) as device:
        await device.launch()
        assert (await device.perform(PressKey("n"))).ok
        seen = await device.observe()
        toast = next(e for e in seen.elements if "toast" in e.traits)
        button = target_element(seen, Target(id="target"))
        assert toast.frame.y + toast.frame.height > button.frame.y  # it overlaps the button
        result = await device.perform(Tap(target=Target(id="target")))
        assert result.ok and device.app.pressed == 1
        assert result.point.y < toast.frame.y  # the part the toast leaves free
        # The engine sends the target's centre with the target: the tap still avoids the toast.
        await asyncio.sleep(0.3)  # a Button ignores clicks during its 0.2 s "active" effect
        centre = button.frame.center
        resolved = await device.perform(Tap(centre.x, centre.y, target=Target(id="target")))
        assert resolved.ok and resolved.point.y < toast.frame.y and device.app.pressed == 2
        # A vision estimate on the toast "for the button" hits the toast: reported, not ok.
        over = toast.frame.center
        hit = await device.perform(Tap(over.x, over.y, target=Target(id="target"), vision=True))
        assert not hit.ok and "Toast" in hit.error and "#target" in hit.error
        assert device.app.pressed == 2


class Buried(App):
    """A small button in the bottom-right corner, where notifications pile up."""

    CSS = (
        "#small { dock: bottom; offset: 24 -2; width: 8; min-width: 8; height: 1; min-height: 1;"
        " border: none; }"
    )

    def compose(self) -> ComposeResult:
        yield Button("Go", id="small")

    def on_mount(self) -> None:
        self.pressed = 0
        for n in range(3):
            self.notify(f"Saved {n}", timeout=30)

    def on_button_pressed(self) -> None:
        self.pressed += 1


async def test_a_target_under_notifications_gets_them_clicked_away_then_tapped():
    async with TextualDevice(Buried, size=(40, 12)) as device:
        await device.launch()
        seen = await device.observe()
        button = target_element(seen, Target(id="small"))
        toasts = [e for e in seen.elements if "toast" in e.traits]
        bottom = max(t.frame.y + t.frame.height for t in toasts)
        assert len(toasts) == 3 and bottom > button.frame.y  # they cover the button
        result = await device.perform(Tap(target=Target(id="small")))
        assert result.ok, result.error
        assert device.app.pressed == 1
        left = [e.label for e in (await device.observe()).elements if "toast" in e.traits]
        assert len(left) < 3  # only those over the button went


class Hidden(App):
    CSS = "#cover { layer: above; width: 100%; height: 100%; } Screen { layers: below above; }"

    def compose(self) -> ComposeResult:
        yield Button("Under", id="under")
        yield Vertical(Label("Overlay"), id="cover")


async def test_a_wholly_covered_target_is_refused_naming_the_cover():
    async with TextualDevice(Hidden, size=(30, 8)) as device:
        await device.launch()
        result = await device.perform(Tap(target=Target(id="under")))
        assert not result.ok
        assert "is covered by" in result.error and (
            "cover" in result.error or "Label" in result.error
        )


async def test_selectors_are_textual_queries():
    async with TextualDevice(Widgets, size=(60, 40)) as device:
        await device.launch()
        assert (await device.perform(Tap(target=Target(selector="OptionList#fruit")))).ok
        assert device.app.focused.id == "fruit"
        row = await device.perform(Tap(target=Target(selector="#table", label="Task 5")))
        assert row.ok and device.app.query_one(DataTable).cursor_row == 5
        missing = await device.perform(Tap(target=Target(selector="Input")))
        assert not missing.ok and "no visible widget matches the selector 'Input'" in missing.error
        bad = await device.perform(Tap(target=Target(selector="#?!")))
        assert not bad.ok and "invalid CSS selector" in bad.error


def test_every_textual_key_name_is_a_valid_key():
    for key in PRESSABLE:
        parse_key(key)
    assert textual_key("return") == "enter" and textual_key("?") == "question_mark"
    for bad in ("f25", "ctrl+", "hyperspace", "ctrl+ctrl+a", "cmd+s", ""):
        with pytest.raises(ValueError):
            PressKey(bad)


class Keys(App):
    ENABLE_COMMAND_PALETTE = False  # ctrl+p would open it before any widget saw the key

    def compose(self) -> ComposeResult:
        yield Label("keys")

    def on_mount(self) -> None:
        self.seen: list[str] = []

    def on_key(self, event: events.Key) -> None:
        self.seen.append(event.key)
        event.prevent_default()


@settings(
    deadline=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from([k for k in PRESSABLE if k not in ("ctrl+c", "ctrl+q")]))  # they quit
def test_a_pressed_key_reaches_the_app_by_its_textual_name(key: str):
    async def press() -> list[str]:
        async with TextualDevice(Keys) as device:
            await device.launch()
            assert (await device.perform(PressKey(key))).ok
            return device.app.seen

    assert asyncio.run(press()) == [textual_key(key)]  # ctrl+@ arrives as ctrl+at


class Broken(App):
    def compose(self) -> ComposeResult:
        yield Button("Break", id="break")

    def on_button_pressed(self) -> None:
        raise KeyError("no such commitment")


async def test_an_app_failure_says_what_and_where_and_keeps_the_traceback_off_stderr(capfd):
    async with TextualDevice(Broken) as device:
        await device.launch()
        await device.perform(Tap(target=Target(id="break")))
        crashed = await device.observe()
        assert not crashed.app_running
        assert "KeyError: 'no such commitment' (at test_textual_elements.py:" in crashed.error
        assert "in on_button_pressed" in crashed.error
    assert "no such commitment" in device.stderr  # Textual's own report, kept
    assert "no such commitment" not in capfd.readouterr().err


def test_importing_a_failing_module_is_one_device_error(tmp_path, monkeypatch):
    (tmp_path / "explodes.py").write_text("raise RuntimeError('bad config')\n")
    monkeypatch.syspath_prepend(tmp_path)
    with pytest.raises(InputError, match=r"--device: importing module 'explodes' raised "):
        load_app_factory("explodes:App")


def test_a_module_that_parses_its_command_line_on_import_sees_none(tmp_path, monkeypatch):
    """textual-paint parses ``sys.argv`` with argparse when imported: orav's own arguments made
    it exit (SystemExit, which is no Exception), taking orav with it."""
    (tmp_path / "cli_app.py").write_text(
        "import argparse\nfrom textual.app import App\n"
        "ARGS = argparse.ArgumentParser().parse_args()\n\nclass Paint(App):\n    pass\n"
    )
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(2)\n")
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.setattr("sys.argv", ["orav", "explore", "--device", "textual:cli_app:Paint"])
    assert load_app_factory("cli_app:Paint") is not None
    with pytest.raises(InputError, match=r"importing module 'exits' raised SystemExit: 2"):
        load_app_factory("exits:App")


class Raises(App):
    def __init__(self) -> None:
        raise ValueError("no database given")


async def test_constructing_a_failing_app_is_one_device_error():
    async with TextualDevice(Raises) as device:
        with pytest.raises(DeviceError, match="ValueError: no database given .at test_textual"):
            await device.launch()


def test_device_specs_take_arguments_and_a_size():
    device = TextualDevice.from_spec("orav.demo.planner:PlannerApp@120x40?seed=demo")
    assert device.size == (120, 40) and device.name == "PlannerApp"
    app = device.factory()
    assert len(app.store.inbox()) == 4
    app.store.close()
    for bad in ("0x10", "10", "axb", "2000x10"):
        with pytest.raises(InputError, match="terminal size"):
            parse_size(bad)


async def test_the_prompt_shows_the_app_line_with_its_key_bindings():
    from orav.agents.prompt import encode_tree
    from orav.demo.planner import PlannerApp

    async with TextualDevice(PlannerApp) as device:
        await device.launch()
        tree, _ = encode_tree(await device.observe())
    first, second = tree.split("\n")[:2]
    assert first == 'App "Planner" keys: t, i, q, c, l, p, s'
    assert second.startswith('e1 Window "HomeScreen" ="Home"')


@given(st.text(max_size=20))
def test_a_key_name_parses_or_is_a_clear_error(text: str):
    try:
        modifiers, base = parse_key(text)
    except ValueError as exc:
        assert repr(text) in str(exc)
    else:
        assert textual_key(text).split("+")[-1] in (base, "enter")
        assert set(modifiers) <= {"ctrl", "alt", "shift", "meta", "super", "hyper"}


async def test_the_apps_exception_is_in_the_report_and_the_html(tmp_path):
    from orav.model import Decision, Done, Scenario
    from orav.report.html import render_html
    from orav.report.timeline import read_run
    from orav.session import record

    scenario = Scenario(
        name="broken",
        app="Broken",
        goal="press Break",
        settle_seconds=0.05,
        max_steps=4,
        script=(Decision(action=Tap(target=Target(id="break"))), Decision(action=Done())),
    )
    where = "KeyError: 'no such commitment' (at test_textual_elements.py:"
    recording = await record(
        scenario, tmp_path / "broken.cassette", device=f"textual:{__name__}:Broken"
    )
    assert any(where in error.error for error in recording.report.errors)
    assert where in render_html(read_run(recording.cassette))


class Card(Static):
    def on_click(self) -> None:
        self.update("clicked")


class Keyed(Widget, can_focus=True):
    DEFAULT_CSS = "Keyed { height: 1; }"
    BINDINGS: ClassVar = [Binding("x", "noop", "Do")]

    def render(self) -> str:
        return "keyed"

    def action_noop(self) -> None:
        pass


class Handled(Vertical):
    DEFAULT_CSS = "Handled { height: auto; }"

    @on(events.Click)
    def clicked(self) -> None:
        self.add_class("seen")


class Clickables(App):
    def compose(self) -> ComposeResult:
        yield Card("a card", id="card")
        yield Keyed(id="keyed")
        with Handled():  # anonymous, yet clickable: listed
            yield Label("inside")
        yield Label("plain text", id="plain")
        yield Button("Off", id="off", disabled=True)


async def test_widgets_that_handle_clicks_or_keys_are_controls_and_disabled_ones_say_so():
    async with TextualDevice(Clickables) as device:
        await device.launch()
        seen = {e.unique_id or e.label or e.role: e for e in (await device.observe()).elements}
        assert seen["card"].interactive and "button" in seen["card"].traits
        assert seen["keyed"].interactive and "binding:x" in seen["keyed"].traits
        assert any(e.role == "AXGroup" and "button" in e.traits for e in seen.values())
        assert not seen["plain"].interactive
        assert seen["off"].interactive and not seen["off"].enabled
        assert (await device.perform(Tap(target=Target(id="card")))).ok
        assert any(e.label == "clicked" for e in (await device.observe()).elements)


class CommandLine(App):
    """Reads its command line as apps do (a path to open in ``sys.argv[1]``), and shows
    Markdown, whose headings get ids made of their address."""

    def compose(self) -> ComposeResult:
        import sys

        yield Label(f"arguments: {sys.argv[1:]}", id="argv")
        yield Markdown("# Notes\n\nText.")


async def test_an_app_sees_no_command_line_of_orav_and_no_id_made_of_an_address(monkeypatch):
    monkeypatch.setattr("sys.argv", ["orav", "explore", "--device", "textual:x:Y"])
    async with TextualDevice(CommandLine, size=(60, 12)) as device:
        await device.launch()
        seen = await device.observe()
        assert target_element(seen, Target(id="argv")).label == "arguments: []"
        heading = next(e for e in seen.elements if e.label == "Notes")
        assert heading.unique_id is None
        assert screen_name(seen) == "Command line"  # Textual's default Screen: the app's name
    import sys

    assert sys.argv[1] == "explore"  # orav's own, once the app is gone


class NewRequest(ModalScreen):
    def compose(self) -> ComposeResult:
        box = Vertical(Label("Title"), Button("Create"))
        box.border_title = "New request"
        yield box


class Bordered(App):
    def on_mount(self) -> None:
        self.push_screen(NewRequest())


async def test_an_untitled_dialog_is_named_by_the_title_on_its_border():
    async with TextualDevice(Bordered, size=(60, 16)) as device:
        await device.launch()
        seen = await device.observe()
        assert (seen.elements[1].role, seen.elements[1].label) == ("AXDialog", "New request")
        assert screen_name(seen) == "New request"


class Pages(App):
    """Pages switched by buttons (a ContentSwitcher, as smassh's Settings and About), and tabs
    (a TabbedContent, whose own switcher its selected tab already names)."""

    def compose(self) -> ComposeResult:
        yield Button("Settings", id="to_settings")
        with ContentSwitcher(initial="home"):
            yield Label("home page", id="home")
            yield Label("settings page", id="settings")
        with TabbedContent():
            yield TabPane("One", Label("one"))

    def on_button_pressed(self) -> None:
        self.query_one(ContentSwitcher).current = "settings"


async def test_the_page_a_content_switcher_shows_is_part_of_the_screen():
    async with TextualDevice(Pages, size=(60, 16)) as device:
        await device.launch()
        home = await device.observe()
        assert [t for e in home.elements for t in e.traits if t.startswith("page:")] == [
            "page:home"
        ]
        assert screen_name(home) == "Pages · One · home"
        assert (await device.perform(Tap(target=Target(id="to_settings")))).ok
        await device.settle(0.4)
        settings = await device.observe()
        assert screen_name(settings) == "Pages · One · settings"
        assert screen_id(settings) != screen_id(home)


class Almanach(App):
    """Three switchers, as a notes app lays them out: a sidebar's (which folder), the content's
    (which note), and a one-line bar's that flips to a notice for a while after a save."""

    CSS = "#side { width: 14; } #content { width: 1fr; height: 1fr; } #bar { height: 1; dock: bottom; }"

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with ContentSwitcher(initial="fach-root", id="side"):
                yield Label("Fächer", id="fach-root")
                yield Label("Fach 7", id="fach-7")
            with ContentSwitcher(initial="blatt-leer", id="content"):
                with Vertical(id="blatt-leer"):
                    yield Button("Sichern", id="sichern")
                    yield Button("Blatt 3", id="blatt")
                yield Label("Blatt 3, beschrieben", id="blatt-3")
        with ContentSwitcher(initial="zeile", id="bar"):
            yield Label("bereit", id="zeile")
            yield Label("gesichert!", id="hinweis")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sichern":
            self.query_one("#bar", ContentSwitcher).current = "hinweis"
            self.query_one("#side", ContentSwitcher).current = "fach-7"
        else:
            self.query_one("#content", ContentSwitcher).current = "blatt-3"


async def test_a_small_switchers_page_is_a_part_of_the_place_not_the_place():
    """A bar's notice or a sidebar's folder does not make another screen; the content does."""
    async with TextualDevice(Almanach, size=(60, 16)) as device:
        await device.launch()
        first = await device.observe()
        assert (await device.perform(Tap(target=Target(id="sichern")))).ok
        await device.settle(0.4)
        saved = await device.observe()
        assert "page:hinweis" in {t for e in saved.elements for t in e.traits}
        assert screen_id(saved) == screen_id(first)
        assert screen_name(saved) == screen_name(first) == "Almanach · blatt-leer"
        assert (await device.perform(Tap(target=Target(id="blatt")))).ok
        await device.settle(0.4)
        note = await device.observe()
        assert screen_id(note) != screen_id(first)
        assert screen_name(note) == "Almanach · blatt-3"


class Icons(App):
    def compose(self) -> ComposeResult:
        yield Button("\uf013 Settings", id="settings")  # a Nerd Fonts gear before the word
        yield Label("\U000f030c", id="home_icon")


async def test_icon_font_glyphs_are_left_out_of_labels():
    async with TextualDevice(Icons, size=(40, 10)) as device:
        await device.launch()
        seen = await device.observe()
        assert target_element(seen, Target(id="settings")).label == "Settings"
        assert target_element(seen, Target(id="home_icon")).label is None
        assert (await device.perform(Tap(target=Target(label="Settings")))).ok
