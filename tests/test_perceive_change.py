"""The screen-change measure: clock, caret and spinner are not change; a changed label is."""

from __future__ import annotations

import itertools
import subprocess
import sys

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from perceive_screens import render

from orav.model import Element, Frame, Observation
from orav.perceive import changed, measure, raster, screen_id, screen_name
from orav.perceive.change import MIN_CHANGED_CELLS, _rasters, clear_rasters, tree_signature

WORDS = (
    "Settings",
    "Profile",
    "Orders",
    "Inbox",
    "Search",
    "Cart",
    "Help",
    "About",
    "Wallet",
    "Photos",
    "Music",
    "Maps",
    "Notes",
    "Alarm",
    "Timer",
    "Friends",
    "Drafts",
    "Archive",
)
screens = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8, unique=True).map(tuple)
clocks = st.builds(lambda h, m: f"{h}:{m:02d}", st.integers(1, 12), st.integers(0, 59))
SETTINGS = settings(deadline=None, max_examples=25)


@SETTINGS
@given(labels=screens, before=clocks, after=clocks)
def test_a_ticking_clock_is_not_a_change(labels, before, after):
    change = measure(render(labels, clock=before), render(labels, clock=after))
    assert not change.changed
    assert change.cells == 0


@SETTINGS
@given(labels=screens, text=st.text("abcdefghij XYZ", max_size=12))
def test_a_blinking_caret_is_not_a_change(labels, text):
    on = render(labels, field_text=text, caret=True)
    off = render(labels, field_text=text, caret=False)
    assert not changed(on, off)


@SETTINGS
@given(labels=screens, a=st.integers(0, 359), b=st.integers(0, 359))
def test_a_spinning_indicator_is_not_a_change(labels, a, b):
    assert not changed(render(labels, spinner_angle=a), render(labels, spinner_angle=b))


@SETTINGS
@given(labels=screens, data=st.data())
def test_one_changed_label_is_always_a_change_in_pixels_alone(labels, data):
    row = data.draw(st.integers(0, len(labels) - 1))
    word = data.draw(st.sampled_from([w for w in WORDS if w != labels[row]]))
    before = render(labels)
    after = render((*labels[:row], word, *labels[row + 1 :]))
    assert measure(before, after).changed
    # The same pixels under an unchanged tree: the pixels alone must see the change.
    pixels_only = attrs.evolve(after, elements=before.elements)
    change = measure(before, pixels_only)
    assert not change.tree
    assert change.cells >= MIN_CHANGED_CELLS


def test_typed_text_in_the_masked_field_counts_through_the_tree():
    before = render(("Inbox",), field_text="ab")
    after = render(("Inbox",), field_text="abc")
    change = measure(before, after)
    assert change.changed and change.tree


def test_each_screenshot_is_decoded_once():
    shot = render(("Inbox",)).screenshot
    assert raster(shot) is raster(shot)
    same_bytes = attrs.evolve(shot)  # equal by content hash
    assert raster(same_bytes) is raster(shot)


def test_jpeg_screens_at_scale_three_are_compared_too():
    before = render(("Inbox", "Cart"), scale=3, fmt="jpeg", clock="9:41")
    clock_only = render(("Inbox", "Cart"), scale=3, fmt="jpeg", clock="10:02")
    label = render(("Inbox", "Help"), scale=3, fmt="jpeg")
    assert not changed(before, clock_only)
    assert measure(before, attrs.evolve(label, elements=before.elements)).changed


def test_without_screenshots_the_tree_decides():
    a, b = render(("Inbox",)), render(("Cart",))
    bare_a = attrs.evolve(a, screenshot=None)
    assert not changed(bare_a, attrs.evolve(a, screenshot=None))
    assert changed(bare_a, attrs.evolve(b, screenshot=None))
    assert measure(bare_a, bare_a).cells == -1


def test_undecodable_bytes_fall_back_on_the_tree():
    shot = render(("Inbox",)).screenshot
    broken = attrs.evolve(shot, sha256="0" * 64, data=b"not an image")
    obs = Observation(render(("Inbox",)).elements, broken)
    assert raster(broken) is None
    assert not changed(obs, attrs.evolve(obs))


def test_screen_identity_ignores_what_changes_on_one_screen():
    """The one screen identity (orav.perceive.screens): typed text, the clock, focus and the
    keyboard coming up are the same screen; other controls are another one."""
    inbox, cart = render(("Inbox", "Orders")), render(("Cart", "Wallet", "Maps", "Notes"))
    assert screen_id(inbox) == screen_id(render(("Inbox", "Orders"), clock="9:42"))
    assert screen_id(inbox) != screen_id(cart)
    typed = render(("Inbox",), field_text="Ada")
    more = render(("Inbox",), field_text="Ada Lovelace")
    assert screen_id(typed) == screen_id(more)
    keyboard = Element("AXKeyboard", frame=Frame(0, 553, 390, 291))
    up = attrs.evolve(typed, elements=(*typed.elements, keyboard))
    assert screen_id(up) == screen_id(typed)
    assert screen_name(inbox) == "Inbox" and screen_name(cart) == "Cart"
    titled = attrs.evolve(
        cart, elements=(*cart.elements, Element("AXHeading", "Basket", frame=Frame(0, 47, 390, 44)))
    )
    assert screen_name(titled) == "Basket"
    assert screen_id(titled) != screen_id(cart)  # a heading is part of the identity


def test_the_raster_hash_is_a_coarse_seen_before_key():
    a, b = render(("Inbox", "Orders")), render(("Inbox", "Orders"), clock="9:42")
    assert raster(a.screenshot).dhash() == raster(a.screenshot).dhash()
    distance = bin(int(raster(a.screenshot).dhash(), 16) ^ int(raster(b.screenshot).dhash(), 16))
    assert distance.count("1") <= 8


def raster_count() -> int:
    """How many screenshots perceive has decoded since ``clear_rasters``."""
    return len(_rasters)


def test_a_changed_tree_is_a_change_without_decoding_pixels():
    before, after = render(("Inbox",)), render(("Cart",))
    clear_rasters()
    change = measure(before, after)
    assert change.changed and change.tree
    assert change.cells == -1  # the verdict needed no pixels
    assert raster_count() == 0


def test_byte_identical_screenshots_are_no_change_without_decoding():
    obs = render(("Inbox", "Cart"))
    clear_rasters()
    change = measure(obs, attrs.evolve(obs, taken_at=obs.taken_at + 1))
    assert (change.changed, change.cells, change.tree) == (False, 0, False)
    assert raster_count() == 0


def test_the_change_measure_does_not_import_numpy_until_pixels_are_compared():
    code = (
        "import sys\n"
        "from orav.perceive import measure\n"
        "from orav.model import Element, Frame, Observation\n"
        "a = Observation((Element('AXButton', 'A', frame=Frame(0, 0, 9, 9)),))\n"
        "b = Observation((Element('AXButton', 'B', frame=Frame(0, 0, 9, 9)),))\n"
        "assert measure(a, b).changed and not measure(a, a).changed\n"
        "print('numpy' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"


def _tree(labels: tuple[str, ...], moved: int) -> Observation:
    return Observation(
        app="com.orav.demo",
        elements=tuple(
            Element(role="AXButton", label=label, frame=Frame(0, 50 * i + moved, 390, 44))
            for i, label in enumerate(labels)
        ),
    )


@SETTINGS
@given(walk=st.lists(st.tuples(screens, st.integers(0, 2)), min_size=2, max_size=8))
def test_a_walk_measured_step_by_step_agrees_with_each_pair_measured_afresh(walk):
    """The last tree's signature is kept (a run measures each screen as one step's after and
    the next one's before): the verdicts are those of comparing the trees themselves."""
    seen = [_tree(labels, moved) for labels, moved in walk]
    for before, after in itertools.pairwise(seen):
        fresh = tree_signature(before.elements) != tree_signature(after.elements)
        assert measure(before, after).tree == fresh
        assert measure(after, before).tree == fresh  # either order, the cached one either side
