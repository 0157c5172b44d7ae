"""The Textual companion: a small app driven in venvs of Textual versions far apart (0.47, 6.1,
and orav's own 8.x through the companion and in-process), each observed and acted on the same
way, its crashes, hangs and stderr handled like the iOS companion's, and a cassette recorded
through it replayed without the app's environment.

The venvs are made once with pip under pytest's cache (``.pytest_cache/d/textual-venvs``); a
test skips, saying why, when pip cannot install its Textual.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual_venvs import Unavailable, venv_python

from orav.drivers.textual import RemoteTextualDevice, TextualDevice
from orav.errors import DeviceError, InputError
from orav.model import (
    Decision,
    Done,
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
from orav.session import record, replay

pytestmark = pytest.mark.timeout(900)  # the first run installs the venvs

HERE = Path(__file__).resolve().parent
APP = "companion_app:SmallApp"
VERSIONS = ["0.47.1", "6.1.0", "orav"]  # "orav": orav's own interpreter and Textual (8.x)


@pytest.fixture(scope="session")
def venv_root(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("textual-venvs"))
    return tmp_path_factory.mktemp("textual-venvs")


def python_for(venv_root: Path, version: str) -> Path:
    if version == "orav":
        return Path(sys.executable)
    try:
        return venv_python(venv_root, f"textual=={version}")
    except Unavailable as exc:
        pytest.skip(f"no venv with Textual {version}: {exc}")


def remote(python: Path, **options) -> RemoteTextualDevice:
    return RemoteTextualDevice(APP, python, cwd=HERE, **options)


def by_id(observation: Observation, unique_id: str):
    found = next((e for e in observation.elements if e.unique_id == unique_id), None)
    assert found is not None, f"no #{unique_id} in {[e.unique_id for e in observation.elements]}"
    return found


@pytest.mark.parametrize("version", VERSIONS)
async def test_every_action_kind_through_the_companion(venv_root: Path, version: str):
    python = python_for(venv_root, version)
    async with remote(python) as device:
        if version != "orav":
            assert device.textual_version == version
        await device.launch()
        first = await device.observe()
        assert first.app_running and first.screenshot is not None
        assert first.elements[0].role == "AXApplication" and "binding:f2" in str(first.elements)
        assert by_id(first, "name").role == "AXTextField"
        assert by_id(first, "greet").role == "AXButton" and by_id(first, "greet").label == "Greet"
        assert by_id(first, "flag").value == "0"
        assert "Small app" in (first.text or "")

        assert (await device.perform(Tap(target=Target(id="name")))).ok
        assert (await device.perform(TypeText("Ann"))).ok
        assert by_id(await device.observe(), "name").value == "Ann"
        tapped = await device.perform(Tap(target=Target(label="Greet")))
        assert tapped.ok and tapped.point is not None
        assert by_id(await device.observe(), "greeting").label == "Hello Ann"

        switch = by_id(await device.observe(), "flag").frame.center
        assert (await device.perform(Tap(x=switch.x, y=switch.y))).ok  # a tap at coordinates
        assert by_id(await device.observe(), "flag").value == "1"
        assert (await device.perform(PressKey("f2"))).ok
        assert by_id(await device.observe(), "greeting").label == "Hello everyone"

        rows = by_id(await device.observe(), "rows").frame
        start = Point(rows.x + 2, rows.y + rows.height - 1)
        assert (await device.perform(Swipe(start=start, end=Point(start.x, start.y - 5)))).ok
        scrolled = await device.observe()
        assert "row_0" not in {e.unique_id for e in scrolled.elements} and by_id(scrolled, "row_5")

        assert (await device.perform(Wait(0.01))).ok
        assert (await device.settle(2.0)) is not None
        refused = await device.perform(Tap(target=Target(id="missing")))
        assert not refused.ok and "no element" in (refused.error or "")
        assert not (await device.perform(PressKey(40))).ok  # an iOS keycode

        assert (await device.perform(Terminate())).ok
        assert not await device.is_running("")
        assert (await device.perform(Launch())).ok
        assert await device.is_running("")
        assert by_id(await device.observe(), "greeting").label == "nobody yet"  # a fresh app


async def test_the_companion_observes_exactly_as_the_in_process_driver(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    from companion_app import SmallApp

    async with remote(Path(sys.executable)) as far, TextualDevice(SmallApp) as near:
        for device in (far, near):
            await device.launch()
            await device.perform(Tap(target=Target(id="name")))
            await device.perform(TypeText("Ann"))
        seen_far, seen_near = await far.observe(), await near.observe()
        assert seen_far.elements == seen_near.elements
        assert seen_far.text == seen_near.text
        assert seen_far.screenshot == seen_near.screenshot
        assert await far.describe() == await near.describe()


@pytest.mark.slow("two Textual apps compose 5,000 buttons each: ~10 s of CPU apiece")
async def test_both_drivers_observe_a_5000_widget_screen_alike(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    from companion_app import CrowdApp

    far = RemoteTextualDevice("companion_app:CrowdApp", Path(sys.executable), cwd=HERE)
    async with far, TextualDevice(CrowdApp) as near:
        for device in (far, near):
            await device.launch()
        seen_far, seen_near = await far.observe(), await near.observe()
        assert seen_far.elements == seen_near.elements
        assert seen_far.text == seen_near.text and "seat 0" in seen_far.text
        seats = [e for e in seen_far.elements if (e.unique_id or "").startswith("seat_")]
        assert 7 <= len(seats) <= 8  # what is on screen of the 5,000 (3 rows each), as seen


@pytest.mark.parametrize("version", ["0.47.1", "orav"])
async def test_a_crash_is_detected_with_its_stderr(venv_root: Path, version: str):
    async with remote(python_for(venv_root, version)) as device:
        await device.launch()
        since = time.time()
        await device.perform(Tap(target=Target(id="boom")))
        await device.settle(2.0)  # as the engine does after every action
        crashed = await device.observe()
        assert not crashed.app_running
        assert "RuntimeError: boom pressed (at companion_app.py:" in (crashed.error or "")
        assert not await device.is_running("")
        (report,) = await device.crash_reports("", since)
        assert "the app prints this before it fails" in report.contents  # its print, kept
        assert "RuntimeError" in report.contents  # Textual's traceback
        await device.launch()  # relaunched in the same companion
        assert (await device.observe()).app_running
        assert await device.crash_reports("", time.time() + 1) == []


async def test_a_killed_companion_is_an_app_that_is_not_running():
    async with remote(Path(sys.executable)) as device:
        await device.launch()
        assert device.pid is not None
        os.kill(device.pid, signal.SIGKILL)
        gone = await device.observe()
        assert not gone.app_running and "exited with status -9" in (gone.error or "")
        assert not await device.is_running("")
        refused = await device.perform(Tap(target=Target(id="greet")))
        assert not refused.ok and "not running" in (refused.error or "")
        await device.launch()  # a new companion
        assert (await device.observe()).app_running


async def test_a_handler_blocking_for_15_s_does_not_hold_the_driver():
    async with remote(Path(sys.executable), timeout=1.0) as device:
        await device.launch()
        pid = device.pid
        start = time.monotonic()
        with pytest.raises(DeviceError, match="did not finish click within 1 s"):
            await device.perform(Tap(target=Target(id="hang")))
        assert time.monotonic() - start < 4
        assert pid is not None and _gone(pid)
        observed = await device.observe()
        assert not observed.app_running and "killed" in (observed.error or "")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _script(*decisions: Decision):
    steps = iter(decisions)

    class Scripted:
        name = "scripted"

        async def decide(self, context):
            return next(steps)

    return Scripted()


async def test_a_3_s_run_is_not_held_by_a_15_s_handler(tmp_path: Path):
    scenario = Scenario(name="hang", app=APP, goal="tap hang", max_steps=5, timeout_seconds=3)
    agent = _script(Decision(action=Tap(target=Target(id="hang")), reasoning="hang it"))
    start = time.monotonic()
    async with remote(Path(sys.executable), timeout=30.0) as device:
        recording = await record(scenario, tmp_path / "hang.cassette", device=device, agent=agent)
        assert device.pid is None  # the hung companion was killed when the run's time was up
    assert time.monotonic() - start < 10  # the run's 3 s, the companion's start and its kill
    assert recording.report.status != "passed"


async def test_a_cassette_recorded_through_the_companion_replays_without_its_venv(
    venv_root: Path, tmp_path: Path
):
    python = python_for(venv_root, "0.47.1")
    scenario = Scenario(name="greet", app=APP, goal="greet Ann", max_steps=8)
    agent = _script(
        Decision(action=Tap(target=Target(id="name")), reasoning="the name field"),
        Decision(action=TypeText("Ann"), reasoning="type the name"),
        Decision(action=Tap(target=Target(label="Greet")), reasoning="greet"),
        Decision(action=Tap(target=Target(id="boom")), reasoning="crash it: it relaunches"),
        Decision(action=Done(success=True, summary="greeted"), reasoning="done"),
    )
    async with remote(python) as device:
        recording = await record(scenario, tmp_path / "greet.cassette", device=device, agent=agent)
    assert recording.report.crashes_recovered == 1, recording.report
    crash = next(e for e in recording.report.errors if e.crash_report)
    assert "RuntimeError" in crash.crash_report
    outcome = await replay(recording.cassette)  # no companion, no venv: the cassette alone
    assert outcome.faithful, outcome.differences
    assert outcome.report == recording.report


async def test_a_module_the_venv_cannot_import_is_a_device_error(venv_root: Path):
    python = python_for(venv_root, "6.1.0")
    with pytest.raises(InputError, match=r"--device: cannot import module 'nowhere'"):
        async with RemoteTextualDevice("nowhere:App", python):
            pass
    with pytest.raises(InputError, match="no Textual App class 'Missing'"):
        async with RemoteTextualDevice("companion_app:Missing", python, cwd=HERE):
            pass
    with pytest.raises(InputError, match="cannot run"):
        async with RemoteTextualDevice(APP, HERE / "no-python"):
            pass


def test_the_companion_imports_nothing_of_orav():
    package = HERE.parent / "orav" / "drivers" / "textual" / "companion"
    for path in package.glob("*.py"):
        text = path.read_text()
        assert "import orav" not in text and "from orav" not in text, path.name


async def test_a_spec_names_the_interpreter(venv_root: Path):
    python = python_for(venv_root, "6.1.0")
    device = RemoteTextualDevice.from_spec(f"textual+{python}:{APP}@100x30?title=x")
    assert (device.python, device.app_ref, device.size) == (str(python), APP, (100, 30))
    assert device.arguments == {"title": "x"}
    with pytest.raises(InputError, match="--device"):
        RemoteTextualDevice.from_spec("textual:companion_app:SmallApp")
    await asyncio.sleep(0)


def test_orav_without_textual_drives_an_app_through_the_companion(venv_root: Path):
    python = python_for(venv_root, "6.1.0")
    script = f"""
import asyncio, sys
sys.modules["textual"] = None  # as if orav were installed without the textual extra
from orav.drivers.textual import RemoteTextualDevice

async def main():
    async with RemoteTextualDevice({APP!r}, {str(python)!r}, cwd={str(HERE)!r}) as device:
        await device.launch()
        seen = await device.observe()
        print(device.textual_version, any(e.unique_id == "greet" for e in seen.elements))

asyncio.run(main())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.split() == ["6.1.0", "True"], done.stderr[-2000:]


def test_the_in_process_driver_without_textual_says_how_to_get_it(monkeypatch):
    from orav.drivers.textual import device

    real = device.importlib.util.find_spec
    monkeypatch.setattr(
        device.importlib.util, "find_spec", lambda name: None if name == "textual" else real(name)
    )
    with pytest.raises(InputError, match=r"pip install 'orav\[textual\]'.*textual\+PATH"):
        device.load_app_factory(APP)


async def test_both_drivers_record_the_same_cassette(tmp_path: Path, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    from companion_app import SmallApp

    from orav.cassette.events import ObserveEvent, PerformEvent
    from orav.cassette.reader import read_cassette

    def agent():
        return _script(
            Decision(action=Tap(target=Target(id="name")), reasoning="the name field"),
            Decision(action=TypeText("Ann"), reasoning="type the name"),
            Decision(action=Tap(target=Target(label="Greet")), reasoning="greet"),
            Decision(action=PressKey("f2"), reasoning="greet everyone"),
            Decision(action=Done(success=True, summary="greeted"), reasoning="done"),
        )

    def facts(path: Path) -> list:
        seen = []
        for event in read_cassette(path).events:
            if isinstance(event, ObserveEvent) and event.observation is not None:
                shown = event.observation
                seen.append(("observe", shown.elements, shown.text, shown.screenshot))
            elif isinstance(event, PerformEvent) and event.result is not None:
                seen.append(("perform", event.action, event.result.ok, event.result.point))
            elif event.type != "changes":  # only a sandboxed app's world is asked what changed
                seen.append((event.type,))
        return seen

    scenario = Scenario(name="greet", app=APP, goal="greet", max_steps=8)
    async with TextualDevice(SmallApp, name="SmallApp") as near:
        here = await record(scenario, tmp_path / "near.cassette", device=near, agent=agent())
    async with remote(Path(sys.executable)) as far:
        there = await record(scenario, tmp_path / "far.cassette", device=far, agent=agent())
    assert here.report.status == there.report.status == "passed"
    assert facts(here.cassette) == facts(there.cassette)


async def test_a_colour_past_a_channels_range_is_drawn_at_its_bound(monkeypatch):
    """Farbrad paints with red 288 and green 300 (complexitty's rainbow does): both drivers
    draw it at the channel's bound, as a terminal does, where the companion's answer was
    refused as misshapen and the run aborted."""
    monkeypatch.syspath_prepend(str(HERE))
    from unseen_apps.farbrad import Farbrad

    far = RemoteTextualDevice("unseen_apps.farbrad:Farbrad", Path(sys.executable), cwd=HERE)
    async with far, TextualDevice(Farbrad) as near:
        seen = [await device.launch() or await device.observe() for device in (far, near)]
    assert "Regenbogen" in seen[0].text
    assert seen[0].screenshot == seen[1].screenshot
