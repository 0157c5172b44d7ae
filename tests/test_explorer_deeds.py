"""Deeds known by what they do: the explorer never performs an outward deed, not once, and a
destructive one only in a world orav throws away, listed in the ledger; when every way out of a
screen is a deed it may not do, it starts the app again and goes on.

The screens are hand-built (``Tiny``, as in test_explorer) or generated, with deed words the
generator invents (no word of ``orav/perceive/words.yaml``): structure (a confirmation follows
the control), a binding's description, or the effect in the world's changes must tell. The
ledger is kept as the engine keeps it (``step_deed`` on each step); the world's changes come
from the app model's ``effects`` (a Textual sandbox or the simulator reports them for real).
"""

from __future__ import annotations

import asyncio
import string

from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st
from test_explorer import BACK, Run, Tiny, button, heading, text_field

from orav.agents import AgentContext
from orav.model import (
    DeviceInfo,
    Element,
    FileChange,
    Frame,
    Launch,
    PressKey,
    Tap,
    WorldChanges,
)
from orav.perceive.deeds import by_words
from orav.perceive.words import is_cancel

DELETED = WorldChanges((FileChange("home/notes.md", "deleted"),))


def invented() -> st.SearchStrategy[str]:
    """A word no list of orav's knows."""
    word = st.text(string.ascii_lowercase, min_size=4, max_size=9).map(str.capitalize)
    return word.filter(lambda w: by_words(w) is None and not is_cancel(Element("AXButton", w)))


def alert(title: str, *buttons: Element) -> tuple[Element, ...]:
    box = Element("AXAlert", title, frame=Frame(40, 300, 310, 200))
    return (box, Element("AXStaticText", title, frame=Frame(60, 320, 270, 30)), *buttons)


def tapped(run: Run, target: str) -> int:
    return sum(isinstance(d.action, Tap) and str(d.action.target) == target for d in run.decisions)


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


async def test_an_outward_deed_is_never_tried_not_once_in_any_world() -> None:
    send = Element("AXButton", "Send", frame=Frame(300, 100, 60, 30))
    for disposable in (True, False):
        run = await Run(requests(send), max_steps=120, disposable=disposable).explore()
        assert tapped(run, "'Send'") == 0 and not run.deeds, run.taps()
        assert sum("'Send'" in s.skipped for s in run.coverage.screens) == 3
        assert run.coverage.finished
        summary = run.decisions[-1].action.summary
        assert "3 of them deeds it never does here" in summary, summary


@settings(deadline=None, max_examples=8)
@given(
    opener=invented(),
    title=invented(),
    answer=invented(),
    cancel=st.sampled_from(["Cancel", "Not Now", "Abbrechen", "Annuler", "Keep it"]),
    disposable=st.booleans(),
)
def test_what_a_confirmation_asks_for_in_words_no_list_knows_is_never_confirmed(
    opener: str, title: str, answer: str, cancel: str, disposable: bool
) -> None:
    """The answer's kind cannot be told: outward, never done, in any world. The control that
    asked is consequential: learnt, and never walked through to reach other screens."""
    screens = {
        "home": (heading("Home"), button("opener", opener), button("other", "Other", y=300)),
        "ask": alert(f"{title}?", button("no", cancel, y=440), button("yes", answer, y=400)),
        "other": (heading("Other"), button("back", "Back")),
    }
    moves = {
        ("home", "#opener"): "ask",
        ("ask", "#no"): BACK,
        ("ask", "#yes"): BACK,
        ("home", "#other"): "other",
        ("other", "#back"): BACK,
    }
    run = asyncio.run(Run(Tiny(screens, moves), max_steps=80, disposable=disposable).explore())
    assert tapped(run, "#yes") == 0 and tapped(run, "#no") >= 1, run.taps()
    assert not run.deeds
    assert run.agent._map.known[("#opener", opener)].kind == "outward"
    assert run.coverage.finished


@settings(deadline=None, max_examples=8)
@given(
    label=invented(),
    count=st.integers(2, 4),
    disposable=st.booleans(),
)
def test_a_deed_known_by_its_effect_is_remembered_for_the_rest_of_the_run(
    label: str, count: int, disposable: bool
) -> None:
    """A control in words no list knows deletes a file: the first try cannot be told from any
    other; after it, the control is a destructive deed wherever it shows: never again where
    the world is the user's, never walked through, and in the ledger with its effect."""
    deed = Element("AXButton", label, "act", frame=Frame(300, 100, 60, 30))
    app = requests(deed, count)
    app = evolve(app, effects={(f"r{i}", "#act"): DELETED for i in range(count)})
    run = asyncio.run(Run(app, max_steps=150, disposable=disposable).explore())
    done = [d for d in run.deeds if d.action == "tap #act"]
    assert done and all(d.kind == "destructive" for d in done)
    assert done[0].why == "effect: deleted home/notes.md"
    assert len(done) == (count if disposable else 1), run.taps()
    assert run.agent._map.known[("#act", label)].why == "effect: deleted home/notes.md"


def terminal(
    screen: str, *elements: Element, bindings: tuple[str, ...] = (), quits: tuple[str, ...] = ()
) -> tuple:
    """A terminal app's screen; ``quits``: keys whose binding's action ends the app, as the
    Textual driver reads them (``quits:KEY`` on the app)."""
    traits = tuple(f"binding:{b.partition(':')[0]}" for b in bindings) + tuple(
        f"says:{b}" for b in bindings if ":" in b
    )
    traits += tuple(f"quits:{key}" for key in quits)
    app = Element("AXApplication", "Files", traits=traits)
    head = Element("AXWindow", screen, value="Files", traits=(f"screen:{screen}",))
    return (app, head, *elements)


class TextualRun(Run):
    """``Run`` on a terminal: the explorer offers the app's bindings as keys."""

    def context(self) -> AgentContext:
        context = super().context()
        info = DeviceInfo(platform="textual", name="tiny", disposable=self.device.disposable)
        return evolve(context, device=info)


@settings(deadline=None, max_examples=8)
@given(
    key=st.sampled_from(["x", "d", "f8", "ctrl+k"]),
    verb=st.sampled_from(["Delete", "Trash", "Drop", "Löschen", "Supprimer", "Borrar"]),
    thing=invented(),
    disposable=st.booleans(),
)
def test_a_key_is_known_by_what_its_binding_says(
    key: str, verb: str, thing: str, disposable: bool
) -> None:
    """A file manager's key whose binding says it deletes: pressed in a disposable world
    (after every other key) and listed; never where the world is the user's."""
    app = Tiny(
        {"home": terminal("Files", button("open", "Open"), bindings=(f"{key}:{verb} {thing}",))}
    )
    run = asyncio.run(TextualRun(app, max_steps=60, disposable=disposable).explore())
    pressed = [d.action.key for d in run.decisions if isinstance(d.action, PressKey)]
    assert pressed.count(key) == (1 if disposable else 0), pressed
    (home,) = run.coverage.screens
    if disposable:
        assert home.tried[-1] == f"(key {key})"
        (deed,) = run.deeds
        assert deed.kind == "destructive" and f"binding '{verb} {thing}'" in deed.why
    else:
        assert f"(key {key})" in home.skipped and not run.deeds


async def test_a_bare_delete_key_is_a_deed_by_its_name() -> None:
    """A file manager that binds ``delete`` and says nothing of it deletes without asking."""
    app = Tiny({"home": terminal("Files", button("open", "Open"), bindings=("delete",))})
    run = await TextualRun(app, max_steps=40, disposable=False).explore()
    assert not any(
        isinstance(d.action, PressKey) and d.action.key == "delete" for d in run.decisions
    )


async def test_cornered_is_not_finished_the_app_starts_again() -> None:
    """A mail app: after Cancel on a draft the only ways out are Delete Draft and Save Draft.
    Where the world is the user's, neither is done: the app starts again and the explorer
    goes on to the rest of the inbox."""
    screens = {
        "home": (
            heading("Inbox"),
            button("compose", "Compose"),
            button("mailboxes", "Mailboxes", y=300),
        ),
        "draft": (heading("New Message"), button("cancel", "Cancel", y=40)),
        "sheet": alert(
            "Draft",
            button("delete_draft", "Delete Draft", y=400),
            button("save_draft", "Save Draft", y=450),
        ),
        "boxes": (heading("Mailboxes"), button("back", "Back", y=40)),
    }
    moves = {
        ("home", "#compose"): "draft",
        ("draft", "#cancel"): "sheet",
        ("sheet", "#delete_draft"): BACK,
        ("home", "#mailboxes"): "boxes",
        ("boxes", "#back"): BACK,
    }
    run = await Run(Tiny(screens, moves), max_steps=120, disposable=False).explore()
    assert tapped(run, "#delete_draft") == tapped(run, "#save_draft") == 0
    assert Launch(fresh=True) in [d.action for d in run.decisions]
    assert "Mailboxes" in run.names() and run.coverage.finished
    assert not run.deeds


async def test_a_forms_save_is_its_single_submit_where_the_world_is_orav_s() -> None:
    """A profile's name form (Signal, Monzo's Change PIN): its Save overwrites what the app
    holds. In a disposable world it is the form's single way on, filled then tapped once,
    before any gesture; in the user's world never, nor the return that would submit it."""
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
    assert [d.kind for d in run.deeds] == ["destructive"]
    run = await Run(app, disposable=False).explore()
    assert "#save" not in run.taps()
    assert not any(isinstance(d.action, PressKey) for d in run.decisions)


async def test_a_form_whose_field_says_where_it_saves_is_that_deed() -> None:
    """posting's New request: its path field says "a path to save the request to": its
    Create request and the return in its fields would write the disk; never in the user's
    world."""
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
    run = await Run(app, disposable=False).explore()
    assert not any(isinstance(d.action, PressKey) for d in run.decisions), run.decisions
    assert "#create-button" not in run.taps() and not run.deeds


@settings(deadline=None, max_examples=6)
@given(
    key=st.sampled_from(["q", "x", "f10", "ctrl+w", "escape+z"]),
    label=st.sampled_from(["q", "Leave", "Feierabend", "Au revoir"]),
)
def test_a_footer_key_whose_binding_ends_the_app_is_never_tapped(key: str, label: str) -> None:
    """Known by the binding's action, whatever the key or the words (browsr's footer shows the
    key alone, "q"); a footer key on q that does not end the app is tried as any other."""
    leave = Element("AXButton", label, frame=Frame(0, 29, 9, 1), traits=(f"binding:{key}",))
    queue = Element("AXButton", "Queue", frame=Frame(10, 29, 7, 1), traits=("binding:q",))
    footer = (leave, queue) if key != "q" else (leave,)
    app = Tiny({"home": terminal("Browser", button("go", "Go"), *footer, quits=(key,))})
    run = asyncio.run(TextualRun(app).explore())
    assert f"'{label}'" not in run.taps()
    (home,) = run.coverage.screens
    assert f"'{label}'" in home.skipped
    if key != "q":
        assert run.taps().count("'Queue'") == 1
