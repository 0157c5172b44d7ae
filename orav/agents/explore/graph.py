"""The explorer's map of the app: the screens it has seen, the transitions it observed (what
it did on screen A and the screen that followed), the app's chrome and where each part of it
led, and the shortest known walk to a screen that still has something untried."""

from __future__ import annotations

from collections import deque

from orav.agents.explore.moves import BACK_GESTURE, BACK_MOVES, ESCAPE
from orav.agents.explore.screens import ScreenNotes
from orav.model import Observation
from orav.model.coverage import Coverage, ScreenCoverage, ScreenTransition
from orav.perceive import same_element
from orav.perceive.deeds import Verdict
from orav.perceive.roles import is_text_field
from orav.perceive.screens import is_footer_key

# How often one control may be walked through to reach other screens: walking learns nothing
# new, so a loop through one control is cut off.
WALK_BUDGET = 10


class ScreenMap:
    """Screens by key, the edges between them, and the app's chrome."""

    def __init__(self) -> None:
        self.screens: dict[str, ScreenNotes] = {}
        self.edges: dict[str, dict[str, str]] = {}  # source -> element -> target
        # The app's chrome (tab bar, footer keys): tried once in the app, walked from anywhere.
        self.chrome: dict[str, str | None] = {}  # ref -> the screen it led to last
        self.keyed: set[str] = set()  # footer keys tried somewhere
        self.tab_screens: set[str] = set()  # screens a tab of the chrome led to
        self.walks: dict[tuple[str, str], int] = {}  # (source, element) -> walks through it
        self.transitions: list[ScreenTransition] = []
        # Deeds learnt in the run, by the control's identity (its ref and label: UIKit's
        # "BackButton" bears another title on every screen): what opened a confirmation,
        # what changed the app's world. Every screen that lists one knows it.
        self.known: dict[tuple[str, str | None], Verdict] = {}
        # (screen, control) that opened a confirmation: walking through only asks again.
        self.asks: set[tuple[str, str]] = set()
        # What changed since the last step, so that a step looks again at those screens only:
        # the screens learnt about (None: all of them, after a new screen), and the chrome.
        self.touched: set[str] | None = None
        self.chrome_news = True

    def touch(self, key: str) -> None:
        """Something was learnt about this screen (a try, an edge, rows come into view)."""
        if self.touched is not None:
            self.touched.add(key)

    def forget(self, source: str, element: str) -> None:
        """It led somewhere once, no longer (a list emptied, a stack popped)."""
        self.edges.get(source, {}).pop(element, None)
        if element in self.chrome:
            self.chrome[element] = None

    def filled(self, screen: ScreenNotes) -> None:
        """Once every field of a form holds a value, the controls tried on it while it was
        empty and that stayed on it (a submit the validation refused) get one more try:
        the values are something new to learn from. Never a deed."""
        fields = [n for n, e in screen.elements.items() if is_text_field(e)]
        if screen.form or screen.refilled or any(n not in screen.tried for n in fields):
            return  # a form's submit is tried filled in the first place
        screen.refilled = True
        away = self.edges.get(screen.key, {})
        screen.retry = [
            name
            for name in screen.tried
            if name in screen.elements
            and name not in away
            and name not in fields
            and screen.deed(name) is None  # a deed is done once
            and screen.elements[name].role != "AXSwitch"  # a toggle submits nothing
            and not screen.goes_back(name)
            and name not in self.chrome
        ]

    def share_chrome(self, screen: ScreenNotes, chrome: tuple[str, ...]) -> None:
        """The app's chrome is tried on a screen that shows it until it is known to lead
        somewhere (a tab does nothing on its own screen), then not again: on the other
        screens it is neither listed nor tried, only walked through."""
        screen.chrome = chrome
        for name in chrome:
            listed = name in screen.order and name not in screen.tried
            key = is_footer_key(screen.elements[name])
            # a tab does nothing on its own screen: tried until it led somewhere; a key once
            if listed and (self.chrome.get(name) is not None or (key and name in self.keyed)):
                screen.order.remove(name)
            self.chrome.setdefault(name, None)
            if key and name in screen.tried and name not in self.keyed:
                self.keyed.add(name)
                self.chrome_news = True

    def unlist_known_chrome(self) -> None:
        """A tab that led somewhere (a footer key tried once) is no longer listed on any
        screen, not only on the one in front: the screens left before it was known have
        nothing left to wait for because of it. Only when the chrome taught something new."""
        if not self.chrome_news:
            return
        self.chrome_news = False
        for screen in self.screens.values():
            for name in screen.chrome:
                element = screen.elements.get(name)
                footer = element is not None and is_footer_key(element)
                known = self.chrome.get(name) is not None or (footer and name in self.keyed)
                if known and name in screen.order and name not in screen.tried:
                    screen.order.remove(name)

    def alike(self, screen: ScreenNotes) -> None:
        """A screen with the controls of one found before (a product page for another product,
        a detail page of another row) is that screen again for another item: what was tried
        there is skipped here but its Back (the way out). Its own coverage says so. Screens
        whose only controls go back are alike only when reached from one screen (the rows of
        one list): pages of text reached from anywhere else have nothing else in common."""
        self.touched = None  # a new screen: every screen is looked at again
        shape = screen.shape()
        bare = all(screen.goes_back(name) for name in shape)
        if shape:
            others = (
                s
                for s in self.screens.values()
                if s is not screen and (not bare or s.came_from == screen.came_from)
            )
            screen.alike = next((s.key for s in others if s.shape() == shape), None)

    def skip_alike(self) -> None:
        """Skip on each screen alike what its first has tried by now and did nothing there,
        stayed, or led where a tab of the chrome leads (what led elsewhere may lead to this
        item's own screen: tried again, and Back is the way out), or led to one screen from
        the first and from another screen alike (every item's call, attachments or settings
        screen is that one screen: a third item's would be too). Only the screens learnt about
        since the last step, and the screens alike them."""
        touched = set(self.screens) if self.touched is None else self.touched
        self.touched = set()
        for key in touched:
            self._defer_items(self.screens[key])
        for first_key, family in self._kin().items():
            if ({first_key} | {s.key for s in family}) & touched:
                self._skip_tried_by_first(self.screens[first_key], family)

    def _kin(self) -> dict[str, list[ScreenNotes]]:
        """The screens alike each first one, by the first's key."""
        kin: dict[str, list[ScreenNotes]] = {}
        for screen in self.screens.values():
            if screen.alike is not None:
                kin.setdefault(screen.alike, []).append(screen)
        return kin

    def _skip_tried_by_first(self, first: ScreenNotes, family: list[ScreenNotes]) -> None:
        """Skip on each screen of ``family`` what ``first`` tried, unless it may lead to the
        screen's own item (``_may_lead_own``)."""
        for screen in family:
            for name in first.tried:
                if self._may_lead_own(first, family, screen, name):
                    continue
                if name in screen.order and name not in screen.tried:
                    screen.order.remove(name)
                    screen.skipped.append(name)

    def _may_lead_own(
        self, first: ScreenNotes, family: list[ScreenNotes], screen: ScreenNotes, name: str
    ) -> bool:
        """Whether ``name``, tried on ``first``, may lead to ``screen``'s own item: it led
        elsewhere than where a tab leads, and it is Back (the way out), or it did not lead
        to one screen from another screen alike too."""
        away = self.edges.get(first.key, {})
        if name not in away or (away[name] in self.tab_screens and not first.goes_back(name)):
            return False
        if first.goes_back(name):
            return True
        return not any(
            self.edges.get(other.key, {}).get(name) == away[name]
            for other in family
            if other is not screen
        )

    def learn(self, name: str, label: str | None, deed: Verdict, disposable: bool) -> None:
        """``name`` with ``label`` (None: a gesture or key) is a deed, learnt by what it
        opened or did: every screen that lists it knows it (and skips it where the explorer
        may not do it), and so will screens found later."""
        self.known.setdefault((name, label), deed)
        for screen in self.screens.values():
            element = screen.elements.get(name)
            same = element.label == label if element is not None else name in screen.moves
            if same:
                screen.learn(name, deed, disposable)

    def _defer_items(self, screen: ScreenNotes) -> None:
        """The rows past the first few of a list whose rows led to screens alike (a product
        list, an inbox), or a table's column whose cells tried so far all stayed on the screen
        (they select a row), are deferred to the second round: each shows another item the
        same way. A list whose rows led to screens unlike each other is a menu (Settings): all of
        its rows are tried in the first round."""
        away = self.edges.get(screen.key, {})
        led: dict[str, list[str]] = {}
        stayed: dict[str, int] = {}
        for name, group in screen.lists.items():
            if name in away:
                led.setdefault(group, []).append(away[name])
            elif name in screen.tried:
                stayed[group] = stayed.get(group, 0) + 1
        items = {group for group, targets in led.items() if self._alike_all(targets)}
        # a table's cells that only select: more of a column's cells teach nothing
        items |= {
            group
            for group, count in stayed.items()
            if count >= 2 and group not in led and group.startswith("column:")
        }
        screen.deferred = {n for n in screen.later if screen.lists[n] in items}

    def _alike_all(self, targets: list[str]) -> bool:
        """At least two screens, all one screen, or alike one another with the same rows (a
        menu's pages share a Back button but list different rows: not items)."""
        known = [self.screens[t] for t in targets if t in self.screens]
        kinds = {s.alike or s.key for s in known}
        rows = {frozenset(n for n, e in s.elements.items() if e.role == "AXCell") for s in known}
        return len(targets) >= 2 and len(known) == len(targets) and len(kinds) == len(rows) == 1

    def out(self, node: str) -> dict[str, str]:
        """The known edges out of a screen: its own, and its chrome's."""
        edges = dict(self.edges.get(node, {}))
        for name in self.screens[node].chrome:
            target = self.chrome.get(name)
            if target is not None and target != node:
                edges.setdefault(name, target)
        return edges

    def note(self, source: str, element: str, target: str, step: int) -> None:
        """What ``element`` on ``source`` led to: a transition, and the latest edge."""
        if not any(
            t.source == source and t.element == element and t.target == target
            for t in self.transitions
        ):
            self.transitions.append(ScreenTransition(source, element, target, step))
        if element in self.chrome:
            self._note_chrome(source, element, target)
        screen = self.screens[source]
        if screen.goes_back(element) and target != source:
            # its Back button showed the way back: the back gesture would teach nothing new
            screen.order = [n for n in screen.order if n not in BACK_MOVES or n in screen.tried]
        edges = self.edges.setdefault(source, {})
        if target == source:
            edges.pop(element, None)
        else:
            edges[element] = target  # the latest outcome wins: back buttons follow history

    def _note_chrome(self, source: str, element: str, target: str) -> None:
        """Where a part of the app's chrome led from ``source``: its latest target (news for
        every screen's list), and a screen a tab leads to (every screen alike looks again)."""
        if target == source:
            return
        if self.chrome[element] != target:
            self.chrome[element] = target
            self.chrome_news = True
        if target not in self.tab_screens:
            self.tab_screens.add(target)
            self.touched = None

    def route(
        self, screen: ScreenNotes, observation: Observation | None, goals: set[str]
    ) -> str | None:
        """The first element on the shortest known path to a screen in ``goals`` (from the
        screen as last seen when there is no ``observation`` of it now), through elements
        that were there and enabled when their screen was last seen, or rows of a long list
        scrolled away since (the walk scrolls back to them)."""
        first: dict[str, str] = {}
        queue: deque[str] = deque()
        for element, target in self.out(screen.key).items():
            if target not in first and self._leaves(screen, observation, element):
                first[target] = element
                queue.append(target)
        while queue:
            node = queue.popleft()
            if node in goals:
                return first[node]
            for element, target in self.out(node).items():
                if target not in first and target != screen.key and self._passes(node, element):
                    first[target] = first[node]
                    queue.append(target)
        return None

    def _leaves(self, screen: ScreenNotes, observation: Observation | None, element: str) -> bool:
        """Whether a walk may leave ``screen`` through ``element`` now: walkable, and a back
        move, a move, a control on screen and enabled (as last seen when there is no
        ``observation``), or a row scrolled away."""
        here = (
            screen.available(element)
            if observation is None
            else _present(observation, screen, element)
        )
        return self.walkable(screen.key, element) and (
            element in BACK_MOVES
            or element in screen.moves
            or here
            or screen.scrolled_away(element)
        )

    def _passes(self, node: str, element: str) -> bool:
        """Whether a walk may pass on through ``element`` of a screen further on: walkable,
        and a move, the chrome, or available (or scrolled away) when the screen was last seen."""
        seen = self.screens[node]
        return self.walkable(node, element) and (
            element in seen.moves
            or element in seen.chrome
            or seen.available(element)
            or seen.scrolled_away(element)
        )

    def walkable(self, source: str, element_ref: str) -> bool:
        """Whether walking may go through this element: never through a deed (it is done
        once, not repeated to get somewhere) but one that only asks (it opened a
        confirmation), and at most ``WALK_BUDGET`` times through any one (a loop through it
        learns nothing new)."""
        screen = self.screens[source]
        if screen.deed(element_ref) is not None and (source, element_ref) not in self.asks:
            return False
        if element_ref in (BACK_GESTURE, ESCAPE) or screen.goes_back(element_ref):
            return True  # going back changes nothing: bounded by ``wander`` alone
        return self.walks.get((source, element_ref), 0) < WALK_BUDGET

    def walked(self, source: str, element_ref: str) -> None:
        self.walks[(source, element_ref)] = self.walks.get((source, element_ref), 0) + 1

    def coverage(self, *, steps: int, finished: bool, summary: str) -> Coverage:
        """The screens, elements and transitions found so far."""
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
            for s in self.screens.values()
        )
        leaving = {t.source for t in self.transitions if t.source != t.target}
        dead_ends = tuple(
            s.key
            for s in self.screens.values()
            if s.key not in leaving and (not s.pending() or set(s.no_effect) & set(BACK_MOVES))
        )
        return Coverage(
            screens=screens,
            transitions=tuple(self.transitions),
            dead_ends=dead_ends,
            steps=steps,
            finished=finished,
            summary=summary,
        )


def _present(observation: Observation, screen: ScreenNotes, name: str) -> bool:
    element = screen.elements.get(name)
    if element is None:
        return False
    found = same_element(observation, element)
    return found is not None and found.enabled
