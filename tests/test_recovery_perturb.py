"""Property tests on recorded screens: observations from the golden cassettes, perturbed with a
fault or an interruption that blocks the decided action (an alert, a permission dialog, an
empty dump, a network banner, a spinner, a crash, a login wall, a keyboard over the target, an
action with no effect), go to the detectors and the recovery machine, which must choose the
reference's remedy (docs/recovery.md). Perturbed with a *benign* look-alike (a static progress
bar, an offline hint, an app named "Offline", a checkout or change-password form, a dialog the
action answers), no detector fires and nothing blocks: no remedy runs.

The device here is a recording of what the machine asks for; after the first remedy it shows
the unperturbed screen, so the recovery ends resolved.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from attrs import evolve, fields, frozen
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.cassette import ObserveEvent, read_cassette
from orav.machines.attempt import Attempt
from orav.machines.recovery import recover
from orav.model import (
    Action,
    ActionResult,
    Credentials,
    Element,
    Frame,
    Observation,
    Point,
    PressKey,
    Scenario,
    Tap,
    Target,
    TypeText,
)
from orav.perceive import (
    Detection,
    blocks,
    cover_fault,
    fault,
    interruption,
    keyboard_frame,
    measure,
    no_effect,
    screen_name,
    target_element,
)
from orav.perceive.occlusion import cover_at, on_top
from orav.perceive.roles import DENY_LABELS, RETRY_LABELS, is_text_field
from orav.perceive.words import answers, plain_words
from orav.testing import FakeDevice

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = sorted((ROOT / "recordings").glob("**/*.cassette"))
SCENARIO = Scenario(
    name="perturbed",
    app="com.orav.demo",
    goal="g",
    credentials=Credentials("demo@orav.dev", "Orav-Demo-1!"),
)
PROPERTY = settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])


@frozen(repr=False)
class Recorded(Observation):
    """A recorded observation that prints as its app and screen (falsifying examples stay
    readable: no screenshot bytes)."""

    def __repr__(self) -> str:
        return f"Recorded({self.app!r}, {screen_name(self)!r}, {len(self.elements)} elements)"

    def _repr_pretty_(self, printer, cycle: bool) -> None:  # hypothesis prints with this
        printer.text(repr(self))


def _clean_observations() -> list[Observation]:
    found: dict[str, Observation] = {}
    for path in CASSETTES:
        cassette = read_cassette(path)
        for index, event in enumerate(cassette.events):
            if isinstance(event, ObserveEvent) and event.observation is not None:
                observation = cassette.observation(index)
                if (
                    observation.elements
                    and fault(observation) is None
                    and interruption(observation) is None
                ):
                    recorded = Recorded(
                        **{a.name: getattr(observation, a.name) for a in fields(Observation)}
                    )
                    found.setdefault(repr(observation.elements), recorded)
    return list(found.values())


CLEAN = _clean_observations()
screens = st.sampled_from(CLEAN)


def showing(after: Observation, before: Observation | None = None) -> FakeDevice:
    """Keeps the calls the recovery makes; observe shows ``after`` (the fault gone). A tap on
    a text field of ``before`` gives it focus there (a form waits for its fields to be filled)."""

    def focus(fake: FakeDevice, action: Action) -> ActionResult:
        fake.show(after)
        if before is not None and isinstance(action, Tap) and action.target is not None:
            field = target_element(before, action.target)
            if field is not None and is_text_field(field):
                focused = tuple(evolve(e, focused=e is field) for e in before.elements)
                fake.show(evolve(before, elements=focused))
        return ActionResult()

    return FakeDevice(after, respond=focus)


# The test's next action aims at something the perturbation hides (or the tree lacks).
HIDDEN = Tap(target=Target(id="behind_the_perturbation"))


def detect(observation: Observation, previous: Observation, action: Action) -> Detection | None:
    """What the engine would recover from before ``action``: a fault, an interruption that
    blocks it, or the keyboard over its target."""
    found = fault(observation)
    if found is not None:
        return found
    found = interruption(observation, previous)
    if found is not None and blocks(found, observation, action):
        return evolve(found, action=action)
    return cover_fault(observation, action)


async def run(
    observation: Observation, clean: Observation, *, action=HIDDEN, scenario=SCENARIO, form=False
):
    """Detect on the perturbed observation and recover; the calls made and the waits taken."""
    detection = detect(observation, clean, action)
    assert detection is not None
    scenario = evolve(scenario, app=clean.app or scenario.app)  # the recording's app
    device, waits = showing(clean, observation if form else None), []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    outcome = await recover(
        detection, device=device, observation=observation, scenario=scenario, sleep=sleep
    )
    assert outcome.resolved, outcome
    actions = [c for c in device.log if c != "observe"]
    return detection.kind, actions, waits


def _with(observation: Observation, index: int, *added: Element) -> Observation:
    elements = list(observation.elements)
    at = 1 + index % len(elements)  # after the application element
    return evolve(observation, elements=(*elements[:at], *added, *elements[at:]))


def _button(label: str, x: float, y: float) -> Element:
    return Element("AXButton", label, frame=Frame(x, y, 135, 44), traits=("button",))


REFUSALS = {plain_words(d) for d in DENY_LABELS}  # a refusal makes a permission dialog
DISMISSING = [w.capitalize() for w in answers("cancel") if w not in REFUSALS]
OTHER_LABELS = st.sampled_from(["Update", "Learn More", "Settings", "Continue", "Yes", "Delete"])


@PROPERTY
@given(
    screens,
    st.integers(0, 50),
    st.lists(st.sampled_from(DISMISSING), min_size=1, max_size=2),
    st.lists(OTHER_LABELS, min_size=1, max_size=2),
    st.text(min_size=1, max_size=30),
)
async def test_an_added_alert_is_dismissed_with_the_preferred_safe_button(
    clean, index, dismiss, other, title
):
    labels = [*other, *dismiss]
    box = Frame(60, 350, 270, 150)
    buttons = [_button(label, 60 + (i % 2) * 135, 456) for i, label in enumerate(labels)]
    alert = Element("AXAlert", title, frame=box)
    kind, actions, _ = await run(_with(clean, index, alert, *buttons), clean)
    assert kind == "alert"
    wanted = min(
        dismiss, key=lambda d: answers("cancel")[plain_words(d)]
    )  # the most plainly declining
    assert actions == [Tap(target=Target(label=wanted))]


@PROPERTY
@given(screens, st.integers(0, 50), st.lists(OTHER_LABELS, min_size=1, max_size=3))
async def test_an_alert_without_a_safe_button_is_never_answered(clean, index, labels):
    buttons = [_button(label, 60 + (i % 2) * 135, 456) for i, label in enumerate(labels)]
    seen = _with(
        clean, index, Element("AXAlert", "Sure?", frame=Frame(60, 350, 270, 150)), *buttons
    )
    detection = detect(seen, clean, HIDDEN)
    assert detection.kind == "alert"
    device = showing(clean)
    outcome = await recover(
        detection,
        device=device,
        observation=seen,
        scenario=evolve(SCENARIO, app=clean.app),
        sleep=_no_wait,
    )
    assert not outcome.resolved and "no safe answer" in outcome.error
    assert outcome.actions == () and [c for c in device.log if c != "observe"] == []


@PROPERTY
@given(screens, st.integers(0, 50), st.sampled_from(["allow", "deny"]))
async def test_a_permission_dialog_is_answered_as_the_scenario_says(clean, index, answer):
    dialog = (
        Element(
            "AXAlert",
            "Allow \u201cDemo\u201d to use your location?",
            frame=Frame(60, 350, 270, 150),
        ),
        _button("Don't Allow", 60, 456),
        _button("Allow", 195, 456),
    )
    scenario = evolve(SCENARIO, permissions=answer)
    kind, actions, _ = await run(_with(clean, index, *dialog), clean, scenario=scenario)
    assert kind == "permission"
    assert actions == [Tap(target=Target(label="Allow" if answer == "allow" else "Don't Allow"))]


@PROPERTY
@given(screens, st.sampled_from([None, "accessibility_info failed: timed out"]))
async def test_an_emptied_dump_asks_whether_the_app_runs_then_waits_and_re_dumps(clean, error):
    kind, actions, waits = await run(evolve(clean, elements=(), error=error), clean)
    assert kind == "empty_dump"
    assert actions == ["is_running"]  # running: wait 2 s and look again, no restart
    assert waits == [Attempt.EMPTY_DUMP_WAIT]


BANNERS = [
    "No internet connection",
    "You're offline",
    "Request failed",
    "Network error",
    "Server error",
    "Could not connect to the server",
]


@PROPERTY
@given(screens, st.integers(0, 50), st.sampled_from(BANNERS), st.booleans())
async def test_a_network_banner_waits_two_seconds_then_taps_retry(clean, index, text, retry):
    retry = retry or "offline" in text  # an offline hint alone is no error (see the benign)
    added = [Element("AXStaticText", text, frame=Frame(0, 91, 390, 60))]
    if retry:
        added.append(_button("Retry", 135, 171))
    kind, actions, waits = await run(_with(clean, index, *added), clean)
    assert kind == "network"
    assert waits[0] == Attempt.LADDER["network"]
    assert actions == ([Tap(target=Target(label="Retry"))] if retry else [])
    assert "Retry" in RETRY_LABELS


@PROPERTY
@given(screens, st.integers(0, 50))
async def test_a_spinner_is_waited_on_before_anything_else(clean, index):
    spinner = Element(
        "AXActivityIndicator",
        "In progress",
        frame=Frame(175, 402, 40, 40),
        traits=("updatesFrequently",),
    )
    kind, actions, waits = await run(_with(clean, index, spinner), clean)
    assert kind == "loading"
    assert actions == [] and waits[0] == Attempt.LADDER["network"]


@PROPERTY
@given(screens)
async def test_a_crashed_app_is_relaunched_and_counted(clean):
    crashed = evolve(clean, app_running=False)
    kind, actions, waits = await run(crashed, clean)
    assert kind == "crash"
    assert actions == ["launch"] and Attempt.CRASH_WAIT in waits


@PROPERTY
@given(screens.filter(lambda o: not any(map(is_text_field, o.elements))), st.integers(0, 50))
async def test_a_login_wall_over_a_screen_is_filled_with_the_credentials(clean, index):
    wall = (
        Element("AXTextField", "Email", "email", frame=Frame(20, 200, 350, 44)),
        Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
    )
    kind, actions, _ = await run(_with(clean, index, *wall), clean, form=True)
    assert kind == "login"
    assert actions[0] == Tap(target=Target(label="Email", id="email"))
    assert actions[-1] == Tap(target=Target(label="Sign in", id="sign_in"))
    typed = [a.text for a in actions if a.kind == "type_text"]
    assert typed == [SCENARIO.credentials.username, SCENARIO.credentials.password]


def _targets(observation: Observation) -> list[Element]:
    """Elements a tap can name unambiguously, below the navigation bar."""
    return [
        e
        for e in observation.elements
        if e.unique_id
        and e.frame.center.y > 100
        and not e.frame.is_empty
        and sum(o.unique_id == e.unique_id for o in observation.elements) == 1
    ]


@PROPERTY
@given(st.sampled_from([o for o in CLEAN if _targets(o) and not keyboard_frame(o)]), st.data())
async def test_a_keyboard_over_the_target_is_escaped_first(clean, data):
    target = data.draw(st.sampled_from(_targets(clean)))
    top = data.draw(st.floats(40, target.frame.y))  # over all of it: no spot left to tap
    board = Element("AXKeyboard", None, frame=Frame(0, top, 390, 844 - top))
    tap = Tap(target=Target(id=target.unique_id))
    kind, actions, _ = await run(_with(clean, len(clean.elements), board), clean, action=tap)
    assert kind == "keyboard"
    assert actions == [PressKey("escape")]


@PROPERTY
@given(st.sampled_from([o for o in CLEAN if o.screenshot is not None and _targets(o)]), st.data())
async def test_an_ineffective_tap_is_retried_nudged(before, data):
    target = data.draw(st.sampled_from(_targets(before)))
    frozen = evolve(before, taken_at=before.taken_at + 1.0)  # same pixels, same tree
    assert not measure(before, frozen).changed
    other = data.draw(st.sampled_from([o for o in CLEAN if measure(before, o).tree]))
    assert measure(before, other).changed  # a real change is never taken for a dropped tap
    tap = Tap(target=Target(id=target.unique_id))
    device = showing(other)
    outcome = await recover(
        no_effect(tap), device=device, observation=frozen, scenario=SCENARIO, sleep=_no_wait
    )
    centre = target.frame.center
    dx, dy = Attempt.NUDGES[0]
    # the nudge stays on the element, at most a quarter of its size, and off anything over it
    # (a keyboard's key beside it): where the nudge would land on that, it stays put
    dx = max(-target.frame.width / 4, min(target.frame.width / 4, dx))
    dy = max(-target.frame.height / 4, min(target.frame.height / 4, dy))
    moved = Point(centre.x + dx, centre.y + dy)
    if cover_at(frozen, target, moved) is not None:
        moved = centre
    assert outcome.resolved and outcome.actions == (Tap(moved.x, moved.y, tap.target),)
    assert target.frame.contains(moved)
    assert on_top(frozen, moved) in (target, None) or cover_at(frozen, target, centre) is not None


async def _no_wait(seconds: float) -> None:
    return None


# --- benign look-alikes: nothing to recover from, nothing blocks, no remedy runs -------------


def _field(label: str, uid: str, y: float, *, secure: bool = False) -> Element:
    role = "AXSecureTextField" if secure else "AXTextField"
    return Element(role, label, uid, frame=Frame(20, y, 350, 44), secure=secure)


BENIGN: dict[str, tuple[Element, ...]] = {
    "a static progress bar": (
        Element("AXProgressIndicator", "Storage used", value="80%", frame=Frame(20, 400, 350, 8)),
    ),
    "an offline hint": (
        Element(
            "AXStaticText", "You're offline. Changes sync later.", frame=Frame(20, 380, 350, 40)
        ),
    ),
    "a checkout form": (
        Element("AXHeading", "Checkout", frame=Frame(0, 47, 390, 44)),
        _field("Full name", "full_name", 140),
        _field("Email", "email_receipt", 190),
        _field("Card number", "card_number", 240, secure=True),
        _field("CVV", "cvv", 290, secure=True),
        Element("AXButton", "Pay now", "pay", frame=Frame(20, 352, 350, 50)),
    ),
    "a change-password form": (
        Element("AXHeading", "Change password", frame=Frame(0, 47, 390, 44)),
        _field("Email", "account_email", 140),
        _field("New password", "new_password", 240, secure=True),
        Element("AXButton", "Sign in", "save_and_sign_in", frame=Frame(20, 352, 350, 50)),
    ),
    "a PIN pad": (
        _field("Phone", "phone", 140),
        _field("PIN", "pin", 240, secure=True),
        Element("AXButton", "Log in", "pin_login", frame=Frame(20, 352, 350, 50)),
    ),
}


def _named_offline(observation: Observation) -> Observation:
    """The same screen of an app called "Offline"."""
    app = Element("AXApplication", "Offline", frame=Frame(0, 0, 390, 844))
    rest = [e for e in observation.elements if e.role != "AXApplication"]
    return evolve(observation, elements=(app, *rest))


def _test_actions(observation: Observation, added: tuple[Element, ...]) -> list[Action]:
    """What a test may do next: tap a control of the screen or of the look-alike, type into a
    field of the look-alike (focused), press return. Where a look-alike element and a control
    of the screen lie over each other, neither is tapped: a tap there lands on whichever is
    drawn on top, which is occlusion (tests/test_occlusion.py), not a fault."""
    screen = _targets(observation)

    def clear(element: Element, others: Iterable[Element]) -> bool:
        return not any(_overlap(element.frame, other.frame) for other in others)

    controls = (
        *(e for e in screen if clear(e, added)),
        *(e for e in added if e.unique_id and clear(e, screen)),
    )
    taps = [Tap(target=Target(id=e.unique_id)) for e in controls]
    taps += [Tap(target=Target(label=e.label)) for e in controls if e in added and e.label]
    return [*taps, PressKey("return")]


def _overlap(a: Frame, b: Frame) -> bool:
    return (
        a.x < b.x + b.width
        and b.x < a.x + a.width
        and a.y < b.y + b.height
        and b.y < a.y + a.height
    )


no_keyboard = [o for o in CLEAN if keyboard_frame(o) is None]


@PROPERTY
@given(
    st.sampled_from(no_keyboard),
    st.integers(0, 50),
    st.sampled_from(sorted(BENIGN)),
    st.booleans(),
    st.data(),
)
async def test_a_benign_look_alike_is_no_fault_and_blocks_nothing(
    clean, index, name, offline_app, data
):
    """A static progress bar, an offline hint, a checkout or change-password form or a PIN
    pad (appearing after the recorded screen), on an app that may be called "Offline": no
    fault, no interruption, so whatever the test does next, no remedy runs."""
    added = BENIGN[name]
    seen = _with(clean, index, *added)
    if offline_app:
        seen, clean = _named_offline(seen), _named_offline(clean)
    action = data.draw(st.sampled_from(_test_actions(clean, added)))
    assert fault(seen) is None
    assert interruption(seen, clean) is None, name
    assert interruption(seen) is None
    assert detect(seen, clean, action) is None


@PROPERTY
@given(st.sampled_from(no_keyboard), st.integers(0, 50), st.data())
async def test_a_form_with_secure_fields_being_filled_in_is_left_to_the_test(clean, index, data):
    """The test types into a secure card field (it has focus): nothing stands in its way."""
    name = data.draw(st.sampled_from(["a checkout form", "a change-password form", "a PIN pad"]))
    added = BENIGN[name]
    secure = [e for e in added if e.secure]
    focus = data.draw(st.sampled_from(secure))
    typed = tuple(evolve(e, focused=e == focus) for e in added)
    seen = _with(clean, index, *typed)
    assert detect(seen, clean, TypeText("4242424242424242", secure=True)) is None


def _confirmation(*labels: str) -> tuple[Element, ...]:
    box = Element("AXAlert", "Delete all notes?", frame=Frame(60, 347, 270, 150))
    message = Element("AXStaticText", "This cannot be undone.", frame=Frame(70, 400, 250, 40))
    buttons = [
        Element("AXButton", label, frame=Frame(60 + 135 * i, 453, 135, 44))
        for i, label in enumerate(labels)
    ]
    return (box, message, *buttons)


@PROPERTY
@given(
    st.sampled_from(CLEAN),
    st.integers(0, 50),
    st.sampled_from([("Yes", "No"), ("Delete", "Cancel"), ("Sign Out", "Stay")]),
    st.integers(0, 1),
)
async def test_a_dialog_the_action_answers_blocks_nothing(clean, index, labels, answer):
    """A confirmation dialog the test opened on purpose and answers now ("No" inside the
    alert): it is an interruption, but the action is aimed inside it, so no remedy runs."""
    seen = _with(clean, len(clean.elements), *_confirmation(*labels))
    found = interruption(seen, clean)
    assert fault(seen) is None and found.kind == "alert"
    tap = Tap(target=Target(label=labels[answer]))
    assert not blocks(found, seen, tap)
    assert detect(seen, clean, tap) is None
    # aimed outside it, the dialog blocks: the remedy would take over
    assert blocks(found, seen, HIDDEN)
