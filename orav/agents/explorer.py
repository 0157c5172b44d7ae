"""The systematic explorer: finds every reachable screen depth-first, with no model.

It keeps a map of the screens it has seen, keyed by the one screen identity
(``orav.perceive.screen_id``), the interactive elements of each and
which it has tried, and the transitions it observed: what it tapped on screen A, and the screen
it saw at its next decision. On each screen it tries the next untried element (a text field
takes three steps: tap, type a plausible value, press return); when none is left it walks the
known screen graph to the nearest screen that still has one (a Back button is an element like
any other, tried after the rest), tries a back gesture once where it knows no way on, and
says ``done`` when nothing untried is reachable. No randomness: the same app gives the same run.

    explorer = ExplorerAgent()
    await session.record(scenario, out, agent=explorer)   # any Device: it sees Observations only
    explorer.coverage()                                  # -> orav.agents.coverage.Coverage
"""

from __future__ import annotations

import re
from collections import deque
from typing import Literal

from attrs import define, evolve, field

from orav.agents import AgentContext
from orav.agents.coverage import Coverage, ScreenCoverage, ScreenTransition
from orav.model import (
    Credentials,
    Decision,
    Done,
    Element,
    Observation,
    Point,
    PressKey,
    Swipe,
    Tap,
    Target,
    TypeText,
)
from orav.perceive import keyboard_frame, screen_id, screen_name, target_element
from orav.perceive.faults import screen_size
from orav.perceive.roles import is_alert, is_secure, is_text_field
from orav.perceive.screens import app_elements, is_control, is_footer_key, stable_id

# Elements that go back (by label or id, casefolded): tried after the rest of their screen.
BACK_WORDS = frozenset({"back", "close", "cancel"})
# Elements tried last: they may end the session or destroy what the app holds.
_SIGN_OUT = re.compile(r"\b(?:sign|log)[\s_-]?out\b|\blogout\b|\bsignout\b", re.IGNORECASE)
_RISKY = re.compile(
    r"\b(?:delete|remove|erase|reset|clear)\b|(?:^|[\s_])(?:less|minus|decrease|decrement)(?:_|\b)",
    re.IGNORECASE,
)
# Never tried: they end the app itself, which the engine would have to restart.
_QUIT = re.compile(r"\b(?:quit|exit)\b", re.IGNORECASE)
# Walked through never, only tried once: they commit something (an order, a payment, a message).
_COMMITS = re.compile(
    r"\b(?:pay|place order|buy|purchase|transfer|send money|submit)\b", re.IGNORECASE
)
_PASSWORD = re.compile(r"pass(?:word|code)", re.IGNORECASE)
_USER = re.compile(r"e-?mail|user|login|account", re.IGNORECASE)
# Fields with a value of their own, secure or not: the test password never goes there.
_SAMPLES = (
    (re.compile(r"cvv|cvc|security code", re.IGNORECASE), "123"),
    (re.compile(r"\bpin\b", re.IGNORECASE), "1234"),
    (re.compile(r"expir|mm\s*/\s*yy", re.IGNORECASE), "12/30"),
    (re.compile(r"card", re.IGNORECASE), "4242424242424242"),  # every sandbox's test card
)
_NUMBER = re.compile(r"phone|number|zip|postcode|amount|\bage\b|quantity", re.IGNORECASE)

SAMPLE_EMAIL = "tester@example.com"
SAMPLE_PASSWORD = "Sample-Pass-1"
SAMPLE_NUMBER = "5550100"
SAMPLE_TEXT = "Sample text"

BACK_GESTURE = "(back gesture)"
ESCAPE = "(escape)"
BACK_MOVES = (BACK_GESTURE, ESCAPE)
# Gestures and keys the explorer tries on each screen, as actions of their own.
SWIPES = ("left", "right", "up", "down")
ARROWS = ("up", "down", "left", "right")
# Keys never pressed: they quit a Textual app or interrupt it.
_QUIT_KEYS = frozenset({"ctrl+q", "ctrl+c", "q", "ctrl+p"})  # ctrl+p: Textual's palette
# How often one control may be walked through to reach other screens: walking learns nothing
# new, so a loop through one control is cut off.
WALK_BUDGET = 10

Stage = Literal["tap", "type", "return", "navigate", "back", "gesture"]


def _is_back(element: Element) -> bool:
    words = {(element.label or "").strip().casefold(), (element.unique_id or "").casefold()}
    return bool(words & BACK_WORDS)


def _signs_out(element: Element) -> bool:
    return bool(_SIGN_OUT.search(f"{element.label or ''} {element.unique_id or ''}"))


def _quits(element: Element) -> bool:
    return bool(_QUIT.search(f"{element.label or ''} {element.unique_id or ''}"))


def _palette(element: Element) -> bool:
    """Textual's own command palette (its footer key): Textual's, not the app's, and its
    search answers on its own clock, so two runs would see different results."""
    return is_footer_key(element) and "binding:ctrl+p" in element.traits


def _risky(element: Element) -> bool:
    return _signs_out(element) or bool(
        _RISKY.search(f"{element.label or ''} {element.unique_id or ''}")
    )


def _commits(element: Element) -> bool:
    return _risky(element) or bool(
        _COMMITS.search(f"{element.label or ''} {element.unique_id or ''}")
    )


def target_of(element: Element) -> Target:
    """An element's target: its id when it has a stable one (the same in every run and
    language), else its label."""
    uid = stable_id(element)
    if uid:
        return Target(id=uid)
    return Target(label=element.label)


def ref(element: Element) -> str:
    return str(target_of(element))


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
        and not _is_back(e)
        and (
            is_footer_key(e)
            or e.role == "AXTab"
            or any(bar.contains(e.frame.center) for bar in bars)
        )
    )
    return tuple(dict.fromkeys(found))


def screen_moves(observation: Observation, platform: str | None) -> dict[str, Swipe | PressKey]:
    """The gestures and keys worth trying on a screen, by name: on a touch screen a swipe
    each way across it and a swipe left on the first row of each list (it reveals a row's
    actions); on a terminal the app's and the screen's bindings no footer key shows (a
    widget's act on the widget, and need its focus), the arrow keys and escape."""
    moves: dict[str, Swipe | PressKey] = {}
    if platform != "textual" and any(is_alert(e) for e in observation.elements):
        return moves  # an alert takes its buttons only (a terminal dialog takes escape too)
    if platform == "textual":
        shown = {
            t.removeprefix("binding:")
            for e in observation.elements
            if is_footer_key(e)
            for t in e.traits
            if t.startswith("binding:")
        }
        for element in observation.elements[:1]:  # the app's and the screen's own bindings
            for trait in element.traits:
                key = trait.removeprefix("binding:")
                if trait.startswith("binding:") and key not in shown | _QUIT_KEYS | {"escape"}:
                    moves.setdefault(f"(key {key})", PressKey(key))
        for key in ARROWS:
            moves.setdefault(f"(key {key})", PressKey(key))
        moves[ESCAPE] = PressKey("escape")
        return moves
    width, height = screen_size(observation)
    middle = Point(width / 2, height / 2)
    moves[BACK_GESTURE] = Swipe(Point(2, middle.y), Point(width * 0.8, middle.y))
    for direction in SWIPES:
        dx = {"left": -0.35, "right": 0.35}.get(direction, 0.0) * width
        dy = {"up": -0.25, "down": 0.25}.get(direction, 0.0) * height
        start = Point(middle.x - dx, middle.y - dy)
        moves[f"(swipe {direction})"] = Swipe(start, Point(middle.x + dx, middle.y + dy))
    lists: set[str] = set()
    for element in app_elements(observation):
        if element.role != "AXCell" or element.frame.is_empty or not is_control(element):
            continue
        group = _list_of(element)
        if group in lists:
            continue
        lists.add(group)
        frame, y = element.frame, element.frame.center.y
        start, end = Point(frame.x + frame.width * 0.9, y), Point(frame.x + frame.width * 0.2, y)
        moves[f"(swipe left on {ref(element)})"] = Swipe(start, end)
    return moves


@define
class _Screen:
    """What the explorer knows of one screen."""

    key: str
    name: str
    first_step: int
    elements: dict[str, Element] = field(factory=dict)  # by ref, first-seen order
    moves: dict[str, Swipe | PressKey] = field(factory=dict)  # gestures and keys, by name
    order: list[str] = field(factory=list)  # refs and moves in the order they are tried
    tried: list[str] = field(factory=list)
    no_effect: list[str] = field(factory=list)
    skipped: list[str] = field(factory=list)
    present: set[str] = field(factory=set)  # refs on screen the last time it was seen
    enabled: set[str] = field(factory=set)  # refs ever seen enabled
    chrome: tuple[str, ...] = ()  # the app's chrome on it, when last seen
    alike: str | None = None  # the screen found before with the same controls
    retry: list[str] = field(factory=list)  # tried on the empty form: once more, filled
    refilled: bool = False

    def shape(self) -> frozenset[str]:
        """Its controls, but the app's chrome and the rows of a list: what screens alike share."""
        rows = {"(rows)"} if any(e.role == "AXCell" for e in self.elements.values()) else set()
        return (
            frozenset(
                name
                for name, element in self.elements.items()
                if name not in self.chrome and element.role != "AXCell"
            )
            | rows
        )

    def update(
        self,
        observation: Observation,
        credentials: Credentials | None,
        platform: str | None,
        chrome: tuple[str, ...],
    ) -> None:
        """Take in the current state of the screen's elements (enabled, value, frame) and the
        gestures and keys it offers."""
        ranked = []
        self.present = set()
        rows: dict[str, int] = {}  # rows seen per list
        for index, element in enumerate(app_elements(observation)):
            if not is_control(element):
                continue
            name = ref(element)
            rank = TAB_RANK if name in chrome and not is_footer_key(element) else _rank(element)
            if element.role == "AXCell":
                group = _list_of(element)
                rows[group] = rows.get(group, 0) + 1
                if rows[group] > ROWS_FIRST:
                    rank = LATER_ROWS_RANK  # alike rows: after the rest of the screen
            self.present.add(name)
            if element.enabled:
                self.enabled.add(name)
            if name in self.elements and name not in self.order:
                continue  # skipped before
            first = name not in self.elements
            self.elements[name] = element
            if first and _signs_out(element) and credentials is None:
                self.skipped.append(name)  # a login wall the engine could not pass
                continue
            if first and (_quits(element) or _palette(element)):
                self.skipped.append(name)  # it ends the app, or it is not the app's
                continue
            ranked.append((rank, index, name))
        for index, (name, move) in enumerate(screen_moves(observation, platform).items()):
            self.present.add(name)
            if name not in self.moves:
                self.moves[name] = move
                arrow = isinstance(move, PressKey) and move.key in ARROWS
                rank = ARROW_RANK if arrow else MOVE_RANK
                ranked.append((BACK_MOVE_RANK if name in BACK_MOVES else rank, index, name))
        known = set(self.order)
        new = [name for _, _, name in sorted(ranked) if name not in known]
        if known:  # revealed by the last action (a row's actions, a scrolled list): next
            done = [name for name in self.order if name in self.tried]
            self.order = done + new + [n for n in self.order if n not in self.tried]
        else:
            self.order = new

    def untried(self) -> list[str]:
        return [name for name in self.order if name not in self.tried]

    def available(self, name: str, gestures: bool = True) -> bool:
        """On screen and enabled the last time the screen was seen (a gesture always is, in
        the round of gestures)."""
        if name in self.moves:
            return gestures or name in BACK_MOVES
        return name in self.present and self.elements[name].enabled

    def pending(self, gestures: bool = True) -> bool:
        """Untried elements that were there and enabled when last seen: worth coming back for."""
        return any(self.available(name, gestures) for name in self.untried())

    def disabled(self) -> list[str]:
        """Elements never seen enabled and never tried: listed as disabled, not as untried."""
        return [n for n in self.elements if n not in self.enabled and n not in self.tried]


# Try order within a screen: controls (0), text fields (1), the app's tabs (after the screen's
# own controls: they leave it), gestures and keys (2), Back (3), arrow keys (they move a
# cursor far more often than they open anything), the back gesture (it leaves, and teaches the
# way back), risky controls and a terminal app's footer keys (app-wide: quit, the palette),
# and rows of a list past its first few.
TAB_RANK = 1.5
MOVE_RANK = 2
ARROW_RANK = 5
BACK_MOVE_RANK = 5.5
RISKY_RANK = 6
# Rows of one list beyond the first ROWS_FIRST are alike: tried after everything else.
ROWS_FIRST = 3
LATER_ROWS_RANK = 7


def _list_of(element: Element) -> str:
    """Which list a row belongs to: its id's stem (``product_mug`` → ``product``), a table
    cell's column, else one list per screen."""
    column = next((t for t in element.traits if t.startswith("column:")), None)
    return column or (stable_id(element) or "").rpartition("_")[0] or "AXCell"


def _rank(element: Element) -> float:
    """An element's place in the try order (the ranks above)."""
    if _risky(element) or is_footer_key(element):
        return RISKY_RANK
    if _is_back(element):
        return 3
    return 1 if is_text_field(element) else 0


@define
class _Pending:
    """The last decision, until the next context says it was performed and what it did."""

    step: int
    screen: str
    element: str | None
    stage: Stage
    expect: str | None = None


class ExplorerAgent:
    """Depth-first exploration of every reachable screen; ``coverage()`` says what it found.

    ``wander`` bounds the steps spent walking to screens with untried elements between two new
    tries (None: twice the screens known, plus two).
    """

    name = "explorer"

    def __init__(self, *, wander: int | None = None) -> None:
        self.wander = wander
        self._screens: dict[str, _Screen] = {}
        self._edges: dict[str, dict[str, str]] = {}  # source -> element -> target
        # The app's chrome (tab bar, footer keys): tried once in the app, walked from anywhere.
        self._chrome: dict[str, str | None] = {}  # ref -> the screen it led to last
        self._keyed: set[str] = set()  # footer keys tried somewhere
        self._plan: list[tuple[_Pending | None, Decision]] = []  # filling a form to walk on
        self._plan_screen: str | None = None
        # Two rounds: every control of every screen first (breadth early), then the gestures
        # and keys, walking back to each screen for them.
        self._gestures = False
        self._credentials: Credentials | None = None
        self._walks: dict[tuple[str, str], int] = {}  # (source, element) -> walks through it
        self._transitions: list[ScreenTransition] = []
        self._pending: _Pending | None = None
        self._field: _Pending | None = None  # a text field between tap and return
        self._wandered = 0
        self._backed: set[str] = set()  # screens gone back from blindly since the last new try
        self._finished = False
        self._summary = ""
        self._step = 0

    # --- the Agent protocol ------------------------------------------------------------------

    async def decide(self, context: AgentContext) -> Decision:
        found = context.interruption
        if found is not None and found.kind == "alert":
            # Only the dialog can be reached while it is up: it is the screen to explore.
            context = evolve(
                context, observation=evolve(context.observation, elements=found.evidence)
            )
        observation = context.observation
        key = screen_id(observation)
        met = self._learn(context, key)
        screen = self._screens.get(key)
        platform = context.device.platform if context.device is not None else None
        self._credentials = context.scenario.credentials
        chrome = app_chrome(observation)
        if screen is None:
            screen = _Screen(key, screen_name(observation), context.step)
            self._screens[key] = screen
            screen.update(observation, context.scenario.credentials, platform, chrome)
            self._share_chrome(screen, chrome)
            self._alike(screen)
        else:
            screen.update(observation, context.scenario.credentials, platform, chrome)
            self._share_chrome(screen, chrome)
        self._step = context.step
        decision = self._next(context, screen)
        return decision if met is None else evolve(decision, previous_outcome_met=met)

    # --- learning from the screen the last action led to -------------------------------------

    def _learn(self, context: AgentContext, key: str) -> bool | None:
        """Fold the last decision's outcome into the map; the verdict on its expectation."""
        pending, self._pending = self._pending, None
        if pending is None or context.step <= pending.step:
            return None  # not performed: the engine recovered first and asks again
        verification = context.last_verification
        dropped = verification is not None and verification.input_dropped
        source = self._screens[pending.screen]
        tried = pending.stage in ("tap", "gesture") and pending.element not in source.tried
        if tried:
            source.tried.append(pending.element)
        stays = key == pending.screen
        if pending.stage == "navigate" and (dropped or stays):
            # it led somewhere once, no longer (a list emptied, a stack popped): forget it
            self._edges.get(pending.screen, {}).pop(pending.element or "", None)
            if pending.element in self._chrome:
                self._chrome[pending.element] = None
        if dropped:
            walked = pending.stage == "navigate"
            if (
                not walked
                and pending.element is not None
                and pending.element not in source.no_effect
            ):
                source.no_effect.append(pending.element)
            self._field = None
            return False if pending.expect is not None else None
        element = source.elements.get(pending.element or "")
        if pending.stage in ("tap", "type") and stays and element and is_text_field(element):
            self._field = pending  # tapped or typed into: the next stage follows
            return None
        self._field = None
        if pending.element is not None:
            self._note(pending.screen, pending.element, key, pending.step)
        if pending.stage == "return":
            self._filled(source)
        return None if pending.expect is None else key == pending.expect

    def _filled(self, screen: _Screen) -> None:
        """Once every field of a form holds a value, the controls tried on it while it was
        empty and that stayed on it (a submit the validation refused) get one more try:
        the values are something new to learn from. Never a risky one."""
        fields = [n for n, e in screen.elements.items() if is_text_field(e)]
        if screen.refilled or any(n not in screen.tried for n in fields):
            return
        screen.refilled = True
        away = self._edges.get(screen.key, {})
        screen.retry = [
            name
            for name in screen.tried
            if name in screen.elements
            and name not in away
            and name not in fields
            and not _risky(screen.elements[name])
            and not _is_back(screen.elements[name])
            and name not in self._chrome
        ]

    def _share_chrome(self, screen: _Screen, chrome: tuple[str, ...]) -> None:
        """The app's chrome is tried on a screen that shows it until it is known to lead
        somewhere (a tab does nothing on its own screen), then not again: on the other
        screens it is neither listed nor tried, only walked through."""
        screen.chrome = chrome
        for name in chrome:
            listed = name in screen.order and name not in screen.tried
            key = is_footer_key(screen.elements[name])
            # a tab does nothing on its own screen: tried until it led somewhere; a key once
            if listed and (self._chrome.get(name) is not None or (key and name in self._keyed)):
                screen.order.remove(name)
            self._chrome.setdefault(name, None)
            if key and name in screen.tried:
                self._keyed.add(name)

    def _alike(self, screen: _Screen) -> None:
        """A screen with the controls of one found before (a product page for another product,
        a detail page of another row) is that screen again for another item: what was tried
        there is skipped here but its Back (the way out). Its own coverage says so."""
        shape = screen.shape()
        if shape:
            others = (s for s in self._screens.values() if s is not screen)
            screen.alike = next((s.key for s in others if s.shape() == shape), None)

    def _skip_alike(self) -> None:
        """Skip on each screen alike what its first has tried by now and did nothing there or
        stayed (what led elsewhere may lead to this item's own screen: tried again)."""
        for screen in self._screens.values():
            if screen.alike is None:
                continue
            first = self._screens[screen.alike]
            away = self._edges.get(first.key, {})
            for name in first.tried:
                if name in away:
                    continue
                if name in screen.order and name not in screen.tried:
                    screen.order.remove(name)
                    screen.skipped.append(name)

    def _out(self, node: str) -> dict[str, str]:
        """The known edges out of a screen: its own, and its chrome's."""
        edges = dict(self._edges.get(node, {}))
        for name in self._screens[node].chrome:
            target = self._chrome.get(name)
            if target is not None and target != node:
                edges.setdefault(name, target)
        return edges

    def _note(self, source: str, element: str, target: str, step: int) -> None:
        if not any(
            t.source == source and t.element == element and t.target == target
            for t in self._transitions
        ):
            self._transitions.append(ScreenTransition(source, element, target, step))
        if element in self._chrome:
            self._chrome[element] = target if target != source else self._chrome[element]
        screen = self._screens[source]
        back = screen.elements.get(element)
        if back is not None and _is_back(back) and target != source:
            # its Back button showed the way back: the back gesture would teach nothing new
            screen.order = [n for n in screen.order if n not in BACK_MOVES or n in screen.tried]
        edges = self._edges.setdefault(source, {})
        if target == source:
            edges.pop(element, None)
        else:
            edges[element] = target  # the latest outcome wins: back buttons follow history

    # --- choosing the next action -------------------------------------------------------------

    def _next(self, context: AgentContext, screen: _Screen) -> Decision:
        observation = context.observation
        self._skip_alike()
        if self._plan and self._plan_screen != screen.key:
            self._plan = []  # the form is gone: walk again from here
        if self._plan:
            pending, decision = self._plan.pop(0)
            if pending is not None:
                self._pending = evolve(pending, step=context.step)
            return decision
        if self._field is not None and self._field.screen == screen.key:
            decision = self._continue_field(context, screen)
            if decision is not None:
                return decision
        self._field = None
        while screen.retry:
            name = screen.retry.pop(0)
            element = target_element(observation, target_of(screen.elements[name]))
            if element is not None and element.enabled:
                self._wandered, self._backed = 0, set()
                decision = self._try(context, screen, name, element)
                return evolve(
                    decision,
                    reasoning=f"The form on {screen.name!r} is filled: trying {name} again.",
                )
        for name in screen.untried():
            if name in screen.moves:
                if not self._gestures and name not in BACK_MOVES:
                    continue  # the second round (the back gesture teaches the way back: first)
                self._wandered, self._backed = 0, set()
                return self._try_move(context, screen, name)
            element = target_element(observation, target_of(screen.elements[name]))
            if element is not None and element.enabled:
                self._wandered, self._backed = 0, set()
                return self._try(context, screen, name, element)
        waiting = [s for s in self._screens.values() if s.pending(self._gestures)]
        if not waiting and not self._gestures:
            self._gestures = True  # every control tried: now the gestures and keys
            return self._next(context, screen)
        if not waiting:
            return self._done(f"every reachable element was tried or skipped. {self._counts()}")
        budget = self.wander if self.wander is not None else 2 * len(self._screens) + 2
        if self._wandered >= budget:
            return self._done(
                f"gave up walking back to {_names(waiting)} after {self._wandered} steps. "
                + self._counts()
            )
        self._wandered += 1
        goals = {s.key for s in waiting}
        hop = self._route(screen, observation, goals)
        if hop is not None:
            return self._navigate(screen, observation, hop)
        if not set(screen.no_effect) & {BACK_GESTURE, ESCAPE}:  # while it works: a stack
            self._backed.add(screen.key)  # may be deep (bounded by ``wander``)
            return self._go_back(context, screen)
        return self._done(f"no known way to {_names(waiting)}. {self._counts()}")

    def _try(self, context: AgentContext, screen: _Screen, name: str, element: Element) -> Decision:
        """Try ``name`` (its own entry is marked tried, even when another element on the
        screen answers to the same label, as a footer key "Back" does to a Back button)."""
        left = len(screen.untried())
        where = (
            f"Screen {screen.name!r} ({len(self._screens)} found so far): {left} of "
            f"{len(screen.order)} elements untried"
        )
        if is_text_field(element):
            self._pending = _Pending(context.step, screen.key, name, "tap")
            return Decision(
                Tap(target=target_of(element)),
                f"{where}; text field {name} next: tap it, type a value, press return.",
                element.label,
                "the field takes focus and the keyboard comes up",
            )
        self._pending = _Pending(context.step, screen.key, name, "tap")
        kind = element.type.casefold() or "element"
        return Decision(
            Tap(target=target_of(element)),
            f"{where}; trying {kind} {name} to see where it leads.",
            element.label,
            f"tapping {name} opens another screen or changes this one",
        )

    def _try_move(self, context: AgentContext, screen: _Screen, name: str) -> Decision:
        """Try a gesture or a key of the screen: its effect is learnt like a tap's."""
        left = len(screen.untried())
        self._pending = _Pending(context.step, screen.key, name, "gesture")
        move = screen.moves[name]
        what = "pressing" if isinstance(move, PressKey) else "trying"
        return Decision(
            move,
            f"Screen {screen.name!r} ({len(self._screens)} found so far): {left} of "
            f"{len(screen.order)} elements and gestures untried; {what} {name[1:-1]} to see "
            "what it does.",
            None,
            f"{name[1:-1]} opens another screen or changes this one",
        )

    def _continue_field(self, context: AgentContext, screen: _Screen) -> Decision | None:
        """Type into the field just tapped, then press return; None when it took no focus."""
        field_ = self._field
        element = screen.elements[field_.element]
        observation = context.observation
        focus = keyboard_frame(observation) is not None or observation.focused is not None
        if not focus:
            return None
        if field_.stage == "tap":
            text = sample_text(element, context.scenario.credentials)
            password = context.scenario.credentials and context.scenario.credentials.password
            what = "a secure value" if text.secure else repr(text.text)
            what = "the test password" if text.secure and text.text == password else what
            self._pending = _Pending(context.step, screen.key, field_.element, "type")
            return Decision(
                text,
                f"Typing {what} into {field_.element} on {screen.name!r}.",
                element.label,
                f"{field_.element} holds the typed value",
            )
        self._pending = _Pending(context.step, screen.key, field_.element, "return")
        return Decision(
            PressKey("return"),
            f"Pressing return in {field_.element} on {screen.name!r}: it may submit the form.",
            element.label,
            "the keyboard goes away; a form may be submitted",
        )

    def _route(
        self, screen: _Screen, observation: Observation | None, goals: set[str]
    ) -> str | None:
        """The first element on the shortest known path to a screen in ``goals`` (from the
        screen as last seen when there is no ``observation`` of it now)."""
        first: dict[str, str] = {}
        queue = deque()
        for element, target in self._out(screen.key).items():
            here = (
                screen.available(element)
                if observation is None
                else _present(observation, screen, element)
            )
            usable = self._walkable(screen.key, element) and (
                element in (BACK_GESTURE, ESCAPE) or element in screen.moves or here
            )
            if usable and target not in first:
                first[target] = element
                queue.append(target)
        while queue:
            node = queue.popleft()
            if node in goals:
                return first[node]
            for element, target in self._out(node).items():
                if target not in first and target != screen.key and self._walkable(node, element):
                    first[target] = first[node]
                    queue.append(target)
        return None

    def _walkable(self, source: str, element_ref: str) -> bool:
        """Whether walking may go through this element: never through one that destroys or
        commits something (it is tried once, not repeated to get somewhere), and at most
        ``WALK_BUDGET`` times through any one (a loop through it learns nothing new)."""
        element = self._screens[source].elements.get(element_ref)
        if element is not None and _commits(element):
            return False
        if element_ref in (BACK_GESTURE, ESCAPE) or (element is not None and _is_back(element)):
            return True  # going back changes nothing: bounded by ``wander`` alone
        return self._walks.get((source, element_ref), 0) < WALK_BUDGET

    def _navigate(self, screen: _Screen, observation: Observation, element_ref: str) -> Decision:
        target = self._out(screen.key)[element_ref]
        name = self._screens[target].name
        self._pending = _Pending(self._step, screen.key, element_ref, "navigate", target)
        self._walks[(screen.key, element_ref)] = self._walks.get((screen.key, element_ref), 0) + 1
        why = (
            f"Nothing left to try on {screen.name!r}; walking back towards screens with "
            f"untried elements: {element_ref} led to {name!r} before."
        )
        if element_ref in (BACK_GESTURE, ESCAPE):
            return Decision(
                self._gesture(observation, element_ref), why, None, f"the {name} screen"
            )
        if element_ref in screen.moves:
            return Decision(screen.moves[element_ref], why, None, f"the {name} screen")
        element = screen.elements[element_ref]
        # A quoted name is checked on screen by the engine's verification: only real titles.
        expected = f'"{name}" appears' if name != target else f"screen {target} appears"
        if is_text_field(element):  # a form's return led there: fill the form again
            self._pending = None
            self._plan = self._fill(screen, element_ref, target, expected)
            self._plan_screen = screen.key
            return self._plan.pop(0)[1]
        return Decision(Tap(target=target_of(element)), why, element.label, expected)

    def _fill(
        self, screen: _Screen, last: str, target: str, expected: str
    ) -> list[tuple[_Pending, Decision]]:
        """Tap and type into every field of the screen, ``last`` last, then press return in
        it: the way a form's return led to ``target`` before."""
        fields = [n for n, e in screen.elements.items() if is_text_field(e) and n != last]
        plan = []
        for name in [*fields, last]:
            element = screen.elements[name]
            text = sample_text(element, self._credentials)
            why = f"Walking back through the form on {screen.name!r}: filling {name}."
            plan.append((None, Decision(Tap(target=target_of(element)), why, element.label)))
            plan.append((None, Decision(text, why, element.label)))
        step = _Pending(self._step, screen.key, last, "navigate", target)
        plan.append(
            (
                step,
                Decision(
                    PressKey("return"),
                    f"Submitting the form on {screen.name!r}.",
                    screen.elements[last].label,
                    expected,
                ),
            )
        )
        return plan

    def _go_back(self, context: AgentContext, screen: _Screen) -> Decision:
        textual = context.device is not None and context.device.platform == "textual"
        gesture = ESCAPE if textual else BACK_GESTURE
        self._pending = _Pending(context.step, screen.key, gesture, "back")
        return Decision(
            self._gesture(context.observation, gesture),
            f"Nothing left to try on {screen.name!r} and no known way on: going back "
            f"({'escape' if textual else 'a swipe from the left edge'}).",
            None,
            "the previous screen",
        )

    @staticmethod
    def _gesture(observation: Observation, gesture: str) -> PressKey | Swipe:
        if gesture == ESCAPE:
            return PressKey("escape")
        width, height = screen_size(observation)
        return Swipe(Point(2, height / 2), Point(width * 0.8, height / 2))

    def _done(self, why: str) -> Decision:
        self._finished = True
        self._summary = f"Exploration finished: {why}"
        return Decision(
            Done(success=True, summary=self._summary),
            self._summary,
            expected_outcome="the run ends with the coverage written",
        )

    def _counts(self) -> str:
        coverage = self.coverage()
        skipped = coverage.elements_skipped
        return (
            f"{len(coverage.screens)} screens, {coverage.elements_tried} of "
            f"{coverage.elements_total} elements tried"
            + (
                f" ({skipped} skipped: they quit the app, sign out or were tried on a screen alike)"
                if skipped
                else ""
            )
            + f", {sum(t.source != t.target for t in coverage.transitions)} transitions."
        )

    # --- what was covered ---------------------------------------------------------------------

    def coverage(self) -> Coverage:
        """The screens, elements and transitions found so far (the run may still be going)."""
        screens = tuple(
            ScreenCoverage(
                key=s.key,
                name=s.name,
                elements=tuple(s.order) + tuple(s.skipped),
                tried=tuple(s.tried),
                no_effect=tuple(s.no_effect),
                skipped=tuple(s.skipped),
                disabled=tuple(s.disabled()),
                alike=s.alike,
                first_step=s.first_step,
            )
            for s in self._screens.values()
        )
        leaving = {t.source for t in self._transitions if t.source != t.target}
        dead_ends = tuple(
            s.key
            for s in self._screens.values()
            if s.key not in leaving and (not s.pending() or set(s.no_effect) & set(BACK_MOVES))
        )
        return Coverage(
            screens=screens,
            transitions=tuple(self._transitions),
            dead_ends=dead_ends,
            steps=self._step - 1 if self._finished else self._step,  # done acts on nothing
            finished=self._finished,
            summary=self._summary or f"Exploration stopped at step {self._step}.",
        )


def _present(observation: Observation, screen: _Screen, name: str) -> bool:
    element = screen.elements.get(name)
    if element is None:
        return False
    found = target_element(observation, target_of(element))
    return found is not None and found.enabled


def _names(screens: list[_Screen]) -> str:
    return ", ".join(repr(s.name) for s in screens)
