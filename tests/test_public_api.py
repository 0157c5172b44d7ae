"""The front door: ``import orav`` and its public API, recording a Device of your own, the
cassette recorder and its record modes, the matching policy, the Agent's optional
capabilities, and the test doubles of ``orav.testing``."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

import orav
from orav.agents import AgentContext, Closable, HoldsSecrets, UsesModel, close_agent, model_of
from orav.cassette import (
    CassetteWriter,
    Header,
    Match,
    RecordingDevice,
    RecordMode,
    ReplayDevice,
    read_cassette,
)
from orav.errors import DeviceError, InputError, ReplayDivergence
from orav.model import (
    Decision,
    Done,
    Element,
    Frame,
    Observation,
    Scenario,
    Tap,
    Target,
    TypeText,
)
from orav.recorder import use_cassette
from orav.testing import FakeDevice, VirtualClock

APP = "com.example.notes"
LOGIN = Observation(
    (
        Element("AXTextField", "Email", "email", frame=Frame(20, 300, 350, 44)),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 398, 350, 44)),
    ),
    app=APP,
)
HOME = Observation((Element("AXStaticText", "Welcome", "welcome"),), app=APP)
SIGN_IN = Tap(target=Target(id="sign_in"))
SCENARIO = Scenario(
    "sign_in",
    APP,
    "sign in",
    script=(
        Decision(TypeText("alice@example.com")),
        Decision(SIGN_IN, expected_outcome='"Welcome" shows'),
        Decision(Done()),
    ),
    settle_seconds=0,
)


def my_device() -> FakeDevice:
    """Stands in for a Device of your own: two screens, a tap on Sign in leads home."""
    return FakeDevice({"login": LOGIN, "home": HOME}, goes={"login": {"sign_in": "home"}})


# --- the public API ------------------------------------------------------------------------


def test_every_public_name_resolves_from_its_home():
    for name in orav.__all__:
        value = getattr(orav, name)
        home = orav._HOME_OF[name]
        assert value is getattr(sys.modules[home], name), name
    assert set(orav.__all__) <= set(dir(orav))
    with pytest.raises(AttributeError, match="no attribute 'never_public'"):
        orav.never_public  # noqa: B018


def test_the_lazy_map_the_type_checking_imports_and_all_agree():
    tree = ast.parse(Path(orav.__file__).read_text(encoding="utf-8"))
    checked: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom)
                checked |= {alias.name: imported.module for alias in imported.names}
    assert checked == orav._HOME_OF
    assert sorted(orav.__all__) == sorted(checked)


def test_import_orav_loads_nothing_it_does_not_use():
    code = "import sys, orav; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    heavy = {"orav.engine", "orav.cassette", "openai", "textual", "grpclib", "statemachine"}
    assert not heavy & set(loaded)


def test_the_package_says_it_is_typed():
    assert (Path(orav.__file__).parent / "py.typed").exists()


# --- recording a Device of your own --------------------------------------------------------


async def test_a_device_of_your_own_is_recorded_and_replayed_in_a_few_lines(tmp_path: Path):
    # The README's example: a Device instance goes where a device spec would.
    recording = await orav.record(SCENARIO, tmp_path / "mine.cassette", device=my_device())
    replayed = await orav.replay(tmp_path / "mine.cassette")

    assert isinstance(recording, orav.Recording) and recording.report.status == "passed"
    assert replayed.faithful, replayed.differences
    assert read_cassette(recording.cassette).header.device == my_device().info


async def test_use_cassette_wires_device_agent_clock_and_engine(tmp_path: Path):
    path = tmp_path / "mine.cassette"
    device = my_device()
    async with use_cassette(path, SCENARIO, device, clock=VirtualClock()) as recorder:
        report = await recorder.run()
    assert report.status == "passed"
    assert device.performed[-1] == Tap(195, 420, Target(id="sign_in"))  # resolved, then done
    assert "close" not in device.calls  # the device stays the caller's
    assert (await orav.replay(path)).faithful


async def test_a_recording_in_mode_all_that_fails_keeps_the_old_cassette(tmp_path: Path):
    path = tmp_path / "mine.cassette"
    await orav.record(SCENARIO, path, device=my_device())
    before = path.read_bytes()
    broken = my_device()
    broken.queue("describe", DeviceError("127.0.0.1:1: the device went away"))
    with pytest.raises(DeviceError):
        async with use_cassette(path, SCENARIO, broken, record_mode="all"):
            pass
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["mine.cassette"]  # no temp file left


async def test_once_refuses_a_passing_cassette_before_anything_starts(tmp_path: Path):
    path = tmp_path / "mine.cassette"
    await orav.record(SCENARIO, path, device=my_device())
    untouched = my_device()
    with pytest.raises(InputError, match="cassette already exists"):
        async with use_cassette(path, SCENARIO, untouched):
            pass
    assert untouched.calls == []
    with pytest.raises(InputError, match="record mode none records nothing"):
        async with use_cassette(path, SCENARIO, untouched, record_mode="none"):
            pass


def test_record_modes_are_listed_and_checked_in_one_place():
    assert [m.value for m in RecordMode] == ["once", "new_episodes", "all", "none"]
    assert RecordMode.parse("new_episodes") is RecordMode.NEW_EPISODES
    with pytest.raises(InputError, match="unknown record mode 'twice'; expected one of once"):
        RecordMode.parse("twice")
    assert RecordMode.of(None) is RecordMode.ONCE
    assert RecordMode.of(None, overwrite=True) is RecordMode.ALL
    with pytest.raises(InputError, match="--overwrite means --record-mode all, not once"):
        RecordMode.of("once", overwrite=True)


# --- matching a replayed action ------------------------------------------------------------


async def _recorded_tap(path: Path) -> None:
    with CassetteWriter.create(path, Header(scenario=SCENARIO), fsync=False) as writer:
        await RecordingDevice(my_device(), writer).perform(Tap(195, 420, Target(id="sign_in")))


async def test_matching_is_a_named_replaceable_policy(tmp_path: Path):
    path = tmp_path / "tap.cassette"
    await _recorded_tap(path)
    moved = Tap(200, 424, Target(id="sign_in"))  # the layout moved the button a little
    with pytest.raises(ReplayDivergence, match="expected tap"):
        await ReplayDevice(read_cassette(path)).perform(moved)
    loose = ReplayDevice(read_cassette(path), match=Match.on("kind", "target"))
    assert (await loose.perform(moved)).point is not None
    other = ReplayDevice(read_cassette(path), match=Match.on("kind", "target"))
    with pytest.raises(ReplayDivergence):
        await other.perform(Tap(200, 424, Target(id="email")))


def test_a_matcher_is_a_name_or_a_function():
    def same_row(recorded, actual) -> bool:
        return abs(recorded["y"] - actual["y"]) < 10

    policy = Match.on(same_row)
    assert policy.names == ("same_row",)
    assert policy(Tap(10, 100), Tap(300, 105))
    assert not policy(Tap(10, 100), Tap(10, 200))
    assert not Match.on("kind")(Tap(10, 100), TypeText("x"))  # the kind always counts
    with pytest.raises(ValueError, match="unknown matcher 'colour'"):
        Match.on("colour")


# --- the Agent's optional capabilities -----------------------------------------------------


class KeyedAgent:
    """An agent with every optional capability: a model, a secret, something to close."""

    name = "keyed"
    model = "tiny-1"

    def __init__(self) -> None:
        self.closed = False
        self.secrets = ("sk-test-0123456789abcdef",)
        self.script = iter(SCENARIO.script)

    async def decide(self, context: AgentContext) -> Decision:
        decision = next(self.script)
        if decision.action == SIGN_IN:
            return Decision(SIGN_IN, reasoning=f"key {self.secrets[0]} says so")
        return decision

    async def close(self) -> None:
        self.closed = True


async def test_optional_capabilities_are_declared_and_used(tmp_path: Path):
    agent = KeyedAgent()
    assert isinstance(agent, UsesModel) and isinstance(agent, HoldsSecrets)
    assert isinstance(agent, Closable) and not isinstance(orav.ScriptedAgent(), Closable)
    assert model_of(agent) == "tiny-1" and model_of(orav.ScriptedAgent()) == ""
    await close_agent(orav.ScriptedAgent())  # nothing to close: nothing happens
    path = tmp_path / "keyed.cassette"
    await orav.record(SCENARIO, path, device=my_device(), agent=agent)
    assert agent.closed
    assert read_cassette(path).header.model == "tiny-1"
    assert agent.secrets[0].encode() not in path.read_bytes()


# --- the test doubles ----------------------------------------------------------------------


async def test_the_fake_device_follows_its_screens_and_answers_what_is_queued():
    device = my_device()
    assert (await device.observe()) == LOGIN
    result = await device.perform(Tap(195, 420))  # by point: lands on Sign in
    assert result.point is not None and device.screen == "home"
    device.queue("observe", DeviceError("gone"), LOGIN)
    with pytest.raises(DeviceError):
        await device.observe()
    assert await device.observe() == LOGIN and await device.observe() == HOME
    assert device.calls == ["observe", "tap", "observe", "observe", "observe"]
    dead = FakeDevice(HOME, running=False, launches=False)
    await dead.launch(APP)
    assert not await dead.is_running(APP)


async def test_the_virtual_clock_takes_every_sleep_without_waiting():
    clock = VirtualClock(start=100.0)
    started = asyncio.get_running_loop().time()
    await clock.sleep(30)
    assert clock.now() == 130.0 and clock.slept == 30
    assert asyncio.get_running_loop().time() - started < 1
