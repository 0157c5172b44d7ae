"""App-model loading (semantic errors with file:line:col) and typing, with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from idb.common.hid import KEY_MAP, text_to_events

from orav.errors import InputError
from orav.model import Point
from orav.sim import DEMO_APP, SHOP_APP, AppState, load_app_model
from orav.sim.keys import CHARS, NAMED_KEYCODES, SHIFT
from orav.sim.scope import AppModelError

DEMO_TEXT = DEMO_APP.read_text()
TYPABLE = "".join(c for c in KEY_MAP if c != "\n")

MINIMAL = """\
name: Mini
bundle_id: com.example.mini
start: one
screens:
  one:
    elements:
      - {role: AXTextField, id: field, frame: [20, 100, 350, 44]}
      - role: AXButton
        id: go
        frame: [20, 200, 350, 44]
        on_tap: [{to: two, when: {field: ok}}]
  two:
    elements:
      - {role: AXButton, id: go, frame: [20, 200, 350, 44]}
"""


def test_demo_app_loads_with_its_documented_ids() -> None:
    model = load_app_model(DEMO_APP)
    assert model.bundle_id == "com.orav.demo" and (model.width, model.height) == (390, 844)
    ids = {e.id for s in model.screens.values() for e in s.elements}
    wanted = {"email", "password", "sign_in", "item_1", "settings", "notifications_switch"}
    assert wanted | {"form_name", "submit", "success_banner", "back"} <= ids


@pytest.mark.parametrize(
    ("old", "new", "where", "what"),
    [
        ("to: two,", "to: three,", "11:23", "unknown screen 'three'"),
        ("when: {field: ok}", "when: {nope: ok}", "11:35", "unknown field or state 'nope'"),
        (
            "  two:\n    elements:\n      - {role: AXButton, id: go,",
            (
                "  two:\n    elements:\n      - {role: AXButton, id: go, frame: [0, 0, 9, 9]}\n"
                "      - {role: AXButton, id: go,"
            ),
            "15:30",
            "duplicate id 'go' on screen 'two'",
        ),
        ("role: AXButton\n", "role: Button\n", "8:15", "unknown role 'Button'"),
        (
            "frame: [20, 200, 350, 44]\n        on_tap",
            "frame: [20, 200, 0, 44]\n        on_tap",
            "10:9",
            "frame needs a positive width",
        ),
        (
            "start: one",
            "start: one\nfaults: [{type: alert, on_screen: zero}]",
            "4:35",
            "unknown screen 'zero'",
        ),
    ],
)
def test_semantic_errors_name_file_line_col(old: str, new: str, where: str, what: str) -> None:
    assert old in MINIMAL
    with pytest.raises(InputError) as caught:
        load_app_model(MINIMAL.replace(old, new, 1), name="app.yaml")
    assert caught.value.where == f"app.yaml:{where}", caught.value
    assert what in caught.value.what


def test_structural_errors_come_from_the_codec() -> None:
    with pytest.raises(InputError) as caught:
        load_app_model(MINIMAL.replace("frame: [20, 100, 350, 44]", "frame: wide"), name="a.yaml")
    assert caught.value.where.startswith("a.yaml:7:")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(DEMO_TEXT)),
    junk=st.sampled_from(["", ":", "- ", "{", "]", "\t", "'", "x: [", "on_tap: 3", "&a *b"]),
)
def test_damaged_app_model_is_an_input_error_never_a_traceback(cut: int, junk: str) -> None:
    text = DEMO_TEXT[:cut] + junk + DEMO_TEXT[cut:]
    try:
        load_app_model(text, name="demo.yaml")
    except InputError as exc:
        assert exc.where is not None and exc.where.startswith("demo.yaml")


def test_every_key_map_character_decodes() -> None:
    for char in TYPABLE:
        events = text_to_events(char)
        codes = [e.action.keycode for e in events if e.direction.name == "DOWN"]
        shifted = codes[0] == SHIFT and len(codes) == 2
        assert CHARS[(codes[-1], shifted)] == char
    assert NAMED_KEYCODES[40] == "return"


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=TYPABLE, max_size=40))
def test_typed_text_arrives_intact_in_the_focused_field(text: str) -> None:
    state = AppState(load_app_model(DEMO_APP))
    state.tap(Point(195, 222))  # the email field
    for char in text:
        state.type_char(char)
    assert state.values["email"] == text
    state.tap(Point(195, 282))
    for char in text:
        state.type_char(char)
    assert state.values["password"] == text
    assert state.view().root.children[3].value == "\u2022" * len(text) or not text


SHOP_TEXT = SHOP_APP.read_text()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(SHOP_TEXT)),
    junk=st.sampled_from(["", "{", "}", "'", "[", "(", " + ", "{{", "]]", ": x", '"', ","]),
)
def test_a_damaged_shop_is_an_input_error_never_a_traceback(cut: int, junk: str) -> None:
    """The shop's expressions and templates damaged anywhere: loading refuses with a place."""
    text = SHOP_TEXT[:cut] + junk + SHOP_TEXT[cut:]
    try:
        model = load_app_model(text, name="shop.yaml")
    except InputError as exc:
        assert exc.where is not None and exc.where.startswith("shop.yaml")
    else:
        try:
            AppState(model).view()  # what loads also launches and draws ...
        except AppModelError as exc:  # ... or names the expression that fails at run time
            assert "app model" in str(exc)


def test_a_running_clock_reads_looks_and_changes_at_every_read() -> None:
    """Clock's stopwatch: its label is computed from ``looks`` (the tree reads since launch),
    so every look sees another time while it runs, and the same time once stopped."""
    state = AppState(load_app_model(DEMO_APP.with_name("clock.yaml")))
    state._select_tab("tab_stopwatch")

    def label() -> str:
        view = state.observe_tree()
        assert view is not None
        found = [n.label for n in view.root.walk() if n.label and n.label[:1].isdigit()]
        return found[0]

    assert label() == label() == "00:00.00"
    start = next(i for i in state._instances(state.stack[-1]) if i.id == "start")
    state.tap(Point(start.frame.x + 10, start.frame.y + 10))
    running = [label() for _ in range(3)]
    assert len(set(running)) == 3, running
    stop = next(i for i in state._instances(state.stack[-1]) if i.id == "stop")
    state.tap(Point(stop.frame.x + 10, stop.frame.y + 10))
    assert label() == label() != "00:00.00"
