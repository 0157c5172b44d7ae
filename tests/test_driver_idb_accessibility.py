"""Parsing the companion's accessibility JSON (samples in the real idb_companion format)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.drivers.accessibility import AccessibilityError, element_from_ax, parse_elements
from orav.model import Frame


def ax(role: str, label=None, uid=None, value=None, frame=(0, 0, 0, 0), **extra) -> dict:
    """One element with every key the real companion sends (missing values are null)."""
    x, y, w, h = frame
    node = {
        "AXLabel": label,
        "AXFrame": f"{{{{{x}, {y}}}, {{{w}, {h}}}}}",
        "AXValue": value,
        "AXUniqueId": uid,
        "type": role.removeprefix("AX"),
        "title": None,
        "frame": {"x": x, "y": y, "width": w, "height": h},
        "help": None,
        "enabled": True,
        "custom_actions": [],
        "role": role,
        "role_description": role.removeprefix("AX").lower(),
        "subrole": None,
        "content_required": False,
        "pid": 4242,
        "traits": [],
    }
    node.update(extra)
    return node


LOGIN = [
    ax("AXApplication", "Demo", frame=(0, 0, 390, 844)),
    ax("AXStaticText", "Sign in", frame=(20, 100, 350, 40), traits=["Header"]),
    ax("AXTextField", "Email", "email", "", (20, 200, 350, 44), placeholder="you@example.com"),
    ax(
        "AXTextField",
        "Password",
        "password",
        "••••",
        (20, 260, 350, 44),
        subrole="AXSecureTextField",
        focused=True,
    ),
    ax("AXButton", "Sign in", "sign_in", frame=(20, 330, 350, 50), enabled=False),
]


def test_flat_dump_keeps_preorder_and_every_field() -> None:
    elements = parse_elements(json.dumps(LOGIN))
    assert [e.role for e in elements] == [
        "AXApplication",
        "AXStaticText",
        "AXTextField",
        "AXTextField",
        "AXButton",
    ]
    email, password, button = elements[2], elements[3], elements[4]
    assert email.unique_id == "email" and email.label == "Email" and email.value == ""
    assert email.placeholder == "you@example.com" and not email.secure and not email.focused
    assert email.frame == Frame(20, 200, 350, 44)
    assert password.secure and password.focused and password.value == "••••"
    assert not button.enabled and button.frame.center.y == 355
    assert elements[1].traits == ("Header",)


def test_nested_dump_is_flattened_in_preorder() -> None:
    root = ax("AXApplication", "Demo", frame=(0, 0, 390, 844))
    group = ax("AXGroup", "Form")
    group["children"] = [ax("AXButton", "A"), ax("AXButton", "B")]
    root["children"] = [group, ax("AXButton", "C")]
    labels = [e.label for e in parse_elements(json.dumps([root]))]
    assert labels == ["Demo", "Form", "A", "B", "C"]


def test_point_query_object_is_one_element() -> None:
    (element,) = parse_elements(json.dumps(LOGIN[4]))
    assert element.unique_id == "sign_in"


def test_axframe_string_is_used_when_frame_dict_is_missing() -> None:
    node = ax("AXButton", "Go")
    del node["frame"]
    node["AXFrame"] = "{{12.5, 30}, {100, 44}}"
    assert element_from_ax(node).frame == Frame(12.5, 30, 100, 44)


def test_role_from_type_and_secure_from_type() -> None:
    node = {"type": "SecureTextField", "AXLabel": "PIN", "role": None}
    element = element_from_ax(node)
    assert element.role == "AXSecureTextField" and element.secure
    assert element_from_ax({}).role == "AXOther"


def test_title_stands_in_for_a_missing_label_and_values_become_text() -> None:
    element = element_from_ax({"role": "AXSwitch", "AXLabel": None, "title": "Dark", "AXValue": 1})
    assert element.label == "Dark" and element.value == "1"


def test_hidden_elements_are_left_out() -> None:
    dump = [ax("AXButton", "Shown"), ax("AXButton", "Gone", hidden=True)]
    assert [e.label for e in parse_elements(json.dumps(dump))] == ["Shown"]


def test_empty_dump_is_no_elements() -> None:
    assert parse_elements("[]") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ('"a string"', "is a JSON str; expected a list"),
        ("[1]", "element [0] is not a JSON object"),
        ('[{"children": [{}, 3]}]', "element [0].children[1] is not a JSON object"),
        ('[{"frame": {"x": 1}}]', "element [0] has a malformed frame"),
        ('[{"AXFrame": "{{1, 2}}"}]', "element [0] has a malformed frame"),
    ],
)
def test_malformed_dumps_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(AccessibilityError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_elements(text)


frames = st.tuples(
    *[st.integers(min_value=-500, max_value=2000) for _ in range(2)],
    *[st.integers(min_value=0, max_value=2000) for _ in range(2)],
)


@settings(deadline=None, max_examples=50)
@given(frame=frames, label=st.none() | st.text(max_size=20))
def test_both_frame_notations_agree(frame, label) -> None:
    with_dict = ax("AXButton", label, frame=frame)
    with_string = dict(with_dict)
    del with_string["frame"]
    assert element_from_ax(with_dict) == element_from_ax(with_string)
    assert element_from_ax(with_dict).label == label


def test_the_seeds_ax_keys_parse_like_the_companions() -> None:
    """The ORAV seed writes AXType / AXEnabled (and no role): a button is still a button."""
    seed = '[{"AXLabel": "Scene Setup", "AXFrame": "{{16, 120}, {100, 44}}", "AXType": "Button",'
    seed += ' "AXEnabled": false, "AXValue": null}]'
    [element] = parse_elements(seed)
    assert element.role == "AXButton" and element.enabled is False
    assert element.label == "Scene Setup" and element.frame.center.x == 66


@settings(deadline=None, max_examples=50)
@given(
    frame=frames,
    label=st.none() | st.text(max_size=20),
    kind=st.sampled_from(["Button", "StaticText", "TextField", "SecureTextField", "Cell"]),
    enabled=st.booleans(),
    value=st.none() | st.text(max_size=10),
)
def test_seed_and_companion_shapes_of_one_element_agree(frame, label, kind, enabled, value):
    x, y, w, h = frame
    companion = {
        "AXLabel": label,
        "AXValue": value,
        "type": kind,
        "role": f"AX{kind}",
        "enabled": enabled,
        "frame": {"x": x, "y": y, "width": w, "height": h},
    }
    seed = {
        "AXLabel": label,
        "AXValue": value,
        "AXType": kind,
        "AXEnabled": enabled,
        "AXFrame": f"{{{{{x}, {y}}}, {{{w}, {h}}}}}",
    }
    assert element_from_ax(seed) == element_from_ax(companion)
