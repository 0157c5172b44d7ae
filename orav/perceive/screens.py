"""Which screen an observation shows, and what to call it: the one screen identity.

The engine names the screens a run visited, the explorer keys its map of the app, the report
groups steps, and a rerun or a re-record decides whether a recorded decision still holds
(``orav.cassette.follow``): all of them ask this module, so a screen is the same screen
everywhere.

- ``screen_id``: the app and what the platform calls the screen (``screen_title``): a Textual
  screen's class with its selected tab, an iOS navigation title, an alert's title. A screen
  without one is the stable structure of its controls: headings and controls by role and
  stable id (or label), a list's rows by role alone. Values, counts in a title, ticking values
  in a label or title (``orav.perceive.identity``), frames, focus,
  static text, rows coming and going, the keyboard, footer keys and per-process ids
  (``stable_id``) are left out, so typed text, a cart with other contents, a list that grows,
  a flipped switch, a ticking clock, an error shown under a field or the keyboard coming up
  do not make a new screen.
- ``screen_name``: a name a person recognises: a Textual screen's title or class
  (``ProjectsScreen`` → "Projects") and tab, the navigation title, an alert's title, else a
  header, else the first label with letters in it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from orav.model import Element, Observation
from orav.perceive.identity import stable_id, steady, steady_label
from orav.perceive.per_tree import per_tree
from orav.perceive.roles import (
    TAPPABLE_ROLES,
    TAPPABLE_TRAITS,
    TEXT_FIELD_ROLES,
    is_alert,
    is_heading,
    is_keyboard,
    is_secure,
)


def app_elements(observation: Observation) -> list[Element]:
    """The app's own elements: no keyboard, no keys, not the application element itself.

    Elements the keyboard covers stay: they are still in the tree, and still the same screen.
    """
    return [e for e in observation.elements if not is_keyboard(e) and e.role != "AXApplication"]


def is_footer_key(element: Element) -> bool:
    """A terminal app's footer key: it shows the bindings of whatever has focus."""
    return element.role == "AXButton" and any(t.startswith("binding:") for t in element.traits)


def is_control(element: Element) -> bool:
    """An element an agent can act on and name in a Target."""
    if not (element.label or element.unique_id):
        return False
    traits = {t.casefold() for t in element.traits}
    return (
        element.role in TAPPABLE_ROLES
        or element.role in TEXT_FIELD_ROLES
        or is_secure(element)
        or bool(TAPPABLE_TRAITS & traits)
    )


# A count in a title or a tab ("Inbox (3)", "Cart (2 items)"): it changes, the screen does not.
_COUNT = re.compile(r"\(\s*\d+(?:[^()\d][^()]*)?\)")


def screen_title(observation: Observation) -> str | None:
    """What the platform calls the screen: a Textual screen's class (``screen:Class``), with
    the tabs selected on it; else the navigation title (the first ``AXHeading``), a count in parentheses left out; else None.

    A Textual dialog adds its title, an alert (the app's or the system's) its label: they are
    screens of their own while they are up."""
    elements = app_elements(observation)
    window = _textual_window(elements)
    if window is not None:
        return _textual_title(window, elements)
    return _ios_title(elements)


def _textual_window(elements: list[Element]) -> Element | None:
    """A Textual screen: the first element with a ``screen:Class`` trait, else None."""
    return next((e for e in elements if _screen_class(e) is not None), None)


def _screen_class(element: Element) -> str | None:
    """The ``screen:Class`` trait of a Textual screen's element, else None."""
    return next((t for t in element.traits if t.startswith("screen:")), None)


def _textual_title(window: Element, elements: list[Element]) -> str:
    """A Textual screen's class, a dialog's title after it, then its selected tabs and
    pages, counts left out."""
    title = _screen_class(window) or ""
    if is_alert(window) and window.label:
        title += f"\x1f{window.label}"
    return _steady_title("\x1f".join([title, *(t or "" for t in _tabs(elements))]))


def _ios_title(elements: list[Element]) -> str | None:
    """The navigation title (a count left out), and an alert's label when one is up."""
    alert = next((e for e in elements if is_alert(e)), None)
    heading = next((e.label for e in elements if e.role == "AXHeading" and e.label), None)
    title = None if heading is None else f"title:{_steady_title(heading)}"
    if alert is None:
        return title
    return f"{title or ''}\x1falert:{alert.label or alert.unique_id or ''}"


def _steady_title(title: str) -> str:
    """A title without what changes in it: a count in parentheses, a ticking value."""
    return steady(_COUNT.sub("(#)", title))


def _tabs(elements: list[Element]) -> list[str | None]:
    """The selected tabs and the pages shown (a ContentSwitcher's): where on a Textual
    screen the user is."""
    tabs = [e.label for e in elements if e.role == "AXTab" and "selected" in e.traits]
    return [*tabs, *_pages(elements)]


def screen_id(observation: Observation) -> str:
    """Which screen this is (see the module docstring): 12 hex digits."""
    parts = [observation.app or ""]
    title = screen_title(observation)
    if title is not None:
        parts.append(title)
    else:
        parts += sorted(_shape(observation))
    return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()[:12]


def _shape(observation: Observation) -> set[str]:
    """The stable structure of a screen without a title: its headings and controls by role
    and stable id (else label), a list's rows (cells) by role alone, as a set, so that rows
    coming and going and values do not make another screen."""
    shape = set()
    for element in app_elements(observation):
        if is_footer_key(element):
            continue
        if is_heading(element):
            shape.add(f"heading\x1f{steady_label(element)}")
        elif element.role == "AXCell":
            shape.add("AXCell")
        elif is_control(element):
            name = stable_id(element) or steady_label(element)
            shape.add(f"{element.role}\x1f{name}")
    return shape


def screen_name(observation: Observation) -> str:
    """A readable name: the navigation title or the dialog's, a Textual screen's title (its
    Header), its tab, else the first header, else the first short label, else the id."""
    return _screen_name(observation.elements, observation.app)


@per_tree
def _screen_name(tree: tuple[Element, ...], app: str | None) -> str:
    observation = Observation(elements=tree, app=app)  # a name reads nothing else of a look
    elements = app_elements(observation)
    window = _textual_window(elements)
    if window is not None:
        return _textual_name(observation, window, elements)
    return _ios_name(elements) or screen_id(observation)


def _textual_name(observation: Observation, window: Element, elements: list[Element]) -> str:
    """A Textual screen's own title (its Header, a dialog's title, the screen's title when
    it is not the app's), else the app's name on its default screen, else what an untitled
    dialog asks, else its class in words; then its tabs."""
    app = next((e.label for e in observation.elements if e.role == "AXApplication"), None)
    kind = (_screen_class(window) or "").removeprefix("screen:")
    own = _own_title(window, elements, app)
    if own is None and kind == "Screen" and app:  # Textual's default screen: the app's
        own = _words(app) if app.isidentifier() else app  # "CalculatorApp": Calculator app
    if own is None and is_alert(window):
        own = _dialog_asks(elements)
    return " · ".join([_readable(own) or _words(kind), *filter(None, _tabs(elements))])


def _own_title(window: Element, elements: list[Element], app: str | None) -> str | None:
    """The screen's Header, else a dialog's title or the screen's title, unless it is only
    the app's name."""
    header = next((e.label for e in elements if e.role == "AXHeading" and e.label), None)
    titled = window.label if is_alert(window) else window.value
    return next((t for t in (header, titled) if t and t != app), None)


def _dialog_asks(elements: list[Element]) -> str | None:
    """What an untitled dialog asks: its first text or heading with letters (not a control's
    current value: a language picker is not "Python"), a toast aside."""
    asks = [e for e in elements[1:] if e.role == "AXStaticText" or is_heading(e)]
    labels = (_readable(e.label) for e in asks if "toast" not in e.traits)
    return next(filter(None, labels), None)


def _ios_name(elements: list[Element]) -> str | None:
    """The navigation title, else an alert's title, else a header, else the first label a
    person reads as a name; None when there is none."""
    for found in (
        next((e.label for e in elements if e.role == "AXHeading" and e.label), None),
        next((e.label for e in elements if is_alert(e) and e.label), None),
        next((e.label for e in elements if is_heading(e) and e.label), None),
    ):
        if found:
            return found
    return next(filter(None, (_readable(e.label) for e in elements)), None)


def _pages(elements: Iterable[Element]) -> list[str]:
    """The pages a Textual screen shows where its content is (a ContentSwitcher's
    ``page:ID``): part of which screen this is, as a selected tab is. A switcher less than
    half the size of the largest one is a part of that place, not the place (a status bar
    that flips to a notice, a sidebar's tree), so its page is left out."""
    switchers = [
        (e.frame.width * e.frame.height, t.removeprefix("page:"))
        for e in elements
        for t in e.traits
        if t.startswith("page:")
    ]
    largest = max((area for area, _ in switchers), default=0.0)
    return [page for area, page in switchers if 2 * area >= largest]


def _readable(text: str | None) -> str | None:
    """Text a person reads as a name: with letters, not a rule of box characters."""
    if not text or not any(c.isalpha() for c in text):
        return None
    return " ".join(text.split())


def _words(class_name: str) -> str:
    """``ProjectsScreen`` → ``Projects``; ``ConfirmDelete`` → ``Confirm delete``."""
    name = class_name.removesuffix("Screen") or class_name
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else class_name
