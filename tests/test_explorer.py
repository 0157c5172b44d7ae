"""The explorer's strategy on hand-built observations: depth-first order, backtracking, a screen
reached twice, dead ends, text fields, dropped input, and the coverage it reports.

``Tiny`` is a small app written as data: screens of elements and what tapping each does. It
answers the explorer's actions the way an app would, so whole explorations run in microseconds.
"""

from __future__ import annotations

import json

import pytest
from attrs import evolve, field, frozen
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.agents import AgentContext
from orav.agents.explore.controls import SAMPLE_TEXT, sample_text
from orav.agents.explore.moves import BACK_GESTURE, SWIPES
from orav.agents.explorer import ExplorerAgent
from orav.codec import from_json
from orav.model import (
    ActionResult,
    Credentials,
    Decision,
    Deed,
    DeviceInfo,
    Done,
    Element,
    Frame,
    Launch,
    Observation,
    PressKey,
    Scenario,
    Step,
    Swipe,
    Tap,
    TypeText,
    Verification,
    WorldChanges,
    show_action,
)
from orav.perceive import screen_id, target_element
from orav.perceive.deeds import step_deed
from orav.report.coverage import Coverage, write_coverage

BACK = "back"  # a move that pops the screen stack


def heading(text: str) -> Element:
    return Element("AXHeading", text, traits=("header",), frame=Frame(0, 47, 390, 44))


def button(id_: str, label: str, role: str = "AXButton", y: float = 100) -> Element:
    return Element(role, label, id_, frame=Frame(20, y, 350, 44))


def text_field(id_: str, label: str, *, secure: bool = False) -> Element:
    return Element("AXTextField", label, id_, frame=Frame(20, 300, 350, 44), secure=secure)


def swipe_name(swipe: Swipe) -> str:
    """``(swipe left)``...: the explorer's name of a swipe across the screen, by direction."""
    dx, dy = swipe.end.x - swipe.start.x, swipe.end.y - swipe.start.y
    if abs(dx) >= abs(dy):
        return "(swipe left)" if dx < 0 else "(swipe right)"
    return "(swipe up)" if dy < 0 else "(swipe down)"


@frozen
class Tiny:
    """An app as data: ``screens`` by name, ``moves[(screen, '#id')]`` the screen a tap (or a
    return in a text field) leads to; anything else leaves the screen as it is."""

    screens: dict[str, tuple[Element, ...]]
    moves: dict[tuple[str, str], str] = field(factory=dict)
    start: str = "home"
    back_gesture: bool = False  # a left-edge swipe pops the stack
    # what a tap (or a key, ``(key K)``) on a screen changes in the app's world
    effects: dict[tuple[str, str], WorldChanges] = field(factory=dict)


class Run:
    """The explorer against a ``Tiny`` app, step by step, as the engine would drive it."""

    def __init__(
        self,
        app: Tiny,
        *,
        credentials: Credentials | None = None,
        max_steps=80,
        disposable: bool = True,
    ):
        self.app = app
        self.device = DeviceInfo("ios", "tiny", disposable=disposable)
        self.agent = ExplorerAgent()
        self.scenario = Scenario("explore", "tiny", "explore", credentials=credentials)
        self.max_steps = max_steps
        self.stack = [app.start]
        self.focus: str | None = None
        self.values: dict[str, str] = {}
        self.history: list[Step] = []
        self.verification: Verification | None = None
        self.decisions: list[Decision] = []
        self.visits: list[str] = []
        self.deeds: list[Deed] = []  # the ledger, as the engine keeps it

    def observe(self) -> Observation:
        elements = tuple(
            evolve(e, focused=e.unique_id == self.focus, value=self.values.get(e.unique_id))
            for e in self.app.screens[self.stack[-1]]
        )
        return Observation(elements, app="tiny")

    def context(self) -> AgentContext:
        step = len(self.history) + 1
        return AgentContext(
            self.scenario,
            self.observe(),
            step,
            tuple(self.history),
            self.verification,
            self.device,
            last_deed=self.deeds[-1] if self.deeds and self.deeds[-1].step == step - 1 else None,
        )

    async def decide(self) -> Decision:
        decision = await self.agent.decide(self.context())
        self.decisions.append(decision)
        return decision

    def act(self, decision: Decision) -> None:
        before = self.observe()
        screen, action = self.stack[-1], decision.action
        done = WorldChanges()
        if isinstance(action, Launch):
            self.stack, self.focus = [self.app.start], None
        elif isinstance(action, Tap):
            done = self.app.effects.get((screen, str(action.target)), done)
            element = target_element(before, action.target)
            if element.role == "AXTextField":
                self.focus = element.unique_id
            else:
                self.move(self.app.moves.get((screen, str(action.target))))
        elif isinstance(action, TypeText) and self.focus:
            self.values[self.focus] = action.text
        elif isinstance(action, PressKey) and action.key != "return":
            done = self.app.effects.get((screen, f"(key {action.key})"), done)
            self.move(self.app.moves.get((screen, f"(key {action.key})")))
        elif isinstance(action, PressKey) and action.key == "return" and self.focus:
            field_, self.focus = self.focus, None
            self.move(self.app.moves.get((screen, f"#{field_}")))
        elif isinstance(action, Swipe):
            edge = action.start.x < 20 and action.end.x > action.start.x
            if edge and self.app.back_gesture:
                self.move(BACK)
            elif not edge:
                self.move(self.app.moves.get((screen, swipe_name(action))))
        after = self.observe()
        changed = after != before or bool(done)
        self.verification = Verification(changed=changed, input_dropped=not changed)
        index = len(self.history) + 1
        self.history.append(Step(index, screen, decision, ActionResult(), self.verification))
        verdict = step_deed(action, before, done)
        if verdict is not None:
            self.deeds.append(Deed(verdict.kind, index, show_action(action), "agent", verdict.why))

    def move(self, target: str | None) -> None:
        if target == BACK and len(self.stack) > 1:
            self.stack.pop()
        elif target not in (None, BACK):
            self.stack.append(target)
        self.visits.append(self.stack[-1])

    async def explore(self) -> Run:
        for _ in range(self.max_steps):
            decision = await self.decide()
            if isinstance(decision.action, Done):
                break
            self.act(decision)
        return self

    @property
    def coverage(self) -> Coverage:
        return self.agent.coverage()

    def names(self) -> list[str]:
        return [s.name for s in self.coverage.screens]

    def taps(self) -> list[str]:
        return [str(d.action.target) for d in self.decisions if isinstance(d.action, Tap)]


# home -> list -> (item a | item b) ; every detail has Back; home -> about
TREE = Tiny(
    {
        "home": (heading("Home"), button("list", "List"), button("about", "About", y=150)),
        "list": (
            heading("List"),
            button("back", "Back"),
            button("a", "Alpha", "AXCell", 100),
            button("b", "Beta", "AXCell", 160),
        ),
        "alpha": (heading("Alpha"), button("back", "Back")),
        "beta": (heading("Beta"), button("back", "Back")),
        "about": (heading("About"), button("close", "Close")),
    },
    {
        ("home", "#list"): "list",
        ("home", "#about"): "about",
        ("list", "#back"): BACK,
        ("list", "#a"): "alpha",
        ("list", "#b"): "beta",
        ("alpha", "#back"): BACK,
        ("beta", "#back"): BACK,
        ("about", "#close"): BACK,
    },
)


async def test_depth_first_with_backtracking_reaches_every_screen() -> None:
    run = await Run(TREE).explore()
    # Deepest first: the list's items before the list's Back, Back before home's next button.
    # First every control; then the gestures, walking back to each screen for them.
    controls = ["#list", "#a", "#back", "#b", "#back", "#back", "#about", "#close"]
    assert run.taps() == [*controls, "#list", "#a", "#back", "#back", "#about"]
    assert run.names() == ["Home", "List", "Alpha", "Beta", "About"]
    coverage = run.coverage
    # 8 controls, a swipe each way on each of the 5 screens, a swipe left on the list's row,
    # the back gesture on Home only (the others have a Back button that showed the way back);
    # Beta is Alpha for another row: its swipes are skipped
    assert coverage.finished and coverage.elements_total == 30
    assert coverage.elements_tried == 26 and coverage.screens[3].alike == coverage.screens[2].key
    assert set(coverage.screens[3].skipped) == {f"(swipe {d})" for d in SWIPES}
    assert set(coverage.screens[1].elements) == {
        "#a",
        "#b",
        "(swipe left)",
        "(swipe right)",
        "(swipe up)",
        "(swipe down)",
        "(swipe left on #a)",
        "#back",
    }
    assert coverage.dead_ends == ()
    assert isinstance(run.decisions[-1].action, Done)
    assert "5 screens, 26 of 30 elements tried (4 skipped" in run.decisions[-1].action.summary
    assert coverage.steps == len(run.history) == 31


async def test_a_screen_reached_twice_is_one_screen_and_known_paths_lead_back() -> None:
    # Two ways into "shared"; the second way in is found only after Back taught the way home.
    app = Tiny(
        {
            "home": (heading("Home"), button("one", "One"), button("two", "Two", y=150)),
            "shared": (heading("Shared"), button("back", "Back"), button("deep", "Deep", y=150)),
            "deep": (heading("Deep"), button("back", "Back")),
        },
        {
            ("home", "#one"): "shared",
            ("home", "#two"): "shared",
            ("shared", "#back"): BACK,
            ("shared", "#deep"): "deep",
            ("deep", "#back"): BACK,
        },
    )
    run = await Run(app).explore()
    assert run.names() == ["Home", "Shared", "Deep"]
    # then the gestures of Shared, Deep and Home: nothing is left
    assert run.taps() == ["#one", "#deep", "#back", "#back", "#two", "#back", "#one", "#deep"]
    transitions = {(t.source, t.element, t.target) for t in run.coverage.transitions}
    home, shared = (s.key for s in run.coverage.screens[:2])
    assert (home, "#one", shared) in transitions and (home, "#two", shared) in transitions


async def test_walks_the_known_graph_to_screens_with_untried_elements() -> None:
    # "settings" is entered, left by Back before its risky button, and walked back to later.
    app = Tiny(
        {
            "home": (heading("Home"), button("settings", "Settings"), button("x", "X", y=150)),
            "settings": (
                heading("Settings"),
                button("reset", "Reset everything", y=200),
                button("back", "Back"),
            ),
            "x": (heading("X"), button("back", "Back")),
        },
        {
            ("home", "#settings"): "settings",
            ("home", "#x"): "x",
            ("settings", "#back"): BACK,
            ("x", "#back"): BACK,
        },
    )
    run = await Run(app).explore()
    assert run.taps()[:6] == ["#settings", "#back", "#x", "#back", "#settings", "#reset"]
    walk = next(d for d in run.decisions if "walking back" in d.reasoning)
    assert "walking back" in walk.reasoning and walk.expected_outcome == '"Settings" appears'
    after = run.decisions[run.decisions.index(walk) + 1]
    assert after.previous_outcome_met is True  # it did lead to Settings
    assert run.coverage.finished


async def test_a_dead_end_is_reported_and_left_by_starting_the_app_again() -> None:
    """Cornered is not finished: on a screen with no way out, after the back gesture and the
    other swipes, the app is started again and the rest of the first screen explored."""
    app = Tiny(
        {
            "home": (heading("Home"), button("trap", "Trap"), button("later", "Later", y=150)),
            "trap": (heading("Trap"), Element("AXStaticText", "Nothing to do here")),
        },
        {("home", "#trap"): "trap"},
    )
    run = await Run(app).explore()
    gestures = [d for d in run.decisions if isinstance(d.action, Swipe)]
    assert gestures[0].action.start.x < 10  # the back gesture first, from the left edge
    coverage = run.coverage
    trap = coverage.screens[1]
    assert coverage.dead_ends == (trap.key,)
    # no way back: the second round's swipes are tried where the explorer is (they might
    # have opened one), each once; then the app starts again, once, and Home is finished
    assert trap.no_effect == (BACK_GESTURE, *(f"(swipe {d})" for d in SWIPES))
    launches = [d.action for d in run.decisions if isinstance(d.action, Launch)]
    assert launches == [Launch(fresh=True)]
    assert "#later" in coverage.screens[0].tried and coverage.finished


async def test_a_back_gesture_that_works_is_learnt_as_a_transition() -> None:
    app = Tiny(
        {
            "home": (heading("Home"), button("open", "Open"), button("later", "Later", y=150)),
            "page": (heading("Page"), Element("AXStaticText", "Swipe back to leave")),
        },
        {("home", "#open"): "page"},
        back_gesture=True,
    )
    run = await Run(app).explore()
    assert run.taps() == ["#open", "#later", "#open"]  # the last: to try the page's gestures
    home, page = (s.key for s in run.coverage.screens)
    assert (page, BACK_GESTURE, home) in {
        (t.source, t.element, t.target) for t in run.coverage.transitions
    }
    assert run.coverage.dead_ends == ()


async def test_text_fields_get_credentials_then_return() -> None:
    app = Tiny(
        {
            "login": (
                heading("Sign in"),
                text_field("email", "Email"),
                text_field("password", "Password", secure=True),
                button("sign_in", "Sign in", y=400),
            ),
            "home": (heading("Home"),),
        },
        {("login", "#password"): "home"},
        start="login",
    )
    credentials = Credentials("demo@orav.dev", "Orav-Demo-1!")
    run = await Run(app, credentials=credentials).explore()
    actions = [d.action for d in run.decisions]
    # A form: its fields filled first, then its submit button; that stayed here, so the last
    # field's return (it holds its value: no typing again) is the form's other way on. The
    # other field's return waits for the second round.
    assert actions[:7] == [
        Tap(target=actions[0].target),
        TypeText("demo@orav.dev"),
        Tap(target=actions[2].target),
        TypeText("Orav-Demo-1!", secure=True),
        Tap(target=actions[4].target),
        Tap(target=actions[2].target),
        PressKey("return"),
    ]
    assert [str(a.target) for a in actions if isinstance(a, Tap)] == [
        "#email",
        "#password",
        "#sign_in",
        "#password",
        "#email",  # Home has no way out: the app starts again for the email's return
    ]
    assert Launch(fresh=True) in actions
    assert run.names() == ["Sign in", "Home"]
    login = run.coverage.screens[0]
    assert login.tried[:3] == ("#email", "#password", "#sign_in")  # then its gestures
    assert login.no_effect[0] == "#sign_in"  # the filled form's button did nothing here


def test_sample_values_fit_the_field() -> None:
    creds = Credentials("me@example.com", "s3cret!")
    assert sample_text(text_field("user", "Email"), creds) == TypeText("me@example.com")
    assert sample_text(text_field("pw", "Passcode"), None).secure
    assert sample_text(text_field("pw", "Password", secure=True), creds) == TypeText(
        "s3cret!", secure=True
    )
    assert sample_text(text_field("tel", "Phone"), creds).text.isdigit()
    assert sample_text(text_field("name", "Name"), creds) == TypeText(SAMPLE_TEXT)
    assert sample_text(text_field("card_name", "Name on card"), creds) == TypeText(SAMPLE_TEXT)


async def test_sign_out_is_skipped_without_credentials_and_tried_last_with() -> None:
    screens = {
        "home": (
            heading("Home"),
            button("sign_out", "Sign out"),
            button("help", "Help", y=200),
        ),
        "login": (heading("Sign in"),),
    }
    app = Tiny(screens, {("home", "#sign_out"): "login"})
    run = await Run(app).explore()
    assert run.taps() == ["#help"]
    home = run.coverage.screens[0]
    assert home.skipped == ("#sign_out",) and home.untried == ()  # skipped is not untried
    run = await Run(app, credentials=Credentials("a", "b")).explore()
    assert run.taps() == ["#help", "#sign_out"]


async def test_a_decision_the_engine_did_not_act_on_is_asked_again_and_not_counted() -> None:
    run = Run(TREE)
    first = await run.decide()
    again = await run.decide()  # same step: the engine recovered (keyboard) and asks again
    assert first == again
    assert run.coverage.screens[0].tried == ()
    run.act(again)
    await run.decide()
    assert run.coverage.screens[0].tried == ("#list",)


async def test_dropped_input_is_reported_and_not_retried() -> None:
    app = Tiny({"home": (heading("Home"), button("dead", "Dead"), button("ok", "Ok", y=150))})
    run = await Run(app).explore()
    assert run.taps() == ["#dead", "#ok"]
    swipes = (BACK_GESTURE, *(f"(swipe {d})" for d in SWIPES))  # the back gesture: 1st round
    assert run.coverage.screens[0].no_effect == ("#dead", "#ok", *swipes)
    assert run.coverage.transitions == ()
    assert run.coverage.dead_ends == (run.coverage.screens[0].key,)


def test_the_explorers_screen_identity_survives_values_focus_keyboard_clock_and_messages():
    base = (
        Element("AXApplication", "Demo"),
        heading("Settings"),
        Element("AXSwitch", "Notifications", "notify", "1", Frame(0, 100, 390, 52)),
        text_field("name", "Name"),
        Element("AXStaticText", "9:41", frame=Frame(20, 14, 40, 20)),
    )
    key = screen_id(Observation(base, app="demo"))
    flipped = (*base[:2], evolve(base[2], value="0"), evolve(base[3], value="Ada", focused=True))
    clock = Element("AXStaticText", "9:42", frame=Frame(20, 14, 40, 20))
    keyboard = (
        Element("AXKeyboard", frame=Frame(0, 553, 390, 291)),
        Element("AXButton", "q", traits=("keyboardKey",), frame=Frame(3, 561, 33, 42)),
    )
    message = Element("AXStaticText", "Enter your name", "error", frame=Frame(20, 350, 350, 28))
    footer = Element("AXButton", "Quit", traits=("binding:ctrl+q",))  # Textual's, by focus
    same = Observation((*flipped, clock, message, *keyboard, footer), app="demo")
    assert screen_id(same) == key
    other = Observation((base[0], heading("Profile"), *base[2:]), app="demo")
    assert screen_id(other) != key  # another title
    # A titled screen is its title: a control appearing (a cart's Checkout) is the same screen
    more = Observation((*base, button("save", "Save")), app="demo")
    assert screen_id(more) == key
    untitled = Observation(tuple(e for e in base if e.role != "AXHeading"), app="demo")
    assert screen_id(untitled) != screen_id(Observation((*untitled.elements, button("s", "S"))))


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12))
def test_exploration_is_deterministic_and_bounded(links: list[int]) -> None:
    """Any small graph of screens (screen i links to ``links[i]``, each has a Back): two runs
    decide the same, never try an element twice, and finish within the budget."""
    import asyncio

    count = len(links)
    screens, moves = {}, {}
    for index, target in enumerate(links):
        name = f"s{index}"
        screens[name] = (
            heading(f"Screen {index}"),
            button("next", "Next"),
            button("back", "Back", y=200),
        )
        moves[(name, "#next")] = f"s{target % count}"
        moves[(name, "#back")] = BACK
    app = Tiny(screens, moves, start="s0")
    first = asyncio.run(Run(app, max_steps=200).explore())
    second = asyncio.run(Run(app, max_steps=200).explore())
    assert first.decisions == second.decisions
    assert isinstance(first.decisions[-1].action, Done)
    for screen in first.coverage.screens:
        assert len(set(screen.tried)) == len(screen.tried)
    assert len(first.decisions) <= 200


async def test_coverage_json_and_markdown(tmp_path) -> None:
    run = await Run(TREE).explore()
    cassette = tmp_path / "tree.cassette"
    json_path, md_path = write_coverage(run.coverage, cassette)
    assert (json_path.name, md_path.name) == ("tree.coverage.json", "tree.coverage.md")
    data = json.loads(json_path.read_text())
    assert set(data) == {"screens", "transitions", "dead_ends", "steps", "finished", "summary"}
    assert set(data["screens"][1]) == {
        "key",
        "name",
        "elements",
        "tried",
        "no_effect",
        "skipped",
        "disabled",
        "alike",
        "first_step",
    }
    assert data["screens"][1]["elements"][:3] == ["#a", "#b", "#back"]
    assert set(data["transitions"][0]) == {"source", "element", "target", "step"}
    assert from_json(json_path.read_text(), Coverage) == run.coverage
    markdown = md_path.read_text()
    assert (
        "| List | 8/8 | (swipe left), (swipe right), (swipe up), (swipe down), (swipe left on #a) | - | - |"
        in markdown
    )
    assert "```mermaid\nflowchart LR\n" in markdown
    assert 's0 -->|"#35;list"| s1' in markdown  # '#' escaped for mermaid
    assert markdown.count("-->") == 8


@pytest.mark.parametrize("platform, action", [("ios", Swipe), ("textual", PressKey)])
async def test_back_gesture_fits_the_platform(platform: str, action: type) -> None:
    from orav.model import DeviceInfo

    app = Tiny({"home": (heading("Home"),), "other": (heading("Other"), button("x", "X"))})
    agent = ExplorerAgent()
    scenario = Scenario("explore", "tiny", "explore")
    device = DeviceInfo(platform=platform, name="test")
    # "other" is known with an untried element, but there is no known way to it.
    await agent.decide(AgentContext(scenario, Observation(app.screens["other"]), 1, device=device))
    decision = await agent.decide(
        AgentContext(scenario, Observation(app.screens["home"]), 1, device=device)
    )
    assert isinstance(decision.action, action)


async def test_two_elements_answering_to_one_label_are_each_tried_once() -> None:
    """A footer key "Back" (no id) and a Back button share a label: trying the key must not
    leave it untried forever (the explorer once walked back and forth until its step limit)."""
    key = Element("AXButton", "Back", frame=Frame(0, 800, 80, 20), traits=("binding:escape",))
    app = Tiny(
        {
            "home": (heading("Home"), button("detail", "Detail")),
            "detail": (heading("Detail"), button("back", "Back"), key),
        },
        {("home", "#detail"): "detail", ("detail", "#back"): BACK, ("detail", "'Back'"): BACK},
    )
    run = await Run(app, max_steps=30).explore()
    assert isinstance(run.decisions[-1].action, Done)
    assert len(run.history) < 10 + 2 * len(SWIPES)
    assert run.coverage.elements_tried == run.coverage.elements_total


async def test_controls_that_quit_the_app_are_never_tried() -> None:
    app = Tiny({"home": (heading("Home"), button("quit", "Quit"), button("go", "Go", y=150))})
    run = await Run(app).explore()
    assert run.taps() == ["#go"]
    (home,) = run.coverage.screens
    assert "#quit" in home.skipped


async def test_an_element_nothing_names_is_passed_over() -> None:
    """n-filej's folder dialog has no title: its AXDialog has neither a label nor an id, and
    judging the screen's controls asked for its name (a ValueError that aborted the run)."""
    nameless = Element("AXDialog", None, frame=Frame(20, 200, 350, 300), traits=("modal",))
    app = Tiny({"home": (heading("Home"), nameless, button("go", "Go", y=250))})
    run = await Run(app).explore()
    assert run.taps() == ["#go"]


async def test_what_deletes_waits_until_the_app_was_explored_as_found() -> None:
    """Clock's Edit mode: the minus it reveals and the red Delete the minus reveals delete at
    once, as a row's Delete swipe action does in most apps. What the last action revealed is
    tried next, but not what destroys: it waits for the second round, after Add's sheet."""
    rows = (heading("World Clock"), button("edit", "Edit"), button("add", "Add", y=150))
    minus = button("minus_london", "Delete London", y=200)
    screens = {
        "home": rows,
        "editing": (*rows, minus),
        "doomed": (*rows, minus, button("confirm_delete_london", "Delete", y=250)),
        "sheet": (
            heading("Choose a City."),
            button("pick", "Paris", "AXCell"),
            button("c", "Cancel"),
        ),
    }
    moves = {
        ("home", "#edit"): "editing",
        ("editing", "#minus_london"): "doomed",
        ("home", "#add"): "sheet",
        ("editing", "#add"): "sheet",
        ("sheet", "#c"): BACK,
        ("sheet", "#pick"): BACK,
    }
    run = await Run(Tiny(screens, moves), max_steps=40).explore()
    taps = run.taps()
    assert taps.index("#add") < taps.index("#minus_london") < taps.index("#confirm_delete_london")
    assert taps.index("#pick") < taps.index("#minus_london")


def alert(title: str, *buttons: Element) -> tuple[Element, ...]:
    box = Element("AXAlert", title, frame=Frame(40, 300, 310, 200))
    return (box, Element("AXStaticText", title, frame=Frame(60, 320, 270, 30)), *buttons)


@pytest.mark.parametrize(
    ("title", "deed"),
    [("Close this pot?", "Close pot"), ("Cancel this payment?", "Cancel payment")],
)
async def test_a_deed_on_an_alert_is_never_confirmed_though_close_and_cancel_alone_are_safe(
    title: str, deed: str
) -> None:
    """Monzo's "Close this pot?" and "Cancel this payment?": with an object, Close and Cancel
    are the deed, not a way out; the explorer answers the alert with the other button, and
    learns that the control that asked is consequential."""
    screens = {
        "pot": (heading("Holiday"), button("close_pot", "Options")),
        "ask": alert(title, button("keep", "Keep it", y=440), button("do_it", deed, y=400)),
    }
    moves = {("pot", "#close_pot"): "ask", ("ask", "#keep"): BACK}
    run = await Run(Tiny(screens, moves, start="pot"), disposable=False).explore()
    assert "#do_it" not in run.taps() and "#keep" in run.taps()
    asked = next(s for s in run.coverage.screens if s.name == title)
    assert "#do_it" in asked.skipped
    assert run.agent._map.known[("#close_pot", "Options")].why == f"opens a confirmation {title!r}"
    # in a world orav throws away, a deed that destroys is confirmed (once), one whose kind
    # nothing tells ("Close pot": outward, for all the explorer knows) still never
    run = await Run(Tiny(screens, moves, start="pot")).explore()
    assert ("#do_it" in run.taps()) == (deed == "Cancel payment")


def digit_pad(prompt: str) -> tuple[Element, ...]:
    keys = [
        Element("AXButton", d, f"key_{d}", frame=Frame(60 + i % 3 * 100, 330 + i // 3 * 90, 70, 70))
        for i, d in enumerate("1234567890")
    ]
    return (Element("AXStaticText", prompt, frame=Frame(20, 150, 350, 40)), *keys)


async def test_a_pin_pad_is_never_tapped_a_calculator_is() -> None:
    """Monzo's launch: its own keypad asks for the PIN. Tapped, the PIN would land on disk as
    the keys tapped, and wrong ones lock the account: its digits are skipped. A calculator's
    digits, on a screen that asks for no PIN, are tried."""
    pin = Tiny({"home": (*digit_pad("Enter your PIN"), button("forgot", "Forgot PIN?", y=720))})
    run = await Run(pin).explore()
    assert run.taps() == ["#forgot"]
    (screen,) = run.coverage.screens
    assert {f"#key_{d}" for d in "0123456789"} <= set(screen.skipped)
    calculator = Tiny({"home": digit_pad("0")})
    run = await Run(calculator).explore()
    assert {f"#key_{d}" for d in "0123456789"} <= set(run.taps())


async def test_a_control_that_led_to_one_screen_from_two_screens_alike_is_not_tried_on_a_third():
    """Signal's chats: each chat's Info opens the one "Details" screen (a call would be
    an outward deed: never tried). Tried on the
    first chat and on a second alike, it is skipped on the third: it teaches nothing new."""
    chats = ("alice", "bob", "carol")
    screens = {
        "home": (
            heading("Chats"),
            *(button(c, c.title(), "AXCell", 100 + 60 * i) for i, c in enumerate(chats)),
        ),
        "details": (heading("Details"), button("end", "Close")),
    }
    moves = {("details", "#end"): BACK}
    for c in chats:
        screens[c] = (heading(c.title()), button("back", "Back"), button("info", "Info"))
        moves |= {("home", f"#{c}"): c, (c, "#info"): "details", (c, "#back"): BACK}
    run = await Run(Tiny(screens, moves), max_steps=60).explore()
    by_name = {s.name: s for s in run.coverage.screens}
    assert "#info" in by_name["Alice"].tried and "#info" in by_name["Bob"].tried
    carol = by_name["Carol"]
    assert "#info" in carol.skipped and "#info" not in carol.tried and carol.alike, carol
