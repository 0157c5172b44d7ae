"""The gestures and keys the explorer tries as actions of their own, and the app's chrome
(the controls every screen shows alike)."""

from __future__ import annotations

import string
from collections.abc import Iterable

from orav.agents.explore.controls import PALETTE_KEY, is_back, list_of, ref
from orav.model import Observation, Point, PressKey, Swipe
from orav.perceive.faults import blocks, interruption, screen_size
from orav.perceive.legend import Listed, read_legend
from orav.perceive.roles import is_alert
from orav.perceive.screens import app_elements, is_control, is_footer_key
from orav.perceive.words import finds

BACK_GESTURE = "(back gesture)"
ESCAPE = "(escape)"
BACK_MOVES = (BACK_GESTURE, ESCAPE)
# Gestures and keys the explorer tries on each screen, as actions of their own.
SWIPES = ("left", "right", "up", "down")
ARROWS = ("up", "down", "left", "right")
# Keys never pressed: they quit a Textual app or interrupt it.

# Printable keys pressed on a terminal screen whose tree shows no control (the app may handle
# keys in its own ``on_key``), at most: the keys its text shows standing alone first, then
# ``?`` (help, by convention), then the letters.
PROBES = 6
_PROBE_ORDER = "?" + string.ascii_lowercase
_BRACKETS = "[]()<>"

Move = Swipe | PressKey


def app_chrome(observation: Observation) -> tuple[str, ...]:
    """The refs of the app's own controls that every screen shows alike: a tab bar's buttons,
    a terminal app's tabs and footer keys (not Back: where it leads depends on the screen);
    in the tree's order, so that walks through them are the same in every run."""
    bars = [
        e.frame
        for e in observation.elements
        if e.role == "AXTabBar" or (e.role == "AXGroup" and e.label == "Tab Bar")
    ]
    found = (
        ref(e)
        for e in app_elements(observation)
        if is_control(e)
        and not is_back(e)
        and (
            is_footer_key(e)
            or e.role == "AXTab"
            or any(bar.contains(e.frame.center) for bar in bars)
        )
    )
    return tuple(dict.fromkeys(found))


def screen_moves(
    observation: Observation, platform: str | None, disposable: bool = False
) -> dict[str, Move]:
    """The gestures and keys worth trying on a screen, by name: on a touch screen a swipe
    each way across it and a swipe left on the first row of each list (it reveals a row's
    actions); on a terminal the app's, the screen's and the focused widget's bindings no
    footer key shows (another widget's act on it, and need its focus), blind probes where the tree shows no
    control (in a ``disposable`` world only), the arrow keys and escape."""
    if platform == "textual":
        return _terminal_moves(observation, disposable)
    if any(is_alert(e) for e in observation.elements):
        return {}  # an alert takes its buttons only (a terminal dialog takes escape too)
    return _touch_moves(observation)


def _terminal_moves(observation: Observation, disposable: bool) -> dict[str, Move]:
    """A terminal app's moves: the app's, the screen's and the focused widget's bindings no
    footer key shows, blind
    probes where the tree shows no control (a key no structure names does what nothing says:
    only in a world orav throws away), the arrow keys, escape (unless it ends the app); on a
    modal, those it takes."""
    never = never_pressed(observation)
    moves: dict[str, Move] = {}
    # the app's and the screen's own bindings, and the focused widget's: its keys act now
    focused = [e for e in app_elements(observation) if e.focused and not is_footer_key(e)]
    for element in [*observation.elements[:1], *focused]:
        for trait in element.traits:
            key = trait.removeprefix("binding:")
            if trait.startswith("binding:") and key not in never:
                moves.setdefault(f"(key {key})", PressKey(key))
    blind = not any(is_control(e) and not is_footer_key(e) for e in app_elements(observation))
    if disposable and blind:
        for key in probe_keys(observation, never | _bound(observation)):
            moves.setdefault(f"(key {key})", PressKey(key))
    for key in ARROWS:
        moves.setdefault(f"(key {key})", PressKey(key))
    if not quits_on_escape(observation):
        moves[ESCAPE] = PressKey("escape")
    # A modal that takes no key (nothing in it has focus, it binds none) has escape only: the
    # run takes any other key as aimed under it and clears the modal first (``blocks``).
    modal = interruption(observation)
    if modal is not None:
        moves = {n: m for n, m in moves.items() if not blocks(modal, observation, m)}
    return moves


def never_pressed(observation: Observation) -> frozenset[str]:
    """The keys no move presses: the footer's (tried as its elements), those that end the
    app (by their binding's action, ``quits:KEY``, and Textual's own), the palette, escape
    (the back move)."""
    shown = {
        t.removeprefix("binding:")
        for e in observation.elements
        if is_footer_key(e)
        for t in e.traits
        if t.startswith("binding:")
    }
    return frozenset(shown | quit_keys(observation) | {PALETTE_KEY, "escape"})


def listed_moves(listed: Iterable[Listed], never: frozenset[str]) -> dict[str, Listed]:
    """The keys a legend lists that are worth pressing, by move name: not one in ``never``,
    nor one whose description says it quits."""
    return {
        f"(key {pair.key})": pair
        for pair in listed
        if pair.key not in never and not finds("quit", pair.description)
    }


def quit_keys(observation: Observation) -> frozenset[str]:
    """The keys a binding on screen ends the app with (``quits:KEY``: its action is the app's
    quit, whatever the key)."""
    return frozenset(
        t.removeprefix("quits:")
        for e in observation.elements
        for t in e.traits
        if t.startswith("quits:")
    )


def quits_on_escape(observation: Observation) -> bool:
    """Whether escape ends the app here (complexitty's main screen): then a terminal screen
    has no back move."""
    return "escape" in quit_keys(observation)


def _bound(observation: Observation) -> frozenset[str]:
    return frozenset(
        t.removeprefix("binding:")
        for e in observation.elements
        for t in e.traits
        if t.startswith("binding:")
    )


def probe_keys(observation: Observation, never: frozenset[str]) -> list[str]:
    """Up to ``PROBES`` printable keys to press on a screen with no control: those its text
    shows standing alone ("d details", "[n] next") unless the words after one say it quits,
    then the rest in ``_PROBE_ORDER``; never one in ``never``, nor one the screen's legend
    lists (a help's keys are the commands of the screen it was opened from)."""
    words = (observation.text or "").split()
    listed = {pair.key for pair in read_legend(observation.text)}  # the opener's keys
    hinted, said_quit = [], set()
    for index, word in enumerate(words):
        key = word.strip(_BRACKETS).rstrip(":=")
        if len(key) != 1 or not (key.isalnum() or key in _PROBE_ORDER):
            continue
        if finds("quit", " ".join(words[index + 1 : index + 3])):
            said_quit.add(key.lower())
        else:
            hinted.append(key.lower())
    keys = dict.fromkeys([*hinted, *_PROBE_ORDER])
    skipped = never | said_quit | listed
    return [k for k in keys if k not in skipped][:PROBES]


def _touch_moves(observation: Observation) -> dict[str, Move]:
    """A touch screen's moves: the back gesture, a swipe each way across the screen, and a
    swipe left on the first row of each list."""
    width, height = screen_size(observation)
    middle = Point(width / 2, height / 2)
    moves: dict[str, Move] = {BACK_GESTURE: back_move(observation, BACK_GESTURE)}
    for direction in SWIPES:
        dx = {"left": -0.35, "right": 0.35}.get(direction, 0.0) * width
        dy = {"up": -0.25, "down": 0.25}.get(direction, 0.0) * height
        start = Point(middle.x - dx, middle.y - dy)
        moves[f"(swipe {direction})"] = Swipe(start, Point(middle.x + dx, middle.y + dy))
    return moves | _row_swipes(observation)


def _row_swipes(observation: Observation) -> dict[str, Move]:
    """A swipe left on the first row of each list (it reveals a row's actions)."""
    swipes: dict[str, Move] = {}
    lists: set[str] = set()
    for element in app_elements(observation):
        if element.role != "AXCell" or element.frame.is_empty or not is_control(element):
            continue
        group = list_of(element)
        if group in lists:
            continue
        lists.add(group)
        frame, y = element.frame, element.frame.center.y
        start, end = Point(frame.x + frame.width * 0.9, y), Point(frame.x + frame.width * 0.2, y)
        swipes[f"(swipe left on {ref(element)})"] = Swipe(start, end)
    return swipes


def back_move(observation: Observation, gesture: str) -> Move:
    """Going back without a Back button: escape on a terminal, else a swipe from the left
    edge across most of the screen."""
    if gesture == ESCAPE:
        return PressKey("escape")
    width, height = screen_size(observation)
    return Swipe(Point(2, height / 2), Point(width * 0.8, height / 2))
