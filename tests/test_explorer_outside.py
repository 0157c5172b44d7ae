"""What sends or saves outside the app (an HTTP request sent, a file saved on the user's disk,
a document printed): tried at most once per app, last, never walked through, whatever screen
shows it; a terminal app's footer key bound to a quit key is never tried. Hand-built screens
(``Tiny``, as in test_explorer), after a sweep over third-party Textual apps: posting sent a
request from every request tab, textual-paint saved with ctrl+s, browsr's footer 'q' quit."""

from __future__ import annotations

import asyncio

from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st
from test_explorer import BACK, Run, Tiny, button, heading, text_field

from orav.agents import AgentContext
from orav.model import DeviceInfo, Element, Frame, PressKey, Swipe, Tap

WORDS = ("send", "save", "export", "upload", "publish", "print", "download", "share")


def requests(deed: Element, count: int = 3) -> Tiny:
    """posting: a list of requests, each its own screen with other controls and one deed."""
    home = [heading("Requests")]
    screens: dict[str, tuple[Element, ...]] = {}
    moves: dict[tuple[str, str], str] = {}
    for i in range(count):
        home.append(button(f"r{i}", f"Request {i}", "AXCell", 100 + 60 * i))
        screens[f"r{i}"] = (
            heading(f"Request {i}"),
            button("back", "Back", y=40),
            button(f"tab{i}", f"Headers {i}", y=200),  # unlike one another: not screens alike
            deed,
        )
        moves |= {("home", f"#r{i}"): f"r{i}", (f"r{i}", "#back"): BACK}
    return Tiny({"home": tuple(home), **screens}, moves)


def deed_taps(run: Run, label: str) -> list[int]:
    return [
        i
        for i, d in enumerate(run.decisions)
        if isinstance(d.action, Tap) and d.action.target.label == label
    ]


async def test_send_on_every_request_is_tried_once_in_the_app_and_last() -> None:
    send = Element("AXButton", "Send", frame=Frame(300, 100, 60, 30))
    run = await Run(requests(send), max_steps=120).explore()
    assert len(deed_taps(run, "Send")) == 1, run.taps()
    # last: after every other control of every screen, and after the first gesture
    first_gesture = next(i for i, d in enumerate(run.decisions) if isinstance(d.action, Swipe))
    assert deed_taps(run, "Send")[0] > first_gesture
    skipped = [s for s in run.coverage.screens if "'Send'" in s.skipped]
    assert len(skipped) == 2 and all("'Send'" not in s.tried for s in skipped)
    summary = run.decisions[-1].action.summary
    assert "2 skipped: sends or saves outside the app" in summary, summary


@settings(deadline=None, max_examples=25)
@given(
    word=st.sampled_from(WORDS),
    flips=st.lists(st.booleans(), min_size=8, max_size=8),
    before=st.sampled_from(["", "Quick ", "Now "]),
    after=st.sampled_from(["", " request", " it", " as PDF"]),
    count=st.integers(2, 4),
)
def test_a_label_with_a_deed_word_in_any_case_is_never_tried_twice(
    word: str, flips: list[bool], before: str, after: str, count: int
) -> None:
    cased = "".join(c.upper() if flip else c for c, flip in zip(word, flips, strict=False))
    label = f"{before}{cased}{after}"
    deed = Element("AXButton", label, frame=Frame(300, 100, 60, 30))
    run = asyncio.run(Run(requests(deed, count), max_steps=150).explore())
    assert len(deed_taps(run, label)) <= 1, (label, run.taps())
    assert sum(f"'{label}'" in s.skipped for s in run.coverage.screens) == count - 1


async def test_a_forms_save_is_still_its_single_submit_in_the_first_round() -> None:
    """A profile's name form (Signal, Monzo's Change PIN): its Save saves in the app, the form's
    single way on: filled, then tapped once, before any gesture."""
    app = Tiny(
        {
            "form": (heading("Your name"), text_field("name", "Name"), button("save", "Save")),
            "done": (heading("Profile"), button("back", "Back")),
        },
        {("form", "#save"): "done", ("done", "#back"): BACK},
        start="form",
    )
    run = await Run(app).explore()
    kinds = [type(d.action).__name__ for d in run.decisions]
    assert run.taps()[:2] == ["#name", "#save"] and "Swipe" not in kinds[:3]
    assert run.taps().count("#save") == 1


async def test_a_form_whose_field_says_where_it_saves_waits_and_never_returns() -> None:
    """posting's New request: its path field says "a path to save the request to", so its
    Create request writes the disk: tried once, in the second round, and no return key in its
    fields (posting creates on return too)."""
    path = Element(
        "AXTextField",
        "Enter a path to save the request to",
        "directory-input",
        frame=Frame(20, 360, 350, 44),
    )
    dialog = (
        heading("New request"),
        text_field("title-input", "Title"),
        path,
        button("create-button", "Create request", y=420),
    )
    app = Tiny({"new": dialog}, {("new", "#create-button"): BACK}, start="new")
    run = await Run(app).explore()
    assert not any(isinstance(d.action, PressKey) for d in run.decisions), run.decisions
    create = [
        i
        for i, d in enumerate(run.decisions)
        if isinstance(d.action, Tap) and str(d.action.target) == "#create-button"
    ]
    first_gesture = next(i for i, d in enumerate(run.decisions) if isinstance(d.action, Swipe))
    assert len(create) == 1 and create[0] > first_gesture, run.taps()


class TextualRun(Run):
    """``Run`` on a terminal: the explorer offers the app's bindings as keys."""

    def context(self) -> AgentContext:
        context = super().context()
        return evolve(context, device=DeviceInfo(platform="textual", name="tiny"))


def terminal(screen: str, *elements: Element, bindings: tuple[str, ...] = ()) -> tuple:
    app = Element("AXApplication", "Paint", traits=tuple(f"binding:{b}" for b in bindings))
    head = Element("AXWindow", screen, value="Paint", traits=(f"screen:{screen}",))
    return (app, head, *elements)


async def test_a_key_that_saves_is_pressed_once_in_the_app_and_last() -> None:
    """textual-paint: ctrl+s (its binding shows the key, not its words) saves the picture on
    the user's disk. Two screens offer it: it is pressed once, after every other key."""
    keys = ("ctrl+s", "ctrl+o")
    app = Tiny(
        {
            "home": terminal("Paint", button("open", "Open"), bindings=keys),
            "other": terminal("Colours", button("pick", "Pick"), bindings=keys),
        },
        {("home", "#open"): "other"},
    )
    run = await TextualRun(app, max_steps=80).explore()
    pressed = [d.action.key for d in run.decisions if isinstance(d.action, PressKey)]
    assert pressed.count("ctrl+s") == 1, pressed
    screen = next(s for s in run.coverage.screens if "(key ctrl+s)" in s.tried)
    assert screen.tried[-1] == "(key ctrl+s)", screen.tried  # last on its screen
    assert any("(key ctrl+s)" in s.skipped for s in run.coverage.screens)


async def test_a_footer_key_bound_to_q_quits_and_is_never_tapped() -> None:
    """browsr: its footer shows the key alone, 'q'; its binding quits the app."""
    q = Element("AXButton", "q", frame=Frame(0, 29, 3, 1), traits=("binding:q",))
    save = Element("AXButton", "Save", frame=Frame(4, 29, 6, 1), traits=("binding:f2",))
    app = Tiny({"home": terminal("Browser", button("go", "Go"), q, save)})
    run = await TextualRun(app).explore()
    assert "'q'" not in run.taps() and run.taps().count("'Save'") == 1
    (home,) = run.coverage.screens
    assert "'q'" in home.skipped
