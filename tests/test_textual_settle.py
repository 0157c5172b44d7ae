"""The Textual settle is bounded both ways and waits for what Textual is still doing: an app
that animates forever settles "not quiet" at the cap and the run goes on (in process and
through the companion), a quiet app settles quiet after the floor, an action never waits for
an animation to end, and what an action set off (a screen pushed from a binding, an animated
tab switch) is on screen when the settle says quiet."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, TabbedContent, TabPane

from orav.drivers.textual import RemoteTextualDevice, TextualDevice
from orav.drivers.textual.calls import SETTLE_FLOOR
from orav.model import Decision, Done, PressKey, Scenario, Tap, Target
from orav.perceive import target_element
from orav.session import record, replay

CAP = 0.4  # the ladder's settle rung
HERE = Path(__file__).parent


class EndlessApp(App):
    """A spinner that animates forever (the animator never completes) and a counter."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("spinning", id="spinner")
            yield Label("0", id="count")
            yield Button("Add", id="add")
        yield Footer()

    def on_mount(self) -> None:
        self.spin()

    def spin(self) -> None:
        spinner = self.query_one("#spinner", Label)
        target = 0.2 if spinner.styles.opacity > 0.5 else 1.0
        spinner.styles.animate("opacity", target, duration=0.15, on_complete=self.spin)

    def on_button_pressed(self) -> None:
        count = self.query_one("#count", Label)
        count.update(str(int(str(count.render())) + 1))


class Second(Screen):
    def compose(self) -> ComposeResult:
        yield Label("second screen", id="second")
        yield Footer()


class TabsApp(App):
    """A key that pushes a screen, and tabs whose switch animates its underline."""

    BINDINGS: ClassVar = [("s", "push_screen('second')", "Second")]
    SCREENS: ClassVar = {"second": Second}

    def compose(self) -> ComposeResult:
        with TabbedContent():
            with TabPane("One", id="one"):
                yield Label("first pane")
            with TabPane("Two", id="two"):
                yield Label("second pane")
        yield Footer()


async def test_an_endless_animation_settles_not_quiet_at_the_cap_and_actions_go_on():
    async with TextualDevice(EndlessApp) as device:
        await device.launch()
        start = time.monotonic()
        settled = await device.settle(CAP)
        assert settled is not None and not settled.quiet
        assert CAP <= settled.waited < CAP + 0.5 and time.monotonic() - start < CAP + 0.6
        for expected in ("1", "2"):
            start = time.monotonic()
            assert (await device.perform(Tap(target=Target(id="add")))).ok
            assert time.monotonic() - start < 1.0  # a click does not wait for the spinner
            assert not (await device.settle(CAP)).quiet
            assert target_element(await device.observe(), Target(id="count")).label == expected


async def test_through_the_companion_the_same():
    app = "test_textual_settle:EndlessApp"
    async with RemoteTextualDevice(app, sys.executable, cwd=HERE) as device:
        await device.launch()
        settled = await device.settle(CAP)
        assert settled is not None and not settled.quiet and settled.waited >= CAP
        start = time.monotonic()
        assert (await device.perform(PressKey("tab"))).ok
        assert (await device.perform(PressKey("enter"))).ok  # the focused Add button
        assert time.monotonic() - start < 2.0
        await device.settle(CAP)
        assert target_element(await device.observe(), Target(id="count")).label == "1"


async def test_a_quiet_app_settles_quiet_after_the_floor_and_sees_what_the_action_did():
    async with TextualDevice(TabsApp) as device:
        await device.launch()
        assert (await device.perform(Tap(target=Target(label="Two")))).ok
        settled = await device.settle(CAP)
        assert settled.quiet and SETTLE_FLOOR <= settled.waited < CAP
        seen = await device.observe()
        selected = [e.label for e in seen.elements if e.role == "AXTab" and "selected" in e.traits]
        assert selected == ["Two"] and "second pane" in seen.text
        assert (await device.perform(PressKey("s"))).ok
        assert (await device.settle(CAP)).quiet
        assert "screen:Second" in (await device.observe()).elements[1].traits


async def test_a_run_on_an_app_that_never_goes_quiet_goes_on_to_its_end(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    tap = Tap(target=Target(id="add"))
    scenario = Scenario(
        name="endless",
        app="test_textual_settle:EndlessApp",
        goal="add twice",
        max_steps=4,
        timeout_seconds=30,
        script=(
            Decision(action=tap, reasoning="add"),
            Decision(action=tap, reasoning="add again"),
            Decision(action=Done(success=True, summary="added twice"), reasoning="done"),
        ),
    )
    start = time.monotonic()
    run = await record(
        scenario, tmp_path / "endless.cassette", device="textual-in-process:" + scenario.app
    )
    assert not run.report.errors, run.report.errors
    assert time.monotonic() - start < 8
    settles = [line for line in run.cassette.read_text().splitlines() if '"settled"' in line]
    assert settles and all('"quiet":false' in line for line in settles)
    assert (await replay(run.cassette)).faithful


class FlashApp(App):
    """A key flashes a label for 0.2 s (a pressed button's effect); another shows a notice
    that expires after 5 s (a toast)."""

    BINDINGS: ClassVar = [("f", "flash", "Flash"), ("n", "notice", "Notice")]

    def compose(self) -> ComposeResult:
        yield Label("idle", id="state")
        yield Footer()

    def action_flash(self) -> None:
        state = self.query_one("#state", Label)
        state.update("flash")
        self.set_timer(0.2, lambda: state.update("idle"))

    def action_notice(self) -> None:
        self.notify("Saved", timeout=5)


async def test_a_short_timer_an_action_set_is_waited_for_a_long_one_is_not():
    """What a look sees after a 0.2 s flash must not depend on how fast the machine is: the
    settle waits for one-shot timers of at most 0.5 s, never for a toast's 5 s expiry."""
    async with TextualDevice(FlashApp) as device:
        await device.launch()
        for _ in range(3):
            assert (await device.perform(PressKey("f"))).ok
            settled = await device.settle(CAP)
            assert settled.quiet and 0.2 <= settled.waited < CAP
            assert target_element(await device.observe(), Target(id="state")).label == "idle"
        assert (await device.perform(PressKey("n"))).ok
        settled = await device.settle(CAP)
        assert settled.quiet and settled.waited < 0.2
        assert any("toast" in e.traits for e in (await device.observe()).elements)
