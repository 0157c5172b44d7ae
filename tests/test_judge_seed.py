"""Seed 000's goal-directed YAML exactly as written: no `app:`, named states no `states:`
defines. It validates; it runs on an app it never heard of (the device's only app) with the
model stand-in deciding over the real openai client and judging the named states in words;
the judgements are recorded and replay with no server."""

from __future__ import annotations

import json
from pathlib import Path

from command import orav
from standin import StandIn, serving

from orav import session
from orav.agents.openai import OpenAIAgent
from orav.scenario_loader import load_scenario

# /work/shared/seeds/000: "Operating Modes / Goal-Directed", as written.
SEED = """\
name: Login Flow
goal: "Log in with test credentials and verify authenticated state"
preconditions:
  - app_launched: true
  - logged_in: false
success_criteria:
  - logged_in: true
  - home_screen_visible: true
max_steps: 20
"""

# An app the code never saw: a members' gate with a plot number and a gate code.
ALLOTMENT = """\
name: Allotment
bundle_id: club.allotment.members
start: gate
screens:
  gate:
    title: Members' gate
    elements:
      - {role: AXStaticText, label: Allotment club, traits: [header], frame: [20, 110, 350, 40]}
      - {role: AXTextField, id: plot, label: Plot number, frame: [20, 180, 350, 44]}
      - {role: AXTextField, id: gate_code, label: Gate code, secure: true,
         frame: [20, 240, 350, 44]}
      - {role: AXStaticText, id: gate_error, label: "", hidden: true, tone: error,
         frame: [20, 292, 350, 28]}
      - role: AXButton
        id: open_gate
        label: Open the gate
        frame: [20, 330, 350, 50]
        on_tap:
          - {when: {plot: "14", gate_code: "4471"}, to: beds, reset: true}
          - {show: gate_error, message: That plot and code do not match}
  beds:
    title: Your beds
    elements:
      - {role: AXStaticText, id: member, label: Plot 14 - you are in, frame: [20, 100, 350, 30]}
      - {role: AXCell, id: bed_tomatoes, label: Tomatoes, frame: [0, 140, 390, 56]}
      - {role: AXCell, id: bed_beans, label: Runner beans, frame: [0, 196, 390, 56]}
"""

TAP = {"kind": "tap", "x": None, "y": None, "duration": None}
PLAN = [
    ("Plot number", TAP),
    (None, {"kind": "type_text", "text": "14"}),
    ("Gate code", TAP),
    (None, {"kind": "type_text", "text": "4471"}),
    ("Open the gate", TAP),
    (None, {"kind": "done", "success": True, "summary": "Through the gate."}),
]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    seed = tmp_path / "login_flow.yaml"
    seed.write_text(SEED)
    app = tmp_path / "allotment.yaml"
    app.write_text(ALLOTMENT)
    return seed, app


def test_the_seed_as_written_validates_and_names_its_goals_as_written(tmp_path: Path) -> None:
    seed, _ = _files(tmp_path)
    done = orav("validate", seed)
    assert done.returncode == 0, done.stderr
    scenario = load_scenario(seed)
    assert scenario.app == ""  # the device's only app
    assert [(c.claim, c.name) for c in scenario.preconditions] == [
        ("not logged in", "not logged_in")
    ]
    assert [(c.claim, c.name) for c in scenario.success_criteria] == [
        ("logged in", "logged_in"),
        ("home screen visible", "home_screen_visible"),
    ]


def test_without_app_a_device_of_several_apps_names_them(tmp_path: Path) -> None:
    seed, _ = _files(tmp_path)
    done = orav(
        "record",
        seed,
        "--device",
        "sim",
        "--judge",
        "openai:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--out",
        tmp_path / "x.cassette",
    )
    assert done.returncode == 2
    assert "names no app" in done.stderr
    assert "com.orav.demo" in done.stderr and "com.orav.shop" in done.stderr
    assert not (tmp_path / "x.cassette").exists()


def test_words_without_a_judge_are_refused_before_anything_starts(tmp_path: Path) -> None:
    seed, app = _files(tmp_path)
    done = orav("record", seed, "--device", f"sim:{app}", "--out", tmp_path / "x.cassette")
    assert done.returncode == 2
    assert "claims in words ('not logged in' and 2 more)" in done.stderr
    assert "--judge" in done.stderr


def test_the_seed_runs_with_a_loopback_judge_and_replays_with_no_server(tmp_path: Path) -> None:
    seed, app = _files(tmp_path)
    cassette = tmp_path / "login_flow.cassette"
    model = StandIn(PLAN)
    with serving(model) as url:
        done = orav(
            "record", seed, "--device", f"sim:{app}", "--agent", "openai:stand-in",
            "--base-url", url, "--out", cassette,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the agent's own model judged: the precondition on the gate, the criteria on the beds
    assert model.judged == ["not logged in", "logged in", "home screen visible"]
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    assert report["status"] == "passed"
    assert report["goals_achieved"] == ["logged_in", "home_screen_visible"]
    judged = report["judgements"]
    assert [(j["step"], j["claim"], j["holds"]) for j in judged] == [
        (0, "not logged in", True),
        (6, "logged in", True),
        (6, "home screen visible", True),
    ]
    assert "Plot number" in judged[0]["evidence"] and "Tomatoes" in judged[1]["evidence"]
    assert judged[0]["screen"] != judged[1]["screen"] == judged[2]["screen"]
    lines = [json.loads(line) for line in cassette.read_text().splitlines()]
    events = [line for line in lines if line["type"] == "judge"]
    assert [e["claim"] for e in events] == model.judged
    assert all(e["judgement"]["call"]["prompt_tokens"] == 800 for e in events)
    assert report["usage"]["calls"] == 6 + 3  # six decisions, three judgements
    # the server is gone: the replay asks no model
    replayed = orav("replay", cassette)
    assert replayed.returncode == 0, replayed.stderr
    assert "faithful" in replayed.stdout


async def test_an_unsure_judgement_fails_with_the_judges_reason(tmp_path: Path) -> None:
    seed, app = _files(tmp_path)
    model = StandIn(PLAN, answers={"home screen visible": (True, 0.4)})
    with serving(model) as url:
        agent = OpenAIAgent.from_spec("openai:stand-in", base_url=url, max_retries=0)
        run = await session.record(
            load_scenario(seed), tmp_path / "unsure.cassette", device=f"sim:{app}", agent=agent
        )
    report = run.report
    assert report.status == "failed"
    assert report.goals_achieved == ("logged_in",)
    assert report.goals_missed == ("home_screen_visible",)
    (found,) = report.goals_found
    assert found.startswith("the judge is unsure (confidence 0.40): the screen shows")


def test_a_precondition_that_does_not_hold_ends_the_run_before_any_step(tmp_path: Path) -> None:
    """`logged_in: false` as the seed writes it, on a members' app that opens signed in: the
    precondition is checked (judged in words, no `states:` says how to sign out), the run ends
    before the agent is asked anything, naming the state as the author did."""
    seed, app = _files(tmp_path)
    app.write_text(ALLOTMENT.replace("start: gate", "start: beds"))  # already signed in
    cassette = tmp_path / "signed_in.cassette"
    model = StandIn(PLAN, answers={"not logged in": (False, 0.9)})
    with serving(model) as url:
        done = orav(
            "record", seed, "--device", f"sim:{app}", "--agent", "openai:stand-in",
            "--base-url", url, "--out", cassette,
        )  # fmt: skip
    assert done.returncode == 1
    assert model.judged == ["not logged in"] and model.decided == 0
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    assert report["status"] == "aborted" and report["total_steps"] == 0
    (error,) = report["errors"]
    assert error["error"].startswith("precondition 'not logged_in' does not hold: ")
    assert "Plot 14 - you are in" in error["error"]  # what the judge saw instead
    assert report["goals_missed"] == ["logged_in", "home_screen_visible"]
    replayed = orav("replay", cassette)  # the judgement is a recorded fact: no server
    assert replayed.returncode == 0, replayed.stderr
    assert "faithful" in replayed.stdout
