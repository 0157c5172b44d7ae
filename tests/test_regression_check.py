"""The regression check in a run (the seed's fourth heuristic) against the real simulator:
after a goal is reached, the passing flows of the same app are rerun live; an app changed so
that one earlier flow breaks names that flow, its step and both screenshots; an unchanged app
is clean; the check keeps to its budget and passes over what is no golden."""

import asyncio
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from command import orav

from orav.errors import InputError
from orav.regression_check import check_regressions, find_flows
from orav.report.revisits import add_to_junit, read_revisits, write_revisits
from orav.scenario_loader import load_scenario
from orav.session import record
from orav.sim import DEMO_APP

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "orav" / "scenarios"
SETTINGS_BUTTON = (
    "      - {role: AXButton, id: settings, label: Settings, frame: [290, 47, 92, 44],\n"
    "         on_tap: [{to: settings}]}\n"
)


def passing_flows(folder: Path, *names: str) -> Path:
    """A folder of the demo app's goldens, as a team keeps them."""
    folder.mkdir()
    for name in names:
        shutil.copy(ROOT / "recordings" / f"{name}.cassette", folder)
    return folder


def run_then_check(tmp_path: Path, device: str, **budget) -> tuple[object, Path]:
    """Record open_detail (it never touches the Settings button) on ``device``; once its goal
    is reached, revisit the passing flows on the same device."""
    flows = find_flows([passing_flows(tmp_path / "goldens", "change_setting", "submit_form")])
    scenario = load_scenario(SCENARIOS / "open_detail.yaml")
    out = tmp_path / "run" / "open_detail.cassette"
    recording = asyncio.run(record(scenario, out, device=device))
    assert recording.report.goal_met  # the run under test reached its goal
    check = asyncio.run(
        check_regressions(
            flows, app=scenario.app, device=device, skip=[out], scenarios=[SCENARIOS], **budget
        )
    )
    return check, out


def test_an_app_that_broke_an_earlier_flow_is_named_with_its_step_and_screenshots(tmp_path):
    broken = tmp_path / "broken.yaml"
    text = DEMO_APP.read_text()
    assert SETTINGS_BUTTON in text
    broken.write_text(text.replace(SETTINGS_BUTTON, "", 1))
    check, out = run_then_check(tmp_path, f"sim:{broken}")
    assert not check.ok
    assert [(r.cassette.name, r.status) for r in check.revisits] == [
        ("change_setting.cassette", "regressed"),
        ("submit_form.cassette", "passed"),
    ]
    [revisit] = check.regressed
    [regression] = revisit.regressions
    assert (regression.step, regression.kind, regression.expected, regression.found) == (
        1,
        "target",
        "#settings",
        "none on Home",
    )
    assert regression.recorded.data and regression.live.data
    assert "change_setting.cassette (change_setting): regressed" in check.explain()

    written = write_revisits(check, out)  # what the reports render
    assert written.name == "open_detail.regressions.json"
    again = read_revisits(out)
    assert read_revisits(out, run_id="a later run") is None  # it followed another run
    assert again.regressed[0].regressions[0].live.sha256 == regression.live.sha256
    assert again.regressed[0].regressions[0].recorded.data == regression.recorded.data

    junit = tmp_path / "junit.xml"
    add_to_junit(check, junit, app="com.orav.demo")
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    [failure] = root.iter("failure")
    assert failure.get("message") == (
        "regression at step 1: target: expected #settings, found none on Home"
    )


def test_an_unchanged_app_is_clean(tmp_path):
    check, _ = run_then_check(tmp_path, "sim")
    assert check.ok and [r.status for r in check.revisits] == ["passed", "passed"]
    assert all(not r.heals and not r.regressions for r in check.revisits)


def test_the_budget_leaves_flows_unchecked_never_regressed(tmp_path):
    flows = find_flows([passing_flows(tmp_path / "goldens", "change_setting", "open_detail")])
    check = asyncio.run(
        check_regressions(
            flows, app="com.orav.demo", device="sim", scenarios=[SCENARIOS], max_steps=2
        )
    )
    assert check.ok
    assert [(r.status, r.reason) for r in check.revisits] == [
        ("unchecked", "the check's steps ran out at step 2"),
        ("unchecked", "the check's steps ran out"),
    ]


def test_other_apps_flows_and_failed_recordings_are_not_revisited(tmp_path):
    folder = passing_flows(tmp_path / "goldens", "change_setting")
    shutil.copy(ROOT / "recordings" / "shop" / "add_to_cart.cassette", folder)
    broken = tmp_path / "broken.yaml"
    broken.write_text(DEMO_APP.read_text().replace(SETTINGS_BUTTON, "", 1))
    scenario = load_scenario(SCENARIOS / "change_setting.yaml")
    failed = folder / "failed.cassette"
    assert not asyncio.run(record(scenario, failed, device=f"sim:{broken}")).report.goal_met
    check = asyncio.run(
        check_regressions(
            find_flows([folder]), app="com.orav.demo", device="sim", scenarios=[SCENARIOS]
        )
    )
    assert [r.cassette.name for r in check.revisits] == ["change_setting.cassette"]
    assert check.not_goldens == (failed,)
    assert "failed.cassette: passed over (its recorded run did not pass)" in check.explain()


def test_flows_that_name_nothing_are_refused_before_any_run(tmp_path):
    with pytest.raises(InputError, match="no .cassette file in this folder"):
        find_flows([tmp_path])


# --- the check as the commands run it: orav record and orav explore --regression-check -------


def broken_app(tmp_path: Path) -> str:
    path = tmp_path / "broken.yaml"
    path.write_text(DEMO_APP.read_text().replace(SETTINGS_BUTTON, "", 1))
    return f"sim:{path}"


def test_orav_record_names_the_earlier_flow_the_app_broke_in_its_output_and_junit(tmp_path):
    goldens = passing_flows(tmp_path / "goldens", "change_setting", "submit_form")
    out, junit = tmp_path / "run" / "open_detail.cassette", tmp_path / "junit.xml"
    scenario = SCENARIOS / "open_detail.yaml"
    common = ("--out", out, "--regression-check", goldens, "--junit", junit, "-q")
    done = orav("record", scenario, "--device", broken_app(tmp_path), *common, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the run passed; an earlier flow regressed
    assert "regression check: 2 passing flows revisited: 1 passed, 1 regressed" in done.stdout
    assert "regression at step 1: target: expected #settings, found none on Home" in done.stdout
    assert read_revisits(out).regressed[0].cassette.name == "change_setting.cassette"
    page = out.with_suffix(".html").read_text()  # written again after the check: it shows it
    assert 'id="regression-check"' in page and "change_setting" in page
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert cases["open_detail"].find("failure") is None
    assert cases["regression check: change_setting"].find("failure") is not None
    assert cases["regression check: submit_form"].find("failure") is None

    (tmp_path / "orav.toml").write_text('regression_check = "goldens"\n')  # for every run
    again = orav("record", scenario, "--record-mode", "all", "--out", out, "-q", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr  # the unchanged app: clean
    assert "2 passing flows revisited: 2 passed" in again.stdout


def test_the_config_names_the_flows_relative_to_itself_and_a_bad_value_is_located(tmp_path):
    from orav.config import load_config

    (tmp_path / "orav.toml").write_text('workers = 1\nregression_check = ["goldens", "x"]\n')
    config = load_config(tmp_path / "orav.toml")
    assert config.regression_check == tuple(str(tmp_path / n) for n in ("goldens", "x"))
    (tmp_path / "orav.toml").write_text("workers = 1\nregression_check = 3\n")
    with pytest.raises(InputError, match=r"orav.toml:2: regression_check: expected a list or str"):
        load_config(tmp_path / "orav.toml")


def test_orav_explore_revisits_the_passing_flows_after_exploring(tmp_path):
    goldens = passing_flows(tmp_path / "goldens", "change_setting")
    (tmp_path / "orav.toml").write_text(f"scenarios = [{str(SCENARIOS)!r}]\n")
    out = tmp_path / "explore.cassette"
    done = orav(
        "explore",
        "--device",
        broken_app(tmp_path),
        "--max-steps",
        "8",
        "--out",
        out,
        "--regression-check",
        goldens,
        "-q",
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "change_setting.cassette (change_setting): regressed" in done.stdout
    assert read_revisits(out).revisits[0].regressions[0].kind == "target"


def test_a_regression_check_path_that_names_nothing_is_bad_input_before_any_run(tmp_path):
    done = orav(
        "record",
        SCENARIOS / "open_detail.yaml",
        "--out",
        tmp_path / "x.cassette",
        "--regression-check",
        tmp_path / "missing",
        cwd=tmp_path,
    )
    assert done.returncode == 2 and not (tmp_path / "x.cassette").exists()
    assert "missing" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "expected a mapping"),
        ("nan", ":1:1: not valid JSON"),
        ("[" * 5000, "nested deeper than 64 levels"),
        ('{"revisits": 3, "not_goldens": []}', "not a regression check orav wrote"),
    ],
)
def test_a_damaged_regression_check_file_is_one_located_input_error(tmp_path, text, said):
    cassette = tmp_path / "login.cassette"
    cassette.with_suffix(".regressions.json").write_text(text)
    with pytest.raises(InputError) as raised:
        read_revisits(cassette)
    assert said in str(raised.value)
    assert "login.regressions.json" in str(raised.value)
