"""A model answering in the ORAV seed's decision shape (``"action": "tap"``, ``coordinates``,
``element_label``) is accepted as the same Decision as orav's own shape."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.agents.answer import InvalidAnswer, parse_answer
from orav.agents.prompt import Screen
from orav.model import PressKey, Tap, TypeText

SCREEN = Screen(390, 844)
SEED = {
    "reasoning": "The 'Submit' button is visible and enabled. Tapping it should submit the form.",
    "action": "tap",
    "coordinates": {"x": 105, "y": 310},
    "element_label": "Submit",
    "expected_outcome": "Form submitted, success message appears",
}


def test_the_seeds_example_decision_is_accepted() -> None:
    decision = parse_answer(json.dumps(SEED), {}, screen=SCREEN)
    assert decision.action == Tap(x=105, y=310, vision=True)  # coordinates without a ref
    assert decision.element_label == "Submit"
    assert decision.expected_outcome == SEED["expected_outcome"]


@pytest.mark.parametrize(
    ("extra", "action"),
    [
        ({"action": "type_text", "text": "hello"}, TypeText("hello")),
        ({"action": "press_key", "key": "return"}, PressKey("return")),
    ],
)
def test_other_seed_actions_carry_their_fields(extra, action) -> None:
    answer = {**SEED, **extra}
    del answer["coordinates"]
    assert parse_answer(json.dumps(answer), {}, screen=SCREEN).action == action


def test_seed_coordinates_off_the_screen_are_refused_like_orav_s() -> None:
    answer = {**SEED, "coordinates": {"x": 105, "y": 9000}}
    with pytest.raises(InvalidAnswer, match="outside the screen"):
        parse_answer(json.dumps(answer), {}, screen=SCREEN)


@settings(max_examples=60, deadline=None)
@given(x=st.integers(0, 389), y=st.integers(0, 843), label=st.text(min_size=1, max_size=20))
def test_seed_and_orav_shapes_of_a_tap_agree(x: int, y: int, label: str) -> None:
    seed = {**SEED, "coordinates": {"x": x, "y": y}, "element_label": label}
    own = {
        "reasoning": SEED["reasoning"],
        "action": {"kind": "tap", "x": x, "y": y},
        "expected_outcome": SEED["expected_outcome"],
    }
    from_seed = parse_answer(json.dumps(seed), {}, screen=SCREEN)
    from_own = parse_answer(json.dumps(own), {}, screen=SCREEN)
    assert from_seed.action == from_own.action
    assert from_seed.element_label == label[:2000]
