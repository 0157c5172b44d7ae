"""The recovery StateChart on its own: budgets hold, every path ends in resolved, handed_back
or failed, and each state's declared verdict answers an event the state can take."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.errors import DeviceTimeout
from orav.machines import diagrams, machine_classes, remedies, verdicts
from orav.machines.aim import nudged, point_outside_fields
from orav.machines.attempt import Attempt
from orav.machines.recovery import RecoveryMachine, RecoveryOutcome, recover
from orav.machines.recovery_device import RecoveryDevice
from orav.model import (
    FAULT_KINDS,
    ActionResult,
    Credentials,
    Element,
    Frame,
    Observation,
    Point,
    PressKey,
    Scenario,
    Swipe,
    Tap,
    Target,
    TypeText,
)
from orav.perceive import Detection, fault, frozen_app, interruption, no_effect, on_top
from orav.testing import FakeDevice

APP_ID = "com.example.app"
SCENARIO = Scenario("s", APP_ID, "g", credentials=Credentials("u", "p"))
APP = Element("AXApplication", "App", frame=Frame(0, 0, 390, 844))
# One screen with something for every remedy to act on: it never clears by itself.
EVERYTHING = Observation(
    (
        APP,
        Element("AXButton", "Back", "back", frame=Frame(8, 47, 80, 44)),
        Element("AXStaticText", "No connection", frame=Frame(0, 91, 390, 60)),
        Element("AXButton", "Retry", "retry", frame=Frame(135, 171, 120, 44)),
        Element("AXTextField", "Email", "email", "x", Frame(20, 200, 350, 44), focused=True),
        Element("AXTextField", "Password", "password", frame=Frame(20, 260, 350, 44), secure=True),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
        Element("AXActivityIndicator", "In progress", frame=Frame(175, 402, 40, 40)),
        Element("AXAlert", "Oops", frame=Frame(60, 347, 270, 150)),
        Element("AXButton", "Don't Allow", frame=Frame(60, 453, 135, 44)),
        Element("AXButton", "OK", frame=Frame(195, 453, 135, 44)),
        Element("AXKeyboard", frame=Frame(0, 553, 390, 291)),
    ),
    app=APP_ID,
)
# The app's own screen, with nothing wrong on it.
CLEAN = Observation(
    (
        APP,
        Element("AXHeading", "Home", frame=Frame(0, 47, 390, 44)),
        Element("AXButton", "Open", "open", frame=Frame(20, 120, 350, 44)),
    ),
    app=APP_ID,
)
EMPTY = Observation((), app=APP_ID)
GONE = Observation((), app=APP_ID, app_running=False)
UNKNOWN = Observation(CLEAN.elements, app=APP_ID, app_running=None, error=None)


async def no_sleep(seconds: float) -> None:
    assert 0 <= seconds <= max(Attempt.LADDER.values())


class StubbornDevice(FakeDevice):
    """A device whose screen never changes and whose app runs from the start (``running=False``:
    never, not even after a launch): the worst case."""

    def __init__(self, observation: Observation = EVERYTHING, running: bool = True) -> None:
        super().__init__(observation, running=running, launches=running)


ACTION_OF = {
    "no_effect": Tap(195, 128),
    "frozen": Tap(195, 128),
    "keyboard": Tap(195, 700),
}


def detection(kind: str) -> Detection:
    return Detection(kind, (), "", ACTION_OF.get(kind))


FINAL = ("resolved", "handed_back", "failed")
REMEDY_STATES = [
    s.id for s in RecoveryMachine.states if not s.final and s.id != "detected"
]  # fmt: skip


# --- the declared verdicts ------------------------------------------------------------------


def test_every_remedy_state_makes_its_attempt_then_asks_its_verdict():
    """Each remedy state's entry is its remedy (``checking_app`` only asks), then its verdict,
    which sends the next event: the state drives itself."""
    for state in RecoveryMachine.states:
        if state.id in REMEDY_STATES:
            names = [s.func.__name__ for s in state.enter if callable(s.func)]  # declared
            remedy = [n for n in names if getattr(remedies, n, None) is not None]
            assert names[-1] in vars(verdicts), state.id  # the last: the verdict
            assert len(remedy) == (0 if state.id == "checking_app" else 1), state.id


def test_every_fault_kind_starts_a_remedy():
    events = {e for t in RecoveryMachine.detected.transitions for e in t.events}
    assert set(FAULT_KINDS) <= events


SCREENS = {"clean": CLEAN, "fault": EVERYTHING, "empty": EMPTY, "gone": GONE, "unknown": UNKNOWN}


class ScriptedDevice(StubbornDevice):
    """A device whose looks, app state and failures follow a drawn script (the last repeats)."""

    def __init__(self, looks: list[str], running: list[bool], trouble: list[str]) -> None:
        super().__init__()
        self.looks, self.running_seq, self.trouble = looks, running, trouble

    def _next(self, seq: list, index: int):
        return seq[min(index, len(seq) - 1)]

    async def observe(self) -> Observation:
        index = self.calls.count("observe")
        self.calls.append("observe")
        if self._next(self.trouble, index) == "timeout":
            raise DeviceTimeout("did not answer accessibility_info within 5 s")
        return SCREENS[self._next(self.looks, index)]

    async def perform(self, action) -> ActionResult:
        index = len(self.performed)
        await super().perform(action)
        if self._next(self.trouble, index) == "refused":
            return ActionResult(ok=False, error="refused")
        return ActionResult()

    async def is_running(self, bundle_id: str) -> bool:
        index = self.calls.count("is_running")
        self.calls.append("is_running")
        return self._next(self.running_seq, index)


ACTIONS = st.sampled_from(
    [
        Tap(195, 128),
        Tap(target=Target(id="open")),
        TypeText("Lovelace"),
        Swipe(*(Frame(10, 400, 0, 0).center, Frame(300, 400, 0, 0).center)),
        PressKey("return"),
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(FAULT_KINDS),
    action=ACTIONS,
    first=st.sampled_from(sorted(SCREENS)),
    looks=st.lists(st.sampled_from(sorted(SCREENS)), min_size=1, max_size=12),
    running=st.lists(st.booleans(), min_size=1, max_size=4),
    trouble=st.lists(st.sampled_from(["", "", "", "timeout", "refused"]), min_size=1, max_size=12),
)
async def test_every_path_ends_within_max_events_and_verdicts_answer_allowed_events(
    kind, action, first, looks, running, trouble
):
    """Whatever the device shows and however it fails, each verdict answers an event its
    state takes (the machine raises on any other), every state keeps to its budget, and the
    recovery ends in resolved, handed_back or failed within the bound."""
    device = ScriptedDevice(looks, running, trouble)
    detected = Detection(kind, (), "", action)
    outcome = await recover(
        detected, device=device, observation=SCREENS[first], scenario=SCENARIO, sleep=no_sleep
    )
    looks = RecoveryDevice(
        device,
        SCENARIO,
        SCREENS[first],
        sleep=no_sleep,
        on_action=None,
        settle=0,
        dump_tries=1,
        dump_pause=0,
    )
    budgets = Attempt(detected, SCENARIO, looks, SCREENS[first])
    entered = [p[2] for p in outcome.path if p[2] not in FINAL]
    for state in set(entered):
        assert entered.count(state) <= budgets.limit(state), state
    assert outcome.resolved == (outcome.path[-1][2] == "resolved")
    assert (outcome.error is None) == (outcome.resolved or outcome.handed_back)
    assert outcome.path and outcome.path[-1][2] in FINAL
    assert len(outcome.path) <= RecoveryMachine.max_events()
    assert outcome.path[0] == ("detected", kind, outcome.path[0][2])
    assert outcome.handed_back == (outcome.path[-1][2] == "handed_back")
    if outcome.handed_back:
        assert kind == "no_effect"
    if kind == "no_effect":  # an ineffective action never escalates, never restarts
        assert not outcome.restarted and "launch" not in device.calls
        assert {p[2] for p in outcome.path} <= {"retrying_action", *FINAL}


# --- the new transitions: no effect, frozen ---------------------------------------------------


@pytest.mark.parametrize(
    ("action", "budget"),
    [(Tap(195, 128), "tap"), (TypeText("Lovelace"), "text"), (PressKey("return"), None)],
)
async def test_an_action_that_keeps_changing_nothing_is_handed_back(action, budget):
    device = StubbornDevice(CLEAN)
    outcome = await recover(
        no_effect(action), device=device, observation=CLEAN, scenario=SCENARIO, sleep=no_sleep
    )
    tries = Attempt.RETRIES[budget] if budget else 1
    assert outcome.handed_back and not outcome.resolved and outcome.error is None
    assert [p[2] for p in outcome.path] == ["retrying_action"] * tries + ["handed_back"]
    assert not outcome.restarted and "launch" not in device.calls
    assert "terminate" not in device.calls
    assert len(device.performed) == tries


async def test_a_retried_tap_is_nudged_and_text_is_typed_again_as_it_was():
    device = StubbornDevice(CLEAN)
    await recover(
        no_effect(Tap(195, 128)), device=device, observation=CLEAN, scenario=SCENARIO
    )  # fmt: skip
    assert device.performed == [Tap(205, 128), Tap(185, 128), Tap(195, 138)]
    device = StubbornDevice(EVERYTHING)  # the focused field holds "x": it is kept
    await recover(
        no_effect(TypeText("Lovelace")),
        device=device,
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert device.performed == [TypeText("Lovelace")] * Attempt.RETRIES["text"]


async def test_a_retried_tap_on_a_target_taps_the_elements_centre_nudged():
    device = StubbornDevice(CLEAN)
    await recover(
        no_effect(Tap(target=Target(id="open"))),
        device=device,
        observation=CLEAN,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert device.performed[0] == Tap(205, 142, Target(id="open"))  # the target kept


async def test_a_retry_that_changes_the_screen_resolves():
    class Responds(StubbornDevice):
        async def perform(self, action):
            self.show(EVERYTHING)
            return await super().perform(action)

    outcome = await recover(
        no_effect(Tap(195, 128)),
        device=Responds(CLEAN),
        observation=CLEAN,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert outcome.resolved and [p[2] for p in outcome.path] == ["retrying_action", "resolved"]


async def test_a_frozen_app_goes_back_then_scrolls_then_restarts():
    device = StubbornDevice(CLEAN)
    outcome = await recover(
        frozen_app(Tap(195, 128), 3),
        device=device,
        observation=CLEAN,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert [p[2] for p in outcome.path] == ["going_back", "scrolling", "restarting", "resolved"]
    assert outcome.resolved and outcome.restarted and not outcome.handed_back
    assert device.calls.count("terminate") == device.calls.count("launch") == 1
    assert [a.kind for a in outcome.actions] == ["swipe", "swipe", "terminate", "launch"]


async def test_a_frozen_app_that_never_comes_back_spends_the_launch_budget():
    class Dies(StubbornDevice):
        async def launch(self, bundle_id):
            self.show(EMPTY)
            await super().launch(bundle_id)

    device = Dies(CLEAN)
    outcome = await recover(
        frozen_app(Tap(195, 128), 3),
        device=device,
        observation=CLEAN,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    launches = Attempt.RETRIES["launch"]
    assert [p[2] for p in outcome.path] == [
        "going_back",
        "scrolling",
        *["restarting"] * launches,
        "failed",
    ]
    assert outcome.restarted and not outcome.resolved and not outcome.handed_back
    assert device.calls.count("terminate") == device.calls.count("launch") == launches
    assert (
        outcome.error == f"restarting {launches} times; the fault (frozen) is still there"
    )  # its object


# --- remedies do no harm --------------------------------------------------------------------


def dialog(*labels: str) -> Observation:
    box = Element("AXAlert", "Delete all notes?", frame=Frame(60, 347, 270, 150))
    buttons = [
        Element("AXButton", label, frame=Frame(60 + 135 * i, 453, 135, 44))
        for i, label in enumerate(labels)
    ]
    return Observation((*CLEAN.elements, box, *buttons), app=APP_ID)


async def alert_recovery(seen: Observation) -> tuple[RecoveryOutcome, StubbornDevice]:
    device = StubbornDevice(seen)
    found = interruption(seen)
    assert found.kind == "alert"
    outcome = await recover(found, device=device, observation=seen, scenario=SCENARIO)
    return outcome, device


async def test_an_alert_with_only_answers_is_never_answered_for_the_test():
    outcome, device = await alert_recovery(dialog("Yes", "No"))
    assert not outcome.resolved and device.performed == []
    assert "no safe answer" in outcome.error and "'Yes', 'No'" in outcome.error
    outcome, device = await alert_recovery(dialog("Delete", "Sign Out"))
    assert device.performed == [] and "no safe answer" in outcome.error


async def test_an_alert_is_dismissed_only_through_a_safe_label():
    outcome, device = await alert_recovery(dialog("Delete", "Cancel"))
    assert not outcome.resolved  # the stubborn screen keeps it up: Cancel again, never Delete
    assert device.performed[0] == Tap(target=Target(label="Cancel"))
    assert all(a == Tap(target=Target(label="Cancel")) for a in device.performed)


async def test_an_alert_without_buttons_is_escaped_once():
    outcome, device = await alert_recovery(dialog())
    assert device.performed == [PressKey("escape")]
    assert not outcome.resolved and "no safe answer" in outcome.error


LOGIN = Observation(
    (
        APP,
        Element("AXHeading", "Sign in", frame=Frame(0, 47, 390, 44)),
        Element("AXTextField", "Email", "email", frame=Frame(20, 200, 350, 44)),
        Element("AXSecureTextField", "Password", "password", frame=Frame(20, 260, 350, 44)),
        Element("AXButton", "Sign in", "sign_in", frame=Frame(20, 352, 350, 50)),
    ),
    app=APP_ID,
)


class FormDevice(StubbornDevice):
    """A form whose fields take focus when tapped (``deaf``: never take it), and hold text."""

    def __init__(self, observation: Observation, deaf: bool = False) -> None:
        super().__init__(observation)
        self.deaf = deaf
        self.typed: dict[str | None, str] = {}

    async def perform(self, action) -> ActionResult:
        await super().perform(action)
        elements = self.observation.elements
        if isinstance(action, Tap) and action.target is not None and not self.deaf:
            elements = tuple(evolve(e, focused=e.unique_id == action.target.id) for e in elements)
        if isinstance(action, TypeText):
            focused = next((e for e in elements if e.focused), None)
            if focused is not None:
                self.typed[focused.unique_id] = self.typed.get(focused.unique_id, "") + action.text
        self.show(Observation(elements, app=self.observation.app))
        if action == Tap(target=Target(label="Sign in", id="sign_in")):
            self.show(CLEAN)
        return ActionResult()


async def test_credentials_go_into_the_login_form_and_nowhere_else():
    device = FormDevice(LOGIN)
    found = interruption(LOGIN, CLEAN)
    assert found.kind == "login"
    await recover(found, device=device, observation=LOGIN, scenario=SCENARIO, sleep=no_sleep)
    assert device.typed == {"email": "u", "password": "p"}
    assert device.performed[-1] == Tap(target=Target(label="Sign in", id="sign_in"))


async def test_credentials_are_not_typed_into_a_field_that_did_not_take_focus():
    device = FormDevice(LOGIN, deaf=True)
    found = Detection("login", (), "a login form")
    outcome = await recover(
        found, device=device, observation=LOGIN, scenario=SCENARIO, sleep=no_sleep
    )
    assert not outcome.resolved and "did not take focus" in outcome.error
    assert "type_text" not in device.calls


@pytest.mark.parametrize(
    ("seen", "reason"),
    [
        (Observation(LOGIN.elements, app="com.apple.springboard"), "not the app under test"),
        (
            Observation(
                (
                    APP,
                    Element("AXTextField", "Full name", "name", frame=Frame(20, 140, 350, 44)),
                    Element("AXTextField", "Card number", "card", frame=Frame(20, 200, 350, 44)),
                    Element("AXSecureTextField", "CVV", "cvv", frame=Frame(20, 260, 350, 44)),
                    Element("AXButton", "Pay", "pay", frame=Frame(20, 352, 350, 50)),
                ),
                app=APP_ID,
            ),
            "no login form",
        ),
    ],
)
async def test_the_login_remedy_refuses_anything_but_a_login_form_of_the_app(seen, reason):
    device = FormDevice(seen)
    outcome = await recover(
        Detection("login", (), "asked for"),
        device=device,
        observation=seen,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert not outcome.resolved and reason in outcome.error
    assert device.performed == []


# --- budgets --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FAULT_KINDS)
async def test_a_fault_that_never_clears_ends_within_its_budget(kind):
    device = StubbornDevice()
    outcome = await recover(
        detection(kind), device=device, observation=EVERYTHING, scenario=SCENARIO, sleep=no_sleep
    )
    assert isinstance(outcome, RecoveryOutcome)
    assert outcome.path[-1][2] in FINAL
    assert len(outcome.path) <= RecoveryMachine.max_events()
    assert device.calls.count("launch") <= Attempt.RETRIES["launch"]
    assert device.calls.count("tap") <= Attempt.RETRIES["tap"] * 2
    if kind == "empty_dump":  # the stubborn screen has elements: the re-dump clears it
        assert outcome.resolved
        return
    if kind == "no_effect":
        assert outcome.handed_back and not outcome.restarted
        return
    if kind in ("crash", "frozen"):  # the relaunched app runs and shows its tree
        assert outcome.resolved and outcome.restarted
        assert device.calls.count("launch") == 1
        return
    assert not outcome.resolved and outcome.path[-1][2] == "failed"
    assert not outcome.restarted
    if kind in ("alert", "permission", "network", "keyboard"):
        assert outcome.retries == Attempt.RETRIES["tap"] - 1
    if kind == "loading":
        assert [p[2] for p in outcome.path][-3:] == ["refreshing", "leaving", "failed"]
    if kind == "login":  # the password field never took focus: it was never typed
        assert device.calls.count("type_text") == 1 and "did not take focus" in outcome.error


async def test_a_crashed_app_that_never_comes_back_uses_the_launch_budget():
    device = StubbornDevice(GONE, running=False)
    outcome = await recover(
        fault(GONE), device=device, observation=GONE, scenario=SCENARIO, sleep=no_sleep
    )
    assert not outcome.resolved
    assert device.calls.count("launch") == Attempt.RETRIES["launch"]
    assert outcome.crashes == Attempt.RETRIES["launch"]
    # Each relaunch re-dumps up to the dump budget before it gives up.
    assert device.calls.count("observe") == 3 * Attempt.RETRIES["dump"]


async def test_an_empty_dump_with_the_app_gone_is_a_crash():
    device = StubbornDevice(EVERYTHING, running=False)
    outcome = await recover(
        fault(EMPTY), device=device, observation=EMPTY, scenario=SCENARIO, sleep=no_sleep
    )
    assert outcome.resolved and outcome.crashes == 1
    assert [p[2] for p in outcome.path] == ["checking_app", "relaunching", "resolved"]


async def test_a_device_error_ends_the_recovery_as_failed_with_its_text():
    class Broken(StubbornDevice):
        async def perform(self, action):
            raise ConnectionError("companion went away")

    outcome = await recover(
        detection("alert"),
        device=Broken(),
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert not outcome.resolved
    assert outcome.error == "companion went away"
    assert outcome.path[-1] == ("dismissing_alert", "error.execution", "failed")


async def test_a_slow_dump_after_a_relaunch_is_a_rung_not_the_end():
    """A re-dump that times out counts as an empty one: the next within the budget answers."""

    class SlowOnce(StubbornDevice):
        async def observe(self):
            if self.calls.count("observe") == 0:
                self.calls.append("observe")
                raise DeviceTimeout("did not answer accessibility_info within 5 s")
            return await super().observe()

    device = SlowOnce(CLEAN)
    outcome = await recover(
        fault(GONE), device=device, observation=GONE, scenario=SCENARIO, sleep=no_sleep
    )
    assert outcome.resolved and outcome.crashes == 1
    assert device.calls.count("observe") == 2


async def test_a_device_that_times_out_on_a_verdict_fails_the_recovery_with_its_text():
    class Hung(StubbornDevice):
        async def observe(self):
            raise DeviceTimeout("idb companion did not answer accessibility_info within 5 s")

    outcome = await recover(
        detection("alert"),
        device=Hung(),
        observation=EVERYTHING,
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    assert not outcome.resolved and "within 5 s" in outcome.error


def test_the_diagrams_doc_is_generated_from_the_code():
    path = Path(__file__).parent.parent / "docs" / "machines.md"
    assert path.read_text(encoding="utf-8") == diagrams(), (
        "docs/machines.md is stale: regenerate it with "
        "python -c 'import orav.machines as m; print(m.diagrams(), end=\"\")' > docs/machines.md"
    )


def test_every_machine_gets_a_mermaid_block():
    text = diagrams()
    names = [cls.__name__ for cls in machine_classes()]
    assert "RecoveryMachine" in names and "RunMachine" in names
    assert text.count("```mermaid") == len(names)
    for state in RecoveryMachine.states_map:
        assert f" as {state}" in text
    for state in ("handed_back", "retrying_action", "going_back"):
        assert state in text


# --- network: retry the action that met the error -------------------------------------------


async def test_a_network_error_without_retry_performs_the_failed_action_again_after_2_s():
    banner = Element("AXStaticText", "Request failed", frame=Frame(0, 91, 390, 60))
    seen = Observation((*CLEAN.elements, banner), app=APP_ID)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    class Answers(StubbornDevice):
        async def perform(self, action):
            self.show(CLEAN)  # the retried request went through
            return await super().perform(action)

    device = Answers(seen)
    failed = Tap(target=Target(id="open"))
    found = interruption(seen, CLEAN)
    assert found.kind == "network" and found.evidence == (banner,)
    outcome = await recover(
        evolve(found, action=failed),
        device=device,
        observation=seen,
        scenario=SCENARIO,
        sleep=sleep,
    )
    assert waits[0] == Attempt.LADDER["network"]
    # the action itself, resolved to a point of Open the banner (drawn over its top) leaves free
    (tap,) = device.performed
    assert tap.target == Target(id="open") and (tap.x, tap.y) == (195, 155.2)
    assert not banner.frame.contains(Point(tap.x, tap.y))
    assert outcome.resolved


async def test_a_network_error_whose_action_cannot_be_repeated_only_looks_again():
    banner = Element("AXStaticText", "Request failed", frame=Frame(0, 91, 390, 60))
    seen = Observation((*CLEAN.elements, banner), app=APP_ID)
    device = StubbornDevice(seen)
    gone = Tap(target=Target(id="not_here"))
    found = evolve(interruption(seen, CLEAN), action=gone)
    outcome = await recover(
        found, device=device, observation=seen, scenario=SCENARIO, sleep=no_sleep
    )
    assert device.performed == [] and not outcome.resolved  # nothing typed, deleted or sent
    assert outcome.retries == Attempt.RETRIES["tap"] - 1


# --- loading: the 10 s "is anything changing?" rung ----------------------------------------


def loading(count: int) -> Observation:
    spinner = Element("AXActivityIndicator", "In progress", frame=Frame(175, 402, 40, 40))
    progress = Element("AXStaticText", f"{count} of 99 loaded", frame=Frame(20, 460, 350, 20))
    return Observation((*CLEAN.elements, spinner, progress), app=APP_ID)


class Ticking(StubbornDevice):
    """A spinner whose screen changes at every look (``changing``) or never."""

    def __init__(self, changing: bool) -> None:
        super().__init__(loading(0))
        self.changing = changing
        self.looks = 0

    async def observe(self) -> Observation:
        self.looks += 1
        self.calls.append("observe")
        return loading(self.looks if self.changing else 0)


async def test_a_spinner_that_keeps_changing_gets_ten_seconds_then_a_refresh():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    outcome = await recover(
        interruption(loading(0)),
        device=Ticking(changing=True),
        observation=loading(0),
        scenario=SCENARIO,
        sleep=sleep,
    )
    ladder = Attempt.LADDER
    waited = [p for p in outcome.path if p[2] == "waiting_loading"]
    assert len(waited) * ladder["network"] == ladder["change"]  # 5 waits of 2 s: 10 s
    assert ("waiting_loading", "persists", "refreshing") in outcome.path
    assert sum(w for w in waits if w == ladder["network"]) == ladder["change"]


async def test_a_spinner_that_changes_nothing_for_five_seconds_is_refreshed_sooner():
    outcome = await recover(
        interruption(loading(0)),
        device=Ticking(changing=False),
        observation=loading(0),
        scenario=SCENARIO,
        sleep=no_sleep,
    )
    waited = [p for p in outcome.path if p[2] == "waiting_loading"]
    assert len(waited) == 3  # 2 + 2 + 2 s >= LOADING_STUCK (5 s) unchanged
    assert ("waiting_loading", "stalled", "refreshing") in outcome.path
    assert [p[2] for p in outcome.path][-3:] == ["refreshing", "leaving", "failed"]


# --- where a remedy lands (orav.machines.aim) -------------------------------------------------

SIZES = st.tuples(st.floats(4, 200), st.floats(4, 120))
SPOTS = st.tuples(st.integers(0, 190).map(float), st.integers(60, 700).map(float))


@settings(max_examples=200, deadline=None)
@given(
    spot=SPOTS,
    size=SIZES,
    at=st.tuples(st.floats(0.3, 0.7), st.floats(0.3, 0.7)),  # room for a quarter's nudge
    nudge=st.sampled_from(Attempt.NUDGES),
    by_target=st.booleans(),
)
def test_a_nudged_retry_stays_on_the_element_it_aims_at(spot, size, at, nudge, by_target):
    """Whatever the element's size (a terminal cell is a few points), a retried tap moves by
    at most a quarter of it: the retry hits the same control, never its neighbour."""
    frame = Frame(spot[0], spot[1], *size)
    button = Element(role="AXButton", label="Go", unique_id="go", frame=frame)
    screen = Observation(
        elements=(Element(role="AXApplication", frame=Frame(0, 0, 390, 844)), button)
    )
    if by_target:
        tap = Tap(target=Target(id="go"))
    else:
        tap = Tap(frame.x + at[0] * frame.width, frame.y + at[1] * frame.height)
    moved = nudged(tap, screen, *nudge)
    assert isinstance(moved, Tap) and moved.x is not None and moved.y is not None
    assert frame.contains(Point(moved.x, moved.y))
    assert on_top(screen, Point(moved.x, moved.y)) == button


BLOCKERS = st.lists(
    st.tuples(st.sampled_from(["AXTextField", "AXSecureTextField", "AXButton"]), SPOTS, SIZES),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(blockers=BLOCKERS, top=st.floats(400, 600), attempt=st.integers(2, 40))
def test_a_tap_that_hides_the_keyboard_lands_above_it_off_every_field_and_button(
    blockers, top, attempt
):
    """The keyboard remedy's taps after escape: above the keyboard, never on a field (which
    would take focus) or a button (which would act for the test)."""
    fields = tuple(
        Element(role=role, label=f"b{i}", frame=Frame(x, min(y, top - 60), *size))
        for i, (role, (x, y), size) in enumerate(blockers)
    )
    keyboard = Element(role="AXKeyboard", frame=Frame(0, top, 390, 844 - top))
    screen = Observation(
        elements=(Element(role="AXApplication", frame=Frame(0, 0, 390, 844)), *fields, keyboard)
    )
    point = point_outside_fields(screen, attempt)
    assert point.y < top
    assert not any(field.frame.contains(point) for field in fields)
