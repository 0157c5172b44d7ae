"""What the explorer knows of one screen: its controls, gestures and keys in the order it
tries them, which it tried, which did nothing, which it skipped, and which were disabled."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import define, field

from orav.agents.explore.controls import (
    ARROW_RANK,
    BACK_MOVE_RANK,
    BACK_RANK,
    FORM_FIELD_RANK,
    LISTED_RANK,
    MOVE_RANK,
    RISKY_RANK,
    ROWS_FIRST,
    SUBMIT_RANK,
    TAB_RANK,
    is_back,
    is_palette,
    is_switch,
    list_of,
    may_do,
    pin_keys,
    quits,
    rank,
    ref,
    signs_out,
    submits,
)
from orav.agents.explore.moves import (
    ARROWS,
    BACK_MOVES,
    Move,
    listed_moves,
    never_pressed,
    quit_keys,
    screen_moves,
)
from orav.model import Credentials, Element, Observation, PressKey
from orav.perceive.deeds import Verdict, by_words, control_deed, key_deed
from orav.perceive.faults import screen_size
from orav.perceive.identity import stable_id
from orav.perceive.legend import Listed
from orav.perceive.roles import is_alert, is_text_field
from orav.perceive.screens import app_elements, is_control, is_footer_key

NAV_BAR_SHARE = 0.12  # the status and navigation bars: the top of an iPhone screen
LIST_BOTTOM = 0.85  # a row that ends below this share of the height may hide more rows
SCROLL = "(swipe up)"


def _runs_on(observation: Observation, height: float) -> bool:
    """A list ends near the bottom of the screen (the app's frame says where that is, not the
    list itself): more rows may follow below."""
    low = any(
        e.role == "AXCell" and e.frame.y + e.frame.height > height * LIST_BOTTOM
        for e in app_elements(observation)
    )
    return low and height <= max(
        (e.frame.y + e.frame.height for e in observation.elements if e.role != "AXCell"),
        default=0.0,
    )


def _titled_back(element: Element, titles: frozenset[str], height: float) -> bool:
    """A button at the top left that bears the title of a screen seen before."""
    frame = element.frame
    return (
        element.role == "AXButton"
        and bool(element.label)
        and element.label in titles
        and frame.y < height * NAV_BAR_SHARE
        and frame.x < 60
    )


def _move_place(name: str, move: Move, deed: Verdict | None) -> float:
    """Where a gesture or key goes in the order: a back move before the deeds, a deed
    last, the arrow keys after the other moves."""
    if name in BACK_MOVES:
        return BACK_MOVE_RANK
    if deed is not None:
        return RISKY_RANK
    arrow = isinstance(move, PressKey) and move.key in ARROWS
    return ARROW_RANK if arrow else MOVE_RANK


def _form_fields(
    observation: Observation,
    chrome: tuple[str, ...],
    titles: frozenset[str],
    height: float,
    deeds: Mapping[str, Verdict],
) -> list[str]:
    """The text fields of a form, in the tree's order: a screen whose fields are at least as
    many as its other controls (Back, the chrome, switches and deeds aside), as a sign-in or
    a checkout; none elsewhere (a search field over a list)."""
    controls = [e for e in app_elements(observation) if is_control(e)]
    fields = [ref(e) for e in controls if is_text_field(e)]
    others = [
        e
        for e in controls
        if not is_text_field(e)
        and ref(e) not in chrome
        and rank(e, deeds.get(ref(e))) == 0
        and not is_switch(e)
        and not _titled_back(e, titles, height)
    ]
    return fields if fields and len(fields) >= len(others) else []


@define
class ScreenNotes:
    """What the explorer knows of one screen."""

    key: str
    name: str
    first_step: int
    came_from: str | None = None  # the screen it was first reached from
    elements: dict[str, Element] = field(factory=dict)  # by ref, first-seen order
    moves: dict[str, Move] = field(factory=dict)  # gestures and keys, by name
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
    lists: dict[str, str] = field(factory=dict)  # each row's list
    later: set[str] = field(factory=set)  # rows past a list's first few
    deferred: set[str] = field(factory=set)  # later rows of a list of items: the second round
    backs: set[str] = field(factory=set)  # back buttons named after the screen they go to
    runs_on: bool = False  # a list reaches the bottom of the screen: there may be more below
    dialog: bool = False  # an alert, action sheet or modal
    pin_pad: frozenset[str] = frozenset()  # a PIN pad's digit keys: never tapped
    form: tuple[str, ...] = ()  # a form's fields, in order: filled first, then submitted
    form_deed: Verdict | None = None  # what its fields say its submit does (a path to save to)
    deeds: dict[str, Verdict] = field(factory=dict)  # its controls and keys that are deeds
    forbidden: set[str] = field(factory=set)  # skipped: a deed the explorer may not do
    disposable: bool = False  # the app's world is orav's own: destructive deeds allowed
    returns: list[str] = field(factory=list)  # a form's fields whose return waits its turn
    typed: set[str] = field(factory=set)  # fields typed into
    listed: dict[str, Listed] = field(factory=dict)  # keys an app's help lists for it, by move
    never: frozenset[str] = frozenset()  # keys no move presses here (quit keys...), last seen
    quit_keys: frozenset[str] = frozenset()  # keys whose binding ends the app, last seen

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
        titles: frozenset[str] = frozenset(),
        known: Mapping[tuple[str, str | None], Verdict] | None = None,
        disposable: bool = False,
    ) -> None:
        """Take in the current state of the screen's elements (enabled, value, frame) and the
        gestures and keys it offers. ``titles`` are the names of the screens seen before: a
        button at the navigation bar's leading edge that bears one is a Back button (UIKit
        labels it with the previous screen's title, not "Back"). Each new control or key is
        judged (``orav.perceive.deeds``, or ``known``: deeds learnt in the run by what they
        opened or did); one the explorer may not do (``may_do``) is skipped."""
        self.disposable = disposable
        self.never = never_pressed(observation) if platform == "textual" else frozenset()
        self.quit_keys = quit_keys(observation)
        _, height = screen_size(observation)
        self._judge_controls(observation, titles, height, known or {})
        if not self.elements:  # first sight: a form is filled first, then submitted
            self._first_sight(observation, chrome, titles, height)
        self.present = set()
        ranked = self._take_controls(observation, credentials, chrome, titles, height)
        self.runs_on = self.runs_on or _runs_on(observation, height)
        ranked += self._take_moves(observation, platform, known or {})
        self._reorder(ranked)

    def _judge_controls(
        self,
        observation: Observation,
        titles: frozenset[str],
        height: float,
        known: Mapping[tuple[str, str | None], Verdict],
    ) -> None:
        """Each control not judged yet: a deed learnt in the run (``known``), else what
        ``control_deed`` makes of it. One nothing names (a modal without a title: no target
        reaches it) or a Back button bearing the previous screen's title is not judged."""
        for element in app_elements(observation):
            if not (element.label or stable_id(element)):
                continue
            name = ref(element)
            if _titled_back(element, titles, height):
                continue  # it bears the previous screen's title ("Pay someone"), not a deed
            if is_control(element) and name not in self.deeds:
                deed = known.get((name, element.label)) or control_deed(element, observation)
                if deed is not None:
                    self.deeds[name] = deed

    def _first_sight(
        self,
        observation: Observation,
        chrome: tuple[str, ...],
        titles: frozenset[str],
        height: float,
    ) -> None:
        """What the screen is, seen once: its form's fields and what they say its submit does,
        whether it is a dialog, and a PIN pad's digit keys."""
        self.form = tuple(_form_fields(observation, chrome, titles, height, self.deeds))
        said = " ".join(
            f"{e.label or ''} {e.placeholder or ''}"
            for e in app_elements(observation)
            if is_control(e) and ref(e) in self.form
        )
        self.form_deed = by_words(said)
        self.dialog = any(is_alert(e) for e in observation.elements)
        self.pin_pad = pin_keys(app_elements(observation))

    def _take_controls(
        self,
        observation: Observation,
        credentials: Credentials | None,
        chrome: tuple[str, ...],
        titles: frozenset[str],
        height: float,
    ) -> list[tuple[float, int, str]]:
        """Take in the controls on screen (present, enabled, a list's rows); those to try,
        ranked by their place in the order (worked out only for what is not listed yet) and
        their place in the tree."""
        ranked = []
        rows: dict[str, int] = {}  # rows seen per list
        listed = set(self.order)
        for index, element in enumerate(app_elements(observation)):
            if not is_control(element):
                continue
            name = ref(element)
            titled = _titled_back(element, titles, height)
            place = 0.0
            if titled or name not in listed:
                place = self._place(element, name, chrome, titled)
            if element.role == "AXCell":
                self._note_row(element, name, rows)
            self.present.add(name)
            if element.enabled:
                self.enabled.add(name)
            if self._lists(element, name, chrome, credentials):
                ranked.append((place, index, name))
        return ranked

    def _place(self, element: Element, name: str, chrome: tuple[str, ...], titled: bool) -> float:
        """Where a control goes in the order: a tab of the app's chrome first, else by its
        rank; a Back button named after a screen seen before goes back last (and is noted as
        one), a form's submit after its fields."""
        tab = name in chrome and not is_footer_key(element)
        place = TAB_RANK if tab else rank(element, self.deed(name))
        if place < BACK_RANK and titled:
            self.backs.add(name)
            return BACK_RANK
        if self.form and self._submit(element):
            return SUBMIT_RANK
        if self.form and place < BACK_RANK and name in self.form:
            return FORM_FIELD_RANK
        return place

    def _note_row(self, element: Element, name: str, rows: dict[str, int]) -> None:
        """A list's row: which list it is in, and whether it is past the list's first few
        (deferred if the list turns out to be of items)."""
        group = list_of(element)
        self.lists[name] = group
        rows[group] = rows.get(group, 0) + 1
        if rows[group] > ROWS_FIRST:
            self.later.add(name)

    def _lists(
        self,
        element: Element,
        name: str,
        chrome: tuple[str, ...],
        credentials: Credentials | None,
    ) -> bool:
        """Whether a control is to be tried: not the tab this screen is on (a tap on it does
        nothing here, or pops to the tab's root as Back does: only walked through from
        elsewhere), not one skipped before, nor one skipped at first sight (``_skips``)."""
        if name in chrome and "selected" in element.traits and name not in self.tried:
            self.elements.setdefault(name, element)
            if name in self.order:
                self.order.remove(name)
            return False
        if name in self.elements and name not in self.order:
            return False  # skipped before
        first = name not in self.elements
        self.elements[name] = element
        if first and self._skips(element, name, credentials):
            self.skipped.append(name)
            return False
        return True

    def _skips(self, element: Element, name: str, credentials: Credentials | None) -> bool:
        """A control never tried: a sign-out the engine could not sign back in from (no
        credentials), one that ends the app or is not the app's (a palette), a deed the
        explorer may not do (not once: it is also forbidden), a PIN's digits (never guessed,
        never on disk)."""
        if signs_out(element) and credentials is None:
            return True
        if quits(element, self.quit_keys) or is_palette(element):
            return True
        if not may_do(self.deed(name), self.disposable):
            self.forbidden.add(name)
            return True
        return name in self.pin_pad

    def _take_moves(
        self,
        observation: Observation,
        platform: str | None,
        known: Mapping[tuple[str, str | None], Verdict],
    ) -> list[tuple[float, int, str]]:
        """Take in the gestures and keys the screen offers; the new ones, judged and ranked
        (a deed the explorer may not do is skipped and forbidden)."""
        ranked = []
        moves = screen_moves(observation, platform, self.disposable)
        for index, (name, move) in enumerate(moves.items()):
            self.present.add(name)
            if name in self.moves:
                continue
            self.moves[name] = move
            deed = self._judge_move(observation, name, move, known)
            if deed is not None and not may_do(deed, self.disposable):
                self.skipped.append(name)
                self.forbidden.add(name)
                continue
            ranked.append((_move_place(name, move, deed), index, name))
        return ranked

    def take_listed(
        self, listed: Iterable[Listed], known: Mapping[tuple[str, str | None], Verdict]
    ) -> None:
        """Take in the keys an app's help lists for this screen (``orav.perceive.legend``):
        each new one a move tried with its controls, in the first round (they are the app's
        commands), judged by what the help says it does; never a key that ends the app."""
        ranked = []
        for index, (name, pair) in enumerate(listed_moves(listed, self.never).items()):
            if name in self.moves:
                continue
            self.moves[name] = PressKey(pair.key)
            self.listed[name] = pair
            said = by_words(pair.description)
            deed = known.get((name, None)) or (
                Verdict(said.kind, f"listed {pair.description!r} ({said.why})") if said else None
            )
            if deed is not None:
                self.deeds[name] = deed
                if not may_do(deed, self.disposable):
                    self.skipped.append(name)
                    self.forbidden.add(name)
                    continue
            ranked.append((RISKY_RANK if deed else LISTED_RANK, index, name))
        self._reorder(ranked)

    def _judge_move(
        self,
        observation: Observation,
        name: str,
        move: Move,
        known: Mapping[tuple[str, str | None], Verdict],
    ) -> Verdict | None:
        """A new gesture or key's deed: learnt in the run (``known``), else what a key says
        it does (``key_deed``); noted among the screen's deeds."""
        deed = known.get((name, None))
        if isinstance(move, PressKey) and isinstance(move.key, str):
            deed = deed or key_deed(move.key, observation)
        if deed is not None:
            self.deeds[name] = deed
        return deed

    def _reorder(self, ranked: list[tuple[float, int, str]]) -> None:
        """The order the screen's controls and moves are tried in: on first sight by rank;
        after that, what the last action revealed (a row's actions, a scrolled list) comes
        next, but what destroys or undoes stays last (an Edit mode's minus and its Delete, a
        row's Delete swipe action: most apps delete there without asking)."""
        listed = set(self.order)
        new = [(place, name) for place, _, name in sorted(ranked) if name not in listed]
        if not listed:
            self.order = [name for _, name in new]
            return
        done = [name for name in self.order if name in self.tried]
        later = [n for n in self.order if n not in self.tried]
        soon = [name for place, name in new if place < RISKY_RANK]
        last = [name for place, name in new if place >= RISKY_RANK]
        self.order = done + soon + later + last

    def _submit(self, element: Element) -> bool:
        """The submit button of this screen's form: its single way on, tried in the first round
        once its fields are filled, though it is a deed the explorer may do (a profile's
        "Save" in a disposable world), but not one it may not, nor a terminal's footer key."""
        return (
            bool(self.form)
            and submits(element)
            and may_do(self.deed(ref(element)), self.disposable)
            and not is_footer_key(element)
            and not is_text_field(element)
        )

    def returns_submit(self) -> bool:
        """Whether a return in this form's fields may submit it: not when the form's fields
        or its submit button name a deed the explorer may not do (a return submits as the
        button does: posting creates a request on return too)."""
        return may_do(self.form_deed, self.disposable) and all(
            may_do(self.deed(name), self.disposable)
            for name, element in self.elements.items()
            if submits(element) and not is_text_field(element)
        )

    def deed(self, name: str) -> Verdict | None:
        """What this control or key does that is a deed, by what it is, what it opened or
        what it did; a form's submit does what the form's fields say."""
        found = self.deeds.get(name)
        if found is not None or self.form_deed is None:
            return found
        element = self.elements.get(name)
        submit = element is not None and submits(element) and not is_text_field(element)
        return self.form_deed if submit else None

    def learn(self, name: str, deed: Verdict, disposable: bool) -> None:
        """A control or key is a deed, learnt since it was listed (what it opened, what it
        did): skipped where still untried when the explorer may not do it."""
        self.deeds.setdefault(name, deed)
        if name in self.order and name not in self.tried and not may_do(deed, disposable):
            self.order.remove(name)
            self.skipped.append(name)
            self.forbidden.add(name)

    def goes_back(self, name: str) -> bool:
        """A Back button: by its words, or named after the screen it goes back to."""
        element = self.elements.get(name)
        return name in self.backs or (element is not None and is_back(element))

    def waits(self, name: str) -> bool:
        """Tried in the second round only: the later rows of a list of items, switches (they
        change a setting in place; the first round goes for what opens screens), and the
        deeds it may do (a delete, a reset, a sign-out: the app is explored first as it was
        found, and what a delete would remove is still there to explore), a row that is one
        aside (it most often opens a page)."""
        element = self.elements.get(name)
        deed = self.deed(name) is not None and element is not None and not self._submit(element)
        return name in self.deferred or (
            element is not None and (is_switch(element) or (deed and element.role != "AXCell"))
        )

    def untried(self) -> list[str]:
        return [name for name in self.order if name not in self.tried]

    def available(self, name: str, gestures: bool = True) -> bool:
        """On screen and enabled the last time the screen was seen; a gesture always is, in
        the second round (the back gesture in the first, and a swipe up where a list runs off
        the screen), as are switches and the rows past the first few of a list of items."""
        if name in self.moves:
            if name == SCROLL and self.runs_on:
                return True  # the rest of a long list: with the first round's controls
            return gestures or name in BACK_MOVES or name in self.listed
        if not gestures and self.waits(name):
            return False
        return name in self.present and self.elements[name].enabled

    def scrolled_away(self, name: str) -> bool:
        """A row of a list that runs off the screen, seen enabled before: a walk through it
        scrolls it back into view first (``scroll_to``)."""
        element = self.elements.get(name)
        return (
            self.runs_on
            and name in self.enabled
            and element is not None
            and element.role == "AXCell"
        )

    def scroll_to(self, name: str) -> str:
        """The swipe that brings a row scrolled away back: towards the top when it was first
        seen before the rows on screen now (a list is first seen from its top), else down the
        list."""
        seen = list(self.elements)
        shown = [seen.index(n) for n in self.present if n in self.elements]
        above = bool(shown) and seen.index(name) < min(shown)
        return "(swipe down)" if above else SCROLL

    def pending(self, gestures: bool = True) -> bool:
        """Untried elements that were there and enabled when last seen: worth coming back for."""
        return any(self.available(name, gestures) for name in self.untried())

    def disabled(self) -> list[str]:
        """Elements never seen enabled and never tried: listed as disabled, not as untried."""
        return [n for n in self.elements if n not in self.enabled and n not in self.tried]
