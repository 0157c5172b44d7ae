"""Which fault, if any, an observation shows: one detector per error of the recovery reference.

Detectors read the accessibility tree only (roles, labels, ids, frames), so they cost
microseconds and behave the same on a live device, the simulator and a replayed cassette.
``classify`` answers the most urgent fault first: a crashed app before an empty dump, a
system permission dialog before a generic alert, an alert before what it covers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from attrs import frozen

from orav.model import Action, Element, Frame, Observation, Point, Swipe, Tap

FaultKind = Literal[
    "crash",  # the app is not running
    "empty_dump",  # the accessibility dump came back empty or failed
    "permission",  # a system dialog with Allow / Don't Allow
    "alert",  # an unexpected alert
    "login",  # a login wall
    "network",  # an error banner or a Retry button
    "loading",  # a spinner (stuck once unchanged for 5 s)
    "keyboard",  # the keyboard covers the target of the next action
    "stuck",  # an action changed nothing (input dropped)
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__

ALERT_ROLES = frozenset({"AXAlert", "AXDialog", "AXSheet"})
ALERT_TRAITS = frozenset({"alert", "modal", "dialog"})
BUTTON_ROLES = frozenset({"AXButton", "AXLink", "AXMenuItem"})
TEXT_FIELD_ROLES = frozenset({"AXTextField", "AXSecureTextField", "AXSearchField", "AXTextView"})
SPINNER_ROLES = frozenset({"AXActivityIndicator", "AXProgressIndicator", "AXBusyIndicator"})
KEYBOARD_ROLES = frozenset({"AXKeyboard"})
KEY_ROLES = frozenset({"AXKey", "AXKeyboardKey"})

# Buttons, in order of preference, that a remedy taps.
DISMISS_LABELS = ("OK", "Dismiss", "Cancel", "Close", "Not Now")
ALLOW_LABELS = ("Allow", "Allow While Using App", "Allow Once", "OK")
DENY_LABELS = ("Don't Allow", "Don\u2019t Allow", "Deny")
RETRY_LABELS = ("Retry", "Try Again", "Reload")
LOGIN_LABELS = ("Log In", "Log in", "Login", "Sign In", "Sign in", "Continue")
BACK_LABELS = ("Back",)

_NETWORK_TEXT = re.compile(
    r"\b(?:network (?:error|unavailable|connection (?:lost|failed))|no internet"
    r"|not connected to the internet|(?:you(?:'re| are) )?offline\b|no connection"
    r"|connection (?:lost|failed|error|timed out)|could(?:n't| not) connect"
    r"|request failed|server error)",
    re.IGNORECASE,
)
_LOADING_TEXT = re.compile(r"^\s*(?:loading|please wait)\b", re.IGNORECASE)
_USER_TEXT = re.compile(r"user|e-?mail|login|account|phone", re.IGNORECASE)


@frozen
class Detection:
    """A fault seen on an observation: its kind, the elements that show it, and a note.

    ``action`` is the action the fault concerns: the one that changed nothing (``stuck``) or
    the one whose target the keyboard covers (``keyboard``).
    """

    kind: FaultKind
    evidence: tuple[Element, ...] = ()
    note: str = ""
    action: Action | None = None


def classify(
    observation: Observation,
    previous: Observation | None = None,
    *,
    action: Action | None = None,
) -> Detection | None:
    """The most urgent fault ``observation`` shows, or None when the screen is usable.

    ``previous`` is the observation before: a login screen counts only when it interrupts
    (``previous`` given and not a login screen itself), so a scenario that starts at sign-in
    is the agent's job. ``action`` (the next action, when known) lets a keyboard that covers
    its target count as a fault.
    """
    elements = observation.elements
    if not observation.app_running:
        note = "the app is not running"
        if previous is not None and previous.app_running:
            note += " (it was on the previous observation)"
        return Detection("crash", elements, note)
    if not elements or observation.error:
        return Detection("empty_dump", (), observation.error or "the accessibility dump is empty")
    for kind in ("permission", "alert", "login", "network", "loading"):
        if kind == "login" and (previous is None or _login(previous.elements) is not None):
            continue  # a login screen is a fault only when it interrupts: not at the start
        found = _DETECTORS[kind](elements)
        if found is not None:
            return found
    return keyboard_fault(observation, action) if action is not None else None


def keyboard_fault(observation: Observation, action: Action) -> Detection | None:
    """The keyboard fault when it covers ``action``'s target, else None (``classify``'s last
    check, on its own for a screen already classified as usable)."""
    if not keyboard_blocks(observation, action):
        return None
    evidence = keyboard_keys(observation.elements)
    return Detection("keyboard", evidence, "the keyboard covers the target", action)


def stuck(action: Action, note: str = "the action changed nothing") -> Detection:
    """The detection the engine hands to recovery when an action left the screen unchanged."""
    return Detection("stuck", (), note, action)


# --- detectors ------------------------------------------------------------------------------


def _permission(elements: tuple[Element, ...]) -> Detection | None:
    buttons = [(_label_key(e), e) for e in elements if e.role in BUTTON_ROLES]
    allow = [b for key, b in buttons if key in _ALLOW_KEYS]
    deny = [b for key, b in buttons if key in _DENY_KEYS]
    alerts = [e for e in elements if _is_alert(e)]
    if deny and (allow or alerts):
        return Detection("permission", (*alerts[:1], *allow, *deny), "a permission dialog")
    return None


def _alert(elements: tuple[Element, ...]) -> Detection | None:
    for index, element in enumerate(elements):
        if _is_alert(element):
            buttons = alert_buttons(elements, index)
            return Detection("alert", (element, *buttons), _text(element) or "an alert")
    return None


def _login(elements: tuple[Element, ...]) -> Detection | None:
    user, password, submit = login_fields(elements)
    if password is None or (user is None and submit is None):
        return None
    evidence = tuple(e for e in (user, password, submit) if e is not None)
    return Detection("login", evidence, "a login screen")


def _network(elements: tuple[Element, ...]) -> Detection | None:
    retry = find_button(elements, RETRY_LABELS)
    banner = next((e for e in elements if _NETWORK_TEXT.search(_text(e) or "")), None)
    if retry is None and banner is None:
        return None
    evidence = tuple(e for e in (banner, retry) if e is not None)
    return Detection("network", evidence, _text(banner) if banner else "a Retry button")


def _loading(elements: tuple[Element, ...]) -> Detection | None:
    spinners = tuple(
        e for e in elements if e.role in SPINNER_ROLES or _LOADING_TEXT.match(e.label or "")
    )
    return Detection("loading", spinners, "a loading indicator") if spinners else None


_DETECTORS = {
    "permission": _permission,
    "alert": _alert,
    "login": _login,
    "network": _network,
    "loading": _loading,
}


def shows(observation: Observation, kind: FaultKind) -> Detection | None:
    """Whether ``observation`` still shows a fault of ``kind`` (what a remedy checks after)."""
    if kind == "crash":
        return classify(observation) if not observation.app_running else None
    if kind == "empty_dump":
        empty = not observation.elements or observation.error
        return Detection("empty_dump", (), observation.error or "") if empty else None
    if kind == "keyboard":
        keys = keyboard_keys(observation.elements)
        return Detection("keyboard", keys) if keys else None
    detector = _DETECTORS.get(kind)
    return detector(observation.elements) if detector is not None else None


# --- helpers the remedies share ----------------------------------------------------------


def _text(element: Element) -> str | None:
    return element.label or element.value


def _label_key(element: Element) -> str:
    """The label as buttons are matched: trimmed and casefolded."""
    return (element.label or "").strip().casefold()


_ALLOW_KEYS = frozenset(label.casefold() for label in ALLOW_LABELS[:-1])  # "OK" alone is no proof
_DENY_KEYS = frozenset(label.casefold() for label in DENY_LABELS)


def _is_alert(element: Element) -> bool:
    return element.role in ALERT_ROLES or any(t.casefold() in ALERT_TRAITS for t in element.traits)


def alert_buttons(elements: tuple[Element, ...], index: int) -> tuple[Element, ...]:
    """The buttons of the alert at ``index``: those after it in pre-order inside its frame."""
    frame = elements[index].frame
    return tuple(
        e
        for e in elements[index + 1 :]
        if e.role in BUTTON_ROLES and (frame.is_empty or frame.contains(e.frame.center))
    )


def find_button(elements: Iterable[Element], labels: Iterable[str]) -> Element | None:
    """The first enabled button whose label is one of ``labels``, preferring earlier labels."""
    buttons: dict[str, Element] = {}
    for e in elements:
        if e.role in BUTTON_ROLES and e.enabled:
            buttons.setdefault(_label_key(e), e)  # the first in pre-order wins
    if not buttons:
        return None
    for label in labels:
        button = buttons.get(label.casefold())
        if button is not None:
            return button
    return None


def keyboard_keys(elements: Iterable[Element]) -> tuple[Element, ...]:
    """The keyboard element, or its keys when the tree has no keyboard container."""
    board = tuple(e for e in elements if e.role in KEYBOARD_ROLES)
    return board or tuple(e for e in elements if e.role in KEY_ROLES)


def keyboard_frame(observation: Observation) -> Frame | None:
    """Where the on-screen keyboard is, or None when it is hidden."""
    keys = keyboard_keys(observation.elements)
    frames = [k.frame for k in keys if not k.frame.is_empty]
    if not frames:
        return None
    left = min(f.x for f in frames)
    top = min(f.y for f in frames)
    right = max(f.x + f.width for f in frames)
    bottom = max(f.y + f.height for f in frames)
    return Frame(left, top, right - left, bottom - top)


def action_point(observation: Observation, action: Action) -> Point | None:
    """Where on screen an action lands: a tap's point or target centre, a swipe's start."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            return Point(action.x, action.y)
        target = action.target
        element = observation.find(target.label, target.id) if target is not None else None
        return element.frame.center if element is not None else None
    if isinstance(action, Swipe):
        return action.start
    return None


def keyboard_blocks(observation: Observation, action: Action) -> bool:
    """True when the keyboard is visible and the point the action aims at lies behind it."""
    board = keyboard_frame(observation)
    if board is None:
        return False
    point = action_point(observation, action)
    return point is not None and board.contains(point)


def login_fields(
    elements: tuple[Element, ...],
) -> tuple[Element | None, Element | None, Element | None]:
    """The username field, the password field and the submit button of a login screen."""
    secure = [e for e in elements if e.secure or e.role == "AXSecureTextField"]
    plain = [
        e
        for e in elements
        if e.role in TEXT_FIELD_ROLES and not e.secure and e.role != "AXSecureTextField"
    ]
    named = [e for e in plain if _USER_TEXT.search(f"{e.label} {e.unique_id} {e.placeholder}")]
    user = (named or plain or [None])[0]
    return user, (secure or [None])[0], find_button(elements, LOGIN_LABELS)


def screen_size(observation: Observation) -> tuple[float, float]:
    """The screen's size in points, from the largest extent of the tree (iPhone 14 default)."""
    frames = [e.frame for e in observation.elements if not e.frame.is_empty]
    if not frames:
        return 390.0, 844.0
    return max(f.x + f.width for f in frames), max(f.y + f.height for f in frames)
