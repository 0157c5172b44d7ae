"""Live reruns of golden cassettes against the real simulator and a real Textual app: an
unchanged app passes with no model call, a renamed control heals and says so, a removed one is
a regression naming its step, with both screenshots."""

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orav.agents.function import FunctionAgent
from orav.cassette.follow import heal_target
from orav.errors import InputError
from orav.golden import find_scenario, repeat, rerun
from orav.model import Decision, Done, Element, Frame, Observation, Target
from orav.scenario_loader import load_scenario
from orav.session import record
from orav.sim import DEMO_APP

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "recordings"
SCENARIOS = ROOT / "orav" / "scenarios"
SETTINGS_BUTTON = (
    "      - {role: AXButton, id: settings, label: Settings, frame: [290, 47, 92, 44],"
)
REMOVED_TAP = "\n         on_tap: [{to: settings}]}\n"


def golden(name: str) -> tuple[Path, object]:
    return RECORDINGS / f"{name}.cassette", load_scenario(SCENARIOS / f"{name}.yaml")


def demo_app(tmp_path: Path, old: str, new: str) -> str:
    """The demo app model with one edit, as a ``sim:`` device spec."""
    text = DEMO_APP.read_text()
    assert old in text
    path = tmp_path / "demo.yaml"
    path.write_text(text.replace(old, new, 1))
    return f"sim:{path}"


def test_an_unchanged_app_passes_with_no_model_call():
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device="sim", scenario=scenario))
    assert result.status == "passed" and result.report.goal_met
    assert (result.asked, result.served, result.heals, result.regressions) == (0, 3, (), ())
    assert [(w.step, w.screen) for w in result.walked] == [
        (1, "Home"),
        (2, "Settings"),
        (3, "Settings"),
    ]


def test_a_renamed_id_with_the_same_label_heals(tmp_path):
    device = demo_app(tmp_path, "id: settings, label: Settings", "id: preferences, label: Settings")
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    assert result.status == "healed" and result.report.goal_met and result.asked == 0
    [heal] = result.heals
    assert (heal.step, heal.recorded, heal.live, heal.by) == (
        1,
        "#settings",
        "#preferences",
        "label",
    )
    assert "healed step 1: #settings is now #preferences (by label)" in result.explain()


def test_a_control_renamed_in_place_heals_by_position(tmp_path):
    device = demo_app(tmp_path, "id: settings, label: Settings", "id: options, label: Options")
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    assert result.status == "healed"
    assert [(h.live, h.by) for h in result.heals] == [("#options", "position")]


def test_a_removed_button_is_a_regression_at_its_step_with_both_screenshots(tmp_path):
    device = demo_app(tmp_path, SETTINGS_BUTTON + REMOVED_TAP, "\n")
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    assert result.status == "regressed" and not result.report.goal_met
    first = result.first_regression
    assert (first.step, first.kind, first.expected) == (1, "target", "#settings")
    assert first.found == "none on Home"
    assert first.recorded.data and first.live.data and first.recorded != first.live
    saved = result.save_screenshots(tmp_path / "shots")
    assert [p.name for p in saved] == ["step1-recorded.png", "step1-live.png"]


def test_a_check_the_app_no_longer_meets_is_a_goal_regression(tmp_path):
    device = demo_app(tmp_path, "id: settings, label: Settings", "id: preferences, label: Settings")
    cassette, scenario = golden("login")  # its goal: #settings is visible
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    assert result.status == "regressed"
    assert [(r.kind, r.step) for r in result.regressions] == [("goal", 5)]
    assert "#settings is visible" in result.regressions[0].found


def test_a_rerun_that_aborts_at_launch_says_why_not_that_every_step_held(tmp_path):
    device = demo_app(tmp_path, "bundle_id: com.orav.demo", "bundle_id: com.orav.elsewhere")
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    assert result.status == "regressed" and result.report.total_steps == 0
    [ended] = result.regressions
    assert (ended.step, ended.kind) == (0, "ended")
    assert ended.found.startswith("aborted: ") and "no app 'com.orav.demo'" in ended.found
    assert "regression at step 0: ended: expected passed, found aborted: " in result.explain()


def test_the_fallback_agent_is_asked_only_off_the_recorded_path(tmp_path):
    device = demo_app(tmp_path, SETTINGS_BUTTON + REMOVED_TAP, "\n")
    asked = []

    def decide(context):
        asked.append(context.step)
        return Decision(action=Done(success=False, summary="no settings button"))

    cassette, scenario = golden("change_setting")
    result = asyncio.run(
        rerun(cassette, device=device, scenario=scenario, agent=FunctionAgent(decide))
    )
    assert asked == [1] and result.asked == 1 and result.status == "regressed"


def test_a_secret_needs_the_scenario_file_and_a_failed_run_is_no_golden(tmp_path):
    cassette, scenario = golden("change_setting")
    with pytest.raises(InputError, match="types a secret"):
        asyncio.run(rerun(cassette, device="sim"))
    device = demo_app(tmp_path, SETTINGS_BUTTON + REMOVED_TAP, "\n")
    failed = tmp_path / "failed.cassette"
    recording = asyncio.run(record(scenario, failed, device=device))
    assert not recording.report.goal_met
    with pytest.raises(InputError, match=r"did not pass \(failed\): no golden"):
        asyncio.run(rerun(failed, device="sim", scenario=scenario))


def test_the_scenario_is_found_by_name():
    assert find_scenario("change_setting", [SCENARIOS]).goal.startswith("Switch notifications")
    assert find_scenario("no such scenario", [SCENARIOS / "textual"]) is None


def test_repeat_reports_pass_at_k():
    cassette, scenario = golden("open_detail")
    repeated = asyncio.run(repeat(cassette, 2, device="sim", scenario=scenario))
    assert repeated.passed == 2 and not repeated.flaky and repeated.flipped == ()
    assert repeated.explain() == "open_detail.cassette: passed, pass@2 = 2/2"


TEXTUAL_SOURCE = ROOT / "orav" / "demo_tui.py"


def textual_app(tmp_path: Path, monkeypatch, module: str, old: str, new: str) -> str:
    source = TEXTUAL_SOURCE.read_text()
    assert old in source
    (tmp_path / f"{module}.py").write_text(source.replace(old, new, 1))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"textual:{module}:DemoApp"


def test_on_a_textual_app_a_renamed_button_heals_and_a_removed_one_regresses(tmp_path, monkeypatch):
    cassette = RECORDINGS / "textual" / "settings.cassette"
    scenario = load_scenario(SCENARIOS / "textual" / "settings.yaml")
    button = 'yield Button("Settings", id="settings")'
    same = asyncio.run(rerun(cassette, scenario=scenario))  # the scenario's own app
    assert same.status == "passed" and same.asked == 0
    renamed = textual_app(
        tmp_path, monkeypatch, "renamed_tui", button, 'yield Button("Settings", id="prefs")'
    )
    healed = asyncio.run(rerun(cassette, device=renamed, scenario=scenario))
    assert healed.status == "healed"
    assert [(h.step, h.live, h.by) for h in healed.heals] == [(4, "#prefs", "label")]
    removed = textual_app(tmp_path, monkeypatch, "removed_tui", button, "yield Label('')")
    broken = asyncio.run(rerun(cassette, device=removed, scenario=scenario))
    assert broken.status == "regressed"
    first = broken.first_regression
    assert (first.step, first.kind, first.expected) == (4, "target", "#settings")


def test_a_repeat_that_passes_only_sometimes_is_flaky_and_names_the_steps_that_flip():
    from orav.cassette.rerun import Heal, Regression
    from orav.golden import Repeated, Rerun
    from orav.model import RunReport

    ok = RunReport("r", "s", "passed", total_steps=4)
    failed = RunReport("r", "s", "failed", total_steps=4)
    runs = (
        Rerun(Path("a.cassette"), ok, heals=(Heal(2, "#a", "#b", "label"),)),
        Rerun(Path("a.cassette"), failed, regressions=(Regression(4, "screen", "A", "B"),)),
        Rerun(Path("a.cassette"), ok, heals=(Heal(2, "#a", "#b", "label"),)),
    )
    repeated = Repeated(Path("a.cassette"), runs)
    assert (repeated.passed, repeated.flaky, repeated.flipped) == (2, True, (2, 4))
    assert repeated.explain() == "a.cassette: flaky, pass@3 = 2/3; steps that flip: 2, 4"


def test_a_step_on_another_screen_or_with_another_action_in_one_run_flips():
    from orav.cassette.rerun import Walked
    from orav.golden import Repeated, Rerun
    from orav.model import RunReport

    ok = RunReport("r", "s", "passed", total_steps=3)
    path = (Walked(1, "Home", "tap #a"), Walked(2, "List", "tap #row"), Walked(3, "Row", "done"))
    slow = (
        Walked(1, "Home", "tap #a"),
        Walked(2, "Loading", "wait 1.0s"),
        Walked(3, "List", "tap #row"),
        Walked(4, "Row", "done"),
    )
    runs = [Rerun(Path("a.cassette"), ok, walked=walk) for walk in (path, path, slow)]
    repeated = Repeated(Path("a.cassette"), tuple(runs))
    assert not repeated.flaky and repeated.flipped == (2, 3, 4)
    assert Repeated(Path("a.cassette"), tuple(runs[:2])).flipped == ()


names = st.text(alphabet="abcxyz", min_size=1, max_size=6)


@given(
    st.lists(
        st.tuples(names, names), min_size=1, max_size=6, unique_by=(lambda t: t[0], lambda t: t[1])
    ),
    st.data(),
)
def test_a_moved_or_renamed_control_heals_to_itself(controls, data):
    """Buttons in a column; one gets a new id, a new label or both: the heal finds that button
    (by label, by id, by position), and an unchanged screen needs no heal."""

    def button(i, uid, label):
        return Element("AXButton", label=label, unique_id=uid, frame=Frame(0, 50 * i, 100, 40))

    recorded = Observation(tuple(button(i, u, label) for i, (u, label) in enumerate(controls)))
    index = data.draw(st.integers(0, len(controls) - 1))
    change = data.draw(st.sampled_from(["id", "label", "both"]))
    uid, label = controls[index]
    new_uid = "new-" + uid if change in ("id", "both") else uid
    new_label = "New " + label if change in ("label", "both") else label
    live_controls = list(controls)
    live_controls[index] = (new_uid, new_label)
    live = Observation(tuple(button(i, u, lab) for i, (u, lab) in enumerate(live_controls)))
    target = Target(id=uid)
    assert heal_target(recorded, recorded, target) == (recorded.elements[index], "")
    found, by = heal_target(recorded, live, target)
    assert found == live.elements[index]
    assert by == {"id": "label", "label": "", "both": "position"}[change]


def test_a_button_that_leads_elsewhere_is_a_screen_regression_at_the_next_step(tmp_path):
    device = demo_app(tmp_path, "on_tap: [{to: settings}]}", "on_tap: [{to: form}]}")
    cassette, scenario = golden("change_setting")
    result = asyncio.run(rerun(cassette, device=device, scenario=scenario))
    first = result.first_regression
    assert (first.step, first.kind, first.expected) == (2, "screen", "Settings")
    assert first.found != "Settings" and first.recorded.data and first.live.data


def test_orav_rerun_names_the_regression_and_exits_1_where_replay_still_passes(tmp_path):
    """The command a CI job runs: the same golden replays faithfully (orav's engine did not
    change) while the app with its Settings button removed fails the live rerun."""
    from command import orav

    device = demo_app(tmp_path, SETTINGS_BUTTON + REMOVED_TAP, "\n")
    cassette, _ = golden("change_setting")
    shots = tmp_path / "shots"
    done = orav("rerun", cassette, "--device", device, "--screenshots", shots)
    assert done.returncode == 1, done.stderr
    assert "change_setting.cassette: regressed" in done.stdout
    assert "regression at step 1" in done.stdout
    assert (shots / "change_setting" / "step1-live.png").exists()
    healed = demo_app(tmp_path, "id: settings, label: Settings", "id: prefs, label: Settings")
    done = orav("rerun", cassette, "--device", healed)
    assert done.returncode == 0 and "healed step 1" in done.stdout, done.stdout
    done = orav("rerun", tmp_path / "missing.cassette")
    assert done.returncode == 2 and "Traceback" not in done.stderr
