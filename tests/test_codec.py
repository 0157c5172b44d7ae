"""The codec: round trips, and errors that name file:line:col and the field."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios

from orav.codec import dump_yaml, from_json, load_yaml, to_json
from orav.codec.bounds import MAX_DEPTH
from orav.codec.json import JSONRefused, parse_json
from orav.errors import InputError
from orav.model import Frame, PressKey, Scenario, Tap, Target

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda v: round(v, 3))


@given(finite, finite, finite.map(abs), finite.map(abs))
def test_frame_ax_string_round_trips(x, y, w, h):
    frame = Frame(x, y, w, h)
    assert Frame.parse(frame.to_ax_string()) == frame


def test_frame_centre_is_the_tap_point():
    frame = Frame.parse("{{20, 200}, {350, 44}}")
    assert (frame.center.x, frame.center.y) == (195, 222)


@pytest.mark.parametrize("text", ["{{1, 2}, {3}}", "1,2,3,4", "{{a, 2}, {3, 4}}", ""])
def test_frame_rejects_other_strings(text):
    with pytest.raises(ValueError):
        Frame.parse(text)


MINIMAL = "name: a\napp: com.orav.demo\ngoal: log in\n"


def test_scenario_round_trips_through_json():
    scenario = load_yaml(
        MINIMAL + "script:\n  - action: {kind: tap, target: {label: Sign in}}\n"
        "  - action: {kind: press_key, key: 40}\n",
        Scenario,
    )
    assert scenario.script[0].action == Tap(target=Target(label="Sign in"))
    assert scenario.script[1].action == PressKey(40)
    assert from_json(to_json(scenario), Scenario) == scenario


@pytest.mark.parametrize(
    ("extra", "where", "what"),
    [
        ("max_steps: ten\n", ":4:12", "max_steps: expected a whole number"),
        ("preconditions:\n  - kind: tapp\n", ":5:11", "unknown action kind 'tapp'"),
        ("preconditions:\n  - x: 1\n", ":5:5", "action has no 'kind'"),
        ("permissions: maybe\n", ":4:14", "expected one of ['allow', 'deny']"),
        ("colour: red\n", ":4:1", "unknown key 'colour'"),
        ("preconditions:\n  - {kind: tap}\n", ":5:5", "a tap needs a target or both x and y"),
    ],
)
def test_scenario_errors_name_line_column_and_field(extra, where, what):
    with pytest.raises(InputError) as caught:
        load_yaml(MINIMAL + extra, Scenario, source="s.yaml")
    message = str(caught.value)
    assert message.startswith("s.yaml" + where), message
    assert what in message


def test_missing_field_and_syntax_errors(tmp_path: Path):
    with pytest.raises(InputError, match=r"^s.yaml:1:1: goal: required field is missing"):
        load_yaml("name: a\napp: b\n", Scenario, source="s.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [a\n")
    with pytest.raises(InputError, match=r"bad.yaml:2:1: "):
        load_yaml(bad, Scenario)
    with pytest.raises(InputError, match="duplicate key"):
        load_yaml("name: a\nname: b\n", Scenario)
    with pytest.raises(InputError, match="cannot read"):
        load_yaml(tmp_path / "missing.yaml", Scenario)


@settings(max_examples=150, deadline=None)
@given(scenarios)
def test_any_scenario_round_trips_through_json_and_yaml(scenario):
    assert from_json(to_json(scenario), Scenario) == scenario
    assert load_yaml(dump_yaml(scenario), Scenario) == scenario


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_loads_as_a_scenario_or_fails_with_a_located_error(text):
    try:
        load_yaml(MINIMAL + text, Scenario, source="s.yaml")
    except InputError as error:
        assert str(error).startswith("s.yaml")


@settings(max_examples=150)
@given(
    st.integers(min_value=1, max_value=80),
    st.sampled_from(["[", "{"]),
    st.integers(min_value=0, max_value=9000),
    st.integers(min_value=0, max_value=80),
)
def test_json_nested_past_the_bound_is_refused_short_or_long(levels, bracket, padding, noise):
    """parse_json refuses nesting past MAX_DEPTH and takes it up to the bound, in a short line
    (brackets counted) or a long one (the data walked), with brackets inside strings."""
    inner = [" " * padding, "[{" * noise]
    text = json.dumps(inner)
    for _ in range(levels):
        text = f"[{text}]" if bracket == "[" else f'{{"k":{text}}}'
    deepest = levels + 1  # the inner list
    if deepest > MAX_DEPTH:
        with pytest.raises(JSONRefused, match=f"nested deeper than {MAX_DEPTH}"):
            parse_json(text)
    else:
        assert parse_json(text) is not None
