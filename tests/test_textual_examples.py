"""Textual's own examples (tests/textual_examples/, unchanged), each explored twice in-process:
the same coverage and every observation alike, and the cassette replays.

What they proved: the calculator's buttons flash for 0.2 s when pressed, so a key that did
nothing else was "no effect" or not by how fast the machine was (the settle now waits for such
a short timer); the Markdown viewer's headings have ids made of their address, so no two runs'
observations were alike (those ids are left out)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from orav.agents.explorer import ExplorerAgent
from orav.model import Scenario
from orav.scenario_loader import load_scenario
from orav.session import record, replay

EXAMPLES = Path(__file__).parent / "textual_examples"
SUM = """name: calculator_sum
app: textual_calculator:CalculatorApp@100x30
goal: Add 7 and 8.
max_steps: 6
success_criteria:
  - {target: {id: numbers}, condition: matches, value: "^15$"}
script:
  - {reasoning: Seven., action: {kind: tap, target: {id: number-7}}}
  - {reasoning: Plus., action: {kind: tap, target: {id: plus}}}
  - {reasoning: Eight., action: {kind: type_text, text: "8"}}
  - {reasoning: Equals., action: {kind: press_key, key: enter}}
  - {reasoning: The display shows the sum., action: {kind: done, success: true, summary: "15"}}
"""


def _observations(cassette: Path) -> list[tuple]:
    """What each look saw: the elements, the text and the picture (not when it was taken)."""
    seen = []
    for line in cassette.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "observe":
            look = event["observation"]
            seen.append((look["elements"], look["text"], look["screenshot"]["sha256"]))
    return seen


def _elements(cassette: Path) -> list[dict]:
    """Every element fact the cassette's looks hold (its JSON blobs)."""
    found = []
    for line in cassette.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "blob" and event["media_type"] == "application/json":
            found += json.loads(base64.b64decode(event["data"]))
    return found


async def _explore_twice(app: str, steps: int, folder: Path) -> tuple[list, Path]:
    """Coverage (screen, tried, no effect) and observations of two explorations; they must be
    the same. Returns them and the first run's cassette."""
    runs = []
    for run in (1, 2):
        explorer = ExplorerAgent()
        scenario = Scenario(
            name=f"explore-{run}", app=app, goal="explore", max_steps=steps, timeout_seconds=120
        )
        cassette = folder / f"explore{run}.cassette"
        recording = await record(scenario, cassette, device="textual:" + app, agent=explorer)
        assert not recording.report.errors, recording.report.errors
        coverage = [(s.name, s.tried, s.no_effect) for s in explorer.coverage().screens]
        runs.append((coverage, _observations(cassette)))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]
    return runs[0][0], folder / "explore1.cassette"


@pytest.mark.timeout(120)
async def test_textuals_calculator_explored_twice_alike(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLES)  # the app's module is found in the working folder
    coverage, cassette = await _explore_twice(
        "textual_calculator:CalculatorApp@100x30", 25, tmp_path
    )
    [(name, tried, _)] = coverage
    assert name == "Calculator app"  # Textual's default Screen, named after the app
    assert {"#number-7", "#plus", "#equals", "#ac"} <= set(tried)
    assert (await replay(cassette)).faithful

    # A sum, scripted: its Digits display is read as the text it shows.
    (tmp_path / "sum.yaml").write_text(SUM)
    scenario = load_scenario(tmp_path / "sum.yaml")
    scripted = await record(scenario, tmp_path / "sum.cassette", device="textual:" + scenario.app)
    assert scripted.report.status == "passed", scripted.report
    assert (await replay(scripted.cassette)).faithful


@pytest.mark.timeout(120)
async def test_textuals_markdown_viewer_explored_twice_alike(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    coverage, cassette = await _explore_twice("textual_markdown:MarkdownApp@100x30", 10, tmp_path)
    assert [name for name, _, _ in coverage] == ["Markdown app"]
    ids = {element.get("unique_id") for element in _elements(cassette)}
    assert not any(str(i).startswith("heading-") for i in ids)  # none made of an address
    assert (await replay(cassette)).faithful
