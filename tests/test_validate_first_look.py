"""`orav validate --device SPEC`: the app started, its first look taken (after the
preconditions, as a run's), and a warning for each success criterion that already holds there
(a pass would prove nothing); without a device validate stays static and starts nothing.
Proven on a pottery studio's booking app the code never saw, and on the planner (Textual)."""

from __future__ import annotations

import json
from pathlib import Path

from command import orav
from standin import StandIn, serving

from orav import session
from orav.agents.openai import OpenAIAgent
from orav.scenario_loader import load_scenario

# An app the code never saw: a studio's front page, a kiln's firing slots behind a button.
KILN = """\
name: Kiln
bundle_id: studio.kiln.booking
start: front
screens:
  front:
    title: Studio
    elements:
      - {role: AXStaticText, id: open_today, label: Open studio today, frame: [20, 110, 350, 40]}
      - {role: AXButton, id: book_firing, label: Book a firing, frame: [20, 180, 350, 50],
         on_tap: [{to: slots}]}
  slots:
    title: Firing slots
    elements:
      - {role: AXStaticText, id: slot_list, label: Bisque firing Tuesday, frame: [20, 110, 350, 40]}
      - {role: AXButton, id: reserve, label: Reserve the bisque slot, frame: [20, 180, 350, 50],
         on_tap: [{to: reserved}]}
  reserved:
    title: Reserved
    elements:
      - {role: AXStaticText, id: confirmation, label: Your pots go in on Tuesday,
         frame: [20, 110, 350, 40]}
"""

# One criterion holds on the front page already (it tests nothing), the other does not.
HALF_VACUOUS = """\
name: reserve_a_firing
app: studio.kiln.booking
goal: Reserve the bisque firing slot.
success_criteria:
  - {target: {label: Open studio today}, condition: visible}
  - {target: {id: confirmation}, condition: visible}
"""

# The first look is the one after the preconditions: the slots page, where both criteria hold.
AFTER_PRECONDITIONS = """\
name: slots_shown
app: studio.kiln.booking
goal: See the firing slots.
preconditions:
  - {kind: tap, target: {id: book_firing}}
success_criteria:
  - {target: {id: slot_list}, condition: visible}
  - {target: {id: book_firing}, condition: absent}
"""


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    app = tmp_path / "kiln.yaml"
    app.write_text(KILN)
    half = tmp_path / "reserve.yaml"
    half.write_text(HALF_VACUOUS)
    after = tmp_path / "slots.yaml"
    after.write_text(AFTER_PRECONDITIONS)
    return app, half, after


def test_without_a_device_validate_is_static_and_warns_of_nothing(tmp_path: Path) -> None:
    _, half, after = _files(tmp_path)
    done = orav("validate", half, after)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stdout + done.stderr
    assert f"{half}: ok (reserve_a_firing, 0 scripted steps)" in done.stdout


def test_a_criterion_that_holds_on_the_first_look_is_a_warning(tmp_path: Path) -> None:
    app, half, after = _files(tmp_path)
    done = orav("validate", half, after, "--device", f"sim:{app}")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    # only the criterion that holds on the front page is named; the confirmation is not
    (one,) = [line for line in lines if line.startswith(f"{half}: warning:")]
    assert "already held before the first action" in one and "'Open studio today'" in one
    assert "confirmation" not in one
    # after the precondition's tap: both hold on the slots page, so a pass proves nothing
    (both,) = [line for line in lines if line.startswith(f"{after}: warning:")]
    assert "every success criterion already held" in both
    assert "#slot_list" in both and "#book_firing" in both
    assert f"{half}: ok" in done.stdout and f"{after}: ok" in done.stdout


def test_a_scenario_the_device_cannot_bring_to_its_first_look_is_an_error(tmp_path: Path) -> None:
    app, _, _ = _files(tmp_path)
    broken = tmp_path / "broken.yaml"
    broken.write_text(AFTER_PRECONDITIONS.replace("id: book_firing}}", "id: book_a_kiln}}"))
    done = orav("validate", broken, "--device", f"sim:{app}")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"orav: error: {broken}: the first look: precondition tap #book_a_kiln")
    assert "Traceback" not in done.stderr


def test_the_planner_navigation_criteria_hold_on_its_home_screen() -> None:
    scenario = Path(__file__).resolve().parent.parent / "orav/scenarios/planner/navigation.yaml"
    app = "orav.demo.planner:PlannerApp?seed=demo&today=2026-11-23"
    done = orav("validate", scenario, "--device", f"textual:{app}")
    assert done.returncode == 0, done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if ": warning:" in line]
    assert "every success criterion already held" in warning
    assert "#open_settings" in warning and "#week_start" in warning


# Criteria in words, judged by the scenario's own table (no --judge): one in another language
# that holds on the front page, a negation that holds there too, a named state negated
# (`slots_hidden: false` asks "not slots hidden") and a quantity that do not.
IN_WORDS = """\
name: kiln_in_words
app: studio.kiln.booking
judge: table:kiln.table
goal: Reserve the bisque firing slot.
success_criteria:
  - Das Atelier hat heute geöffnet
  - no firing is reserved yet
  - slots_hidden: false
  - exactly one slot is offered
"""
TABLE = """\
das atelier hat heute geöffnet: {target: {label: Open studio today}}
no firing is reserved yet: {target: {id: confirmation}, condition: absent}
not slots hidden: {target: {id: slot_list}}
exactly one slot is offered: {target: {id: slot_list}, condition: contains, value: Tuesday}
"""


def test_a_criterion_in_words_that_holds_on_the_first_look_is_a_warning(tmp_path: Path) -> None:
    app, _, _ = _files(tmp_path)
    (tmp_path / "kiln.table").write_text(TABLE)
    scenario = tmp_path / "words.yaml"
    scenario.write_text(IN_WORDS)
    done = orav("validate", scenario, "--device", f"sim:{app}")
    assert done.returncode == 0, done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if ": warning:" in line]
    assert warning.endswith(
        "already held before the first action, so it proves nothing alone: "
        "Das Atelier hat heute geöffnet, no firing is reserved yet"
    )


def test_a_run_done_before_any_action_warns_of_its_criteria_in_words(tmp_path: Path) -> None:
    app, _, _ = _files(tmp_path)
    (tmp_path / "kiln.table").write_text(TABLE)
    scenario = tmp_path / "words.yaml"
    held = "\n".join(IN_WORDS.splitlines()[:7])  # the two criteria that hold on the front page
    scenario.write_text(held + "\nscript:\n  - action: {kind: done, success: true}\n")
    cassette = tmp_path / "words.cassette"
    done = orav("record", scenario, "--device", f"sim:{app}", "--out", cassette)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(cassette.with_suffix(".report.json").read_text())
    assert report["total_steps"] == 0
    assert report["warnings"] == [
        (
            "every success criterion already held before the first action (Das Atelier hat "
            "heute geöffnet, no firing is reserved yet): a pass proves nothing the run did"
        )
    ]


async def test_a_model_done_at_once_on_claims_that_already_hold_is_told_and_goes_on(tmp_path):
    """The issue's planner case in words: the criterion holds on the first screen, the model
    says done at step 1; it is told the done proves nothing, and passes only after acting."""
    app, _, _ = _files(tmp_path)
    scenario = tmp_path / "open.yaml"
    scenario.write_text(
        "name: kiln_open\napp: studio.kiln.booking\ngoal: Reserve the bisque firing slot.\n"
        "success_criteria: [the studio is open today]\n"
    )
    done = {"kind": "done", "success": True, "summary": "it is open"}
    tap = {"kind": "tap", "x": None, "y": None, "duration": None}
    model = StandIn([(None, done), ("Book a firing", tap), ("Reserve the bisque slot", tap), (None, done)])  # fmt: skip
    with serving(model) as url:
        agent = OpenAIAgent.from_spec("openai:stand-in", base_url=url, max_retries=0)
        run = await session.record(
            load_scenario(scenario), tmp_path / "open.cassette", device=f"sim:{app}", agent=agent
        )
    report = run.report
    assert report.status == "passed" and report.total_steps > 0
    assert report.screens_visited[-1] == "Reserved"  # it acted: not a pass with 0 steps
    assert model.judged == ["the studio is open today"] * 2  # at each done
    told = json.dumps(model.requests[2]["messages"])  # the decision after the first done
    assert "every success criterion already held before the first action" in told
    assert report.warnings[0].startswith("every success criterion already held")
