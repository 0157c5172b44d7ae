"""The decision cache heals as a rerun does: ``orav record --record-mode new_episodes`` with an
LLM agent (the real openai client over HTTP to the loopback model server, which counts its
calls) reuses every recorded decision on an app changed in the ways ``orav rerun`` heals, lists
the heals, and asks the model again only where the screen is no longer the recorded one.

The app is Kestrel (tests/unseen_apps/kestrel.yaml), a ferry booking written for this test:
its words, ids and layout are nobody's in orav's code.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cache_changes import ANSWERS, BOARD, CHANGES, KESTREL, PASSWORD, REPLACED, changed
from command import orav
from model_server import ModelServer, serving

from orav.agents import AgentContext
from orav.cassette import DecideEvent, read_cassette
from orav.cassette.follow import Held, Missed, RecordedDecision, follow
from orav.model import Decision, Element, Frame, Observation, Scenario, Tap, Target, TypeText


def record(server: ModelServer, out: Path, app: Path, *more: str):
    return orav(
        "record", BOARD, "--out", out, "--device", f"sim:{app}",
        "--agent", "openai:gpt-4o-mini", "--base-url", server.url, *more,
    )  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """Kestrel's booking recorded once with the model: 8 calls."""
    folder = tmp_path_factory.mktemp("kestrel")
    with serving() as server:
        server.answer(*ANSWERS)
        out = folder / "board.cassette"
        result = record(server, out, KESTREL)
        assert result.returncode == 0, result.stdout + result.stderr
        assert len(server.requests) == len(ANSWERS)
    return out


def test_the_recording_holds_the_passwords_stand_in_never_its_value(recorded: Path):
    text = recorded.read_text()
    assert PASSWORD not in text
    typed = [
        e.decision.action
        for e in read_cassette(recorded).events
        if isinstance(e, DecideEvent) and isinstance(e.decision.action, TypeText)
    ]
    assert [(t.text, t.secure) for t in typed] == [
        ("skipper@kestrel.example", False),
        ("{{password}}", True),
    ]


def test_an_unchanged_app_asks_the_model_nothing(recorded: Path, tmp_path: Path):
    out = tmp_path / "board.cassette"
    shutil.copy(recorded, out)
    with serving() as server:
        result = record(server, out, KESTREL, "--record-mode", "new_episodes")
        assert result.returncode == 0, result.stdout + result.stderr
        assert server.requests == []
    assert "8 decisions reused from the old cassette, 0 asked of openai" in result.stdout
    assert "healed" not in result.stdout
    assert PASSWORD not in out.read_text()
    replayed = orav("replay", out)
    assert replayed.returncode == 0 and "faithful" in replayed.stdout, replayed.stdout


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_rerun_heals_is_healed_with_no_model_call(recorded: Path, tmp_path: Path, change):
    edits, heals = CHANGES[change]
    app = changed(tmp_path, edits)
    out = tmp_path / "board.cassette"
    shutil.copy(recorded, out)
    with serving() as server:
        result = record(server, out, app, "--record-mode", "new_episodes")
        assert result.returncode == 0, result.stdout + result.stderr
        assert server.requests == []  # 0 model calls
    assert "8 decisions reused from the old cassette, 0 asked of openai" in result.stdout
    assert [line.strip() for line in result.stdout.splitlines() if "healed" in line] == heals
    # The one matcher: a rerun of the same cassette on the same app heals the same steps.
    rerun = orav("rerun", recorded, "--device", f"sim:{app}", "--scenario", BOARD)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert [line.strip() for line in rerun.stdout.splitlines() if "healed step" in line] == heals


def test_a_screen_nothing_heals_is_asked_again_from_there_on(recorded: Path, tmp_path: Path):
    """The crossings become a timetable (another screen): the model is asked from step 6 on,
    and the rerun names the same step as a regression."""
    app = changed(tmp_path, REPLACED)
    out = tmp_path / "board.cassette"
    shutil.copy(recorded, out)
    with serving() as server:
        server.answer(*ANSWERS[5:])
        result = record(server, out, app, "--record-mode", "new_episodes")
        assert result.returncode == 0, result.stdout + result.stderr
        assert len(server.requests) == 3
    assert "5 decisions reused from the old cassette, 3 asked of openai" in result.stdout
    reused = [e.reused for e in read_cassette(out).events if isinstance(e, DecideEvent)]
    assert reused == [True] * 5 + [False] * 3
    rerun = orav("rerun", recorded, "--device", f"sim:{app}", "--scenario", BOARD)
    assert rerun.returncode == 1
    assert "regression at step 6: screen: expected Crossings today, found Timetable" in rerun.stdout


# --- the matcher on screens of its own ----------------------------------------------------------


def field(value: str | None = None, focused: bool = True) -> Element:
    return Element(
        "AXTextField",
        "Handle",
        "handle",
        value=value,
        focused=focused,
        frame=Frame(20, 200, 350, 44),
    )


def screen(*elements: Element) -> Observation:
    title = Element("AXHeading", "Profile", frame=Frame(0, 47, 390, 44))
    return Observation(elements=(title, *elements), app="com.example.gull")


async def followed(decision: Decision, seen: Observation, live: Observation) -> Held | Missed:
    recorded = RecordedDecision(3, decision, seen, None)
    scenario = Scenario(name="gull", app="com.example.gull", goal="set a handle")
    return await follow(recorded, AgentContext(scenario, live, 3, ()))


async def test_text_goes_only_into_a_field_holding_what_it_held():
    typed = Decision(TypeText("ada"))
    assert isinstance(await followed(typed, screen(field()), screen(field())), Held)
    missed = await followed(typed, screen(field()), screen(field("grace")))
    assert missed == Missed("field", "#handle holding ''", "#handle holding 'grace'")


async def test_a_tap_by_coordinates_follows_its_control():
    """A tap by a point means the control under it: it keeps its place on the control."""
    save = Element("AXButton", "Keep", frame=Frame(20, 300, 100, 40))
    tap = Decision(Tap(30, 310))
    moved = Element("AXButton", "Keep", frame=Frame(220, 500, 100, 40))
    held = await followed(tap, screen(save), screen(moved))
    assert isinstance(held, Held) and held.decision.action == Tap(230, 510)
    assert held.heal is not None and held.heal.by == "moved"
    gone = await followed(tap, screen(save), screen(Element("AXStaticText", "Saved")))
    assert isinstance(gone, Missed) and gone.kind == "target"
    picture = Decision(Tap(300, 700))  # on no control: played as recorded
    held = await followed(picture, screen(save), screen(moved))
    assert isinstance(held, Held) and held.decision == picture and held.heal is None


async def test_a_target_that_holds_as_recorded_is_no_heal():
    keep = Element("AXButton", "Keep", "keep", frame=Frame(20, 300, 100, 40))
    tap = Decision(Tap(target=Target(label="Keep", id="keep")))
    held = await followed(tap, screen(keep), screen(keep))
    assert held == Held(tap)
