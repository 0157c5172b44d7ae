"""Where an action lands: the one target-resolution rule, used by the engine, the occlusion
check and every remedy, so all of them mean the same element.

When nothing matches, ``near_miss`` says what is there instead: the element with the target's
id but another label (or the reverse), else the nearest id or label on the screen ("did you
mean").

The rule itself is ``orav.model.locate`` (controls before plain text, enabled first, then the
first in pre-order; elements without a size never match); this module applies it to actions.
"""

from __future__ import annotations

import difflib

from attrs import evolve

from orav.model import Action, Element, Observation, Point, Swipe, Tap, Target, TypeText
from orav.model.observation import locate
from orav.perceive.identity import element_key, steady
from orav.perceive.occlusion import modal_elements, open_point, reachable
from orav.perceive.per_tree import per_tree


def target_element(observation: Observation, target: Target | None) -> Element | None:
    """The element ``target`` means on ``observation``, or None (selectors are the driver's).

    ``locate``'s rule, with what is on top (``orav.perceive.occlusion``) first and last: while
    an alert or modal is up a tap can reach only it, so a match inside it comes first ("Sign
    out" on a "Sign out?" alert, not the button behind it); of otherwise equal matches, one a
    tap can reach comes before one covered (by a banner, a toast, the keyboard). A control
    covered is still meant before plain text: the engine reports the cover, and never taps it.
    A label with a ticking value in it (a clock, a percentage) that no longer shows means the
    one element whose label is the same but for that value (``orav.perceive.identity``).
    Asked once per tree and target (``orav.perceive.per_tree``): a step asks it while
    reasoning (its cover), acting (where to tap) and judging the deed."""
    if target is None or (target.label is None and target.id is None):
        return None
    return _meant(observation.elements, target)


@per_tree
def _meant(elements: tuple[Element, ...], target: Target) -> Element | None:
    observation = Observation(elements=elements)
    found = locate(elements, target.label, target.id)
    if found is None:
        return _ticked_on(observation, target)
    matches = [e for e in elements if e.matches(target.label, target.id) and not e.frame.is_empty]
    return found if len(matches) == 1 else _first(observation, matches)


def same_element(observation: Observation, element: Element) -> Element | None:
    """The element on ``observation`` that is ``element`` seen before: the same by what stays
    of it (``orav.perceive.identity``: its stable id, a cell's column and row, its label but
    for a ticking value), the first of several by the target rule's order; None if gone."""
    key = element_key(element)
    matches = [e for e in observation.elements if not e.frame.is_empty and element_key(e) == key]
    return _first(observation, matches) if matches else None


def _first(observation: Observation, matches: list[Element]) -> Element:
    """Of several matches: one inside what is on top, a control, enabled, one a tap reaches."""
    modal = modal_elements(observation.elements)
    return min(
        matches,
        key=lambda e: (
            bool(modal) and e not in modal,
            not e.interactive,
            not e.enabled,
            not reachable(observation, e),
        ),
    )


def _ticked_on(observation: Observation, target: Target) -> Element | None:
    """The one element the target means though its ticking value moved on, else None."""
    label = target.label
    if label is None or steady(label) == label:
        return None
    matches = [
        e
        for e in observation.elements
        if e.label is not None
        and steady(e.label) == steady(label)
        and target.id in (None, e.unique_id)
        and not e.frame.is_empty
    ]
    return matches[0] if len(matches) == 1 else None


def action_element(observation: Observation, action: Action) -> Element | None:
    """The element an action is aimed at: a tap's target, or the field that text goes into."""
    if isinstance(action, Tap):
        return target_element(observation, action.target)
    if isinstance(action, TypeText):
        return observation.focused
    return None


def action_point(observation: Observation, action: Action) -> Point | None:
    """Where on screen an action lands: a tap's point or its target's (``resolve``), a
    swipe's start."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            return Point(action.x, action.y)
        element = target_element(observation, action.target)
        return _aim(observation, element) if element is not None else None
    if isinstance(action, Swipe):
        return action.start
    return None


def resolve(action: Action, observation: Observation) -> Action:
    """Give a targeted tap the point of its element on ``observation`` a tap reaches: its
    centre, else its uncovered spot nearest the centre, and the label it shows now when its
    ticking value moved on (unchanged when the tap has coordinates already, or the target is
    not there)."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        element = target_element(observation, action.target)
        if element is not None:
            point = _aim(observation, element)
            target = action.target
            if target.label is not None and element.label != target.label:
                target = evolve(target, label=element.label)
            return evolve(action, x=point.x, y=point.y, target=target)
    return action


def _aim(observation: Observation, element: Element) -> Point:
    """Where a tap on ``element`` goes: a point nothing covers, else its centre (a covered
    target is reported, never tapped, by the engine)."""
    return open_point(observation, element) or element.frame.center


def tap_on(element: Element) -> Tap:
    """A tap on an element by id or label when it has one (readable in cassettes), else at
    its centre."""
    if element.unique_id or element.label:
        return Tap(target=Target(label=element.label, id=element.unique_id))
    centre = element.frame.center
    return Tap(centre.x, centre.y)


def near_miss(observation: Observation, target: Target) -> str:
    """What the screen has where ``target`` found nothing ("" when nothing is near): the element
    with its id and another label (or its label and another id), else the nearest id or label
    on the screen by difflib's ratio."""
    shown = [e for e in observation.elements if not e.frame.is_empty]
    if target.id is not None and target.label is not None:
        half = _half_match(shown, target.id, target.label)
        if half:
            return half
    if target.id is not None:
        near = nearest(target.id, [e.unique_id for e in shown])
        return f"did you mean #{near}?" if near else ""
    near = nearest(target.label or "", [e.label for e in shown])
    return f"did you mean {near!r}?" if near else ""


def _half_match(shown: list[Element], unique_id: str, label: str) -> str:
    """The element with the id but another label, else the one with the label but another id
    ("" when neither is there)."""
    same_id = next((e for e in shown if e.unique_id == unique_id), None)
    if same_id is not None:
        value = f", value {same_id.value!r}" if same_id.value else ""
        return f"#{unique_id} is there, labelled {same_id.label!r}{value}"
    same_label = next((e for e in shown if e.label == label), None)
    if same_label is None:
        return ""
    other = f"#{same_label.unique_id}" if same_label.unique_id else "no id"
    return f"{label!r} is there, with {other}"


def nearest(word: str, words: list[str | None]) -> str | None:
    """The closest of ``words`` to ``word`` by difflib's ratio (0.6 at least), if any."""
    near = difflib.get_close_matches(word, dict.fromkeys(w for w in words if w), n=1, cutoff=0.6)
    return near[0] if near else None
