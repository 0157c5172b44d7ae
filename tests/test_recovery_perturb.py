"""Property tests on recorded screens: observations from the golden cassettes, perturbed with a
fault (an alert, a permission dialog, an empty dump, a network banner, a spinner, a crash, a
login wall, a keyboard over the target, a frozen screen), go to the detectors and the recovery
machine, which must choose the reference's remedy (docs/recovery.md).

The device here is a recording of what the machine asks for; after the first remedy it shows
the unperturbed screen, so the recovery ends resolved.
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.cassette import ObserveEvent, read_cassette
from orav.machines.recovery import RecoveryMachine, recover
from orav.model import (
    Action,
    ActionResult,
    Credentials,
    Element,
    Frame,
    Observation,
    PressKey,
    Scenario,
    Tap,
    Target,
)
from orav.perceive import classify, keyboard_frame, measure, stuck
from orav.perceive.faults import DISMISS_LABELS, RETRY_LABELS

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = sorted((ROOT / "recordings").glob("**/*.cassette"))
SCENARIO = Scenario(
    name="perturbed",
    app="com.orav.demo",
    goal="g",
    credentials=Credentials("demo@orav.dev", "Orav-Demo-1!"),
)
PROPERTY = settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])


def _clean_observations() -> list[Observation]:
    found: dict[str, Observation] = {}
    for path in CASSETTES:
        cassette = read_cassette(path)
        for index, event in enumerate(cassette.events):
            if isinstance(event, ObserveEvent) and event.observation is not None:
                observation = cassette.observation(index)
                if observation.elements and classify(observation) is None:
                    found.setdefault(observation.fingerprint, observation)
    return list(found.values())


CLEAN = _clean_observations()
screens = st.sampled_from(CLEAN)


class Device:
    """Keeps the calls the recovery makes; observe shows ``after`` (the fault gone)."""

    def __init__(self, after: Observation) -> None:
        self.after = after
        self.calls: list[object] = []

    async def observe(self) -> Observation:
        self.calls.append("observe")
        return self.after

    async def perform(self, action: Action) -> ActionResult:
        self.calls.append(action)
        return ActionResult()

    async def launch(self, bundle_id: str) -> None:
        self.calls.append("launch")

    async def terminate(self, bundle_id: str) -> None:
        self.calls.append("terminate")

    async def is_running(self, bundle_id: str) -> bool:
        self.calls.append("is_running")
        return True


async def run(observation: Observation, clean: Observation, *, action=None, scenario=SCENARIO):
    """Classify the perturbed observation and recover; the calls made and the waits taken."""
    detection = classify(observation, clean, action=action)
    device, waits = Device(clean), []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    outcome = await recover(
        detection, device=device, observation=observation, scenario=scenario, sleep=sleep
    )
    assert outcome.resolved, outcome
    actions = [c for c in device.calls if c != "observe"]
    return detection.kind, actions, waits


def _with(observation: Observation, index: int, *added: Element) -> Observation:
    elements = list(observation.elements)
    at = 1 + index % len(elements)  # after the application element
    return evolve(observation, elements=(*elements[:at], *added, *elements[at:]))


def _button(label: str, x: float, y: float) -> Element:
    return Element("AXButton", label, frame=Frame(x, y, 135, 44), traits=("button",))


OTHER_LABELS = st.sampled_from(["Later", "Update", "Learn More", "Settings", "Continue"])


@PROPERTY
@given(
    screens,
    st.integers(0, 50),
    st.lists(st.sampled_from(DISMISS_LABELS), max_size=2),
    st.lists(OTHER_LABELS, min_size=1, max_size=2),
    st.text(min_size=1, max_size=30),
)
async def test_an_added_alert_is_dismissed_with_the_preferred_button(
    clean, index, dismiss, other, title
):
    labels = [*other, *dismiss]
    box = Frame(60, 350, 270, 150)
    buttons = [_button(label, 60 + (i % 2) * 135, 456) for i, label in enumerate(labels)]
    alert = Element("AXAlert", title, frame=box)
    kind, actions, _ = await run(_with(clean, index, alert, *buttons), clean)
    assert kind == "alert"
    wanted = next((d for d in DISMISS_LABELS if d in labels), labels[0])
    assert actions == [Tap(target=Target(label=wanted))]


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
    assert waits == [RecoveryMachine.EMPTY_DUMP_WAIT]


BANNERS = ["No connection", "You're offline", "Request failed", "Network error", "Server error"]


@PROPERTY
@given(screens, st.integers(0, 50), st.sampled_from(BANNERS), st.booleans())
async def test_a_network_banner_waits_two_seconds_then_taps_retry(clean, index, text, retry):
    added = [Element("AXStaticText", text, frame=Frame(0, 91, 390, 60))]
    if retry:
        added.append(_button("Retry", 135, 171))
    kind, actions, waits = await run(_with(clean, index, *added), clean)
    assert kind == "network"
    assert waits[0] == RecoveryMachine.LADDER["network"]
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
    assert actions == [] and waits[0] == RecoveryMachine.LADDER["network"]


@PROPERTY
@given(screens)
async def test_a_crashed_app_is_relaunched_and_counted(clean):
    crashed = evolve(clean, app_running=False)
    kind, actions, waits = await run(crashed, clean)
    assert kind == "crash"
    assert actions == ["launch"] and RecoveryMachine.CRASH_WAIT in waits


@PROPERTY
@given(screens.filter(lambda o: o.find(unique_id="sign_in") is None), st.integers(0, 50))
async def test_a_login_wall_over_a_screen_is_filled_with_the_credentials(clean, index):
    wall = (
        Element("AXTextField", "Email", "email", frame=Frame(20, 200, 350, 44)),
        Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
    )
    kind, actions, _ = await run(_with(clean, index, *wall), clean)
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
    top = data.draw(st.floats(40, target.frame.center.y - 1))
    board = Element("AXKeyboard", None, frame=Frame(0, top, 390, 844 - top))
    tap = Tap(target=Target(id=target.unique_id))
    kind, actions, _ = await run(_with(clean, len(clean.elements), board), clean, action=tap)
    assert kind == "keyboard"
    assert actions == [PressKey("escape")]


@PROPERTY
@given(st.sampled_from([o for o in CLEAN if o.screenshot is not None and _targets(o)]), st.data())
async def test_a_frozen_screen_retries_the_tap_nudged(before, data):
    target = data.draw(st.sampled_from(_targets(before)))
    frozen = evolve(before, taken_at=before.taken_at + 1.0)  # same pixels, same tree
    assert not measure(before, frozen).changed
    other = data.draw(st.sampled_from([o for o in CLEAN if o.fingerprint != before.fingerprint]))
    assert measure(before, other).changed  # a real change is never taken for a dropped tap
    tap = Tap(target=Target(id=target.unique_id))
    device = Device(other)
    outcome = await recover(
        stuck(tap), device=device, observation=frozen, scenario=SCENARIO, sleep=_no_wait
    )
    centre = target.frame.center
    dx, dy = RecoveryMachine.NUDGES[0]
    assert outcome.resolved and outcome.actions == (Tap(centre.x + dx, centre.y + dy),)


async def _no_wait(seconds: float) -> None:
    return None
