"""Fault and interruption detectors on trees built like the simulator's, and on real
observations from it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.codec import from_json, to_json
from orav.drivers.idb import IdbDevice
from orav.model import (
    Element,
    Fault,
    Frame,
    Observation,
    Point,
    PressKey,
    Swipe,
    Tap,
    Target,
    TypeText,
    Wait,
)
from orav.perceive import (
    Detection,
    blocks,
    cover_fault,
    covering,
    fault,
    frozen_app,
    interruption,
    keyboard_frame,
    no_effect,
    shows,
)
from orav.sim import SimCompanion

APP = Element("AXApplication", "Demo", frame=Frame(0, 0, 390, 844))
HOME = (
    APP,
    Element("AXHeading", "Home", frame=Frame(0, 47, 390, 44)),
    Element("AXCell", "Getting started", "item_1", frame=Frame(0, 100, 390, 56)),
)


def screen(*extra: Element, running: bool | None = True) -> Observation:
    return Observation((*HOME, *extra), app="com.orav.demo", app_running=running)


def alert(*buttons: str, role: str = "AXAlert") -> tuple[Element, ...]:
    box = Element(role, "Something went wrong", frame=Frame(60, 347, 270, 150))
    return (
        box,
        *(
            Element("AXButton", label, frame=Frame(60 + 135 * i, 453, 135, 44))
            for i, label in enumerate(buttons)
        ),
    )


def test_a_usable_screen_shows_nothing():
    assert fault(screen()) is None
    assert interruption(screen(), screen()) is None


# --- faults ---------------------------------------------------------------------------------


def test_a_crash_is_the_device_saying_the_app_is_not_running():
    springboard = Observation((Element("AXApplication", "SpringBoard"),), app_running=False)
    assert fault(springboard).kind == "crash"
    assert fault(Observation((), app_running=False)).kind == "crash"
    assert fault(screen(running=False)).kind == "crash"


def test_an_unknown_app_state_with_the_tree_intact_is_no_fault():
    """A failed list_apps is no report that the app stopped: with its tree on screen, fine."""
    assert fault(screen(running=None)) is None
    unknown_and_empty = Observation((), app_running=None, error="list_apps: boom")
    assert fault(unknown_and_empty).kind == "empty_dump"  # ask the device again


@pytest.mark.parametrize("observation", [Observation(()), screen(), Observation((APP,))])
def test_an_empty_or_failed_dump(observation):
    failed = Observation(observation.elements, error="accessibility_info: boom")
    for seen in (Observation(()), failed):
        assert fault(seen).kind == "empty_dump"


def test_a_permission_dialog_is_a_fault_and_a_plain_alert_is_not():
    assert fault(screen(*alert("Don't Allow", "Allow"))).kind == "permission"
    assert fault(screen(*alert("Don\u2019t Allow", "Allow While Using App"))).kind == "permission"
    assert fault(screen(*alert("Cancel", "OK"))) is None
    assert fault(screen(*alert("Don't Allow"))).kind == "permission"  # in an alert: still one


# --- interruptions --------------------------------------------------------------------------


def test_an_alert_and_its_buttons_are_the_evidence():
    found = interruption(screen(*alert("Cancel", "OK")))
    assert found.kind == "alert"
    assert [e.label for e in found.evidence] == ["Something went wrong", "Cancel", "OK"]


def test_buttons_outside_the_alert_are_not_its_own():
    outside = Element("AXButton", "Buy", frame=Frame(0, 800, 390, 44))
    found = interruption(screen(*alert("OK"), outside))
    assert [e.label for e in found.evidence[1:]] == ["OK"]


WALL = (
    Element("AXTextField", "Email", "email", frame=Frame(20, 200, 350, 44)),
    Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
    Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
)


def test_a_login_form_interrupts_only_when_it_replaced_another_screen():
    wall = screen(*WALL)
    assert interruption(wall) is None  # the start screen: the agent signs in itself
    assert interruption(wall, wall) is None  # still the same login screen
    found = interruption(wall, screen())
    assert found.kind == "login"
    assert [e.unique_id for e in found.evidence] == ["email", "password", "sign_in"]


def test_a_network_error_counts_only_when_it_appeared_since_the_last_look():
    banner = Element("AXStaticText", "No internet connection", frame=Frame(0, 91, 390, 60))
    retry = Element("AXButton", "Retry", "retry", frame=Frame(135, 171, 120, 44))
    assert interruption(screen(banner, retry), screen()).evidence == (banner, retry)
    assert interruption(screen(retry), screen()).kind == "network"
    assert interruption(screen(banner), screen()).kind == "network"
    assert interruption(screen(banner, retry), screen(banner, retry)) is None  # the screen's own
    assert interruption(screen(Element("AXStaticText", "Networking tips")), screen()) is None


def test_an_offline_hint_is_a_network_error_only_beside_a_retry_control():
    hint = Element(
        "AXStaticText", "You're offline. Changes sync later.", frame=Frame(0, 91, 390, 40)
    )
    retry = Element("AXButton", "Retry", "retry", frame=Frame(135, 171, 120, 44))
    assert interruption(screen(hint), screen()) is None
    assert interruption(screen(hint, retry), screen()).kind == "network"


def test_a_spinner_or_a_loading_label_and_not_a_progress_bar_with_a_value():
    spinner = Element("AXActivityIndicator", "In progress", frame=Frame(175, 402, 40, 40))
    assert interruption(screen(spinner)).kind == "loading"
    assert interruption(screen(Element("AXStaticText", "Loading\u2026"))).kind == "loading"
    assert interruption(screen(Element("AXStaticText", "Unloading dock"))) is None
    busy = Element("AXProgressIndicator", "Upload", frame=Frame(20, 400, 350, 8))
    assert interruption(screen(busy)).kind == "loading"  # no value: indeterminate
    meter = Element("AXProgressIndicator", "Storage", value="80%", frame=Frame(20, 400, 350, 8))
    assert interruption(screen(meter)) is None


# --- blocks -----------------------------------------------------------------------------------


def test_an_alert_blocks_actions_aimed_outside_it_and_never_a_key_or_a_wait():
    seen = screen(*alert("Cancel", "OK"))
    found = interruption(seen)
    assert blocks(found, seen, Tap(target=Target(id="item_1")))
    assert blocks(found, seen, Tap(195, 128))
    assert not blocks(found, seen, Tap(target=Target(label="Cancel")))
    assert not blocks(found, seen, PressKey("escape"))
    assert not blocks(found, seen, Wait(1))
    assert blocks(found, seen, TypeText("hi"))  # no field has focus in the alert


def test_a_tap_at_a_point_inside_the_alert_is_not_blocked():
    seen = screen(*alert("Yes", "No"))
    found = interruption(seen)
    assert not blocks(found, seen, Tap(262, 475))  # on "No", by coordinates


def test_a_spinner_blocks_only_an_action_whose_target_is_absent():
    seen = screen(Element("AXActivityIndicator", frame=Frame(175, 402, 40, 40)))
    found = interruption(seen)
    assert not blocks(found, seen, Tap(target=Target(id="item_1")))
    assert blocks(found, seen, Tap(target=Target(id="checkout")))
    assert not blocks(found, seen, Tap(10, 10))  # coordinates are never absent
    assert blocks(found, seen, TypeText("hi"))  # nothing focused to type into


def test_blocks_says_no_for_faults():
    seen = screen(*alert("Don't Allow", "Allow"))
    assert not blocks(fault(seen), seen, Tap(target=Target(id="gone")))


KEYBOARD = Element("AXKeyboard", frame=Frame(0, 553, 390, 291))


def test_the_keyboard_blocks_only_what_lies_behind_it():
    behind = Element("AXButton", "Checkout", "checkout", frame=Frame(20, 700, 350, 50))
    seen = screen(behind, KEYBOARD)
    assert keyboard_frame(seen) == KEYBOARD.frame
    assert covering(seen, Tap(target=Target(id="checkout"))) is not None
    assert covering(seen, Tap(100, 600)) is not None
    assert covering(seen, Swipe(Point(100, 600), Point(100, 100))) is not None
    assert covering(seen, Tap(target=Target(id="item_1"))) is None
    assert covering(seen, TypeText("hi")) is None
    assert covering(screen(behind), Tap(target=Target(id="checkout"))) is None
    found = cover_fault(seen, Tap(100, 600))
    assert found.kind == "keyboard" and found.evidence == (KEYBOARD,)
    assert found.action == Tap(100, 600)
    assert cover_fault(seen, Tap(target=Target(id="item_1"))) is None


def test_keys_without_a_container_still_make_a_keyboard():
    keys = [Element("AXKey", c, frame=Frame(10 + 39 * i, 600, 36, 42)) for i, c in enumerate("qw")]
    assert keyboard_frame(screen(*keys)) == Frame(10, 600, 75, 42)


def test_no_effect_and_frozen_carry_the_action():
    tap = Tap(1, 2)
    assert no_effect(tap) == no_effect(tap) and no_effect(tap).action == tap
    assert no_effect(tap).kind == "no_effect"
    frozen = frozen_app(tap, 3)
    assert frozen.kind == "frozen" and frozen.action == tap and "3" in frozen.note


def test_shows_checks_one_kind():
    assert shows(screen(*alert("OK")), "alert") is not None
    assert shows(screen(), "alert") is None
    assert shows(Observation(()), "empty_dump") is not None
    assert shows(screen(KEYBOARD), "keyboard") is not None
    assert shows(screen(running=False), "crash") is not None
    assert shows(screen(running=None), "crash") is None


# --- the same detectors on real observations from the simulator, through the idb driver ----


@pytest.mark.parametrize(
    ("injected", "kind"),
    [
        ("alert", "alert"),
        ("permission", "permission"),
        ("crash", "crash"),
        ("loading", "loading"),
        ("network", "network"),
        ("login", "login"),
        ("empty_dump", "empty_dump"),
    ],
)
async def test_each_injected_fault_is_detected(injected, kind):
    async with (
        SimCompanion(faults=[Fault(injected, at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await device.launch("com.orav.demo")
        before = await device.observe()
        # the demo's sign-in screen is the agent's job
        assert fault(before) is None and interruption(before) is None
        await device.perform(Tap(target=Target(label="Welcome to Demo")))
        seen = await device.observe()
        # The demo starts at sign-in, so its wall interrupts only when seen after another screen.
        previous = screen() if kind == "login" else before
        found = fault(seen) or interruption(seen, previous)
        assert found.kind == kind
        if kind == "login":
            assert interruption(seen, before) is None


def test_a_detection_round_trips_through_the_codec_with_its_action_tagged():
    for detection in (
        no_effect(Tap(target=Target(id="open"))),
        frozen_app(TypeText("x"), 3),
        interruption(screen(*alert("OK"))),
    ):
        text = to_json(detection)
        assert from_json(text, Detection) == detection
    assert '"kind":"tap"' in to_json(no_effect(Tap(1, 2)))


def test_a_no_connection_banner_that_appeared_is_a_network_error():
    banner = Element("AXStaticText", "No connection", frame=Frame(0, 91, 390, 60))
    assert interruption(screen(banner), screen()).kind == "network"


async def test_a_failed_list_apps_with_the_tree_intact_is_no_fault():
    """The device could not tell whether the app runs (list_apps failed): state unknown, the
    tree whole, the dump no failure, and no fault at all (a crash needs the app reported
    not running)."""
    async with (
        SimCompanion(faults=[Fault("list_apps_error", at_step=1, duration=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await device.launch("com.orav.demo")
        before = await device.observe()
        await device.perform(Tap(target=Target(label="Welcome to Demo")))
        seen = await device.observe()
        assert seen.app_running is None and seen.error is None
        assert seen.elements == before.elements
        assert fault(seen) is None and interruption(seen, before) is None
        assert (await device.observe()).app_running is True  # asked again, it answers


@settings(max_examples=80, deadline=None)
@given(
    st.floats(0, 200),
    st.floats(100, 600),
    st.floats(180, 270),
    st.lists(st.sampled_from(["Yes", "No", "Delete", "Cancel", "Keep"]), min_size=1, max_size=3),
    st.data(),
)
def test_an_action_aimed_inside_an_alert_is_never_blocked_and_outside_always(
    x, y, width, labels, data
):
    box = Frame(x, y, width, 150)
    dialog = Element("AXAlert", "Sure?", frame=box)
    step = width / len(labels)
    buttons = [
        Element("AXButton", label, f"b{i}", frame=Frame(x + i * step, y + 106, step, 44))
        for i, label in enumerate(labels)
    ]
    below = Element("AXButton", "Buy", "buy", frame=Frame(0, 780, 390, 44))  # off the alert
    seen = screen(below, dialog, *buttons)
    found = interruption(seen)
    assert found.kind == "alert"
    button = data.draw(st.sampled_from(buttons))
    centre = button.frame.center
    for inside in (Tap(target=Target(id=button.unique_id)), Tap(centre.x, centre.y)):
        assert not blocks(found, seen, inside), inside
    assert blocks(found, seen, Tap(target=Target(id="buy")))  # the screen under it
    outside = Point(x + width + 5, y) if x + width + 5 < 390 else Point(x - 5, y)
    assert blocks(found, seen, Tap(outside.x, outside.y))
    for never in (PressKey("escape"), Wait(1)):
        assert not blocks(found, seen, never)


def test_a_control_under_the_alert_is_blocked_even_where_the_alert_covers_it():
    cell = Element("AXCell", "Archive", "archive", frame=Frame(0, 453, 390, 44))
    seen = screen(cell, *alert("Delete", "Keep"))  # its centre (195, 475) is on "Delete"
    found = interruption(seen)
    assert blocks(found, seen, Tap(target=Target(id="archive")))


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([True, False, None]),
    st.booleans(),
    st.sampled_from([None, "accessibility_info: boom"]),
)
def test_a_crash_is_exactly_the_app_reported_not_running(running, with_tree, error):
    seen = Observation(HOME if with_tree else (), app="com.orav.demo", app_running=running)
    seen = Observation(seen.elements, app=seen.app, app_running=running, error=error)
    found = fault(seen)
    if running is False:
        assert found.kind == "crash"
    elif not with_tree or error is not None:
        assert found.kind == "empty_dump"  # look again: no crash without the device saying so
    else:
        assert found is None


def test_a_done_is_blocked_only_when_an_interruption_hides_a_success_criterion():
    from orav.model import Assert, Done
    from orav.perceive import done_blocked

    spinner = Element("AXActivityIndicator", frame=Frame(175, 402, 40, 40))
    seen = screen(spinner)
    found = interruption(seen)
    shown, hidden = Assert(Target(id="item_1")), Assert(Target(id="receipt"))
    assert not done_blocked(found, seen, Done(), (shown,))
    assert done_blocked(found, seen, Done(), (shown, hidden))
    assert not done_blocked(found, seen, Done(success=False), (hidden,))  # giving up: as is
    assert not done_blocked(found, seen, Done(), (Assert(Target(id="receipt"), "absent"),))
