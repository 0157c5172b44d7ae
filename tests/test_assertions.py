"""Text assertions: a text contained in, or a regex found in, an element's label or value or the
whole screen's text; checked by the engine, validated when a scenario loads, exported to
Maestro, offered to a model."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from orav.agents.schema import answer_schema
from orav.errors import InputError
from orav.export.maestro import _assertion
from orav.model import Assert, Element, Frame, Observation, Target, show_action
from orav.perceive.assertions import check, describe_assertion
from orav.scenario_loader import load_scenario
from orav.session import record, replay

GRADE = Element("AXStaticText", "Grade C", "grade", frame=Frame(2, 2, 7, 1))
METER = Element("AXProgressIndicator", None, "kept_meter", value="75%", frame=Frame(2, 4, 37, 1))
SCREEN = Observation(elements=(GRADE, METER), text=" Integrity\n  Grade C\n  Kept 3 of 4")


def test_contains_and_matches_read_labels_values_and_the_screen():
    assert check(Assert(Target(id="grade"), "contains", "Grade"), SCREEN)
    assert not check(Assert(Target(id="grade"), "contains", "Grade A"), SCREEN)
    assert check(Assert(Target(id="kept_meter"), "matches", r"^\d+%$"), SCREEN)
    assert not check(Assert(Target(id="nowhere"), "contains", "Grade"), SCREEN)
    assert check(Assert(None, "matches", r"Kept \d of \d"), SCREEN)
    assert check(Assert(condition="contains", value="Integrity"), SCREEN)
    assert not check(Assert(condition="contains", value="Triage"), SCREEN)
    # Without the terminal's text (iOS), the screen is every label and value.
    ios = Observation(elements=(GRADE, METER))
    assert check(Assert(condition="contains", value="75%"), ios)
    assert describe_assertion(Assert(condition="matches", value="G.")) == "the screen matches 'G.'"
    assert show_action(Assert(Target(id="grade"), "contains", "C")) == "assert #grade contains 'C'"


@given(label=st.text(max_size=20), value=st.text(min_size=1, max_size=5))
def test_contains_is_substring_and_an_escaped_regex_is_the_same(label: str, value: str):
    observation = Observation(
        elements=(Element("AXStaticText", label, "x", frame=Frame(0, 0, 9, 1)),)
    )
    contains = check(Assert(Target(id="x"), "contains", value), observation)
    assert contains == (value in label)
    assert check(Assert(Target(id="x"), "matches", re.escape(value)), observation) == contains


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("{condition: visible}", "needs a target"),
        ("{condition: contains}", "needs a text to find"),
        ("{condition: matches, value: '(unclosed'}", "not a regular expression"),
        ("{condition: matches, value: " + "a" * 201 + "}", "at most 200 characters"),
        ("{condition: matches, value: '(a+)+$'}", "repeats or branches inside"),
        ("{condition: matches, value: '(a|aa)*'}", "repeats or branches inside"),
        ("{condition: matches, value: '.*a.*b'}", "at most 1 unbounded repeat"),
    ],
)
def test_a_bad_text_assertion_is_a_located_error(tmp_path: Path, line: str, error: str):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\napp: x\ngoal: g\nsuccess_criteria:\n  - {line}\n")
    with pytest.raises(InputError, match=error) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}:5:")


def test_maestro_and_the_model_get_text_assertions():
    assert _assertion(Assert(condition="contains", value="Grade C")) == {
        "assertVisible": ".*(?:Grade C).*"
    }
    assert _assertion(Assert(Target(id="grade"), "matches", "Grade [A-F]")) == {
        "assertVisible": {"id": "grade", "text": ".*(?:Grade [A-F]).*"}
    }
    schema = str(answer_schema())
    assert "contains" in schema and "matches" in schema


async def test_a_scenario_checks_the_screen_text_on_the_planner(tmp_path: Path):
    scenario = load_scenario(
        Path(__file__).resolve().parent.parent / "orav" / "scenarios" / "planner" / "integrity.yaml"
    )
    criteria = (  # checked on the last screen, the at-risk list
        Assert(condition="matches", value=r"At-risk commitments"),
        Assert(Target(id="count"), "contains", "2 shown"),
        Assert(condition="contains", value="Water the plants"),  # not at risk: must fail
    )
    scenario = evolve(scenario, success_criteria=criteria)
    recording = await record(scenario, tmp_path / "run.cassette", device="textual:" + scenario.app)
    report = recording.report
    assert report.status == "failed"
    assert report.goals_missed == ("the screen contains 'Water the plants'",)
    assert (await replay(recording.cassette)).faithful


@given(st.from_regex(r"[a-z]{1,3}", fullmatch=True), st.integers(1, 400))
def test_an_accepted_regex_is_quick_on_a_long_line(word: str, length: int):
    check_ = Assert(condition="matches", value=f"(?:{word})+x|{word}{{1,9}}y")
    start = time.perf_counter()
    check_.finds(word * length)
    assert time.perf_counter() - start < 0.5
