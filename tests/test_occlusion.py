"""What a user cannot touch, orav does not tap (``orav.perceive.occlusion``), on screens the code
never saw: hypothesis draws a screen of controls, then a cover (a banner, a sheet, a toast, a
popover, with or without a container) over a random target, with words it invents.

Where a tap lands is judged by the simulator's own hit test, written here once more (``hit``):
the last element in pre-order under the point, an alert swallowing every point outside it. The
properties: the tap of a covered target is reported as the cover and never lands on the cover's
buttons; a cover is answered only by its declining answer, when it has one; the ±10 pt retry
never lands on another element; rerun's healing never picks an element under a cover; a
remedy never presses the affirmative answer of a confirmation, nor a grant the test did not
ask for.
"""

from __future__ import annotations

import string

from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.agents.scripted import ScriptedAgent
from orav.cassette.follow import heal_target
from orav.engine import Engine
from orav.machines.aim import nudged
from orav.machines.attempt import Attempt
from orav.machines.recovery import recover
from orav.model import (
    ActionResult,
    Decision,
    Done,
    Element,
    Frame,
    Observation,
    Point,
    Scenario,
    Tap,
    Target,
)
from orav.perceive import cover_fault, fault, interruption, on_top, reachable, resolve
from orav.perceive.deeds import confirmation
from orav.perceive.occlusion import cover_at
from orav.perceive.roles import DENY_LABELS, is_alert
from orav.perceive.words import answers, plain_words
from orav.testing import FakeDevice, VirtualClock

APP = "com.example.invented"
WIDTH, HEIGHT = 390.0, 844.0
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Declining answers that are not a permission dialog's refusal (that makes a permission dialog).
DECLINES = [
    w.capitalize() for w in answers("cancel") if w not in {plain_words(d) for d in DENY_LABELS}
]


def hit(observation: Observation, point: Point) -> Element | None:
    """What a tap at ``point`` lands on, as the simulator decides it (``orav.sim.view``)."""
    elements = [e for e in observation.elements if e.role != "AXApplication"]
    modal = [i for i, e in enumerate(elements) if is_alert(e)]
    if modal:
        elements = elements[modal[-1] :]
    under = [e for e in elements if not e.frame.is_empty and e.frame.contains(point)]
    return under[-1] if under else None


def words() -> st.SearchStrategy[str]:
    """A label no list of orav's holds: lowercase letters, one or two words."""
    word = st.text(string.ascii_lowercase, min_size=3, max_size=9).map(str.capitalize)
    known = {*answers("cancel"), *answers("acknowledge"), *(plain_words(d) for d in DENY_LABELS)}
    return (
        st.lists(word, min_size=1, max_size=2)
        .map(" ".join)
        .filter(lambda w: plain_words(w) not in known)
    )


@st.composite
def screens(draw) -> tuple[Observation, Element]:
    """A screen of 3..8 controls in rows (buttons, cells, hearts), and one of them: the target."""
    count = draw(st.integers(3, 8))
    controls = []
    for i in range(count):
        role = draw(st.sampled_from(["AXButton", "AXCell", "AXButton"]))
        width = draw(st.sampled_from([44.0, 120.0, 350.0]))
        x = draw(st.floats(0, WIDTH - width))
        controls.append(
            Element(role, f"{draw(words())} {i}", f"c{i}", frame=Frame(x, 100 + 88 * i, width, 44))
        )
    target = draw(st.sampled_from(controls))
    heading = Element("AXHeading", draw(words()), frame=Frame(0, 47, WIDTH, 44), traits=("header",))
    root = Element("AXApplication", "Invented", frame=Frame(0, 0, WIDTH, HEIGHT))
    return Observation((root, heading, *controls), app=APP), target


@st.composite
def covers(
    draw, target: Element, wholly: bool = True
) -> tuple[tuple[Element, ...], Element | None]:
    """A cover over ``target`` (wholly, or over its centre only): a banner, sheet, toast or
    popover, its text and 0..3 answers in invented words, maybe one declining answer; with or
    without a container. Returns its elements and its declining answer, if any."""
    shape = draw(st.sampled_from(["banner", "sheet", "toast", "popover"]))
    t = target.frame
    if wholly:
        top = draw(st.floats(max(40.0, t.y - 200), t.y))
        bottom = draw(st.floats(t.y + t.height, min(HEIGHT, t.y + t.height + 220)))
        left, right = (
            (0.0, WIDTH)
            if shape in ("banner", "sheet")
            else (
                draw(st.floats(0, t.x)),
                draw(st.floats(t.x + t.width, WIDTH)),
            )
        )
    else:  # over the centre only: a strip across it, leaving its top and bottom rows open
        top, bottom = t.y + t.height * 0.4, t.y + t.height * 0.6
        left, right = 0.0, WIDTH
    box = Frame(left, top, right - left, bottom - top)
    elements: list[Element] = []
    if draw(st.booleans()):
        role = draw(st.sampled_from(["AXOther", "AXGroup", "AXImage"]))
        elements.append(Element(role, draw(st.none() | words()), frame=box))
    answers = draw(st.lists(words(), min_size=0, max_size=3, unique=True))
    decline = draw(st.none() | st.sampled_from(DECLINES)) if wholly else None
    labels = [*answers, *([decline] if decline else [])]
    labels = draw(st.permutations(labels))
    text_height = box.height / 2 if labels else box.height  # the answers below the text
    elements.append(
        Element("AXStaticText", draw(words()), frame=Frame(box.x, box.y, box.width, text_height))
    )
    buttons = []
    for i, label in enumerate(labels):
        width = box.width / max(1, len(labels))
        frame = Frame(box.x + i * width, box.y + box.height / 2, width, box.height / 2)
        buttons.append(Element("AXButton", label, f"answer{i}", frame=frame))
    declining = next((b for b in buttons if b.label == decline), None)
    return (*elements, *buttons), declining


def found_buttons(cover: tuple[Element, ...]) -> bool:
    return any(e.interactive for e in cover)


def with_cover(seen: Observation, cover: tuple[Element, ...]) -> Observation:
    return evolve(seen, elements=(*seen.elements, *cover))


def answering(cover: tuple[Element, ...], declining: Element | None, target: Element, log: list):
    """The app: a tap lands where ``hit`` says; the declining answer takes the cover away; the
    target, reached, changes its label. Every element hit is logged."""

    def respond(device: FakeDevice, action):
        if not isinstance(action, Tap):
            return ActionResult()
        shown = device.observation
        tap = resolve(action, shown)
        if tap.x is None or tap.y is None:
            return ActionResult(ok=False, error="not on screen")
        landed = hit(shown, Point(tap.x, tap.y))
        log.append(landed)
        if landed is not None and landed == declining:
            device.show(evolve(shown, elements=tuple(e for e in shown.elements if e not in cover)))
        elif landed == target:
            done = evolve(target, label=f"{target.label} (done)")
            device.show(
                evolve(shown, elements=tuple(done if e == target else e for e in shown.elements))
            )
        return ActionResult(point=Point(tap.x, tap.y))

    return respond


async def run_tap(seen: Observation, target: Element, respond) -> object:
    script = (
        Decision(action=Tap(target=Target(id=target.unique_id))),
        Decision(action=Done(success=True, summary="tapped")),
    )
    scenario = Scenario("cover", APP, "tap the target", script=script, max_steps=6)
    device = FakeDevice(seen, respond=respond)
    return await Engine(device, ScriptedAgent(), clock=VirtualClock()).run(scenario)


@PROPERTY
@given(st.data())
async def test_a_covered_target_is_reported_as_the_cover_and_never_tapped_through_it(data):
    seen, target = data.draw(screens())
    cover, declining = data.draw(covers(target))
    shown = with_cover(seen, cover)

    found = cover_fault(shown, Tap(target=Target(id=target.unique_id)))
    assert found is not None and found.kind == "covered"  # blocked, not "no effect"
    assert hit(shown, target.frame.center) in found.evidence  # the cover named is what is hit

    log: list = []
    report = await run_tap(shown, target, answering(cover, declining, target, log))
    pressed = [e for e in log if e in cover and e.interactive]
    assert all(e == declining for e in pressed)  # of the cover's buttons only its decline
    assert target not in log[: log.index(declining) if declining in log else len(log)]
    if declining is None:  # nothing safe to press: no button pressed, the target never, said
        assert target not in log and not report.goal_met
        # only with no answer at all is its plain text tapped, as a toast is clicked away
        assert all(not e.interactive for e in log) and (not log or not found_buttons(cover))
    else:
        assert log == [declining, target] and report.goal_met, (log, report)


@PROPERTY
@given(st.data())
async def test_a_target_partly_covered_is_tapped_where_it_shows(data):
    seen, target = data.draw(screens())
    cover, _ = data.draw(covers(target, wholly=False))
    shown = with_cover(seen, cover)
    tap = Tap(target=Target(id=target.unique_id))
    assert cover_fault(shown, tap) is None
    aimed = resolve(tap, shown)
    assert hit(shown, Point(aimed.x, aimed.y)) == target


@PROPERTY
@given(st.data())
async def test_the_retry_nudge_never_lands_on_another_element(data):
    seen, target = data.draw(screens())
    cover, _ = data.draw(covers(target, wholly=data.draw(st.booleans())))
    shown = with_cover(seen, cover)
    element = data.draw(st.sampled_from([e for e in shown.elements if e.role != "AXApplication"]))
    f = element.frame
    point = Point(
        data.draw(st.floats(f.x, f.x + f.width, exclude_max=True)),
        data.draw(st.floats(f.y, f.y + f.height, exclude_max=True)),
    )
    first = hit(shown, point)
    for dx, dy in Attempt.NUDGES:
        moved = nudged(Tap(point.x, point.y), shown, dx, dy)
        assert hit(shown, Point(moved.x, moved.y)) == first
        assert on_top(shown, Point(moved.x, moved.y)) == on_top(shown, point)
    tap = Tap(target=Target(id=target.unique_id))
    if reachable(shown, target):
        for dx, dy in Attempt.NUDGES:
            moved = nudged(tap, shown, dx, dy)
            assert hit(shown, Point(moved.x, moved.y)) == target


@PROPERTY
@given(st.data())
async def test_healing_never_picks_an_element_under_a_cover(data):
    """Recorded: an alert whose answer is worded like a control of the screen behind it.
    Live: the answer renamed (invented words), maybe moved; the screen's own control is still
    there, under the alert. The heal never goes to it."""
    seen, behind = data.draw(screens())
    old = behind.label
    new = data.draw(words().filter(lambda w: w != old))
    box = Frame(60, 300, 270, 160)
    cancel = Element("AXButton", "Cancel", frame=Frame(60, 416, 135, 44))
    answer = Element("AXButton", old, frame=Frame(195, 416, 135, 44))
    title = Element("AXStaticText", data.draw(words()), frame=Frame(60, 316, 270, 44))
    alert = Element("AXAlert", title.label, frame=box)
    recorded = with_cover(seen, (alert, title, cancel, answer))
    moved = data.draw(st.booleans())
    renamed = evolve(answer, label=new, frame=Frame(60, 360, 270, 44) if moved else answer.frame)
    live = with_cover(seen, (alert, title, cancel, renamed))
    element, _ = heal_target(recorded, live, Target(label=old))
    assert element != behind
    assert element is None or reachable(live, element)
    assert element in (None, renamed)

    banner, _ = data.draw(covers(behind))  # a banner over the control, and no alert: as recorded
    found, how = heal_target(seen, with_cover(seen, banner), Target(label=old))
    assert (found, how) == (behind, "")  # the engine uncovers it before tapping


ANSWER_ROLES = st.sampled_from(["AXAlert", "AXSheet", "AXDialog"])


@PROPERTY
@given(st.data())
async def test_a_remedy_never_confirms_a_dialog_whose_words_it_never_saw(data):
    seen, _ = data.draw(screens())
    answers = data.draw(st.lists(words(), min_size=2, max_size=3, unique=True))
    decline = data.draw(st.none() | st.sampled_from(DECLINES))
    labels = data.draw(st.permutations([*answers, *([decline] if decline else [])]))
    box = Frame(60, 300, 270, 100 + 44 * len(labels))
    buttons = [
        Element("AXButton", label, frame=Frame(60, 400 + 44 * i, 270, 44))
        for i, label in enumerate(labels)
    ]
    dialog = Element(data.draw(ANSWER_ROLES), data.draw(words()), frame=box)
    shown = with_cover(seen, (dialog, *buttons))
    asked = confirmation(shown)
    assert asked is not None
    detection = interruption(shown, seen)
    assert detection is not None and detection.kind == "alert"
    device = FakeDevice(shown, respond=lambda d, a: d.show(seen) or ActionResult())
    outcome = await recover(
        detection, device=device, observation=shown, scenario=Scenario("s", APP, "g"), sleep=_none
    )
    pressed = [a.target.label for a in outcome.actions if isinstance(a, Tap) and a.target]
    assert not set(pressed) & {b.label for b in asked.affirmative if b.label != decline}
    assert pressed == ([decline] if decline else [])
    assert outcome.resolved == (decline is not None)


GRANTS = st.sampled_from(["Allow", "Allow While Using App", "Allow Once", "Allow Tracking"])
REFUSALS = st.sampled_from(["Don't Allow", "Ask App Not to Track", "Deny"])


@PROPERTY
@given(st.data(), st.sampled_from([None, "allow", "deny"]))
async def test_a_permission_prompt_is_granted_only_when_the_scenario_asks(data, said):
    """A system prompt (tracking, location, photos: its title invented) with a grant and a
    refusal: nothing said refuses it; only ``permissions: allow`` grants."""
    seen, _ = data.draw(screens())
    grant, refusal = data.draw(GRANTS), data.draw(REFUSALS)
    labels = data.draw(st.permutations([grant, refusal]))
    alert = Element(
        "AXAlert",
        f"Allow \u201c{data.draw(words())}\u201d to {data.draw(words())}?",
        frame=Frame(60, 300, 270, 150),
    )
    buttons = [
        Element("AXButton", label, frame=Frame(60 + 135 * i, 406, 135, 44))
        for i, label in enumerate(labels)
    ]
    shown = with_cover(seen, (alert, *buttons))
    detection = fault(shown)
    assert detection is not None and detection.kind == "permission"
    scenario = (
        Scenario("s", APP, "g") if said is None else Scenario("s", APP, "g", permissions=said)
    )
    device = FakeDevice(shown, respond=lambda d, a: d.show(seen) or ActionResult())
    outcome = await recover(
        detection, device=device, observation=shown, scenario=scenario, sleep=_none
    )
    pressed = [a.target.label for a in outcome.actions if isinstance(a, Tap) and a.target]
    assert pressed == [grant if said == "allow" else refusal]


async def _none(seconds: float) -> None:
    return None


def test_a_banners_answers_before_the_one_over_the_target_belong_to_its_cover():
    """Hypothesis found it: a banner's text, then four answers in a row, the third over the
    target. The answers before the third are the banner's too (its declining one among
    them), not controls of the screen drawn under it."""
    target = Element("AXButton", "Save", "save", frame=Frame(220, 700, 40, 30))
    text = Element("AXStaticText", "We value your privacy", frame=Frame(0, 640, 390, 40))
    answers = [
        Element("AXButton", label, frame=Frame(10 + 95 * i, 690, 90, 60))
        for i, label in enumerate(["Aaa", "Cancel", "Aaa Aaa", "Aaaa"])
    ]
    app = Element("AXApplication", "App", frame=Frame(0, 0, 390, 844))
    seen = Observation(elements=(app, target, text, *answers), app_running=True)
    cover = cover_at(seen, target, target.frame.center)  # under "Aaa Aaa" alone
    assert cover is not None and cover.kind == "overlay"
    assert sorted(e.label for e in cover.buttons) == ["Aaa", "Aaa Aaa", "Aaaa", "Cancel"]
