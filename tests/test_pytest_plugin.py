"""The pytest plugin: golden cassettes replayed as test items, the UAT fixtures and the
``live_ai`` marker in a user's project."""

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "recordings" / "planner" / "navigation.cassette"


def test_a_faithful_cassette_passes(pytester):
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "navigation.cassette").write_bytes(GOLDEN.read_bytes())
    result = pytester.runpytest(
        "--orav-cassettes", "golden", "-p", "no:cacheprovider", "-p", "no:asyncio"
    )
    result.assert_outcomes(passed=1)


def test_cassettes_are_not_collected_unless_asked_for(pytester):
    (pytester.path / "navigation.cassette").write_bytes(GOLDEN.read_bytes())
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    assert result.ret == 5  # no tests collected


def test_a_diverging_cassette_fails_with_the_difference(pytester):
    header, rest = GOLDEN.read_bytes().split(b"\n", 1)
    data = json.loads(header)
    data["scenario"]["max_steps"] = 4  # the recorded run took 4 steps, then decided done
    (pytester.path / "cut.cassette").write_bytes(json.dumps(data).encode() + b"\n" + rest)
    pytester.makeini("[pytest]\norav_cassettes = .\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cut.cassette: *status: recorded 'passed', replayed 'step_limit'*"]
    )


USER_TESTS = """
import pytest

from orav.model import Assert, Decision, Done, PressKey, Scenario, Target

COMMITMENT = {scenarios!r} + "/commitment.yaml"


def test_uat_app_has_a_temporary_database(uat_app, tmp_path):
    assert uat_app.database == tmp_path / "uat.sqlite"


def test_the_terminal_size_comes_from_the_ini_file(uat_driver):
    assert uat_driver.size == (120, 40)


def test_a_workflow_passes_with_its_script(uat_driver):
    report = uat_driver.run_sync(COMMITMENT)
    assert report.goal_met and report.screens_visited == ("Home", "Chat", "Commitments")


@pytest.mark.uat_app(seed="demo", today="2026-11-23")
def test_a_function_decides(uat_driver):
    def decide(context):
        screen = context.observation
        if any(e.label == "Grade C" for e in screen.elements):
            return Done(success=True, summary="grade C")
        return Decision(action=PressKey("i"), reasoning="open the integrity dashboard")

    scenario = Scenario(
        name="grade",
        app="planner",
        goal="Read the integrity grade.",
        success_criteria=(Assert(Target(label="Grade C")),),
        settle_seconds=0.05,
    )
    report = uat_driver.run_sync(scenario, agent=decide)
    assert report.goal_met and report.screens_visited == ("Home", "Integrity")


@pytest.mark.live_ai
def test_live_when_marked(uat_driver):
    assert uat_driver.is_live
    raise AssertionError("runs only with credentials")


def test_live_fixture(live_uat_driver):
    raise AssertionError("runs only with credentials")
"""


def scratch_project(pytester) -> None:
    scenarios = Path(__file__).resolve().parent.parent / "orav" / "scenarios" / "planner"
    pytester.makeini("[pytest]\norav_app = orav.demo.planner:PlannerApp\norav_size = 120x40\n")
    pytester.makepyfile(test_workflows=USER_TESTS.format(scenarios=str(scenarios)))


@pytest.mark.slow(
    reason="a user's project run by pytester: six tests, four on the real Planner app in process"
)
def test_a_user_project_uses_the_fixtures_and_the_live_ai_marker(pytester, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ORAV_LIVE_AI"):
        monkeypatch.delenv(name, raising=False)
    scratch_project(pytester)
    result = pytester.runpytest(
        "--strict-markers", "-rs", "-p", "no:cacheprovider", "-p", "no:asyncio"
    )
    result.assert_outcomes(passed=4, skipped=2)
    result.stdout.fnmatch_lines(["*live AI test: set OPENAI_API_KEY*"])


def test_the_live_switch_takes_every_test_live(pytester, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ORAV_LIVE_AI", "1")
    scratch_project(pytester)
    result = pytester.runpytest(
        "-k", "script or live", "-p", "no:cacheprovider", "-p", "no:asyncio"
    )
    result.assert_outcomes(skipped=3)


def test_uat_app_without_an_app_is_a_usage_error(pytester):
    pytester.makepyfile("def test_x(uat_app):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.stdout.fnmatch_lines(["*uat_app needs the app under test*"])


def docs_example() -> str:
    """The pytest example of docs/textual.md, as a user would copy it."""
    text = (ROOT / "docs" / "textual.md").read_text()
    section = text[text.index("## pytest fixtures") :]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    return code.replace("orav/scenarios/", str(ROOT / "orav" / "scenarios") + "/")


def test_the_docs_example_runs(pytester, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ORAV_LIVE_AI"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini("[pytest]\norav_app = orav.demo.planner:PlannerApp\n")
    pytester.makepyfile(test_docs_example=docs_example())
    result = pytester.runpytest("--strict-markers", "-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=2, skipped=1)


LIVE_TEST = """
import pytest


@pytest.mark.live_ai
@pytest.mark.uat_app(seed="demo", today="2026-11-23")
def test_at_risk_with_a_model(uat_driver):
    assert uat_driver.is_live
    report = uat_driver.run_sync("{integrity}")
    assert report.goal_met, report
    assert report.screens_visited == ("Home", "Integrity", "At-risk commitments")
"""


def test_a_live_ai_test_talks_to_the_model_server(pytester, monkeypatch):
    from model_server import answer, serving

    with serving() as model:
        model.answer(
            answer({"kind": "press_key", "key": "i"}, expected='The dashboard shows "Grade C".'),
            answer({"kind": "press_key", "key": "r"}, expected="The at-risk list opens."),
            answer({"kind": "done", "success": True, "summary": "at-risk list open"}),
        )
        monkeypatch.setenv("OPENAI_BASE_URL", model.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.delenv("ORAV_LIVE_AI", raising=False)
        pytester.makeini("[pytest]\norav_app = orav.demo.planner:PlannerApp\n")
        integrity = ROOT / "orav" / "scenarios" / "planner" / "integrity.yaml"
        pytester.makepyfile(test_live=LIVE_TEST.replace("{integrity}", str(integrity)))
        result = pytester.runpytest(
            "--strict-markers", "-p", "no:cacheprovider", "-p", "no:asyncio"
        )
        result.assert_outcomes(passed=1)
        prompts = [body["messages"][1]["content"] for body in model.bodies()]
        first = prompts[0] if isinstance(prompts[0], str) else prompts[0][0]["text"]
        assert 'App "Planner" keys: t, i, q, c, l, p, s' in first


# --- goldens: failed recordings, the orav marker, record modes, live reruns -------------------

DEMO_APP = ROOT / "orav" / "sim" / "demo.yaml"
CHANGE_SETTING = ROOT / "orav" / "scenarios" / "change_setting.yaml"
SETTINGS_BUTTON = (
    "      - {role: AXButton, id: settings, label: Settings, frame: [290, 47, 92, 44],\n"
    "         on_tap: [{to: settings}]}\n"
)
MARKED_TEST = """
import pytest


@pytest.mark.orav(scenario={scenario!r}{extra})
def test_change_setting(orav):
    assert orav.report.status == {status!r}
"""
PLAIN = ("-p", "no:cacheprovider", "-p", "no:asyncio")


def app_model(pytester, name: str, old: str, new: str) -> str:
    """The demo app with one edit, as a ``sim:`` device spec."""
    text = DEMO_APP.read_text()
    assert old in text
    path = pytester.path / f"{name}.yaml"
    path.write_text(text.replace(old, new, 1))
    return f"sim:{path}"


def marked(pytester, extra: str = "", status: str = "passed") -> None:
    source = MARKED_TEST.format(scenario=str(CHANGE_SETTING), extra=extra, status=status)
    pytester.makepyfile(test_app=source)


def test_a_marked_test_records_once_then_replays_its_cassette_named_after_it(pytester):
    marked(pytester)
    cassette = pytester.path / "cassettes" / "test_app" / "test_change_setting.cassette"
    missing = pytester.runpytest(*PLAIN)  # the default mode is none: replay only
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no cassette at *test_change_setting.cassette*mode once*"])
    pytester.runpytest("--orav-record-mode", "once", *PLAIN).assert_outcomes(passed=1)
    assert cassette.exists()
    pytester.runpytest(*PLAIN).assert_outcomes(passed=1)  # replayed offline
    pytester.makeini("[pytest]\norav_record_mode = once\n")  # present: replayed, not recorded
    before = cassette.read_bytes()
    pytester.runpytest(*PLAIN).assert_outcomes(passed=1)
    assert cassette.read_bytes() == before


def test_a_failed_recording_fails_its_test_unless_the_test_expects_it(pytester):
    broken = app_model(pytester, "broken", SETTINGS_BUTTON, "")
    marked(pytester)
    failed = pytester.runpytest("--orav-record-mode", "all", "--orav-device", broken, *PLAIN)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*the run ended failed, not passed*no golden*"])
    replayed = pytester.runpytest(*PLAIN)  # the failed cassette replays faithfully: still red
    replayed.assert_outcomes(failed=1)
    marked(pytester, extra=", expect='failed'", status="failed")
    pytester.runpytest(*PLAIN).assert_outcomes(passed=1)


def test_live_reruns_heal_a_renamed_id_and_fail_a_removed_button(pytester):
    marked(pytester)
    pytester.runpytest("--orav-record-mode", "once", *PLAIN).assert_outcomes(passed=1)
    renamed = app_model(pytester, "renamed", "id: settings,", "id: preferences,")
    removed = app_model(pytester, "removed", SETTINGS_BUTTON, "")
    junit = pytester.path / "junit.xml"
    healed = pytester.runpytest(
        "--orav-live", "--orav-device", renamed, f"--junitxml={junit}", *PLAIN
    )
    healed.assert_outcomes(passed=1)
    assert "healed step 1: #settings is now #preferences (by label)" in junit.read_text()
    replay = pytester.runpytest("--orav-device", removed, *PLAIN)  # a replay never sees the app
    replay.assert_outcomes(passed=1)
    broken = pytester.runpytest("--orav-record-mode", "rerun", "--orav-device", removed, *PLAIN)
    broken.assert_outcomes(failed=1)
    broken.stdout.fnmatch_lines(
        ["*regressed*", "*regression at step 1: target: expected #settings*"]
    )


def test_collected_cassettes_of_failed_runs_fail_and_rerun_live(pytester):
    broken = app_model(pytester, "broken", SETTINGS_BUTTON, "")
    marked(pytester)
    pytester.runpytest("--orav-record-mode", "once", *PLAIN).assert_outcomes(passed=1)
    recorded = pytester.path / "cassettes" / "test_app" / "test_change_setting.cassette"
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "good.cassette").write_bytes(recorded.read_bytes())
    pytester.runpytest("--orav-record-mode", "all", "--orav-device", broken, *PLAIN)
    pytester.makeini("[pytest]\ntestpaths = elsewhere\n")  # as in the orav repo: tests/ only
    (pytester.path / "elsewhere").mkdir()
    result = pytester.runpytest(
        "--orav-cassettes", "cassettes", "--orav-cassettes", "golden", *PLAIN
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_change_setting.cassette: the run ended failed*"])
    scenarios = str(ROOT / "orav" / "scenarios")
    live = ("--orav-cassettes", "golden", "--orav-live", "--orav-scenarios", scenarios)
    regressed = pytester.runpytest(*live, "--orav-device", broken, *PLAIN)
    regressed.assert_outcomes(failed=1)
    regressed.stdout.fnmatch_lines(
        [
            "good.cassette: regressed (failed, *",
            "*regression at step 1: target: expected #settings*",
        ]
    )
    pytester.runpytest(*live, "--orav-repeat", "2", *PLAIN).assert_outcomes(passed=1)


REGRESSION_CHECKED = """
import pytest


@pytest.mark.orav(scenario={scenario!r})
def test_open_detail(orav):
    assert orav.report.goal_met
"""


def test_a_marked_live_run_revisits_the_passing_flows_and_fails_on_a_regression(pytester):
    (pytester.path / "golden").mkdir()
    golden = ROOT / "recordings" / "change_setting.cassette"
    (pytester.path / "golden" / "change_setting.cassette").write_bytes(golden.read_bytes())
    scenario = str(ROOT / "orav" / "scenarios" / "open_detail.yaml")
    pytester.makepyfile(test_app=REGRESSION_CHECKED.format(scenario=scenario))
    broken = app_model(pytester, "broken", SETTINGS_BUTTON, "")
    junit = pytester.path / "junit.xml"
    check = ("--orav-record-mode", "all", "--orav-regression-check", "golden")
    failed = pytester.runpytest(*check, "--orav-device", broken, f"--junitxml={junit}", *PLAIN)
    failed.assert_outcomes(failed=1)  # open_detail passed; the flow it revisited did not
    failed.stdout.fnmatch_lines(
        [
            "*regression check: 1 passing flow revisited: 1 regressed*",
            "*change_setting.cassette (change_setting): regressed*",
            "*regression at step 1: target: expected #settings, found none on Home*",
        ]
    )
    assert 'name="orav_regression_check"' in junit.read_text()
    pytester.runpytest(*check, *PLAIN).assert_outcomes(passed=1)  # the unchanged app


def test_the_plugins_record_modes_are_orav_records_and_rerun(pytester):
    from orav.cassette.record_mode import RecordMode

    pytester.makepyfile(test_app="def test_nothing():\n    pass\n")
    for mode in [*RecordMode, "rerun"]:
        chosen = pytester.runpytest("--orav-record-mode", mode, "--co", *PLAIN)
        assert chosen.ret == 0, (mode, chosen.stderr.str())
    pytester.makeini("[pytest]\norav_record_mode = twice\n")
    bad = pytester.runpytest("--co", *PLAIN)
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    said = bad.stderr.str()
    assert "orav_record_mode: 'twice' is not a record mode" in said
    assert all(mode in said for mode in [*RecordMode, "rerun"]), said


CLASS_MARKED = """
import pytest


@pytest.mark.orav(scenario="two_items.yaml", device="class:todo_device:TodoDevice")
def test_two_items(orav):
    assert orav.report.total_steps == 6
"""


def test_a_marker_and_orav_device_name_a_device_class_of_the_project(pytester):
    examples = ROOT / "docs" / "examples"
    (pytester.path / "todo_device.py").write_text((examples / "todo_device.py").read_text())
    (pytester.path / "two_items.yaml").write_text(
        (examples / "todo" / "two_items.yaml").read_text()
    )
    pytester.makepyfile(test_todo=CLASS_MARKED)
    pytester.runpytest("--orav-record-mode", "once", *PLAIN).assert_outcomes(passed=1)
    wrong = pytester.runpytest(
        "--orav-record-mode", "all", "--orav-device", "class:todo_device:TodoApp", *PLAIN
    )
    wrong.assert_outcomes(failed=1)
    wrong.stdout.fnmatch_lines(["*--device: todo_device:TodoApp is no orav Device: it has none*"])
