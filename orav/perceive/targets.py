"""Where an action lands: the one target-resolution rule, used by the engine, the keyboard
check and every remedy, so all of them mean the same element.

The rule itself is ``orav.model.locate`` (controls before plain text, enabled first, then the
first in pre-order; elements without a size never match); this module applies it to actions.
"""

from __future__ import annotations

from attrs import evolve

from orav.model import Action, Element, Observation, Point, Swipe, Tap, Target, TypeText
from orav.model.observation import locate
from orav.perceive.roles import is_alert


def target_element(observation: Observation, target: Target | None) -> Element | None:
    """The element ``target`` means on ``observation``, or None (selectors are the driver's).

    While an alert or modal is up, a tap can reach only it: a match inside it comes first
    ("Sign out" on a "Sign out?" alert, not the button behind it)."""
    if target is None or (target.label is None and target.id is None):
        return None
    modal = modal_elements(observation.elements)
    found = locate(modal, target.label, target.id) if modal else None
    return found or locate(observation.elements, target.label, target.id)


def modal_elements(elements: tuple[Element, ...]) -> tuple[Element, ...]:
    """The first alert or modal and what belongs to it: the elements after it in pre-order
    inside its frame (the whole rest of the tree when it has no frame, as a terminal modal)."""
    index = next((i for i, e in enumerate(elements) if is_alert(e)), None)
    if index is None:
        return ()
    frame = elements[index].frame
    inside = tuple(
        e
        for e in elements[index + 1 :]
        if frame.is_empty or e.frame.is_empty or frame.contains(e.frame.center)
    )
    return (elements[index], *inside)


def action_element(observation: Observation, action: Action) -> Element | None:
    """The element an action is aimed at: a tap's target, or the field that text goes into."""
    if isinstance(action, Tap):
        return target_element(observation, action.target)
    if isinstance(action, TypeText):
        return observation.focused
    return None


def action_point(observation: Observation, action: Action) -> Point | None:
    """Where on screen an action lands: a tap's point or target centre, a swipe's start."""
    if isinstance(action, Tap):
        if action.x is not None and action.y is not None:
            return Point(action.x, action.y)
        element = target_element(observation, action.target)
        return element.frame.center if element is not None else None
    if isinstance(action, Swipe):
        return action.start
    return None


def resolve(action: Action, observation: Observation) -> Action:
    """Give a targeted tap the centre of its element on ``observation`` (unchanged when the
    tap has coordinates already, or the target is not there)."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        element = target_element(observation, action.target)
        if element is not None:
            centre = element.frame.center
            return evolve(action, x=centre.x, y=centre.y)
    return action


def tap_on(element: Element) -> Tap:
    """A tap on an element by id or label when it has one (readable in cassettes), else at
    its centre."""
    if element.unique_id or element.label:
        return Tap(target=Target(label=element.label, id=element.unique_id))
    centre = element.frame.center
    return Tap(centre.x, centre.y)
