"""The roles and labels perception reads, each set defined once.

Detectors, remedies, the change measure and the explorer all ask the same questions of an
element ("is it a button?", "is it a text field?", "does it say Cancel?"); the answers live
here so that no two of them can disagree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from orav.model import Element

ALERT_ROLES = frozenset({"AXAlert", "AXDialog", "AXSheet"})
ALERT_TRAITS = frozenset({"alert", "modal", "dialog"})
BUTTON_ROLES = frozenset({"AXButton", "AXLink", "AXMenuItem"})
TEXT_FIELD_ROLES = frozenset({"AXTextField", "AXSecureTextField", "AXSearchField", "AXTextView"})
# Controls that set a value where they are (a switch, a picker): a dialog that holds one is a
# panel of settings or a form, whatever else it shows, not a question.
SETTING_ROLES = frozenset(
    {
        "AXSwitch",
        "AXCheckBox",
        "AXToggle",
        "AXRadioButton",
        "AXPopUpButton",
        "AXSlider",
        "AXSegmentedControl",
    }
)
# Indicators of work in progress; one with a value (a determinate progress bar) is not a spinner.
PROGRESS_ROLES = frozenset({"AXActivityIndicator", "AXProgressIndicator", "AXBusyIndicator"})
KEYBOARD_ROLES = frozenset({"AXKeyboard"})
KEY_ROLES = frozenset({"AXKey", "AXKeyboardKey"})
# The app and its window: what everything else is drawn on, never over anything.
ROOT_ROLES = frozenset({"AXApplication", "AXWindow"})
# Elements a tap can land on without doing anything (to dismiss the keyboard).
STATIC_ROLES = frozenset({"AXStaticText", "AXHeading", "AXImage", "AXOther", "AXGroup"})
# Roles an explorer taps; elements of other roles count when their traits say button or link.
TAPPABLE_ROLES = BUTTON_ROLES | {
    "AXCell",
    "AXSwitch",
    "AXCheckBox",
    "AXRadioButton",
    "AXPopUpButton",
    "AXTab",
    "AXToggle",
}
TAPPABLE_TRAITS = frozenset({"button", "link"})

# The answers of a permission dialog and of a network error (data, the last resort).
ALLOW_LABELS = ("Allow", "Allow While Using App", "Allow Once", "OK")
DENY_LABELS = (
    "Don't Allow",
    "Don\u2019t Allow",
    "Deny",
    "Ask App Not to Track",  # App Tracking Transparency's refusal
)
RETRY_LABELS = ("Retry", "Try Again", "Reload")
SIGN_IN_LABELS = ("Log In", "Log in", "Login", "Sign In", "Sign in", "Sign In with Email")
BACK_LABELS = ("Back",)

_SIGN_IN_TEXT = re.compile(r"\b(?:sign|log)[\s-]?in\b|\blogin\b", re.IGNORECASE)


def label_key(element: Element) -> str:
    """The label as buttons are matched: trimmed and casefolded."""
    return (element.label or "").strip().casefold()


def text_of(element: Element) -> str | None:
    return element.label or element.value


def is_alert(element: Element) -> bool:
    return element.role in ALERT_ROLES or any(t.casefold() in ALERT_TRAITS for t in element.traits)


def is_text_field(element: Element) -> bool:
    return element.role in TEXT_FIELD_ROLES or element.secure


def is_secure(element: Element) -> bool:
    return element.secure or element.role == "AXSecureTextField"


def is_heading(element: Element) -> bool:
    traits = {t.casefold() for t in element.traits}
    return bool(element.label) and (element.role == "AXHeading" or "header" in traits)


def is_keyboard(element: Element) -> bool:
    return (
        element.role in KEYBOARD_ROLES
        or element.role in KEY_ROLES
        or "keyboardkey" in {t.casefold() for t in element.traits}
    )


def is_spinner(element: Element) -> bool:
    """An indeterminate progress indicator: a spinner, or a progress bar without a value."""
    if element.role == "AXProgressIndicator":
        return not element.value
    return element.role in PROGRESS_ROLES


def says_sign_in(element: Element) -> bool:
    return bool(_SIGN_IN_TEXT.search(f"{element.label or ''} {element.unique_id or ''}"))


def find_button(elements: Iterable[Element], labels: Iterable[str]) -> Element | None:
    """The first enabled button whose label is one of ``labels``, preferring earlier labels."""
    buttons: dict[str, Element] = {}
    for e in elements:
        if e.role in BUTTON_ROLES and e.enabled:
            buttons.setdefault(label_key(e), e)  # the first in pre-order wins
    for label in labels:
        button = buttons.get(label.casefold())
        if button is not None:
            return button
    return None
