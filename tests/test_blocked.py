"""One notion of blocked for every input kind (issue 25, item 2): a modal alert, sheet or
dialog blocks taps, swipes, text and keys aimed at what lies under it, and an input it took as
it came up is neither "no effect" nor sent into it again.

Proven on two apps written for it with words orav's code never saw: Lumen
(``tests/unseen_apps/lumen.yaml``, an iOS photo carousel served over fb-idb by orav's
simulator, whose rating prompt takes a swipe) and Kladde (``tests/unseen_apps/kladde.py``, a
Textual to-do list whose notices are modal screens over its field and its ``x`` key).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orav.cassette import PerformEvent, read_cassette
from orav.model import (
    Element,
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
from orav.perceive import blocks, interruption, swallowed
from orav.perceive.words import dismissing
from orav.scenario_loader import load_scenario
from orav.session import record, replay

HERE = Path(__file__).parent / "unseen_apps"
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

APP = Element("AXApplication", "Fotos", frame=Frame(0, 0, 390, 844))
PHOTO = Element("AXImage", "Nordlicht", "photo", frame=Frame(0, 140, 390, 420))
FIELD = Element("AXTextField", "Notiz", "notiz", frame=Frame(20, 600, 350, 40), focused=True)
SHARE = Element("AXButton", "Teilen", "teilen", frame=Frame(20, 680, 160, 44))
CONTENT = (APP, PHOTO, FIELD, SHARE)

words = st.text(st.characters(categories=("L",)), min_size=1, max_size=12)


@st.composite
def modals(draw) -> tuple[Element, ...]:
    """An alert, sheet or dialog with invented words, somewhere on the screen, and its
    answers inside it."""
    role = draw(st.sampled_from(["AXAlert", "AXSheet", "AXDialog"]))
    x, y = draw(st.integers(0, 120)), draw(st.integers(200, 600))
    box = Element(role, draw(words), frame=Frame(x, y, 270, 150))
    answers = draw(
        st.lists(
            words | st.sampled_from(["Cancel", "Not Now"]), min_size=1, max_size=3, unique=True
        )
    )  # invented words, sometimes with an answer that declines
    width = 270 / len(answers)
    return (
        box,
        *(
            Element("AXButton", label, frame=Frame(x + i * width, y + 106, width, 44))
            for i, label in enumerate(answers)
        ),
    )


def on(element: Element) -> Point:
    return element.frame.center


@PROPERTY
@given(modals(), st.sampled_from(["tap", "point", "swipe", "text", "key"]))
def test_a_modal_blocks_every_input_aimed_under_it(modal, kind):
    """Whatever the modal says and wherever it is, an input aimed at what lies under it is
    blocked, whatever its kind; aimed at the modal's own answer, it is not. A gesture or a key
    is held back only from a modal orav may clear (one that declines): from one whose every
    answer is a deed it goes in, for the agent to answer (an explorer's own draft alert)."""
    seen = Observation((*CONTENT, *modal), app="com.lumen.viewer")
    found = interruption(seen)
    assert found is not None and found.kind == "alert"
    start = Point(5, 135)  # above the photo, outside every modal drawn
    answer = modal[1]
    under, inside = {
        "tap": (Tap(target=Target(id="teilen")), Tap(target=Target(label=answer.label))),
        "point": (Tap(start.x, start.y), Tap(on(answer).x, on(answer).y)),
        "swipe": (Swipe(start, Point(60, 135)), Swipe(on(answer), Point(on(answer).x - 5, 0))),
        "text": (TypeText("Hallo"), None),
        "key": (PressKey("x"), PressKey("escape")),
    }[kind]
    clearable = dismissing(list(modal[1:])) is not None
    assert blocks(found, seen, under) == (clearable or kind not in ("swipe", "key"))
    if inside is not None:
        assert not blocks(found, seen, inside)
    assert not blocks(found, seen, Wait(1))


def test_a_key_reaches_a_modal_that_takes_it():
    """A key the modal binds, and any key while a field of its own has focus, go to it."""
    box = Element("AXDialog", "Umbenennen", traits=("modal", "binding:ctrl+r"))
    name = Element("AXTextField", "Name", frame=Frame(2, 2, 30, 1), focused=True)
    unfocused = Observation((APP, box, evolve_focus(name, False)))
    focused = Observation((APP, box, name))
    assert blocks(interruption(unfocused), unfocused, PressKey("q"))
    assert not blocks(interruption(unfocused), unfocused, PressKey("ctrl+r"))
    assert not blocks(interruption(focused), focused, PressKey("q"))
    assert not blocks(interruption(focused), focused, TypeText("Kladde"))


def evolve_focus(element: Element, focused: bool) -> Element:
    from attrs import evolve

    return evolve(element, focused=focused)


@PROPERTY
@given(modals())
def test_a_swipe_a_modal_took_as_it_came_up_is_swallowed_and_a_tap_that_opened_it_is_not(modal):
    """The modal came up with the swipe and nothing under it moved: it took the swipe. The
    same modal after a tap on a button is that button's doing; after a swipe that also moved
    the photo, the swipe landed."""
    before = Observation(CONTENT, app="com.lumen.viewer")
    after = Observation((*CONTENT, *modal), app="com.lumen.viewer")
    swipe = Swipe(Point(330, 150), Point(60, 150))  # on the photo, off the modal
    taken = swallowed(before, after, swipe)
    assert taken is not None and taken.kind == "alert" and taken.action == swipe
    assert swallowed(before, after, Tap(on(SHARE).x, on(SHARE).y, Target(id="teilen"))) is None
    moved = Element("AXImage", "Salzwiese", "photo", frame=PHOTO.frame)
    after_move = Observation((APP, moved, FIELD, SHARE, *modal), app="com.lumen.viewer")
    assert swallowed(before, after_move, swipe) is None
    assert swallowed(after, after, swipe) is None  # it was up before: blocked, not swallowed


async def test_lumens_rating_prompt_takes_a_swipe_and_its_storage_warning_blocks_one(tmp_path):
    """Five swipes to the sixth photo, no step for the alerts: the rating prompt that took the
    second swipe is declined and that swipe made again; the storage warning up when the fifth
    is decided is acknowledged first. No swipe goes into an alert (before: three retries of
    each swipe into it, handed back twice, and the run failed), and the replay is faithful."""
    scenario = load_scenario(HERE / "lumen_swipes.yaml")
    cassette = tmp_path / "lumen.cassette"
    run = await record(scenario, cassette, device=f"sim:{HERE / 'lumen.yaml'}")
    report = run.report
    assert report.goal_met, report
    assert [e.error.split(":")[1].strip() for e in report.errors] == [
        "Gefällt dir Lumen? (came up during the input)",
        "Speicher fast voll",
    ]
    assert all(e.resolved for e in report.errors)
    swipes = [
        e
        for e in read_cassette(cassette).events
        if isinstance(e, PerformEvent) and isinstance(e.action, Swipe)
    ]
    assert len(swipes) == 6  # five decided, the taken one made again: none into an alert
    assert (await replay(cassette)).faithful


async def test_kladdes_notices_block_the_text_and_the_key_aimed_under_them(tmp_path):
    """Kladde's launch notice is up when the entry is typed, its second when ``x`` is
    pressed: each is closed (escape: it has no button) and the input goes where it was aimed
    (before: ``x`` went into the notice, no effect, and the entry was never ticked off)."""
    scenario = load_scenario(HERE / "kladde_notices.yaml")
    cassette = tmp_path / "kladde.cassette"
    run = await record(scenario, cassette, device="textual:unseen_apps.kladde:Kladde")
    report = run.report
    assert report.goal_met, report
    assert [(e.step, e.error.split(":")[0], e.resolved) for e in report.errors] == [
        (1, "alert", True),
        (3, "alert", True),
    ]
    assert (await replay(cassette)).faithful
