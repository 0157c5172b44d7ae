"""Is this control, or this action, an outward or a destructive deed, and why?

One answer for the explorer (what it may try), the engine's ledger (what the agent did) and
the remedies (what they may press), in this order of trust:

1. **structure**: a confirmation on screen (an alert, action sheet or modal that asks a
   question, whose answers are buttons, at least two of them, and nothing to fill in or set
   beside them) makes every
   answer but its cancel answer a deed: the affirmative answer is what the control that
   opened it was about. An answer that cannot be told from a cancel is a deed too; the
   cancel answer never is, whatever its words ("Don't Allow"). A modal of buttons alone asks
   nothing: it is a menu; one with a switch or a picker is a panel of settings: their
   choices are judged as any control;
2. **effect**: a step after which the world reports files or app data changed or deleted
   (``WorldChanges``) that were there before the run (the engine's tally tells: an app's
   settings file it wrote in this run is nobody's) was a destructive deed, whatever it said
   (``effect_deed``);
3. **words**, the last resort, from one data file (``words.yaml``: stems in English, German,
   French and Spanish) read in a control's label, its id and its key binding's description.
   A row of a list is not judged by its words: it most often opens a page named so.

A deed whose kind nothing says (a confirmation in words no list knows) is **outward**: the
kind never performed, since what it reaches cannot be told.
"""

from __future__ import annotations

from attrs import frozen

from orav.model import (
    Action,
    Element,
    Observation,
    PressKey,
    Swipe,
    Tap,
    TypeText,
    WorldChanges,
)
from orav.model.deed import DeedKind
from orav.perceive.occlusion import first_overlay, modal_elements
from orav.perceive.per_tree import per_tree
from orav.perceive.roles import BUTTON_ROLES, SETTING_ROLES, is_text_field, text_of
from orav.perceive.targets import target_element
from orav.perceive.words import declining, finds

# A binding's description, on the element that defines the binding: ``says:KEY:DESCRIPTION``
# (the companion's facts), beside its ``binding:KEY``.
SAYS = "says:"
ESCAPE = "escape"


@frozen
class Verdict:
    """A deed's kind and how it was known: ``why`` is "confirms 'Drop table?'", "words:
    trash", "binding 'Delete file'", "effect: deleted home/notes.md"."""

    kind: DeedKind
    why: str


# UIKit's navigation bar back button: it goes back, whatever title it bears ("Pay someone").
BACK_BUTTON = "BackButton"


def words_of(element: Element) -> str:
    """What a control says it does: what a person reads (its label; its id when the label
    has no letters, as a "−" button's ``minus_mug``) and its bindings' descriptions. An id
    behind a label is the app's naming, not the deed: "Next" is no payment for its id
    ``pay_next``."""
    described = [
        t.removeprefix(SAYS).partition(":")[2] for t in element.traits if t.startswith(SAYS)
    ]
    label = element.label or ""
    said = label if any(c.isalpha() for c in label) else element.unique_id
    return " ".join(w for w in (said, *described) if w)


def by_words(text: str) -> Verdict | None:
    """The deed ``text`` names, outward before destructive, or None."""
    for kind in ("outward", "destructive"):
        found = finds(kind, text)
        if found:
            return Verdict(kind, f"words: {found}")
    return None


@frozen
class Confirmation:
    """A dialog that asks before a deed: its ``question`` (title and message), its
    ``affirmative`` answers (each a deed) and its ``cancel`` answer, if one says so."""

    question: str
    affirmative: tuple[Element, ...]
    cancel: Element | None


def confirmation(observation: Observation) -> Confirmation | None:
    """The confirmation on screen, or None: an alert, action sheet or modal (the first, as
    ``orav.perceive.interruption`` finds it), else an overlay drawn over a control (a
    consent banner over a heart), that asks a question (a title or text that is not one of
    its answers), with at least two buttons and nothing else to fill in or set. One button
    only acknowledges ("Saved. OK"); a dialog with fields is a form, one with a switch or a
    picker a panel of settings (its texts are their labels, not a question); a dialog of
    buttons alone asks nothing: it is a menu. The choices of a form, a panel or a menu are
    each judged on its own. Its cancel answer is its declining one
    (``orav.perceive.words.declining``)."""
    return _confirmation(observation.elements)


@per_tree
def _confirmation(elements: tuple[Element, ...]) -> Confirmation | None:
    group = _asking(elements)
    if not group or any(is_text_field(e) or e.role in SETTING_ROLES for e in group):
        return None
    buttons, question = _buttons(group), _question(group)
    if len(buttons) < 2 or not question:
        return None
    cancel = declining(buttons)
    return Confirmation(
        question=question,
        affirmative=tuple(b for b in buttons if b is not cancel),
        cancel=cancel,
    )


def _asking(elements: tuple[Element, ...]) -> tuple[Element, ...]:
    """What may ask a question on a screen: the modal (the dialog first), else the overlay
    over a control (``orav.perceive.occlusion.overlay``)."""
    modal = modal_elements(elements)
    cover = None if modal else first_overlay(elements)
    return modal or (cover.elements if cover is not None else ())


def _buttons(group: tuple[Element, ...]) -> list[Element]:
    """A dialog's buttons a target reaches (by label or id)."""
    return [e for e in group if e.role in BUTTON_ROLES and (e.label or e.unique_id)]


def _question(modal: tuple[Element, ...]) -> str:
    """What a dialog asks: its texts but the buttons', each once (a title the text repeats)."""
    texts = [text_of(e) or "" for e in modal if e.role not in BUTTON_ROLES]
    return " ".join(dict.fromkeys(t for t in texts if t))


def control_deed(element: Element, observation: Observation) -> Verdict | None:
    """Whether a tap on ``element``, on the screen ``observation`` shows, is a deed, and why.

    The affirmative answer of a confirmation on screen is one: of the kind its words or the
    question's say, else outward (``why``: "confirms 'Delete payee?'"); its declining answer
    never is, though its words would say so ("Don't Allow"). Elsewhere a control
    is one when its words name a deed (never a text field, nor a row of a list). Stable: the
    same element on the same screen gets the same verdict, so remedies, the explorer and the
    ledger agree. Effect is not seen here: ``effect_deed`` says what a step changed."""
    asked = confirmation(observation)
    if asked is not None and element == asked.cancel:
        return None  # declining is never a deed ("Don't Allow" grants nothing)
    if asked is not None and element in asked.affirmative:
        return _confirms(element, asked)
    if is_text_field(element) or element.role == "AXCell" or element.unique_id == BACK_BUTTON:
        return None
    return by_words(words_of(element)) or _bound_deed(element, observation)


def _confirms(element: Element, asked: Confirmation) -> Verdict:
    """An affirmative answer's deed: of the kind its words or the question's say, else
    outward."""
    said = by_words(words_of(element)) or by_words(asked.question)
    kind = said.kind if said else "outward"
    question = asked.question or (element.label or "")
    return Verdict(kind, f"confirms {question!r}" + (f" ({said.why})" if said else ""))


def _bound_deed(element: Element, observation: Observation) -> Verdict | None:
    """The deed of the first key bound to the control (a footer key's) that is one."""
    keys = [t.removeprefix("binding:") for t in element.traits if t.startswith("binding:")]
    return next((deed for key in keys if (deed := key_deed(key, observation)) is not None), None)


def key_deed(key: str, observation: Observation) -> Verdict | None:
    """Whether pressing ``key`` is a deed: by what its binding says it does (the description
    the app gives it, also a footer key's label), else, when the binding says nothing, by the
    key's own name (a bare ``delete``: a footer then shows "del"); a key no binding of the app
    takes is none. Escape while a confirmation asks leaves it unanswered: it declines,
    whatever its description says ("Don't save")."""
    if key == ESCAPE and confirmation(observation) is not None:
        return None
    bound = False
    for element in observation.elements:
        for trait in element.traits:
            said, _, description = trait.removeprefix(SAYS).partition(":")
            if trait.startswith(SAYS) and said == key and description:
                return _said(by_words(description), f"binding {description!r}")
        bound = bound or f"binding:{key}" in element.traits
    return _said(by_words(key), f"key {key!r}") if bound else None


def _said(verdict: Verdict | None, how: str) -> Verdict | None:
    return Verdict(verdict.kind, f"{how} ({verdict.why})") if verdict else None


def action_deed(action: Action, observation: Observation) -> Verdict | None:
    """Whether ``action``, decided on ``observation``, is a deed: a tap by its target
    (``control_deed``), a key press by its binding (``key_deed``); typing, waits, swipes and
    checks never are."""
    if isinstance(action, Tap) and action.target is not None:
        element = target_element(observation, action.target)
        return control_deed(element, observation) if element is not None else None
    if isinstance(action, PressKey) and isinstance(action.key, str):
        return key_deed(action.key, observation)
    return None


def step_deed(action: Action, before: Observation, changes: WorldChanges) -> Verdict | None:
    """A step as a deed, for the ledger: by what the action was on the screen it was decided
    on (``action_deed``) and by what it changed (``effect_deed``; the kind the action's own
    verdict says when both tell); None when neither. Only an input to the app has an effect:
    what changes during a wait, a check or a launch is the app's own doing."""
    known = action_deed(action, before)
    acts = isinstance(action, (Tap, PressKey, TypeText, Swipe))
    effect = effect_deed(changes) if acts else None
    if known is None and effect is None:
        return None
    kind = known.kind if known is not None else "destructive"
    return Verdict(kind, "; ".join(v.why for v in (known, effect) if v is not None))


def effect_deed(changes: WorldChanges) -> Verdict | None:
    """A destructive deed known by its effect: files or app data changed or deleted (what is
    only created harms nothing that was there), else None."""
    lost = [f"{c.change} {c.path}" for c in changes.files if c.change != "created"]
    if not lost:
        return None
    more = f" and {len(lost) - 3} more" if len(lost) > 3 else ""
    return Verdict("destructive", "effect: " + ", ".join(lost[:3]) + more)
