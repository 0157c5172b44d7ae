"""What a control is to the explorer: its target, whether it goes back, signs out or quits,
whether the explorer may do the deed it is (``orav.perceive.deeds`` says which), its place in
the try order, and a plausible value for a text field."""

from __future__ import annotations

import re

from orav.model import Credentials, Element, Tap, Target, TypeText
from orav.perceive.deeds import Verdict, words_of
from orav.perceive.identity import element_key, stable_id, steady
from orav.perceive.roles import is_secure, is_text_field
from orav.perceive.screens import is_footer_key
from orav.perceive.words import finds

# Elements that go back (by label or id, casefolded): tried after the rest of their screen.
# "Done" closes a sheet (Settings presented over a chat list) as Cancel does.
BACK_WORDS = frozenset({"back", "close", "cancel", "done"})
# A form's submit button: tapped once its fields hold values (the form's first way on).
_SUBMITS = re.compile(
    r"\b(?:sign[\s_-]?(?:in|up)|log[\s_-]?in|register|create|submit|pay|buy|purchase|send"
    r"|save|done|join|continue|next|ok|confirm|place order)\b",
    re.IGNORECASE,
)
_PASSWORD = re.compile(r"pass(?:word|code)", re.IGNORECASE)
_USER = re.compile(r"e-?mail|user|login|account", re.IGNORECASE)
# Fields with a value of their own, secure or not: the test password never goes there.
_SAMPLES = (
    (re.compile(r"cvv|cvc|security code", re.IGNORECASE), "123"),
    (re.compile(r"\bpin\b", re.IGNORECASE), "1234"),
    (re.compile(r"expir|mm\s*/\s*yy", re.IGNORECASE), "12/30"),
    # every sandbox's test card; not into the name on the card
    (re.compile(r"^(?!.*name).*card", re.IGNORECASE), "4242424242424242"),
)
# A screen that asks for a PIN or passcode (its text says so) on ten digit buttons of its own.
_ASKS_PIN = re.compile(r"\b(?:pin|passcode|security code)\b", re.IGNORECASE)
DIGITS = frozenset("0123456789")
# Textual's command palette key (``App.COMMAND_PALETTE_BINDING``): Textual's, not the app's.
PALETTE_KEY = "ctrl+p"
_NUMBER = re.compile(r"phone|number|zip|postcode|amount|\bage\b|quantity", re.IGNORECASE)

SAMPLE_EMAIL = "tester@example.com"
SAMPLE_PASSWORD = "Sample-Pass-1"
SAMPLE_NUMBER = "5550100"
SAMPLE_TEXT = "Sample text"

# Try order within a screen: on a form, its fields first and then its submit button (the form's
# first way on: FORM_FIELD_RANK, SUBMIT_RANK); controls and the first rows of each list (0), text fields (1),
# gestures and keys (2), Back (3: it leaves, back to the screen that still has the rest of its
# controls), the app's tabs (after Back: they leave for another part of the app), arrow keys
# (they move a cursor far more often than they open anything), the back gesture (it leaves,
# and teaches the way back), the deeds it may do (destructive ones, in a disposable world), and
# a terminal app's footer keys (app-wide: quit, the palette).
FORM_FIELD_RANK = -0.6
SUBMIT_RANK = -0.5
MOVE_RANK = 2
LISTED_RANK = 0.5  # a key the app's help lists: one of its commands, after its controls
BACK_RANK = 3
TAB_RANK = -1
ARROW_RANK = 5
BACK_MOVE_RANK = 5.5
RISKY_RANK = 6
# Rows of one list beyond the first ROWS_FIRST wait for the second round once the list is
# known to be a list of items (its rows led to screens alike): each shows another item.
ROWS_FIRST = 3


def _words(element: Element) -> str:
    return f"{element.label or ''} {element.unique_id or ''}"


def is_back(element: Element) -> bool:
    words = {(element.label or "").strip().casefold(), (element.unique_id or "").casefold()}
    return bool(words & BACK_WORDS)


def signs_out(element: Element) -> bool:
    return finds("sign_out", words_of(element)) is not None


def binding_keys(element: Element) -> frozenset[str]:
    """The keys a terminal app's footer key stands for (``binding:KEY`` traits)."""
    return frozenset(t.removeprefix("binding:") for t in element.traits if t.startswith("binding:"))


def quits(element: Element, quit_keys: frozenset[str] = frozenset()) -> bool:
    """It ends the app: by its words, or a footer key bound to one of ``quit_keys`` (the keys
    whose binding's action ends the app, ``moves.quit_keys``: a footer key may show only its
    key, browsr's "q")."""
    return finds("quit", words_of(element)) is not None or bool(
        is_footer_key(element) and binding_keys(element) & quit_keys
    )


def may_do(deed: Verdict | None, disposable: bool) -> bool:
    """The explorer's policy: an outward deed never, not once; a destructive one only in a
    world orav throws away (where exploring a delete is how crashes are found)."""
    return deed is None or (deed.kind == "destructive" and disposable)


def is_palette(element: Element) -> bool:
    """Textual's own command palette (its footer key): Textual's, not the app's, and its
    search answers on its own clock, so two runs would see different results."""
    return is_footer_key(element) and f"binding:{PALETTE_KEY}" in element.traits


def pin_keys(elements: list[Element]) -> frozenset[str]:
    """The digit keys of a PIN pad (a keypad the app draws: ten buttons labelled 0 to 9 on a
    screen whose text asks for a PIN or passcode), none elsewhere (a calculator's digits).
    Never tapped: a PIN typed by taps lands on disk as the keys tapped, and wrong ones lock
    the account."""
    keys = {e.label: ref(e) for e in elements if e.role == "AXButton" and (e.label or "") in DIGITS}
    asks = any(_ASKS_PIN.search(f"{e.label or ''} {e.value or ''}") for e in elements)
    return frozenset(keys.values()) if asks and set(keys) == DIGITS else frozenset()


def submits(element: Element) -> bool:
    """A button that sends a form: sign in, pay, save, join..."""
    return not is_text_field(element) and bool(_SUBMITS.search(_words(element)))


def is_switch(element: Element) -> bool:
    """A toggle: it changes a setting in place, and is turned back at once after its try."""
    return element.role == "AXSwitch"


def rank(element: Element, deed: Verdict | None) -> float:
    """An element's place in the try order (the ranks above): a deed it may do, and a
    terminal app's footer key, last."""
    if deed is not None or is_footer_key(element):
        return RISKY_RANK
    if is_back(element):
        return BACK_RANK
    return 1 if is_text_field(element) else 0


def list_of(element: Element) -> str:
    """Which list a row belongs to: its id's stem (``product_mug`` → ``product``), a table
    cell's column, else one list per screen."""
    column = next((t for t in element.traits if t.startswith("column:")), None)
    return column or (stable_id(element) or "").rpartition("_")[0] or "AXCell"


def target_of(element: Element) -> Target:
    """An element's target: its id when it has a stable one (the same in every run and
    language), else its label."""
    uid = stable_id(element)
    if uid:
        return Target(id=uid)
    return Target(label=element.label)


def tap_of(element: Element) -> Tap:
    """A tap on an element as seen now: by its target, or at its centre when it has no stable
    id and its label ticks (by the time the tap lands, that label has moved on)."""
    if stable_id(element) or steady(element.label or "") == element.label:
        return Tap(target=target_of(element))
    centre = element.frame.center
    return Tap(centre.x, centre.y)


def ref(element: Element) -> str:
    """How the explorer names an element: what stays of it (``element_key``: its stable id, a
    cell's column and row, its label with ticking values left out), so a clock in a row is
    one control, tried once."""
    return element_key(element)


def sample_text(element: Element, credentials: Credentials | None) -> TypeText:
    """A plausible value for a text field: the scenario's credentials for a login's fields,
    else a short sample that fits the field's name."""
    names = f"{element.label or ''} {element.unique_id or ''} {element.placeholder or ''}"
    for pattern, sample in _SAMPLES:
        if pattern.search(names):
            return TypeText(sample, secure=is_secure(element))
    if is_secure(element) or _PASSWORD.search(names):
        return TypeText(credentials.password if credentials else SAMPLE_PASSWORD, secure=True)
    if _USER.search(names):
        return TypeText(credentials.username if credentials else SAMPLE_EMAIL)
    if _NUMBER.search(names):
        return TypeText(SAMPLE_NUMBER)
    return TypeText(SAMPLE_TEXT)
