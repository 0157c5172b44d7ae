"""What an observation shows that is not the test's own screen: faults and interruptions.

Two families, treated differently by the engine (see docs/recovery.md):

- **Faults** are unambiguous: the app crashed (the device reports it not running; a failed
  list_apps is no such report), the dump is empty, a system permission dialog is up. ``fault`` finds them, and
  recovery runs before the agent reasons. A decided target that something covers
  (``cover_fault``: the keyboard, a banner, a toast, a popover; ``orav.perceive.occlusion``)
  is one too, checked once the decision is known: a tap there would hit the cover.
- **Interruptions** may be the test's own flow: an app alert or modal, a login form, a
  spinner, a network error. ``interruption`` finds them; the agent is shown them and decides,
  and the engine recovers only when one ``blocks`` the decided action, or a modal took the
  input as it came up (``swallowed``).

Detectors read the accessibility tree only (roles, labels, ids, frames), so they cost
microseconds and behave the same live, on the simulator and in a replayed cassette.
"""

from __future__ import annotations

import re

from attrs import evolve, frozen

from orav.model import (
    Action,
    Assert,
    Done,
    Element,
    FaultKind,
    Observation,
    Point,
    PressKey,
    Swipe,
    Tap,
    TypeText,
)
from orav.perceive.change import tree_signature
from orav.perceive.occlusion import (
    Cover,
    cover_at,
    cover_of,
    keyboard_frame,
    keyboard_keys,
    modal_elements,
    on_top,
)
from orav.perceive.per_tree import per_tree
from orav.perceive.roles import (
    ALLOW_LABELS,
    BUTTON_ROLES,
    DENY_LABELS,
    RETRY_LABELS,
    SIGN_IN_LABELS,
    TEXT_FIELD_ROLES,
    find_button,
    is_alert,
    is_heading,
    is_secure,
    is_spinner,
    label_key,
    says_sign_in,
    text_of,
)
from orav.perceive.targets import action_element, action_point, target_element
from orav.perceive.words import dismissible

INTERRUPTION_KINDS: tuple[FaultKind, ...] = ("alert", "login", "network", "loading")

_NETWORK_ERROR = re.compile(
    r"\b(?:network (?:error|unavailable|connection (?:was )?(?:lost|failed))"
    r"|no internet(?: connection)?|no (?:network )?connection\b|not connected to the internet"
    r"|connection (?:lost|failed|error|timed out)|could(?:n't|n’t| not) connect"
    r"|request (?:failed|timed out)|server error|something went wrong)",
    re.IGNORECASE,
)
_OFFLINE = re.compile(r"\boffline\b", re.IGNORECASE)
_LOADING_TEXT = re.compile(r"^\s*(?:loading|please wait)\b", re.IGNORECASE)
_USER_TEXT = re.compile(r"user|e-?mail|login|account|phone", re.IGNORECASE)
_NOT_PASSWORD = re.compile(
    r"card|cvv|cvc|security code|expir|pin\b|iban|account number|routing|ssn|new|confirm|current"
    r"|repeat|again",
    re.IGNORECASE,
)


@frozen
class Detection:
    """A fault or interruption seen on an observation: its kind, the elements that show it,
    and a note. ``action`` is the action it concerns: the one that changed nothing, the one
    whose target the keyboard covers, or the one an interruption blocked."""

    kind: FaultKind
    evidence: tuple[Element, ...] = ()
    note: str = ""
    action: Action | None = None


# --- faults: unambiguous, recovered before the agent reasons -------------------------------


def fault(observation: Observation) -> Detection | None:
    """The unambiguous fault ``observation`` shows, or None.

    A crash is an app the device reports as not running (its screen is then empty, or the
    home screen). An app whose state is unknown (list_apps failed) is no crash: with its
    tree on screen it is fine, and an empty or failed dump is an empty dump, for which
    recovery asks the device again.
    """
    elements = observation.elements
    if observation.app_running is False:
        why = f": {observation.error}" if observation.error else ""  # a Textual app's exception
        return Detection("crash", elements, f"the app is not running{why}")
    if not elements or observation.error is not None:
        return Detection("empty_dump", (), observation.error or "the accessibility dump is empty")
    return _permission(elements)


def cover_fault(observation: Observation, action: Action) -> Detection | None:
    """What covers ``action``'s target, as the fault it is (None: nothing does): the keyboard
    (``keyboard``), an alert (``alert``), or a banner, sheet, toast or popover (``covered``).
    The cover is the evidence, named in the note: a tap would hit it, never the target."""
    cover = covering(observation, action)
    if cover is None:
        return None
    kind = _COVER_FAULTS[cover.kind]
    return Detection(kind, cover.elements, f"{cover.name} covers the target", action)


_COVER_FAULTS: dict[str, FaultKind] = {
    "keyboard": "keyboard",
    "modal": "alert",
    "overlay": "covered",
}


def covering(observation: Observation, action: Action) -> Cover | None:
    """What stands over the point ``action`` needs: a targeted tap's element covered wholly,
    a tap at coordinates where something covers its target there (without a target: the
    keyboard over the point), a swipe started under the keyboard. Typing and keys reach the
    focused field whatever lies over it."""
    if isinstance(action, Tap):
        element = target_element(observation, action.target)
        if action.x is None or action.y is None:
            return cover_of(observation, element) if element is not None else None
        point = Point(action.x, action.y)
        if element is not None and element.frame.contains(point):
            return cover_at(observation, element, point)
        return _keyboard_over(observation, point)
    if isinstance(action, Swipe):
        return _keyboard_over(observation, action.start)
    return None


def _keyboard_over(observation: Observation, point: Point) -> Cover | None:
    board = keyboard_frame(observation)
    if board is None or not board.contains(point):
        return None
    return Cover("keyboard", keyboard_keys(observation.elements))


def no_effect(action: Action, note: str = "the action changed nothing") -> Detection:
    """The detection the engine hands to recovery when an action left the screen unchanged."""
    return Detection("no_effect", (), note, action)


def always_answered(observation: Observation, action: Action) -> bool:
    """Whether every responsive app answers ``action`` visibly: text typed into a focused
    field, a tap on a text field without focus, a tap on a switch or check box. A button, a
    row or a tab may rightly do nothing; these may not, so one of them unanswered, among
    several ineffective actions, is what tells a frozen app from idempotent controls."""
    if isinstance(action, TypeText):
        return observation.focused is not None
    element = action_element(observation, action)
    if element is None or not element.enabled:
        return False
    if element.role in TEXT_FIELD_ROLES or is_secure(element):
        return not element.focused
    return element.role in ("AXSwitch", "AXCheckBox", "AXToggle")


def frozen_app(action: Action, count: int) -> Detection:
    """``count`` different actions in a row changed nothing: the app no longer responds."""
    note = f"{count} different actions in a row changed nothing, input a responsive app answers among them"
    return Detection("frozen", (), note, action)


# --- interruptions: shown to the agent, recovered only when they block ---------------------


def interruption(observation: Observation, previous: Observation | None = None) -> Detection | None:
    """The interruption on ``observation``, or None: an app alert or modal, a login form
    that replaced another screen (one the run starts on, or came back to, is the test's), a
    network error that appeared since ``previous``, or a spinner (in that order)."""
    elements = observation.elements
    interrupts = previous is not None and _login(previous.elements) is None
    return (
        _alert(elements)
        or (_login(elements) if interrupts else None)
        or _network(elements, previous.elements if previous is not None else None)
        or _loading(elements)
    )


def blocks(detection: Detection, observation: Observation, action: Action) -> bool:
    """Whether ``detection`` (an interruption) stands between the test and ``action``.

    A modal blocks every input aimed at what lies under it (``reaches``: taps, swipes, text
    and keys alike); a login form, a network error and a spinner block an action whose target
    is absent (for ``done``, a success criterion's target). A wait, a check and an action aimed
    inside the interruption are never blocked, nor is a key by anything but a modal.
    """
    if detection.kind not in INTERRUPTION_KINDS:
        return False
    if detection.kind == "alert":
        if isinstance(action, (Swipe, PressKey)) and not dismissible(_buttons(detection)):
            return False  # a gesture or key is held back only for a modal orav may clear
        return isinstance(action, _INPUTS) and not reaches(detection, observation, action)
    if isinstance(action, PressKey):
        return False
    return target_absent(observation, action)


_INPUTS = (Tap, Swipe, TypeText, PressKey)


def _buttons(modal: Detection) -> list[Element]:
    return [e for e in modal.evidence if e.role in BUTTON_ROLES]


def reaches(modal: Detection, observation: Observation, action: Action) -> bool:
    """Whether an input reaches the modal ``modal`` shows, rather than what lies under it:
    one rule for every input kind. A tap on one of its elements (by coordinates: a point on
    it), a swipe that starts on it, text into a field of its own that has focus, a key it
    takes (``takes_key``). A modal without a frame (a terminal's modal screen) covers the
    whole screen: every point is on it."""
    if isinstance(action, Tap) and action.x is not None and action.y is not None:
        return _covers(modal, Point(action.x, action.y))
    if isinstance(action, Swipe):
        return _covers(modal, action.start)
    if isinstance(action, PressKey):
        return takes_key(modal, observation, action.key)
    element = action_element(observation, action)
    return element is not None and _inside(modal, element)


def takes_key(modal: Detection, observation: Observation, key: str | int) -> bool:
    """Whether a modal takes ``key``: escape (every modal's way out), a key it or the app
    binds (``binding:KEY``), and any other while one of its own controls has focus (a
    character into its field, return on its button). With the focus under it, or nowhere, a
    key is aimed at what lies under it: the modal swallows it."""
    if key == "escape":
        return True
    bound = f"binding:{key}"
    app = (e for e in observation.elements if e.role == "AXApplication")
    if any(bound in e.traits for e in (*modal.evidence, *app)):
        return True
    focused = observation.focused
    return focused is not None and _inside(modal, focused)


def swallowed(before: Observation, after: Observation, action: Action) -> Detection | None:
    """The modal that came up while ``action`` went in and took it, or None: a modal on
    ``after`` that was not on ``before``, that the input did not reach (``reaches``, its aim
    read on ``before``), with nothing under it changed: the input never got where it was
    aimed. An input aimed at a control (a tap on a button, text or a key into a field, a key
    the app binds) may present a modal itself: that modal is its effect, never swallowed; a
    swipe, or a tap or key aimed at no control, presents none. A modal that replaces the
    whole tree (a terminal's modal screen) hides what lies under it: no verdict."""
    modal = _alert(after.elements)
    if modal is None or _alert(before.elements) is not None or not isinstance(action, _INPUTS):
        return None
    if _aims_at_control(before, action) or reaches(modal, before, action):
        return None
    under = tuple(e for e in after.elements if e not in modal.evidence)
    if tree_signature(under) != tree_signature(before.elements):
        return None
    return evolve(modal, note=f"{modal.note} (came up during the input)", action=action)


def _aims_at_control(observation: Observation, action: Action) -> bool:
    """Whether ``action`` is aimed at a control that may present a modal of its own."""
    if isinstance(action, Swipe):
        return False
    if isinstance(action, PressKey):
        bound = f"binding:{action.key}"
        return observation.focused is not None or any(
            bound in e.traits for e in observation.elements
        )
    if isinstance(action, Tap):
        point = action_point(observation, action)
        element = on_top(observation, point) if point is not None else None
        return element is not None and element.interactive
    return True  # text goes into a field


def target_absent(observation: Observation, action: Action) -> bool:
    """Whether something ``action`` needs on screen is missing: a targeted tap's element (a
    selector is the driver's to find), an assertion's, the focused field text goes into."""
    if isinstance(action, Tap) and action.x is None and action.target is not None:
        has_name = action.target.label is not None or action.target.id is not None
        return has_name and target_element(observation, action.target) is None
    if isinstance(action, Assert) and action.condition != "absent" and action.target:
        return target_element(observation, action.target) is None
    if isinstance(action, TypeText):
        return observation.focused is None
    return False


def done_blocked(detection: Detection, observation: Observation, done: Done, criteria) -> bool:
    """A ``done`` is blocked when an interruption hides a success criterion's target."""
    if detection.kind not in INTERRUPTION_KINDS or not done.success:
        return False
    return any(target_absent(observation, assertion) for assertion in criteria)


def _inside(detection: Detection, element: Element) -> bool:
    """Whether ``element`` belongs to the interruption: one of its own elements (a control
    behind an alert is not, even where the alert covers it), or anything under a modal
    without a frame (a terminal's modal screen covers the whole screen)."""
    evidence = detection.evidence
    return element in evidence or bool(evidence and evidence[0].frame.is_empty)


def _covers(detection: Detection, point) -> bool:
    """Whether ``point`` lies on the interruption: its frame (a frameless one, as a terminal
    modal, covers the screen) or one of its elements."""
    frames = [e.frame for e in detection.evidence if not e.frame.is_empty]
    if detection.evidence and detection.evidence[0].frame.is_empty:
        return True
    return any(f.contains(point) for f in frames)


# --- detectors ------------------------------------------------------------------------------


@per_tree
def _permission(elements: tuple[Element, ...]) -> Detection | None:
    buttons = [(label_key(e), e) for e in elements if e.role in BUTTON_ROLES]
    allow = [b for key, b in buttons if key in _ALLOW_KEYS]
    deny = [b for key, b in buttons if key in _DENY_KEYS]
    alerts = [e for e in elements if is_alert(e)]
    if deny and (allow or alerts):
        return Detection("permission", (*alerts[:1], *allow, *deny), "a permission dialog")
    return None


def _alert(elements: tuple[Element, ...]) -> Detection | None:
    modal = modal_elements(elements)
    return Detection("alert", modal, text_of(modal[0]) or "an alert") if modal else None


@per_tree
def _login(elements: tuple[Element, ...]) -> Detection | None:
    user, password, submit = login_fields(elements)
    if user is None or password is None:
        return None
    evidence = tuple(e for e in (user, password, submit) if e is not None)
    return Detection("login", evidence, "a login form")


def _network(elements: tuple[Element, ...], before: tuple[Element, ...] | None) -> Detection | None:
    """An error banner or a Retry control that was not on the screen before (a hint that the
    app is offline is no error; with a Retry control beside it, it is)."""
    retry = _retry(elements)
    banner = _banner(elements, retry is not None)
    if retry is None and banner is None:
        return None
    if before is not None and (
        _retry(before) is not None or _banner(before, retry is not None) is not None
    ):
        return None  # it was there before the last action: the screen's own content
    evidence = tuple(e for e in (banner, retry) if e is not None)
    note = (text_of(banner) or "a network error") if banner else "a Retry button"
    return Detection("network", evidence, note)


@per_tree
def _retry(elements: tuple[Element, ...]) -> Element | None:
    return find_button(elements, RETRY_LABELS)


@per_tree
def _banner(elements: tuple[Element, ...], retry: bool) -> Element | None:
    """The first error banner (with a Retry control beside it, an offline hint too)."""
    return next((e for e in elements if _is_error_banner(e, retry)), None)


def _is_error_banner(element: Element, retry: bool) -> bool:
    if element.role in ("AXApplication", "AXHeading") or element.role in BUTTON_ROLES:
        return False
    text = text_of(element) or ""
    return bool(_NETWORK_ERROR.search(text) or (retry and _OFFLINE.search(text)))


@per_tree
def _loading(elements: tuple[Element, ...]) -> Detection | None:
    spinners = tuple(
        e
        for e in elements
        if is_spinner(e) or (e.role != "AXApplication" and _LOADING_TEXT.match(e.label or ""))
    )
    return Detection("loading", spinners, "a loading indicator") if spinners else None


def shows(observation: Observation, kind: FaultKind) -> Detection | None:
    """Whether ``observation`` still shows a fault of ``kind`` (what a remedy checks after)."""
    if kind in ("crash", "empty_dump"):
        found = fault(observation)
        return found if found is not None and found.kind == kind else None
    if kind == "keyboard":
        keys = keyboard_keys(observation.elements)
        return Detection("keyboard", keys) if keys else None
    if kind == "covered":
        return None  # a cover is gone when its target is free: ``orav.machines.verdicts``
    if kind == "network":
        return _network(observation.elements, None)
    detector = _DETECTORS.get(kind)
    return detector(observation.elements) if detector is not None else None


_DETECTORS = {"permission": _permission, "alert": _alert, "login": _login, "loading": _loading}


# --- helpers the remedies share ----------------------------------------------------------

_ALLOW_KEYS = frozenset(label.casefold() for label in ALLOW_LABELS[:-1])  # "OK" alone is no proof
_DENY_KEYS = frozenset(label.casefold() for label in DENY_LABELS)


def login_fields(
    elements: tuple[Element, ...],
) -> tuple[Element | None, Element | None, Element | None]:
    """The user field, the password field and the sign-in control of a login form, each None
    when the screen is no login form.

    A login form has exactly one secure field that is a password (not a card number, a CVV,
    a PIN or a new/confirm password), a plain field for the account (e-mail, user name,
    phone), and a sign-in button or heading. A checkout, a change-password form or a PIN pad
    is none of that.
    """
    secure = [e for e in elements if is_secure(e)]
    if len(secure) != 1 or _NOT_PASSWORD.search(_names(secure[0])):
        return None, None, None
    password = secure[0]
    users = [
        e
        for e in elements
        if e.role in TEXT_FIELD_ROLES and not is_secure(e) and _USER_TEXT.search(_names(e))
    ]
    if len(users) != 1:
        return None, None, None
    submit = find_button(elements, SIGN_IN_LABELS)
    heading = any(is_heading(e) and says_sign_in(e) for e in elements)
    if submit is None and not heading:
        return None, None, None
    return users[0], password, submit


def _names(element: Element) -> str:
    return f"{element.label or ''} {element.unique_id or ''} {element.placeholder or ''}"


def screen_size(observation: Observation) -> tuple[float, float]:
    """The screen's size in points, from the largest extent of the tree (iPhone 14 default)."""
    frames = [e.frame for e in observation.elements if not e.frame.is_empty]
    if not frames:
        return 390.0, 844.0
    return max(f.x + f.width for f in frames), max(f.y + f.height for f in frames)
