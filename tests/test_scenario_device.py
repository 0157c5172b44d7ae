"""Scenarios say where they run: ``device:`` and ``judge:`` in the file (a flag wins over
them, they win over orav.toml), every shipped scenario runnable without a flag, an aborted
run's cassette set aside out of recordings/, and the app a device lacks said before any run.
Real ``orav`` processes against the simulator, with an app model written here."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from attrs import evolve
from command import ORAV

from orav.errors import InputError
from orav.scenario_loader import load_scenario
from orav.session import claims_of
from orav.specs import check_app, device_for
from orav.suite import expand

SHIPPED = Path(__file__).resolve().parent.parent / "orav" / "scenarios"

# A greenhouse app no orav code knows: its words and ids appear nowhere else.
GREENHOUSE = """\
name: Greenhouse
bundle_id: com.example.greenhouse
start: beds
screens:
  beds:
    title: Beds
    elements:
      - {role: AXStaticText, id: moisture, label: Soil is dry, frame: [20, 100, 350, 40]}
      - {role: AXStaticText, id: soaked, label: Soil is damp, hidden: true,
         frame: [20, 150, 350, 40]}
      - {role: AXButton, id: sprinkle, label: Sprinkle bed three, frame: [20, 300, 350, 50],
         on_tap: [{hide: moisture, show: soaked}]}
"""

SPRINKLE = """\
name: sprinkle
app: com.example.greenhouse
device: sim:../apps/greenhouse.yaml
goal: Water bed three until the soil is damp.
max_steps: 4
success_criteria:
  - {target: {id: soaked}, condition: visible}
script:
  - action: {kind: tap, target: {id: sprinkle}}
  - action: {kind: done, success: true, summary: Bed three watered.}
"""


def project(root: Path, scenario: str = SPRINKLE) -> Path:
    """A user's project: an app model under apps/, a scenario under scenarios/ naming it."""
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "greenhouse.yaml").write_text(GREENHOUSE)
    (root / "scenarios").mkdir()
    (root / "scenarios" / "sprinkle.yaml").write_text(scenario)
    return root


def orav(*args: object, cwd: Path, tmp: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ORAV_DEBUG"}
    if tmp is not None:  # where an aborted run's files are set aside
        env["TMPDIR"] = str(tmp)
    return subprocess.run(
        [*ORAV, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        check=False,
    )


def test_a_scenario_runs_on_the_device_it_names_from_anywhere(tmp_path: Path):
    root = project(tmp_path / "garden")
    scenario = load_scenario(root / "scenarios" / "sprinkle.yaml")
    assert Path(scenario.device.removeprefix("sim:")).resolve() == root / "apps" / "greenhouse.yaml"
    done = orav("record", "scenarios/", cwd=root)  # no --device: the scenario says where
    assert done.returncode == 0, done.stderr
    assert "sprinkle" in done.stdout and "passed" in done.stdout
    assert (root / "recordings" / "sprinkle.cassette").is_file()
    # the same file run from another folder finds its app model beside it, not beside the caller
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = orav("record", root / "scenarios" / "sprinkle.yaml", cwd=elsewhere)
    assert again.returncode == 0, again.stderr


def test_the_flag_wins_over_the_scenario_and_the_scenario_over_the_config(tmp_path: Path):
    root = project(tmp_path)
    (root / "orav.toml").write_text('device = "sim"\n')  # the config names the plain simulator
    assert orav("record", "scenarios/sprinkle.yaml", cwd=root).returncode == 0  # scenario wins
    flagged = orav("record", "scenarios/sprinkle.yaml", "--device", "sim", "--overwrite", cwd=root)
    assert flagged.returncode == 2  # the flag wins: `sim` has no greenhouse, said before a run
    assert "'com.example.greenhouse'" in flagged.stderr and "not on sim" in flagged.stderr
    scenario = load_scenario(root / "scenarios" / "sprinkle.yaml")
    assert device_for(scenario, "idb:h:1", "sim") == "idb:h:1"
    assert device_for(scenario, None, "sim") == scenario.device
    unnamed = load_scenario(SHIPPED / "lookalikes" / "notes_answer_no.yaml")
    assert device_for(unnamed, None, "sim:x.yaml") == "sim:x.yaml"
    assert device_for(unnamed) == f"textual:{unnamed.app}"  # a module:App app: its Textual app


@pytest.mark.parametrize(
    ("app", "said"),
    [
        ("com.example.orchard", "`device:` in the scenario"),
        ("orchard.app:OrchardApp", "`device: textual:orchard.app:OrchardApp`"),
    ],
)
def test_an_app_the_device_lacks_is_said_with_the_device_it_needs(app: str, said: str):
    scenario = load_scenario(SHIPPED / "login.yaml")
    with pytest.raises(InputError) as caught:
        check_app("sim", evolve(scenario, app=app))
    assert repr(app) in str(caught.value) and "not on sim" in str(caught.value)
    assert said in str(caught.value)


def test_every_shipped_scenario_says_where_it_runs_and_who_judges_it():
    """`orav record scenarios/` from a fresh clone: every scenario's device serves its app,
    every claim in words has a judge (the run of them all is in docs/performance.md)."""
    files = expand([SHIPPED])
    assert len(files) >= 50
    for file in files:
        scenario = load_scenario(file)
        check_app(device_for(scenario), scenario)  # raises naming the scenario when not
        assert not claims_of(scenario) or scenario.judge, file


def test_a_shipped_scenario_that_names_its_app_model_records_without_a_flag(tmp_path: Path):
    done = orav("record", SHIPPED / "lookalikes" / "bank_answer_no.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "recordings" / "bank_answer_no.cassette").is_file()


CRASHING = SPRINKLE.replace(
    "max_steps: 4\n",
    "max_steps: 4\nfaults: [{type: crash, at_step: 1}, {type: crash, at_step: 2}]\n",
).replace(
    "  - action: {kind: done",
    "  - action: {kind: tap, target: {id: sprinkle}}\n  - action: {kind: done",
)


def test_an_aborted_run_is_set_aside_out_of_recordings_unless_asked(tmp_path: Path):
    root = project(tmp_path / "garden", CRASHING)
    shared = tmp_path / "tmp"
    shared.mkdir()
    done = orav("record", "scenarios/", cwd=root, tmp=shared)
    assert done.returncode == 1, done.stderr
    assert "aborted" in done.stdout
    kept = root / ".orav" / "aborted" / "sprinkle.cassette"
    assert kept.is_file() and kept.with_suffix(".html").is_file()
    assert f"set aside in {kept.parent}/" in done.stderr
    assert not list((root / "recordings").glob("sprinkle.*"))
    assert not list(shared.glob("*aborted*"))  # not in a temp folder others share
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=60)
    # git sees no file of .orav/, as of .pytest_cache/ (check-ignore exits 1 otherwise)
    subprocess.run(["git", "check-ignore", "-q", kept], cwd=root, check=True, timeout=60)
    asked = orav("record", "scenarios/", "--keep-aborted", cwd=root, tmp=shared)
    assert asked.returncode == 1 and (root / "recordings" / "sprinkle.cassette").is_file()
    named = root / "mine.cassette"
    out = orav("record", "scenarios/sprinkle.yaml", "--out", named, cwd=root, tmp=shared)
    assert out.returncode == 1 and named.is_file()  # --out says where it goes


DOCS = SHIPPED.parent.parent / "docs"


def test_the_refusal_scenarios_md_shows_is_what_orav_says(tmp_path: Path):
    """docs/scenarios.md's error for an app the simulator does not serve, on such a scenario
    (tests/test_guides_followed.py follows the page's other commands)."""
    page = (DOCS / "scenarios.md").read_text()
    shown = re.search(r"\$ orav record (scenarios/ledger\.yaml)\n(orav: error: .*)\n```", page)
    assert shown is not None
    (tmp_path / "scenarios").mkdir()
    (tmp_path / shown.group(1)).write_text("name: ledger\napp: com.example.ledger\ngoal: Pay.\n")
    done = orav("record", shown.group(1), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, shown.group(2) + "\n")


def test_validate_checks_ids_and_labels_against_the_app_model_the_scenario_names(tmp_path: Path):
    typo = SPRINKLE.replace("id: sprinkle}", "id: sprinkel}")
    root = project(tmp_path, typo)
    (root / "scenarios" / "label.yaml").write_text(
        SPRINKLE.replace("name: sprinkle", "name: label").replace(
            "{target: {id: soaked}, condition: visible}", "{target: {label: Soil is dmp}}"
        )
    )
    done = orav("validate", "scenarios/", cwd=root)
    assert done.returncode == 2
    model = "the app model of com.example.greenhouse (sim:apps/greenhouse.yaml)"
    assert f"no #sprinkel in {model}; did you mean #sprinkle?" in done.stderr
    assert f"no 'Soil is dmp' in {model}; did you mean 'Soil is damp'?" in done.stderr
    (root / "scenarios" / "sprinkle.yaml").write_text(SPRINKLE)
    (root / "scenarios" / "label.yaml").unlink()
    assert orav("validate", "scenarios/", cwd=root).returncode == 0
    shipped = orav("validate", SHIPPED, cwd=tmp_path)  # every shipped scenario names what is there
    assert shipped.returncode == 0, shipped.stderr
