"""The actions an agent can take, a union tagged by ``kind``."""

from __future__ import annotations

import re
from typing import ClassVar, Literal, get_args

from attrs import field, frozen
from attrs.validators import optional

from orav.model.geometry import Point
from orav.model.keys import parse_key
from orav.model.limits import InvalidValue, at_least, at_most, finite, not_empty
from orav.model.observation import Observation

MAX_KEYCODE = 255  # USB HID keyboard usages
MAX_WAIT_SECONDS = 3600.0
NAMED_KEYS = ("return", "escape", "tab", "backspace", "delete", "space", "home")


@frozen
class Target:
    """An element chosen by its label, its accessibility id, or both; or, on a Textual app
    only, by a CSS ``selector`` that the driver resolves with Textual's own query."""

    label: str | None = None
    id: str | None = None
    selector: str | None = field(default=None, validator=optional(not_empty))

    def __attrs_post_init__(self) -> None:
        if self.label is None and self.id is None and self.selector is None:
            raise ValueError("a target needs a label, an id or a selector")

    def __str__(self) -> str:
        if self.selector is not None:
            return f"selector {self.selector!r}"
        return f"#{self.id}" if self.id is not None else repr(self.label)


@frozen
class Tap:
    """Tap a point, or the centre of a target element; ``vision`` marks estimated coordinates."""

    kind: ClassVar[str] = "tap"
    x: float | None = field(default=None, validator=optional(finite))
    y: float | None = field(default=None, validator=optional(finite))
    target: Target | None = None
    duration: float = field(default=0.0, validator=at_least(0))
    vision: bool = False

    def __attrs_post_init__(self) -> None:
        if self.target is None and (self.x is None or self.y is None):
            raise ValueError("a tap needs a target or both x and y")


@frozen
class TypeText:
    """Type text into the focused field; ``secure`` values are redacted on disk."""

    kind: ClassVar[str] = "type_text"
    text: str = field(validator=not_empty)
    secure: bool = False


@frozen
class Swipe:
    """Drag from ``start`` to ``end`` (points) in ``duration`` seconds: scroll, go back,
    reveal a row's swipe actions."""

    kind: ClassVar[str] = "swipe"
    start: Point
    end: Point
    duration: float = field(default=0.3, validator=at_least(0))


@frozen
class PressKey:
    """Press a key by its Textual name (``enter``, ``down``, ``ctrl+s``, ``f5``; see
    ``orav.model.keys``) or by a HID keycode (iOS). A device refuses keys it cannot press: iOS
    presses only ``NAMED_KEYS`` and keycodes, Textual only names."""

    kind: ClassVar[str] = "press_key"
    key: str | int = field(default="return")

    @key.validator
    def _named_or_keycode(self, _: object, key: str | int) -> None:
        if isinstance(key, str):
            try:
                parse_key(key)
            except ValueError as exc:
                raise InvalidValue("key", f"{exc}, or a HID keycode") from None
        if isinstance(key, bool) or (isinstance(key, int) and not 1 <= key <= MAX_KEYCODE):
            raise InvalidValue("key", f"a HID keycode is 1 to {MAX_KEYCODE}, got {key}")


@frozen
class Wait:
    """Wait ``seconds`` on the run's clock, for what the app does in its own time."""

    kind: ClassVar[str] = "wait"
    seconds: float = field(default=1.0, validator=[at_least(0), at_most(MAX_WAIT_SECONDS)])


@frozen
class Launch:
    """Launch the app under test (or another bundle): a running app is brought to the front,
    or with ``fresh`` stopped and started again at its first screen (the explorer's way out
    of a screen whose every way out is a deed it may not do)."""

    kind: ClassVar[str] = "launch"
    bundle_id: str | None = None
    fresh: bool = False


@frozen
class Terminate:
    """Stop the app under test (or another bundle)."""

    kind: ClassVar[str] = "terminate"
    bundle_id: str | None = None


TEXT_CONDITIONS = ("contains", "matches")
MAX_CLAIM = 500  # characters of a claim in words: one or two sentences
MAX_PATTERN = 200  # characters of a ``matches`` regex: a scenario's, or a model's
# Unbounded repeats a ``matches`` regex may hold: Python's regex engine backtracks, so k of them
# can cost (line length)^(k+1) per line; one keeps every screen line well under a second
# (bounded repeats, ``\d{1,9}``, cost nothing of the sort).
MAX_UNBOUNDED = 1


@frozen
class Assert:
    """Check the screen: a target is visible, absent, or has a value; or a text is contained
    in (``contains``), or a regex is found in (``matches``), the target's label or value, or
    the whole screen's text when there is no target; or a ``claim`` in words ("the cart shows
    two items"), which a judge decides on the screen (``orav.judges``).

    ``name`` is what the scenario's author called the state this check shows (``logged_in``):
    reports name the goal by it."""

    kind: ClassVar[str] = "assert"
    target: Target | None = None
    condition: Literal["visible", "absent", "value_equals", "contains", "matches"] = "visible"
    value: str | None = None
    claim: str | None = None
    name: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.claim is not None:
            self._check_claim(self.claim)
            return
        if self.target is None and self.condition not in TEXT_CONDITIONS:
            raise ValueError(f"an assert {self.condition} needs a target")
        if self.condition in TEXT_CONDITIONS and not self.value:
            raise InvalidValue("value", f"an assert {self.condition} needs a text to find")
        if self.condition == "matches" and self.value:
            _check_pattern(self.value)

    def _check_claim(self, claim: str) -> None:
        """A claim in words stands alone, has words, and is short enough for a judge."""
        if self.target is not None or self.value is not None or self.condition != "visible":
            what = "a claim in words stands alone: no target, value or condition"
            raise InvalidValue("claim", what)
        if not claim.strip():
            raise InvalidValue("claim", "a claim needs words: say what should hold")
        if len(claim) > MAX_CLAIM:
            raise InvalidValue("claim", f"a claim is at most {MAX_CLAIM} characters")

    def finds(self, text: str | None) -> bool:
        """``contains`` / ``matches`` on one text (a label, a value, the screen's text)."""
        if text is None or self.value is None:
            return False
        if self.condition == "matches":
            return re.search(self.value, text) is not None
        return self.value in text


def _check_pattern(value: str) -> None:
    """A ``matches`` regex is short, parses, and cannot take minutes on a long screen."""
    if len(value) > MAX_PATTERN:
        raise InvalidValue("value", f"a regex is at most {MAX_PATTERN} characters")
    try:
        parsed = re._parser.parse(value)  # type: ignore[attr-defined]  # private: typeshed lacks re._parser
    except re.error as exc:
        raise InvalidValue("value", f"not a regular expression: {exc}") from None
    if _nested_repeat(parsed):
        raise InvalidValue(
            "value",
            "a repeated group that repeats or branches inside, like (a+)+, can "
            "take forever on a long screen; write it without the nesting",
        )
    if _unbounded(parsed) > MAX_UNBOUNDED:
        raise InvalidValue(
            "value",
            f"a regex has at most {MAX_UNBOUNDED} unbounded repeat (+, *, {{n,}}): "
            "more can take minutes on a long screen; bound the others ({1,20})",
        )


def _unbounded(items) -> int:
    """How many repeats without an upper bound the parsed regex holds, at any depth."""
    count = 0
    for op, arg in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            count += arg[1] is re._constants.MAXREPEAT  # type: ignore[attr-defined]  # typeshed lacks re._constants
            count += _unbounded(arg[2])
        elif name == "SUBPATTERN":
            count += _unbounded(arg[-1])
        elif name == "BRANCH":
            count += sum(_unbounded(branch) for branch in arg[1])
        elif name in ("ASSERT", "ASSERT_NOT"):
            count += _unbounded(arg[1])
    return count


def _nested_repeat(items, inside: bool = False) -> bool:
    """True when a repeat (``+``, ``*``, ``{n,}``) holds another repeat or a branch: the shapes
    that make Python's backtracking regex engine exponential."""
    return any(_nests(str(op), arg, inside) for op, arg in items)


def _nests(name: str, arg, inside: bool) -> bool:
    """Whether one parsed item is, or holds, a repeat or a branch inside a repeat."""
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        _low, high, body = arg
        repeats = high is re._constants.MAXREPEAT or high > 1  # type: ignore[attr-defined]  # typeshed lacks re._constants
        return (inside and repeats) or _nested_repeat(body, inside or repeats)
    if name == "BRANCH":
        return inside or any(_nested_repeat(b, inside) for b in arg[1])
    if name == "SUBPATTERN":
        return _nested_repeat(arg[-1], inside)
    if name in ("ASSERT", "ASSERT_NOT"):
        return _nested_repeat(arg[1], inside)
    return False


def screen_text(observation: Observation) -> str:
    """The whole screen as text: the terminal's rows when the device has them (Textual),
    else every element's label and value, one a line (iOS)."""
    if observation.text is not None:
        return observation.text
    parts = (text for e in observation.elements for text in (e.label, e.value) if text)
    return "\n".join(parts)


@frozen
class Done:
    """The agent believes the goal is reached (or cannot be)."""

    kind: ClassVar[str] = "done"
    success: bool = True
    summary: str = ""


@frozen
class Recover:
    """Ask orav to handle the interruption on screen: dismiss an alert through a safe label,
    sign in on a login form, wait out a spinner, retry after a network error. orav recovers
    by itself only when an interruption blocks the next action; this asks for it sooner."""

    kind: ClassVar[str] = "recover"


Action = Tap | TypeText | Swipe | PressKey | Wait | Launch | Terminate | Assert | Done | Recover
ACTION_TYPES: tuple[type[Action], ...] = get_args(Action)
ACTION_KINDS: dict[str, type] = {cls.kind: cls for cls in ACTION_TYPES}


def _num(value: float) -> str:
    return f"{value:g}"


def show_action(action: Action) -> str:
    """A short human form of an action, as divergence messages and reports show it."""
    match action:
        case Tap():
            return _show_tap(action)
        case TypeText(secure=True):
            return "type a secret (secure)"  # never print it: a live value may be the real one
        case TypeText(text=text):
            return f"type {text!r}"
        case Swipe(start=start, end=end):
            return f"swipe ({_num(start.x)}, {_num(start.y)}) → ({_num(end.x)}, {_num(end.y)})"
        case PressKey(key=key):
            return f"press {key}"
        case Wait(seconds=seconds):
            return f"wait {_num(seconds)}s"
        case Launch(bundle_id=bundle_id) | Terminate(bundle_id=bundle_id):
            return f"{action.kind} {bundle_id or 'the app'}"
        case Assert():
            return _show_assert(action)
        case Done(success=success):
            return "done (" + ("success" if success else "failure") + ")"
        case Recover():
            return "recover from the interruption"
    return repr(action)


def _show_assert(check: Assert) -> str:
    if check.claim is not None:
        return f"assert {check.claim!r}"
    where = "the screen" if check.target is None else str(check.target)
    return f"assert {where} {check.condition}" + (
        f" {check.value!r}" if check.value is not None else ""
    )


def _show_tap(tap: Tap) -> str:
    parts = ["tap"]
    if tap.target is not None:
        parts.append(str(tap.target))
    if tap.x is not None and tap.y is not None:
        parts.append(f"({_num(tap.x)}, {_num(tap.y)})")
    return " ".join(parts)
