"""The systematic explorer: finds every reachable screen depth-first, with no model.

It keeps a map of the screens it has seen (``orav.agents.explore.graph``), keyed by the one
screen identity (``orav.perceive.screen_id``), the interactive elements of each and which it
has tried, and the transitions it observed: what it tapped on screen A, and the screen it saw
at its next decision. On each screen it tries the next untried element (a text field takes
three steps: tap, type a plausible value, press return); when none is left it walks the known
screen graph to the nearest screen that still has one (a Back button is an element like any
other, tried after the rest), tries a back gesture once where it knows no way on, and says
``done`` when nothing untried is reachable. No randomness: the same app gives the same run.

The first round goes for what opens screens (tabs not yet known, buttons and rows, a form
filled once and submitted, Back last); the second for the rest (switches, the return in a
form's other fields, more rows of a list of items, gestures and keys).

This module does one big thing, and is long for it: the choice policy (what to try next, how
to fill a form, when to walk and where, when to stop) and the learning from each outcome;
what a control is (``explore.controls``), the gestures and keys (``explore.moves``), what it
knows of one screen (``explore.screens``) and the map (``explore.graph``) live beside it.

    explorer = ExplorerAgent()
    await session.record(scenario, out, agent=explorer)   # any Device: it sees Observations only
    explorer.coverage()                                   # -> orav.model.coverage.Coverage
"""

from __future__ import annotations

from typing import Literal

from attrs import define, evolve

from orav.agents import AgentContext
from orav.agents.explore.controls import (
    is_switch,
    may_do,
    ref,
    sample_text,
    submits,
    tap_of,
)
from orav.agents.explore.graph import ScreenMap
from orav.agents.explore.moves import (
    BACK_GESTURE,
    ESCAPE,
    app_chrome,
    back_move,
    quits_on_escape,
)
from orav.agents.explore.screens import ScreenNotes
from orav.model import (
    Credentials,
    Decision,
    Done,
    Element,
    Launch,
    Observation,
    PressKey,
)
from orav.model.coverage import Coverage
from orav.perceive import keyboard_frame, screen_id, screen_name
from orav.perceive.deeds import Verdict, confirmation, control_deed
from orav.perceive.legend import Legends
from orav.perceive.occlusion import clearable, cover_of
from orav.perceive.roles import is_text_field
from orav.perceive.screens import is_control
from orav.perceive.targets import same_element

Stage = Literal[
    "tap", "type", "return", "navigate", "back", "gesture", "restore", "scroll", "relaunch"
]


@define
class _Pending:
    """The last decision, until the next context says it was performed and what it did."""

    step: int
    screen: str
    element: str | None
    stage: Stage
    expect: str | None = None
    returns: bool = True  # a text field's try ends with return (a form's: its last field's)


class ExplorerAgent:
    """Depth-first exploration of every reachable screen; ``coverage()`` says what it found.

    ``wander`` bounds the steps spent walking to screens with untried elements between two new
    tries (None: twice the screens known, plus two).
    """

    name = "explorer"

    def __init__(self, *, wander: int | None = None) -> None:
        self.wander = wander
        self._map = ScreenMap()
        self._screens = self._map.screens
        self._plan: list[tuple[_Pending | None, Decision]] = []  # filling a form to walk on
        self._plan_screen: str | None = None
        # Two rounds: every control of every screen first (breadth early), then the gestures
        # and keys, walking back to each screen for them.
        self._gestures = False
        self._credentials: Credentials | None = None
        self._pending: _Pending | None = None
        self._source: str | None = None  # the screen the last action was taken on
        self._field: _Pending | None = None  # a text field between tap and return
        self._restore: str | None = None  # a switch just toggled, to turn back
        self._wandered = 0
        self._backed: set[str] = set()  # screens gone back from blindly since the last new try
        self._finished = False
        self._summary = ""
        self._step = 0
        self._disposable = False  # the app's world is orav's own: destructive deeds allowed
        self._launched: str | None = None  # the screen the app (re)launched on
        self._relaunched_after = -1  # tries made when it last relaunched: once per new try
        self._covers: dict[str, str] = {}  # controls skipped: the cover over each, unanswered
        self._legends = Legends()  # the keys the app's help screens list

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
        self._disposable = context.device is not None and context.device.disposable
        self._credentials = context.scenario.credentials
        self._launched = self._launched or key
        chrome = app_chrome(observation)
        titles = frozenset(s.name for s in self._screens.values() if s.key != key)
        credentials, known = context.scenario.credentials, self._map.known
        if screen is None:
            screen = ScreenNotes(key, screen_name(observation), context.step, self._source)
            self._screens[key] = screen
            screen.update(
                observation, credentials, platform, chrome, titles, known, self._disposable
            )
            self._map.share_chrome(screen, chrome)
            self._map.alike(screen)
        else:
            screen.update(
                observation, credentials, platform, chrome, titles, known, self._disposable
            )
            self._map.share_chrome(screen, chrome)
        self._take_legend(context, screen)
        self._step = context.step
        decision = self._next(context, screen)
        return decision if met is None else evolve(decision, previous_outcome_met=met)

    def _take_legend(self, context: AgentContext, screen: ScreenNotes) -> None:
        """The keys this screen lists (an app's help: ``orav.perceive.legend``) are commands
        of the screen it was first opened from (of this one, when the app starts on it):
        tried there as its controls are."""
        legend = self._legends.read(context.observation, screen.name, context.step)
        if legend:
            opener = self._screens.get(screen.came_from or "")
            (opener or screen).take_listed(legend, self._map.known)

    # --- learning from the screen the last action led to -------------------------------------

    def _learn(self, context: AgentContext, key: str) -> bool | None:
        """Fold the last decision's outcome into the map; the verdict on its expectation."""
        pending, self._pending = self._pending, None
        self._source = pending.screen if pending is not None else None
        if pending is None or context.step <= pending.step:
            return None  # not performed: the engine recovered first and asks again
        if pending.stage == "relaunch":
            self._launched = key  # where the app starts: the walk goes on from there
            return None
        verification = context.last_verification
        dropped = verification is not None and verification.input_dropped
        source = self._screens[pending.screen]
        stays = key == pending.screen
        self._taught(context, source, pending, stays, dropped)
        element = source.elements.get(pending.element or "")
        if dropped:
            return self._dropped(context, source, pending, element)
        if self._field_goes_on(pending, element, stays):
            self._field = pending  # tapped or typed into: the next stage follows
            return None
        self._field = None
        return self._led(source, pending, element, key, stays)

    def _taught(
        self,
        context: AgentContext,
        source: ScreenNotes,
        pending: _Pending,
        stays: bool,
        dropped: bool,
    ) -> None:
        """What the step taught of the screen it was taken on: a control or move tapped or
        tried is tried there, and what it turned out to be is learnt (``_deed_learnt``); a
        walk that went nowhere is a way no longer; a filled form's submit that stayed
        (``_submit_stayed``)."""
        tried = pending.element if pending.stage in ("tap", "gesture") else None
        if tried is not None and tried not in source.tried:
            source.tried.append(tried)
        self._map.touch(source.key)
        if tried is not None:
            self._deed_learnt(context, source, tried, stays)
        if pending.stage == "navigate" and (dropped or stays):
            self._map.forget(pending.screen, pending.element or "")
        element = source.elements.get(pending.element or "")
        if pending.stage == "tap" and element is not None and stays:
            self._submit_stayed(source, element, pending.element or "")

    def _submit_stayed(self, source: ScreenNotes, element: Element, name: str) -> None:
        """A filled form's submit (not a deed) that stayed on the form: the return in its
        last field is the form's other way on, tried again."""
        last = source.form[-1] if source.form else None
        if submits(element) and last in source.returns and source.deed(name) is None:
            source.returns.remove(last)
            source.retry.append(last)

    def _dropped(
        self,
        context: AgentContext,
        source: ScreenNotes,
        pending: _Pending,
        element: Element | None,
    ) -> bool | None:
        """The input was dropped: a text field that had the focus already (a form's last
        field, tried again for its return) goes on to its return; anything else tried did
        nothing (a walk is not a try)."""
        focused = context.observation.focused
        refocused = focused is not None and is_control(focused) and ref(focused) == pending.element
        field_ = element is not None and is_text_field(element)
        if pending.stage == "tap" and refocused and field_:
            self._field = pending
            return None
        name = pending.element
        if pending.stage != "navigate" and name is not None and name not in source.no_effect:
            source.no_effect.append(name)
        self._field = None
        return False if pending.expect is not None else None

    def _field_goes_on(self, pending: _Pending, element: Element | None, stays: bool) -> bool:
        """A text field tapped, or typed into and still to take its return, on a screen that
        stayed: typing or the return follows."""
        typing = pending.stage == "tap" or (pending.stage == "type" and pending.returns)
        return typing and stays and element is not None and is_text_field(element)

    def _led(
        self,
        source: ScreenNotes,
        pending: _Pending,
        element: Element | None,
        key: str,
        stays: bool,
    ) -> bool | None:
        """The step took: a switch toggled is turned back next, where the control led is
        noted, a form filled is tried again filled; the verdict on what it expected."""
        if pending.stage == "tap" and stays and element is not None and is_switch(element):
            self._restore = pending.element  # toggled: turned back at once
        if pending.element is not None:
            self._map.note(pending.screen, pending.element, key, pending.step)
        if pending.stage == "return":
            self._map.filled(source)
        return None if pending.expect is None else key == pending.expect

    def _deed_learnt(
        self, context: AgentContext, source: ScreenNotes, tried: str, stays: bool
    ) -> None:
        """What the control just tried turned out to be: it opened a confirmation (the
        structure says it is consequential: its kind is its affirmative answers'), or the
        step changed or deleted what the app's world holds (its effect). Remembered by the
        control's identity for the rest of the run."""
        element = source.elements.get(tried)
        label = element.label if element is not None else None
        asked = None if stays else confirmation(context.observation)
        if asked is not None and asked.affirmative:
            answers = [control_deed(e, context.observation) for e in asked.affirmative]
            outward = any(a is None or a.kind == "outward" for a in answers)
            why = f"opens a confirmation {asked.question!r}"
            self._map.asks.add((source.key, tried))
            verdict = Verdict("outward" if outward else "destructive", why)
            self._map.learn(tried, label, verdict, self._disposable)
        done = context.last_deed  # what it was the explorer judged itself: only its effect
        if done is not None and done.step == context.step - 1 and "effect: " in done.why:
            self._map.learn(tried, label, Verdict(done.kind, done.why), self._disposable)

    # --- choosing the next action -------------------------------------------------------------

    def _next(self, context: AgentContext, screen: ScreenNotes) -> Decision:
        """The next action: the next of a plan (filling a form to walk on), else something
        to try on this screen, else a walk to a screen that still has something."""
        self._map.touch(screen.key)  # its rows may have come into view
        self._map.skip_alike()
        self._map.unlist_known_chrome()
        if self._plan and self._plan_screen != screen.key:
            self._plan = []  # the form is gone: walk again from here
        if self._plan:
            pending, decision = self._plan.pop(0)
            if pending is not None:
                self._pending = evolve(pending, step=context.step)
            return decision
        here = self._on_screen(context, screen)
        return here if here is not None else self._walk_on(context, screen)

    def _on_screen(self, context: AgentContext, screen: ScreenNotes) -> Decision | None:
        """What to do on this screen: go on with the field being filled, turn a switch back,
        try a filled form's controls again, try the next untried control (or move), and in
        the second round the return in a form's other fields; None when nothing is left."""
        if self._field is not None and self._field.screen == screen.key:
            typing = self._continue_field(context, screen, self._field)
            if typing is not None:
                return typing
        self._field = None
        restore = self._restore_switch(context, screen)
        if restore is not None:
            return restore
        filled = f"The form on {screen.name!r} is filled: trying {{}} again."
        if (again := self._again(context, screen, screen.retry, filled)) is not None:
            return again
        untried = self._untried(context, screen)
        if untried is not None or not self._gestures:
            return untried
        # A form's fields typed without return: last, on the form (they may submit it), and
        # never walked back for.
        second = f"Second round on {screen.name!r}: the return key in {{}}."
        return self._again(context, screen, screen.returns, second)

    def _restore_switch(self, context: AgentContext, screen: ScreenNotes) -> Decision | None:
        """A switch just toggled, turned back as it was (when it is still there)."""
        restore, self._restore = self._restore, None
        if restore is None or restore not in screen.elements:
            return None
        element = same_element(context.observation, screen.elements[restore])
        if element is None or not element.enabled:
            return None
        self._pending = _Pending(context.step, screen.key, restore, "restore")
        return Decision(
            tap_of(element),
            f"Turning {restore} on {screen.name!r} back as it was: the app's state "
            "as the explorer found it (a switch may hide what the rest needs).",
            element.label,
            f"{restore} is back as it was",
        )

    def _untried(self, context: AgentContext, screen: ScreenNotes) -> Decision | None:
        """The first untried control or move of the screen this round may try, on screen and
        enabled; None when there is none."""
        for name in screen.untried():
            if name in screen.moves:
                if not screen.available(name, self._gestures):
                    continue  # the second round (the back gesture teaches the way back: first)
                self._wandered, self._backed = 0, set()
                return self._try_move(context, screen, name)
            if not self._gestures and screen.waits(name):
                continue  # switches, more rows of a list of items: in the second round
            element = same_element(context.observation, screen.elements[name])
            if (
                element is not None
                and element.enabled
                and self._reachable(context, screen, name, element)
            ):
                self._wandered, self._backed = 0, set()
                return self._try(context, screen, name, element)
        return None

    def _reachable(
        self, context: AgentContext, screen: ScreenNotes, name: str, element: Element
    ) -> bool:
        """Whether a tap can reach ``name`` now, or the remedies can clear what covers it
        without consenting to anything. One under a cover that only consents (a banner whose
        every answer agrees) is skipped, the cover named in the coverage's summary: the run
        goes on without it, never answering the cover for the test."""
        cover = cover_of(context.observation, element)
        if cover is None or clearable(cover):
            return True
        screen.order.remove(name)
        screen.skipped.append(name)
        self._covers[name] = cover.name
        return False

    def _walk_on(self, context: AgentContext, screen: ScreenNotes) -> Decision:
        """Nothing left here: on to the second round when the first is over, done when
        nothing is left anywhere, else a walk towards what is left, within ``wander``."""
        waiting = [s for s in self._screens.values() if s.pending(self._gestures)]
        if not waiting and not self._gestures:
            self._gestures = True  # every control tried: now the gestures and keys
            return self._next(context, screen)
        if not waiting:
            return self._done(f"every reachable element was tried or skipped. {self._counts()}")
        budget = self.wander if self.wander is not None else 2 * len(self._screens) + 2
        if self._wandered >= budget:
            if not self._gestures:
                return self._second_round(context, screen)
            return self._done(
                f"gave up walking back to {_names(waiting)} after {self._wandered} steps. "
                + self._counts()
            )
        self._wandered += 1
        return self._walk(context, screen, waiting)

    def _walk(
        self, context: AgentContext, screen: ScreenNotes, waiting: list[ScreenNotes]
    ) -> Decision:
        """One step towards the screens ``waiting``: the known way, else back while going
        back works (a stack may be deep, bounded by ``wander``; back from a screen gone back
        from already, as a toast that says "you are home" is, leads nowhere new), else the
        second round, else a fresh launch; done when none is left."""
        goals = {s.key for s in waiting}
        hop = self._map.route(screen, context.observation, goals)
        if hop is not None:
            return self._navigate(screen, context.observation, hop)
        backs = not set(screen.no_effect) & {BACK_GESTURE, ESCAPE}
        backs = backs and not quits_on_escape(context.observation)
        if backs and screen.key not in self._backed:
            self._backed.add(screen.key)
            return self._go_back(context, screen)
        if not self._gestures:
            return self._second_round(context, screen)
        relaunch = self._relaunch(screen, goals)
        if relaunch is not None:
            return relaunch
        return self._done(f"no known way to {_names(waiting)}. {self._counts()}")

    def _relaunch(self, screen: ScreenNotes, goals: set[str]) -> Decision | None:
        """Cornered is not finished: when no known way leads from here to a screen with
        something left (every way out is a deed it may not do, or goes nowhere), the app is
        started again (``Launch(fresh=True)``), once per new try, when a known way leads from
        its first screen to one; None when none does."""
        tries = sum(len(s.tried) for s in self._screens.values())
        start = self._screens.get(self._launched or "")
        if start is None or tries <= self._relaunched_after:
            return None
        if start.key not in goals and self._map.route(start, None, goals) is None:
            return None
        self._relaunched_after = tries
        self._wandered, self._backed = 0, set()
        self._pending = _Pending(self._step, screen.key, None, "relaunch")
        return Decision(
            Launch(fresh=True),
            f"Cornered on {screen.name!r}: every way on is a deed the explorer does not do "
            f"here, or leads nowhere known. Starting the app again from {start.name!r}.",
            None,
            f"the {start.name} screen",
        )

    def _second_round(self, context: AgentContext, screen: ScreenNotes) -> Decision:
        """What is left of the first round cannot be reached now (a control it waits for is
        hidden, a walk would repeat itself): on to the gestures and keys, which may open the
        way (what the first round left is still tried where it shows again)."""
        self._gestures = True
        self._wandered, self._backed = 0, set()
        return self._next(context, screen)

    def _again(
        self, context: AgentContext, screen: ScreenNotes, queue: list[str], why: str
    ) -> Decision | None:
        """The next control of ``queue`` still on the screen and enabled, tried with its
        return key (``why`` names it at ``{}``); None when the queue runs dry."""
        while queue:
            name = queue.pop(0)
            element = same_element(context.observation, screen.elements[name])
            if element is not None and element.enabled:
                self._wandered, self._backed = 0, set()
                decision = self._try(context, screen, name, element, returns=True)
                return evolve(decision, reasoning=why.format(name))
        return None

    def _try(
        self,
        context: AgentContext,
        screen: ScreenNotes,
        name: str,
        element: Element,
        *,
        returns: bool = False,
    ) -> Decision:
        """Try ``name`` (its own entry is marked tried, even when another element on the
        screen answers to the same label, as a footer key "Back" does to a Back button).
        A form's fields are filled without return in the first round (``returns`` forces
        it), but its last field when no submit button follows: the form's first way on."""
        left = len(screen.untried())
        where = (
            f"Screen {screen.name!r} ({len(self._screens)} found so far): {left} of "
            f"{len(screen.order)} elements untried"
        )
        if is_text_field(element):
            if not returns and screen.form and not self._gestures:
                last = name == screen.form[-1]
                returns = (
                    last
                    and screen.returns_submit()
                    and not any(
                        submits(e) and may_do(screen.deed(n), self._disposable)
                        for n, e in screen.elements.items()
                        if n in screen.present and not screen.goes_back(n)
                    )
                )
            if not returns and screen.returns_submit():  # else its return would do the deed
                screen.returns.append(name)
            self._pending = _Pending(context.step, screen.key, name, "tap", returns=returns)
            then = "press return" if returns else "then the rest of the form"
            return Decision(
                tap_of(element),
                f"{where}; text field {name} next: tap it, type a value, {then}.",
                element.label,
                "the field takes focus and the keyboard comes up",
            )
        self._pending = _Pending(context.step, screen.key, name, "tap")
        kind = element.type.casefold() or "element"
        return Decision(
            tap_of(element),
            f"{where}; trying {kind} {name} to see where it leads.",
            element.label,
            f"tapping {name} opens another screen or changes this one",
        )

    def _try_move(self, context: AgentContext, screen: ScreenNotes, name: str) -> Decision:
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

    def _continue_field(
        self, context: AgentContext, screen: ScreenNotes, field_: _Pending
    ) -> Decision | None:
        """Type into the field just tapped, then press return; None when it took no focus.
        A field typed into before that still holds its value gets the return alone."""
        observation = context.observation
        focus = keyboard_frame(observation) is not None or observation.focused is not None
        if field_.element is None or not focus:
            return None
        element = screen.elements[field_.element]
        now = same_element(observation, element)
        filled = field_.element in screen.typed and now is not None and bool(now.value)
        if field_.stage == "tap" and not filled:
            screen.typed.add(field_.element)
            text = sample_text(element, context.scenario.credentials)
            password = context.scenario.credentials and context.scenario.credentials.password
            what = "a secure value" if text.secure else repr(text.text)
            what = "the test password" if text.secure and text.text == password else what
            self._pending = _Pending(
                context.step, screen.key, field_.element, "type", returns=field_.returns
            )
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

    def _navigate(
        self, screen: ScreenNotes, observation: Observation, element_ref: str
    ) -> Decision:
        target = self._map.out(screen.key)[element_ref]
        name = self._screens[target].name
        swipe = screen.scroll_to(element_ref) if screen.scrolled_away(element_ref) else ""
        row = screen.elements.get(element_ref)
        if swipe in screen.moves and row and not same_element(observation, row):
            # a row of a long list, scrolled away: the list is scrolled back to it first
            self._pending = _Pending(self._step, screen.key, None, "scroll")
            return Decision(
                screen.moves[swipe],
                f"Walking on through {element_ref} on {screen.name!r} towards {name!r}: "
                f"scrolling the list to bring it back ({swipe[1:-1]}).",
                None,
                f"{element_ref} comes into view",
            )
        self._pending = _Pending(self._step, screen.key, element_ref, "navigate", target)
        self._map.walked(screen.key, element_ref)
        why = (
            f"Nothing left to try on {screen.name!r}; walking back towards screens with "
            f"untried elements: {element_ref} led to {name!r} before."
        )
        if element_ref in (BACK_GESTURE, ESCAPE):
            return Decision(back_move(observation, element_ref), why, None, f"the {name} screen")
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
        return Decision(tap_of(element), why, element.label, expected)

    def _fill(
        self, screen: ScreenNotes, last: str, target: str, expected: str
    ) -> list[tuple[_Pending | None, Decision]]:
        """Tap and type into every field of the screen, ``last`` last, then press return in
        it: the way a form's return led to ``target`` before."""
        fields = [n for n, e in screen.elements.items() if is_text_field(e) and n != last]
        plan: list[tuple[_Pending | None, Decision]] = []
        for name in [*fields, last]:
            element = screen.elements[name]
            text = sample_text(element, self._credentials)
            why = f"Walking back through the form on {screen.name!r}: filling {name}."
            plan.append((None, Decision(tap_of(element), why, element.label)))
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

    def _go_back(self, context: AgentContext, screen: ScreenNotes) -> Decision:
        textual = context.device is not None and context.device.platform == "textual"
        gesture = ESCAPE if textual else BACK_GESTURE
        self._pending = _Pending(context.step, screen.key, gesture, "back")
        return Decision(
            back_move(context.observation, gesture),
            f"Nothing left to try on {screen.name!r} and no known way on: going back "
            f"({'escape' if textual else 'a swipe from the left edge'}).",
            None,
            "the previous screen",
        )

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
        deeds = sum(len(s.forbidden) for s in self._screens.values())
        kinds = "outward" if self._disposable else "outward or destructive"
        covers = ", ".join(sorted(set(self._covers.values())))
        return (
            f"{_many(len(coverage.screens), 'screen')}, {coverage.elements_tried} of "
            f"{_many(coverage.elements_total, 'element')} tried"
            + (
                f" ({skipped} skipped: they quit the app, sign out or were tried on a screen alike"
                + (f"; {deeds} of them deeds it never does here ({kinds})" if deeds else "")
                + (
                    f"; {len(self._covers)} under a cover it never answers ({covers})"
                    if self._covers
                    else ""
                )
                + ")"
                if skipped
                else ""
            )
            + f", {_many(sum(t.source != t.target for t in coverage.transitions), 'transition')}."
        )

    # --- what was covered ---------------------------------------------------------------------

    def coverage(self) -> Coverage:
        """The screens, elements and transitions found so far (the run may still be going)."""
        return self._map.coverage(
            steps=self._step - 1 if self._finished else self._step,  # done acts on nothing
            finished=self._finished,
            summary=self._summary or f"Exploration stopped at step {self._step}.",
        )


def _names(screens: list[ScreenNotes]) -> str:
    return ", ".join(repr(s.name) for s in screens)


def _many(count: int, noun: str) -> str:
    """``1 screen``, ``7 screens``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
