"""Deeds known by structure, effect and, last, words (``orav.perceive.deeds``).

The confirmations are generated with words the generator invents (no word of ``words.yaml``):
structure alone must say which answer is the deed.
"""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from orav.model import (
    Element,
    FileChange,
    Frame,
    Observation,
    PressKey,
    Tap,
    Target,
    TypeText,
    WorldChanges,
)
from orav.perceive.deeds import (
    action_deed,
    by_words,
    confirmation,
    control_deed,
    effect_deed,
    key_deed,
)
from orav.perceive.words import finds, is_cancel, plain_words

SCREEN = Frame(0, 0, 390, 844)
ALERT = Frame(40, 300, 310, 200)


def invented() -> st.SearchStrategy[str]:
    """A word no list of orav's knows."""
    word = st.text(string.ascii_lowercase, min_size=4, max_size=10)
    return word.map(str.capitalize).filter(
        lambda w: by_words(w) is None and not is_cancel(Element("AXButton", w))
    )


def screen(*elements: Element) -> Observation:
    return Observation(elements=(Element("AXApplication", "App", frame=SCREEN), *elements))


def button(label: str, x: float = 60, y: float = 440, uid: str | None = None) -> Element:
    return Element("AXButton", label, uid, frame=Frame(x, y, 120, 44))


def alert(title: str, *answers: Element, message: str = "") -> tuple[Element, ...]:
    texts = [Element("AXStaticText", message, frame=Frame(60, 360, 270, 40))] if message else []
    return (Element("AXAlert", title, frame=ALERT), *texts, *answers)


@given(invented(), invented(), invented(), st.sampled_from(["Cancel", "Not Now", "Abbrechen"]))
def test_a_confirmations_affirmative_answer_is_a_deed_whatever_it_says(
    title: str, word: str, behind: str, cancel: str
) -> None:
    yes, no = button(word, 200), button(cancel, 60)
    seen = screen(button(behind, 20, 100), *alert(f"{title}?", no, yes))
    verdict = control_deed(yes, seen)
    assert verdict is not None and verdict.kind == "outward"  # nothing says which: outward
    assert title in verdict.why
    assert control_deed(no, seen) is None
    assert control_deed(seen.elements[1], seen) is None  # the control behind is no answer
    assert action_deed(Tap(target=Target(label=word)), seen) == verdict


@given(invented(), invented(), invented())
def test_answers_none_of_which_declines_are_all_deeds(title: str, one: str, two: str) -> None:
    first, second = button(one, 60), button(two, 200)
    seen = screen(*alert(title, first, second))
    asked = confirmation(seen)
    assert asked is not None and asked.cancel is None
    assert control_deed(first, seen) is not None and control_deed(second, seen) is not None


@given(invented(), invented())
def test_one_answer_acknowledges_and_a_dialog_with_fields_is_a_form(title: str, word: str) -> None:
    assert confirmation(screen(*alert(title, button(word)))) is None
    field = Element("AXTextField", "Name", frame=Frame(60, 400, 200, 30))
    assert confirmation(screen(*alert(title, field, button(word), button("Cancel", 200)))) is None


def test_a_declining_answer_is_never_a_deed_whatever_its_words_say() -> None:
    """ "Don't Allow" holds "allow", an outward word: as a confirmation's declining answer it
    grants nothing. Outside a confirmation the words are all there is."""
    deny, grant = button("Don’t Allow", 60), button("Allow", 200)
    seen = screen(*alert("“Trips” would like to find devices", deny, grant))
    assert control_deed(deny, seen) is None
    assert action_deed(Tap(target=Target(label="Don’t Allow")), seen) is None
    assert control_deed(grant, seen).kind == "outward"  # type: ignore[union-attr]


@given(invented(), invented(), invented())
def test_a_dialog_of_buttons_alone_asks_nothing_it_is_a_menu(
    one: str, two: str, three: str
) -> None:
    """A modal with no question (a menu: "🧨 Sprengen", "📤 Als CSV", "✕") is no
    confirmation: each choice is judged on its own, as a button on a screen is."""
    choices = (button(f"🧨 {one}", 60), button(two, 200), button(three, 60, 500))
    menu = screen(Element("AXDialog", None, frame=SCREEN, traits=("modal",)), *choices)
    assert confirmation(menu) is None
    assert [control_deed(c, menu) for c in choices] == [None, None, None]
    erase = button(f"{one} löschen", 200, 560)
    assert control_deed(erase, screen(*menu.elements[1:], erase)).kind == "destructive"  # type: ignore[union-attr]
    asked = screen(Element("AXDialog", f"{one}?", frame=SCREEN, traits=("modal",)), *choices)
    assert confirmation(asked) is not None  # the same answers under a question


def test_the_question_or_the_answer_says_which_kind() -> None:
    drop = button("Yes", 200)
    seen = screen(*alert("Drop table users?", button("No"), drop))
    assert control_deed(drop, seen).kind == "destructive"  # type: ignore[union-attr]
    sure = button("Cancel payment", 200)
    seen = screen(*alert("Are you sure?", button("Keep it"), sure))
    assert control_deed(sure, seen).kind == "destructive"  # type: ignore[union-attr]
    grant = button("Allow", 200)
    seen = screen(*alert("“Trips” would like to track you", button("Ask App Not to Track"), grant))
    assert control_deed(grant, seen).kind == "outward"  # type: ignore[union-attr]


def test_words_in_four_languages_and_their_edges() -> None:
    cases = {
        "💥 Drop Table": "destructive",
        "Trash": "destructive",
        "Mark All as Read": "destructive",
        "confirmDelete_payee": "destructive",
        "Alle als gelesen markieren": "destructive",
        "Supprimer le message": "destructive",
        "Borrar": "destructive",
        "Rate": "outward",
        "Sign in with Google": "outward",
        "Senden": "outward",
        "Partager": "outward",
        "Enviar": "outward",
    }
    for text, kind in cases.items():
        verdict = by_words(text)
        assert verdict is not None and verdict.kind == kind, text
    for text in ("Done", "Cancel", "Saved", "Bookmarks", "Borrador", "Calls", "Notes", "Dialog"):
        assert by_words(text) is None, text
    assert plain_words("confirmDrop_table-now") == "confirm drop table now"
    assert finds("quit", "Quit app") == "quit" and finds("sign_out", "Log Out") == "log out"


def test_rows_and_fields_are_not_judged_by_their_words() -> None:
    row = Element("AXCell", "Transfer or Reset iPhone", frame=Frame(0, 100, 390, 44))
    field = Element("AXTextField", "Message to send", frame=Frame(0, 200, 390, 44))
    seen = screen(row, field)
    assert control_deed(row, seen) is None and control_deed(field, seen) is None
    back = Element("AXButton", "Pay someone", "BackButton", frame=Frame(8, 47, 110, 44))
    assert control_deed(back, screen(back)) is None  # UIKit's Back bears the last title
    next_ = Element("AXButton", "Next", "pay_next", frame=Frame(20, 700, 350, 50))
    assert control_deed(next_, screen(next_)) is None  # an id behind a label is no word
    minus = Element("AXButton", "−", "minus_mug", frame=Frame(20, 400, 44, 44))
    assert control_deed(minus, screen(minus)).kind == "destructive"  # type: ignore[union-attr]
    assert action_deed(TypeText("hello"), seen) is None


def test_a_key_is_read_by_what_its_binding_says() -> None:
    traits = ("binding:x", "says:x:Shred it", "binding:k", "says:k:Delete file")
    app = Element("AXApplication", "Files", frame=SCREEN, traits=traits)
    footer = Element("AXButton", "Delete file", frame=Frame(0, 40, 10, 1), traits=("binding:k",))
    seen = Observation(elements=(app, footer))
    verdict = key_deed("k", seen)
    assert verdict is not None and verdict.kind == "destructive" and "Delete file" in verdict.why
    assert key_deed("x", seen) is None  # "shred" is in no list: effect must tell
    bare = Observation(elements=(Element("AXApplication", "F", traits=("binding:delete",)),))
    assert key_deed("delete", bare).kind == "destructive"  # type: ignore[union-attr]
    assert key_deed("delete", Observation(elements=(app,))) is None  # no binding takes it
    assert action_deed(PressKey("k"), seen) == verdict
    # a footer that shows only the key ("del"): the binding says nothing, the key's name does
    del_ = Element("AXButton", "del", frame=Frame(0, 40, 3, 1), traits=("binding:delete",))
    shown = Observation(elements=(Element("AXApplication", "Files", frame=SCREEN), del_))
    assert control_deed(del_, shown).kind == "destructive"  # type: ignore[union-attr]


def test_an_effect_that_changed_or_deleted_is_a_destructive_deed() -> None:
    assert effect_deed(WorldChanges()) is None
    assert effect_deed(WorldChanges((FileChange("home/new.txt", "created"),))) is None
    verdict = effect_deed(
        WorldChanges(
            (FileChange("home/notes.md", "deleted"), FileChange("work/sample.db", "changed"))
        )
    )
    assert verdict is not None and verdict.kind == "destructive"
    assert verdict.why == "effect: deleted home/notes.md, changed work/sample.db"


@given(invented(), invented(), invented(), invented())
def test_a_banner_drawn_over_a_control_asks_its_answers_are_deeds(
    heart: str, text: str, yes: str, more: str
) -> None:
    """A banner drawn over a control (no role says dialog: only the drawing order does) asks
    a question: every answer but a declining one is a deed, whatever it says; a declining
    answer ("Reject all") is none. The same banner over nothing asks nothing."""
    under = button(heart, 300, 620)
    banner = (
        Element("AXStaticText", f"{text}.", frame=Frame(0, 600, 390, 90)),
        button(yes, 20, 694),
        button(more, 200, 694),
    )
    seen = screen(under, *banner)
    assert control_deed(banner[1], seen).kind == "outward"  # type: ignore[union-attr]
    assert control_deed(banner[2], seen) is not None
    reject = button("Reject all", 200, 694)
    seen = screen(under, *banner[:2], reject)
    assert control_deed(reject, seen) is None and control_deed(banner[1], seen) is not None
    assert confirmation(screen(*banner)) is None  # over no control: the screen's own text


def test_escape_while_a_question_asks_declines_whatever_its_binding_says() -> None:
    """A terminal dialog's escape binding described "Don't save changes" ("save" is a
    destructive word): while the dialog asks, escape leaves it unanswered, no deed; the same
    binding on a screen that asks nothing is read by its words."""
    traits = ("binding:escape", "says:escape:Don't save changes")
    dialog = Element("AXDialog", "Quit without saving?", frame=SCREEN, traits=("modal", *traits))
    asking = screen(dialog, button("Quit", 60), button("Stay", 200))
    assert key_deed("escape", asking) is None
    assert action_deed(PressKey("escape"), asking) is None
    plain = Observation(elements=(Element("AXApplication", "App", frame=SCREEN, traits=traits),))
    assert key_deed("escape", plain).kind == "destructive"  # type: ignore[union-attr]


@given(
    invented(), invented(), invented(), st.sampled_from(["AXSwitch", "AXPopUpButton", "AXCheckBox"])
)
def test_a_dialog_that_sets_something_is_a_panel_not_a_question(
    title: str, one: str, two: str, role: str
) -> None:
    """A modal with a title, a setting (its label beside it) and two buttons: a panel of
    settings (meine's), not a confirmation; each button is judged on its own, so two in
    words no list knows are no deed."""
    setting = (Element("AXStaticText", f"{one} {two}", frame=Frame(60, 330, 200, 20)),)
    setting += (Element(role, None, "setting", frame=Frame(260, 330, 60, 30)),)
    first, second = button(one, 60), button(two, 200)
    panel = screen(*alert(title.upper(), *setting, first, second))
    assert confirmation(panel) is None
    assert control_deed(first, panel) is None and control_deed(second, panel) is None
    assert confirmation(screen(*alert(f"{title}?", first, second))) is not None  # no setting
