"""The Textual driver against real Textual apps under Pilot: the demo app and a few tiny ones."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from orav.demo_tui import EMAIL, PASSWORD, DemoApp
from orav.drivers.textual import CELL_HEIGHT, CELL_WIDTH, TextualDevice, load_app_factory
from orav.errors import DeviceError, InputError
from orav.model import (
    Launch,
    Observation,
    Point,
    PressKey,
    Scenario,
    Swipe,
    Tap,
    Target,
    Terminate,
    TypeText,
    Wait,
)
from orav.perceive import fault, interruption, measure, target_element
from orav.scenario_loader import load_scenario
from orav.session import record, replay
from orav.specs import open_device

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "orav" / "scenarios" / "textual").glob("*.yaml"))
GOLDEN = sorted((ROOT / "recordings" / "textual").glob("*.cassette"))
DEVICE = "textual:orav.demo_tui:DemoApp"


class ScrollApp(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroller"):
            for n in range(40):
                yield Label(f"row {n}", id=f"row_{n}")


class CrashApp(App):
    def compose(self) -> ComposeResult:
        yield Button("Boom", id="boom")

    def on_button_pressed(self) -> None:
        raise RuntimeError("boom pressed")


class Confirm(ModalScreen):
    def compose(self) -> ComposeResult:
        yield Label("Discard changes?")
        yield Button("OK", id="ok")

    def on_button_pressed(self) -> None:
        self.dismiss()


class ModalApp(App):
    def on_mount(self) -> None:
        self.push_screen(Confirm())


class FieldApp(App):
    def compose(self) -> ComposeResult:
        yield Input(id="field")


async def signed_in(device: TextualDevice) -> Observation:
    await device.launch()
    for action in (
        TypeText(EMAIL),
        PressKey("tab"),
        TypeText(PASSWORD, secure=True),
        PressKey("return"),
    ):
        assert (await device.perform(action)).ok
    return await device.observe()


async def test_observe_the_sign_in_form():
    async with TextualDevice(DemoApp, size=(80, 24)) as device:
        info = await device.describe()
        assert (info.platform, info.name, info.width, info.height, info.scale) == (
            "textual",
            "DemoApp",
            80,
            24,
            1,
        )
        await device.launch()
        first = await device.observe()
        assert first.app_running and first.app == "DemoApp"
        roles = [(e.role, e.unique_id) for e in first.elements]
        # pre-order: the app, the screen, the header, the form and its fields, then the footer
        assert roles[:7] == [
            ("AXApplication", None),
            ("AXWindow", None),
            ("AXHeading", None),
            ("AXGroup", "form"),
            ("AXTextField", "email"),
            ("AXTextField", "password"),
            ("AXButton", "sign_in"),
        ]
        email, password = (
            target_element(first, Target(id="email")),
            target_element(first, Target(id="password")),
        )
        assert email.focused and not password.focused
        assert (email.label, email.placeholder, email.secure) == ("Email", "Email", False)
        assert password.secure
        assert next(e for e in first.elements if e.label == "Sign in").role == "AXHeading"
        assert "Header" in first.elements[2].traits
        screen = first.elements[1]
        assert (screen.label, screen.value, screen.traits) == (
            "SignInScreen",
            "Sign in",
            ("screen:SignInScreen",),
        )
        button = target_element(first, Target(id="sign_in"))
        # frames are in cells, inside the 80x24 screen
        assert (button.frame.width, button.frame.height) == (16, 3)
        assert 0 <= button.frame.x and button.frame.x + button.frame.width <= 80
        lines = first.text.split("\n")
        assert len(lines) == 24 and "Sign in" in lines[0] and "Email" in first.text
        assert "Sign in" in lines[int(button.frame.center.y)]
        shot = first.screenshot
        image = Image.open(io.BytesIO(shot.data))
        assert image.size == (shot.width, shot.height) == (80 * CELL_WIDTH, 24 * CELL_HEIGHT)
        # the focused field's cursor is drawn, and does not blink between two looks
        await asyncio.sleep(0.6)
        second = await device.observe()
        assert second.screenshot == first.screenshot and second.text == first.text
        assert not measure(first, second).changed


async def test_typing_a_password_shows_bullets_only():
    async with TextualDevice(DemoApp) as device:
        await device.launch()
        await device.perform(PressKey("tab"))
        await device.perform(TypeText(PASSWORD, secure=True))
        seen = await device.observe()
        password = seen.focused
        assert password.unique_id == "password" and password.secure
        assert password.value == "\u2022" * len(PASSWORD)
        assert PASSWORD not in seen.text and "\u2022" * len(PASSWORD) in seen.text


async def test_raster_follows_the_screen():
    async with TextualDevice(DemoApp) as device:
        before = await signed_in(device)
        assert target_element(before, Target(id="items")) is not None
        result = await device.perform(Tap(target=Target(id="settings")))
        after = await device.observe()
        assert result.ok and target_element(after, Target(id="notifications_switch")).value == "1"
        assert after.screenshot.sha256 != before.screenshot.sha256
        assert measure(before, after).changed


async def test_taps_by_point_and_by_target():
    async with TextualDevice(DemoApp) as device:
        await device.launch()
        form = await device.observe()
        centre = target_element(form, Target(id="sign_in")).frame.center
        result = await device.perform(Tap(x=centre.x, y=centre.y))
        assert result.ok and result.point == centre
        refused = await device.observe()
        assert target_element(refused, Target(label="Enter your email and password.")) is not None
        # a target is the control, not the header that carries the same label
        result = await device.perform(Tap(target=Target(label="Sign in")))
        assert result.ok and result.point == centre
        outside = await device.perform(Tap(x=80, y=3))
        assert not outside.ok and "outside the 80x24 screen" in outside.error
        missing = await device.perform(Tap(target=Target(id="nope")))
        assert not missing.ok and "#nope" in missing.error


async def test_keys_and_bindings():
    async with TextualDevice(DemoApp) as device:
        home = await signed_in(device)
        assert target_element(home, Target(id="sign_in")) is None
        assert "binding:q" in home.elements[0].traits
        await device.perform(Tap(target=Target(label="Release notes")))
        detail = await device.observe()
        assert target_element(detail, Target(label="Version 1.0: first release.")) is not None
        assert any(e.label == "Back" and "binding:escape" in e.traits for e in detail.elements)
        assert (await device.perform(PressKey("escape"))).ok
        assert target_element(await device.observe(), Target(id="items")) is not None
        raw = await device.perform(PressKey(40))
        assert not raw.ok and "keycode 40" in raw.error and "key names" in raw.error
        # q quits the app: the observation says so and a launch starts a fresh one
        assert (await device.perform(PressKey("space"))).ok
        await device.perform(TypeText("q"))
        gone = await device.observe()
        assert not gone.app_running and not await device.is_running("DemoApp")
        assert fault(gone).kind == "crash"
        assert (await device.perform(Launch())).ok
        fresh = await device.observe()
        assert fresh.app_running and target_element(fresh, Target(id="email")) is not None


async def test_swipe_scrolls_what_is_under_it():
    async with TextualDevice(ScrollApp, size=(40, 10)) as device:
        await device.launch()
        top = await device.observe()
        assert (
            target_element(top, Target(id="row_0")) is not None
            and target_element(top, Target(id="row_20")) is None
        )
        result = await device.perform(Swipe(Point(5, 8), Point(5, 1)))  # finger moves up
        assert result.ok
        scrolled = await device.observe()
        assert target_element(scrolled, Target(id="row_0")) is None
        assert target_element(scrolled, Target(id="row_7")).frame.y == 0
    async with TextualDevice(FieldApp, size=(40, 10)) as device:
        await device.launch()
        flat = await device.perform(Swipe(Point(5, 8), Point(5, 1)))
        assert not flat.ok and "nothing scrollable" in flat.error


async def test_wait_launch_terminate():
    async with TextualDevice(FieldApp, max_wait=1.0) as device:
        assert not await device.is_running("FieldApp")
        assert not (await device.observe()).app_running
        typed = await device.perform(TypeText("x"))
        assert not typed.ok and "not running" in typed.error
        await device.launch()
        assert (await device.perform(Wait(0.01))).ok
        too_long = await device.perform(Wait(5))
        assert not too_long.ok and "outside 0..1 s" in too_long.error
        assert (await device.perform(Terminate())).ok
        assert not await device.is_running("FieldApp")


async def test_an_app_that_raises_is_not_running():
    async with TextualDevice(CrashApp) as device:
        await device.launch()
        await device.perform(Tap(target=Target(id="boom")))
        crashed = await device.observe()
        assert not crashed.app_running
        assert "boom pressed" in crashed.error
        await device.launch()
        assert (await device.observe()).app_running


async def test_a_modal_screen_is_an_alert_for_recovery():
    async with TextualDevice(ModalApp) as device:
        await device.launch()
        seen = await device.observe()
        assert [e.role for e in seen.elements[:2]] == ["AXApplication", "AXDialog"]
        detection = interruption(seen)
        assert detection.kind == "alert" and "OK" in [e.label for e in detection.evidence]
        await device.perform(Tap(target=Target(label="OK")))
        assert interruption(await device.observe()) is None


class Notice(ModalScreen):
    """A modal with no button: escape closes it (as Textual's command palette does)."""

    BINDINGS: ClassVar[list] = [("escape", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        yield Label("Saved.")


class NoticeApp(App):
    def on_mount(self) -> None:
        self.push_screen(Notice())


async def test_recovery_closes_a_modal_without_buttons_with_escape():
    from orav.machines.recovery import recover

    async with TextualDevice(NoticeApp) as device:
        await device.launch()
        seen = await device.observe()
        detection = interruption(seen)
        assert detection.kind == "alert"
        scenario = Scenario(name="t", app="NoticeApp", goal="g")
        outcome = await recover(detection, device=device, observation=seen, scenario=scenario)
        assert outcome.resolved, outcome.error
        assert outcome.actions == (PressKey("escape"),)
        assert interruption(await device.observe()) is None


@settings(
    deadline=None, max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.text(
        st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\u00a0"),
        min_size=1,
        max_size=24,
    )
)
def test_printable_text_arrives_intact(text: str):
    async def typed() -> str | None:
        async with TextualDevice(FieldApp, size=(60, 5)) as device:
            await device.launch()
            assert (await device.perform(TypeText(text))).ok
            return target_element(await device.observe(), Target(id="field")).value

    assert asyncio.run(typed()) == text


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("no_such_module_here:App", "no_such_module_here"),
        ("orav.demo_tui:NoSuchApp", "NoSuchApp"),
        ("orav.demo_tui:EMAIL", "EMAIL"),
        ("orav.demo_tui", "package.module:AppClass"),
    ],
)
async def test_a_bad_device_spec_names_what_is_wrong(spec: str, named: str):
    with pytest.raises(InputError, match=named):
        load_app_factory(spec)
    scenario = Scenario(name="x", app="x", goal="x")
    with pytest.raises(InputError, match=named):
        async with open_device(f"textual:{spec}", scenario):
            pass


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
async def test_scenario_records_and_replays(path: Path, tmp_path: Path):
    scenario = load_scenario(path)
    recording = await record(scenario, tmp_path / "run.cassette", device=DEVICE)
    assert recording.report.status == "passed", recording.report
    outcome = await replay(recording.cassette)
    assert outcome.faithful, outcome.differences
    assert outcome.report == recording.report


def test_both_scenarios_have_golden_cassettes():
    assert [p.stem for p in GOLDEN] == [p.stem for p in SCENARIOS] == ["settings", "sign_in"]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
async def test_golden_cassette_replays_faithfully(path: Path):
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    assert outcome.report.status == "passed" and not outcome.report.goals_missed
    assert PASSWORD not in path.read_text()


class NeedsArguments(App):
    def __init__(self, config: str) -> None:
        super().__init__()


async def test_an_app_that_cannot_be_built_is_a_device_error():
    async with TextualDevice.from_spec(f"{__name__}:NeedsArguments") as device:
        with pytest.raises(DeviceError, match="NeedsArguments failed to start: TypeError"):
            await device.launch()
        assert not await device.is_running("NeedsArguments")


LOCAL_APP = """from textual.app import App
from textual.widgets import Button


class Local(App):
    def compose(self):
        yield Button("Hello", id="hello")
"""

LOCAL_SCENARIO = """name: local
app: local_app:Local
goal: Tap the button.
success_criteria:
  - target: {id: hello}
script:
  - action: {kind: tap, target: {id: hello}}
  - action: {kind: done, summary: tapped}
"""


def test_an_app_in_the_working_folder_runs_under_the_orav_script(tmp_path: Path):
    """The console script puts no working folder on ``sys.path`` (``python -m`` does): an app
    module next to the scenario is still found, as pytest finds a test module."""
    from command import SCRIPT, orav

    (tmp_path / "local_app.py").write_text(LOCAL_APP)
    (tmp_path / "local.yaml").write_text(LOCAL_SCENARIO)
    done = orav(
        "record",
        "local.yaml",
        "--device",
        "textual:local_app:Local",
        "--out",
        "local.cassette",
        cwd=tmp_path,
        command=SCRIPT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout


class LinkApp(App):
    def compose(self) -> ComposeResult:
        yield Button("Docs", id="docs")

    def on_button_pressed(self) -> None:
        self.open_url("https://example.com/docs")


async def test_a_link_the_app_opens_never_reaches_the_browser(monkeypatch):
    """A tap on a link stays in the app under test: the URL is written on the app's error
    console (its crash report's source), the machine's browser is never asked."""
    import webbrowser

    asked: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: asked.append(url))
    async with TextualDevice(LinkApp) as device:
        await device.launch()
        result = await device.perform(Tap(target=Target(id="docs")))
        assert result.ok
        assert "https://example.com/docs" in device.stderr
        assert (await device.observe()).app_running
    assert asked == []
    webbrowser.open("https://after.example")  # the app has stopped: the browser is the user's again
    assert asked == ["https://after.example"]


async def _burn(slices: int) -> str:
    """Work in the event loop (CPU, a turn given back between slices), as a busy app does."""
    for _ in range(slices):
        sum(i * i for i in range(200_000))
        await asyncio.sleep(0)
    return "worked"


async def test_a_call_is_bounded_by_the_apps_work_not_by_a_busy_machines_clock():
    import time

    from orav.drivers.textual.calls import progressing

    cpu = time.process_time

    # idle for longer than the call's CPU bound: no work done, so not cut (a busy machine
    # stretches the clock, not the work)
    slept = asyncio.ensure_future(asyncio.sleep(0.3, result="slept"))
    assert await progressing(slept, cpu=0.05, wall=30, spent=cpu) == "slept"
    # working past the bound is cut once that much CPU time went by, and cancelled
    began = time.process_time()
    working = asyncio.ensure_future(_burn(10_000))
    with pytest.raises(TimeoutError):
        await progressing(working, cpu=0.3, wall=600, spent=cpu)
    assert time.process_time() - began >= 0.3 and working.cancelled()
    # an app that awaits forever does no work: the clock's cap ends it
    forever = asyncio.ensure_future(asyncio.Event().wait())
    with pytest.raises(TimeoutError):
        await progressing(forever, cpu=600, wall=0.2, spent=cpu)
    assert forever.cancelled()
