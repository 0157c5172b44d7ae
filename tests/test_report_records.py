"""The seeds' own records in the JSON report (seed 000): a verify record per step
(``verification``, ``observation``, ``state_change``, ``next_action``) and the running state
(``current_screen``, ``steps_taken``, ``screens_visited``, ``errors_encountered``, coverage),
written by ``orav record`` beside orav's own fields, on Gezeiten (tests/report_apps), a
tide-table app whose screens orav's code never saw, with a crash at its third input."""

import json
from pathlib import Path

from command import orav
from hypothesis import given
from hypothesis import strategies as st

from orav.model import RunningState

HERE = Path(__file__).parent
APP = HERE / "report_apps" / "gezeiten.yaml"
SCENARIO = HERE / "report_apps" / "gezeiten_alarm.yaml"


def test_the_json_report_holds_the_seeds_verify_records_and_running_state(tmp_path: Path):
    out = tmp_path / "gezeiten.cassette"
    result = orav("record", SCENARIO, "--device", f"sim:{APP}", "--out", out)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.with_suffix(".report.json").read_text())
    assert report["status"] == "completed_with_errors"  # orav's own fields stay as they were
    steps = report["steps"]
    assert [s["step"] for s in steps] == list(range(1, report["total_steps"] + 1))
    assert set(steps[0]) == {
        "step", "action", "verification", "observation", "state_change", "next_action",
    }  # fmt: skip
    first, crashed = steps[0], steps[2]
    assert first["action"] == "tap #hafen_husum"
    assert first["verification"] == "success"
    assert first["state_change"] == "Häfen → Husum"  # the screens' own titles
    assert first["next_action"] == steps[1]["action"]
    assert crashed["verification"] == "failure"
    assert crashed["state_change"] == "Husum → the app stopped"
    assert crashed["next_action"] == "recover: crash"
    state = report["state"]
    assert state["current_screen"] == "Husum"
    assert state["steps_taken"] == report["total_steps"]
    assert state["screens_visited"] == ["Häfen", "Husum"]
    assert [e.split(":")[0] for e in state["errors_encountered"]] == [
        f"step {e['step']}" for e in report["errors"]
    ]
    assert state["coverage"] == {
        "screens_tested": 2,
        "elements_interacted": len(report["elements_interacted"]),
        "paths_explored": 2,  # Häfen → Husum, and back after the relaunch
    }


@given(st.lists(st.sampled_from(["", "Start", "Liste", "Karte", "Ende"]), max_size=12))
def test_the_running_state_counts_each_screen_and_each_move_once(screens: list[str]):
    state = RunningState.of(screens, steps=len(screens))
    named = [s for s in screens if s]
    assert list(state.screens_visited) == list(dict.fromkeys(named))
    assert state.current_screen == (screens[-1] if screens else "")
    pairs = [(screens[i], screens[i + 1]) for i in range(len(screens) - 1)]
    moves = {(a, b) for a, b in pairs if a and b and a != b}
    assert state.coverage.paths_explored == len(moves)
    assert state.coverage.screens_tested == len(set(named))


def test_the_models_prompt_carries_the_running_state_in_one_short_line():
    from orav.agents import AgentContext
    from orav.agents.prompt import user_text
    from orav.model import (
        ActionResult,
        Decision,
        Element,
        Frame,
        Observation,
        Scenario,
        Tap,
        Target,
        Verification,
    )
    from orav.model.step import Step

    shown = Element("AXHeading", "Gezeitentafel", frame=Frame(0, 47, 390, 44))
    now = Observation(elements=(shown,))
    walk = ["Häfen", "Husum", "Häfen", "Büsum", "Husum"]
    history = tuple(
        Step(i, screen, Decision(Tap(target=Target(id=f"z{i}"))), ActionResult(ok=i != 3),
             Verification(changed=True))
        for i, screen in enumerate(walk, 1)
    )  # fmt: skip
    context = AgentContext(Scenario("g", "de.gezeiten.app", "Alarm"), now, 6, history=history)
    text, _ = user_text(context, 8, None)
    (line,) = [x for x in text.splitlines() if x.startswith("State: ")]
    assert line.startswith('State: on "Gezeitentafel" after 5 steps; 4 screens seen')
    assert '"Häfen", "Husum", "Büsum", "Gezeitentafel"' in line
    assert "5 moves between them" in line  # Häfen→Husum, Husum→Häfen, Häfen→Büsum, …
    assert "1 failed steps (latest: 3)" in line
    assert len(line) < 300
