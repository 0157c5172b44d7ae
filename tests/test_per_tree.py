"""What perception reads off a tree is worked out once per tree, and never confused between
trees: ``orav.perceive.per_tree``, the perception it keeps, and the idb driver's reuse of a
dump it has parsed (a screen the run comes back to is the same tree)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st
from test_driver_idb import APP, log_in, tap

from orav.drivers.idb import IdbDevice
from orav.model import Element, Frame, Observation, Target
from orav.perceive import cover_at, look_key, screen_name, target_element
from orav.perceive.deeds import confirmation
from orav.perceive.faults import fault, interruption
from orav.perceive.occlusion import modal_elements, overlay
from orav.perceive.per_tree import KEPT, per_tree
from orav.sim import SimCompanion


def test_a_question_is_answered_once_per_tree_and_asked_again_of_an_equal_copy() -> None:
    asked: list[tuple] = []

    @per_tree
    def count(elements: tuple, word: str) -> int:
        asked.append((elements, word))
        return len(elements)

    tree = (Element(label="Zwölf"), Element(label="Quokka"))
    copy = tuple(Element(label=e.label) for e in tree)
    assert count(tree, "a") == count(tree, "a") == 2
    assert len(asked) == 1
    count(tree, "b")  # another question of the same tree
    count(copy, "a")  # equal, not the same: its own answer (hashing a tree costs the look)
    assert len(asked) == 3
    for n in range(KEPT):  # as many other trees: the first is forgotten
        count((Element(label=str(n)),), "a")
    count(tree, "a")
    assert len(asked) == 3 + KEPT + 1


_ROLES = st.sampled_from(
    ["AXButton", "AXStaticText", "AXAlert", "AXKeyboard", "AXTextField", "AXCell", "AXOther"]
)
_WORDS = st.text(alphabet="abqxyzÄé ", min_size=0, max_size=6)
_ELEMENTS = st.builds(
    Element,
    role=_ROLES,
    label=st.one_of(st.none(), _WORDS),
    unique_id=st.one_of(st.none(), st.sampled_from(["ka", "lu", "mo"])),
    frame=st.builds(
        Frame,
        st.integers(0, 300),
        st.integers(0, 800),
        st.integers(0, 200),
        st.integers(0, 200),
    ),
    traits=st.lists(st.sampled_from(["modal", "button", "keyboardKey", "x"]), max_size=2).map(
        tuple
    ),
)
_TREES = st.lists(st.lists(_ELEMENTS, max_size=8).map(tuple), min_size=1, max_size=12)


def _read(observation: Observation, target: Target) -> tuple:
    """Everything kept per tree that one look answers."""
    element = target_element(observation, target)
    covered = cover_at(observation, element, element.frame.center) if element else None
    return (
        modal_elements(observation.elements),
        overlay(observation),
        confirmation(observation),
        fault(observation),
        interruption(observation),
        look_key(observation),
        screen_name(observation),
        element,
        covered,
    )


@settings(max_examples=60, deadline=None)
@given(trees=_TREES, order=st.lists(st.integers(0, 11), min_size=1, max_size=30))
def test_kept_answers_are_the_answers_of_the_tree_asked(trees: list, order: list[int]) -> None:
    """Trees of words and shapes no code knows, asked in any order and again: what is kept
    is what the tree asked about shows, as an equal copy of it, never seen, answers."""
    looks = [Observation(elements=tree, app="com.example.kiosk") for tree in trees]
    for index in order:
        look = looks[index % len(looks)]
        copy = tuple(evolve(e) for e in look.elements)
        fresh = Observation(elements=copy, app=look.app)
        for target in (Target(id="ka"), Target(label="q")):
            assert _read(look, target) == _read(fresh, target)


@pytest.fixture
async def device() -> AsyncIterator[IdbDevice]:
    async with (
        SimCompanion(port=0) as sim,
        IdbDevice.connect(sim.address, bundle_id=APP, timeout=5.0) as connected,
    ):
        yield connected


async def test_a_screen_the_run_comes_back_to_is_the_same_tree(device: IdbDevice) -> None:
    """The driver reads a dump it answered lately once: back on the list after two detail
    pages, the look holds the very tuple of the first (so what perception read off it holds)."""
    listed = await log_in(device)
    await tap(device, "item_1")
    first_detail = await device.observe()
    await tap(device, "back")
    await tap(device, "item_2")
    second_detail = await device.observe()
    await tap(device, "back")
    again = await device.observe()
    assert again.elements is listed.elements
    assert second_detail.elements is not first_detail.elements  # another page, another tree
    assert again.screenshot is not None and again.taken_at > listed.taken_at  # a new look
