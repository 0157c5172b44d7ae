"""The simulator draws a view only when what it is drawn from changed (``Display.view``): a
view it serves from its cache is always the one it would draw afresh, whatever the inputs,
on every shipped app and on apps written for orav's tests (their words and templates unseen).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.model import Point
from orav.sim import AppState, load_app_model

SIM = Path(__file__).resolve().parent.parent / "orav" / "sim"
UNSEEN = Path(__file__).resolve().parent / "unseen_apps"
APPS = [*sorted(SIM.glob("*.yaml")), UNSEEN / "faraway.yaml", UNSEEN / "kestrel.yaml"]
MODELS = {path.stem: load_app_model(path) for path in APPS}

inputs = st.lists(
    st.one_of(
        st.tuples(st.just("tap"), st.integers(0, 10_000)),  # the n-th node of the view
        st.tuples(st.just("type"), st.sampled_from("ab1@ .")),
        st.tuples(st.just("press"), st.sampled_from(["return", "delete", "escape"])),
        st.tuples(st.just("swipe"), st.sampled_from([(600, 200), (200, 600), (20, 300)])),
    ),
    max_size=25,
)


@pytest.mark.parametrize("app", sorted(MODELS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=inputs)
def test_a_served_view_is_the_one_drawn_afresh(app: str, steps) -> None:
    state = AppState(MODELS[app])
    assert state.view() == state._draw()
    for kind, arg in steps:
        if kind == "tap":
            nodes = list(state.view().root.walk())
            state.tap(nodes[arg % len(nodes)].frame.center)
        elif kind == "type":
            state.type_char(arg)
        elif kind == "press":
            state.press(arg)
        else:
            state.swipe(Point(195, arg[0]), Point(195 + (arg[0] < 100) * 200, arg[1]))
        assert state.view() == state._draw(), (kind, arg)
