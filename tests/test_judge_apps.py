"""A scenario whose criteria are sentences on each shipped app (the iOS demo, the shop, the
Textual planner): recorded with the model stand-in as the judge (the real openai client over
HTTP to 127.0.0.1), replayed offline with no server, and rerun live on a screen that changed,
where exactly the judgement of that screen is asked again and the others are served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import orav
from standin import StandIn, serving

from orav.sim.apps import DEMO_APP, SHOP_APP

BENCH = Path(__file__).resolve().parents[1] / "orav" / "scenarios" / "bench"
PLANNER = "textual:orav.demo.planner:PlannerApp?today=2026-11-23&seed="


def _changed(tmp_path: Path, app: Path, old: str, new: str) -> str:
    """The app model with one label changed: the device spec of its copy."""
    text = app.read_text()
    assert old in text
    copy = tmp_path / app.name
    copy.write_text(text.replace(old, new, 1))
    return f"sim:{copy}"


CASES = {
    # task: (device, the claim whose screen the rerun changes, the changed device)
    "demo_sign_in": (
        "sim",
        "the sign-in form is showing",
        lambda tmp: _changed(tmp, DEMO_APP, "Welcome to Demo", "Welcome back to Demo"),
    ),
    "shop_two_mugs": (
        "sim",
        "the catalogue shows the enamel mug",
        lambda tmp: _changed(tmp, SHOP_APP, "title: Cotton tee", "title: Organic tee"),
    ),
    "planner_reminders_off": (
        PLANNER + "demo",
        "the home screen says how many items wait in the inbox",
        lambda tmp: PLANNER + "empty",  # another inbox count on the home screen
    ),
}


@pytest.mark.slow(
    reason="four orav processes per app: record, replay, rerun, rerun on a changed screen"
)
@pytest.mark.parametrize("task", sorted(CASES))
def test_sentences_recorded_with_a_model_replayed_offline_rerun_asks_only_a_changed_screen(
    tmp_path: Path, task: str
) -> None:
    device, changed_claim, changed = CASES[task]
    scenario = BENCH / f"{task}.yaml"
    cassette = tmp_path / f"{task}.cassette"
    model = StandIn()
    with serving(model) as url:
        done = orav(
            "record", scenario, "--device", device, "--judge", "openai:stand-in",
            "--base-url", url, "--out", cassette,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    claims = [j["claim"] for j in report["judgements"]]
    assert claims == model.judged and changed_claim in claims and len(claims) >= 2
    assert report["goals_achieved"] == [
        c for c in claims if c != changed_claim and "switched on" not in c
    ]
    assert all(j["evidence"].startswith("the screen shows") for j in report["judgements"])
    html = cassette.with_suffix(".html").read_text()
    assert 'id="judgements"' in html and changed_claim in html

    replayed = orav("replay", cassette)  # the stand-in is gone: nothing to ask
    assert replayed.returncode == 0, replayed.stderr

    same = orav("rerun", cassette, "--device", device, "--scenario", scenario)
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"{len(claims)} judgements served, 0 asked again" in same.stdout

    again = StandIn()
    with serving(again) as url:
        rerun = orav(
            "rerun", cassette, "--device", changed(tmp_path), "--scenario", scenario,
            "--judge", "openai:stand-in", "--base-url", url,
        )  # fmt: skip
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert again.judged == [changed_claim]
    assert f"{len(claims) - 1} judgements served, 1 asked again" in rerun.stdout
    assert f"judged again (the screen changed): {changed_claim!r}" in rerun.stdout


def test_a_rerun_on_a_changed_screen_without_a_judge_fails_saying_so(tmp_path: Path) -> None:
    # The bench task names its judge (judge: table:judge.table): this copy names none.
    shipped = (BENCH / "demo_sign_in.yaml").read_text()
    assert "\njudge: table:judge.table\n" in shipped
    scenario = tmp_path / "demo_sign_in.yaml"
    scenario.write_text(shipped.replace("\njudge: table:judge.table\n", "\n"))
    cassette = tmp_path / "demo.cassette"
    table = BENCH / "judge.table"
    done = orav("record", scenario, "--judge", f"table:{table}", "--out", cassette)
    assert done.returncode == 0, done.stderr
    changed = _changed(tmp_path, DEMO_APP, "Welcome to Demo", "Welcome back to Demo")
    rerun = orav("rerun", cassette, "--device", changed, "--scenario", scenario)
    assert rerun.returncode == 1
    assert "no judge was given to ask (--judge)" in rerun.stdout + rerun.stderr
