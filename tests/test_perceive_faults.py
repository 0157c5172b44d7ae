"""Fault detectors on trees built like the simulator's, and on real observations from it."""

from __future__ import annotations

import pytest

from orav.codec import from_json, to_json
from orav.drivers.idb import IdbDevice
from orav.model import Element, Fault, Frame, Observation, Point, Swipe, Tap, Target, TypeText
from orav.perceive import Detection, classify, keyboard_blocks, keyboard_frame, shows, stuck
from orav.sim import SimCompanion

APP = Element("AXApplication", "Demo", frame=Frame(0, 0, 390, 844))
HOME = (
    APP,
    Element("AXHeading", "Home", frame=Frame(0, 47, 390, 44)),
    Element("AXCell", "Getting started", "item_1", frame=Frame(0, 100, 390, 56)),
)


def screen(*extra: Element, running: bool = True) -> Observation:
    return Observation((*HOME, *extra), app_running=running)


def alert(*buttons: str, role: str = "AXAlert") -> tuple[Element, ...]:
    box = Element(role, "Something went wrong", frame=Frame(60, 347, 270, 150))
    return (
        box,
        *(
            Element("AXButton", label, frame=Frame(60 + 135 * i, 453, 135, 44))
            for i, label in enumerate(buttons)
        ),
    )


def test_a_usable_screen_shows_no_fault():
    assert classify(screen(), screen()) is None


def test_an_alert_and_its_buttons_are_the_evidence():
    found = classify(screen(*alert("Cancel", "OK")))
    assert found.kind == "alert"
    assert [e.label for e in found.evidence] == ["Something went wrong", "Cancel", "OK"]


def test_buttons_outside_the_alert_are_not_its_own():
    outside = Element("AXButton", "Buy", frame=Frame(0, 800, 390, 44))
    found = classify(screen(*alert("OK"), outside))
    assert [e.label for e in found.evidence[1:]] == ["OK"]


def test_a_permission_dialog_is_not_a_plain_alert():
    assert classify(screen(*alert("Don't Allow", "Allow"))).kind == "permission"
    assert (
        classify(screen(*alert("Don\u2019t Allow", "Allow While Using App"))).kind == "permission"
    )


def test_a_crash_beats_everything_and_names_the_previous_state():
    springboard = Observation((Element("AXApplication", "SpringBoard"),), app_running=False)
    found = classify(springboard, screen())
    assert found.kind == "crash" and "previous" in found.note


@pytest.mark.parametrize("observation", [Observation(()), screen(), Observation((APP,))])
def test_an_empty_or_failed_dump(observation):
    failed = Observation(observation.elements, error="accessibility_info: boom")
    for seen in (Observation(()), failed):
        assert classify(seen).kind == "empty_dump"


def test_a_login_wall_counts_only_when_it_interrupts():
    wall = screen(
        Element("AXTextField", "Email", "email", frame=Frame(20, 200, 350, 44)),
        Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
    )
    assert classify(wall) is None  # the start screen: the agent signs in itself
    assert classify(wall, wall) is None  # still the same login screen
    found = classify(wall, screen())
    assert found.kind == "login"
    assert [e.unique_id for e in found.evidence] == ["email", "password", "sign_in"]


def test_a_network_banner_or_a_retry_button():
    banner = Element("AXStaticText", "No connection", frame=Frame(0, 91, 390, 60))
    retry = Element("AXButton", "Retry", "retry", frame=Frame(135, 171, 120, 44))
    assert classify(screen(banner, retry)).evidence == (banner, retry)
    assert classify(screen(retry)).kind == "network"
    assert classify(screen(banner)).kind == "network"
    assert classify(screen(Element("AXStaticText", "Networking tips"))) is None


def test_a_spinner_or_a_loading_label():
    spinner = Element("AXActivityIndicator", "In progress", frame=Frame(175, 402, 40, 40))
    assert classify(screen(spinner)).kind == "loading"
    assert classify(screen(Element("AXStaticText", "Loading\u2026"))).kind == "loading"
    assert classify(screen(Element("AXStaticText", "Unloading dock"))) is None


KEYBOARD = Element("AXKeyboard", frame=Frame(0, 553, 390, 291))


def test_the_keyboard_blocks_only_what_lies_behind_it():
    behind = Element("AXButton", "Checkout", "checkout", frame=Frame(20, 700, 350, 50))
    seen = screen(behind, KEYBOARD)
    assert keyboard_frame(seen) == KEYBOARD.frame
    assert keyboard_blocks(seen, Tap(target=Target(id="checkout")))
    assert keyboard_blocks(seen, Tap(100, 600))
    assert keyboard_blocks(seen, Swipe(Point(100, 600), Point(100, 100)))
    assert not keyboard_blocks(seen, Tap(target=Target(id="item_1")))
    assert not keyboard_blocks(seen, TypeText("hi"))
    assert not keyboard_blocks(screen(behind), Tap(target=Target(id="checkout")))
    found = classify(seen, seen, action=Tap(100, 600))
    assert found.kind == "keyboard" and found.evidence == (KEYBOARD,)
    assert classify(seen, seen) is None  # no action, no harm


def test_keys_without_a_container_still_make_a_keyboard():
    keys = [Element("AXKey", c, frame=Frame(10 + 39 * i, 600, 36, 42)) for i, c in enumerate("qw")]
    assert keyboard_frame(screen(*keys)) == Frame(10, 600, 75, 42)


def test_stuck_carries_the_action():
    tap = Tap(1, 2)
    assert stuck(tap) == stuck(tap) and stuck(tap).action == tap and stuck(tap).kind == "stuck"


def test_shows_checks_one_kind():
    assert shows(screen(*alert("OK")), "alert") is not None
    assert shows(screen(), "alert") is None
    assert shows(Observation(()), "empty_dump") is not None
    assert shows(screen(KEYBOARD), "keyboard") is not None


# --- the same detectors on real observations from the simulator, through the idb driver ----


@pytest.mark.parametrize(
    ("fault", "kind"),
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
async def test_each_injected_fault_is_classified(fault, kind):
    async with (
        SimCompanion(faults=[Fault(fault, at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await device.launch("com.orav.demo")
        before = await device.observe()
        assert classify(before) is None  # the demo's sign-in screen is the agent's job
        await device.perform(Tap(target=Target(label="Welcome to Demo")))
        seen = await device.observe()
        # The demo starts at sign-in, so its wall interrupts only when seen after another screen.
        previous = screen() if kind == "login" else before
        assert classify(seen, previous).kind == kind
        if kind == "login":
            assert classify(seen, before) is None


def test_a_detection_round_trips_through_the_codec_with_its_action_tagged():
    for detection in (stuck(Tap(target=Target(id="open"))), classify(screen(*alert("OK")))):
        text = to_json(detection)
        assert from_json(text, Detection) == detection
    assert '"kind":"tap"' in to_json(stuck(Tap(1, 2)))
