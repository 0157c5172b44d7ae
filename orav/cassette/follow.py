"""Whether a recorded decision still holds on the live screen, and as what: the one matcher of
the decision cache (``orav.cassette.reuse``, ``--record-mode new_episodes``) and of a live
rerun (``orav.cassette.rerun``), so both follow a recording onto the same changed screens.

API::

    recorded_decisions(cassette)          # each recorded decide with the screen it was made on
    follow(recorded, context)             # Held(decision, heal) or Missed(kind, expected, found)
    heal_target(seen, live, target)       # the live element a recorded target means, and how

A recorded decision holds on the live screen when:

- it is the recorded screen by the one screen identity (``orav.perceive.screen_id``): a moved
  control, a renamed id, a relabelled button, a reordered or grown list, typed values and the
  clock leave it the same screen; a screen with no tree is the same by its text, else its
  screenshot (nothing else is there to heal by);
- a tap's element is re-found live (``heal_target``): as recorded; else by the recorded
  element's id, its label, then the control of its role at its recorded position, never under
  a cover. A tap by coordinates means the control under its point, re-found the same way; the
  point keeps its place on the element, so a tap follows a moved control. Found any way but
  the first, or at another point, the decision is re-aimed and the step is a ``Heal``;
- text goes into a field that holds what the recorded one held ("type alice" is not reused on
  a field that holds other text);
- a secret is typed again from its stand-in (``{{password}}``, the cassette's record of it:
  never the value) and the live scenario's secrets; a secret the cassette holds as
  ``••••••`` only, from the scenario's script when its step is what was recorded.

Anything else is ``Missed``: ``screen``, ``target``, ``field`` or ``secret``.
"""

from __future__ import annotations

from attrs import evolve, frozen

from orav.agents import AgentContext
from orav.agents.scripted import ScriptedAgent
from orav.cassette.events import DecideEvent, ObserveEvent
from orav.cassette.reader import Cassette
from orav.cassette.redact import matches_redacted
from orav.codec import unstructure
from orav.errors import AgentError
from orav.model import Decision, Element, Heal, ModelCall, Observation, Tap, Target, TypeText
from orav.perceive import screen_id, screen_name, target_element
from orav.perceive.assertions import show_target
from orav.perceive.identity import steady
from orav.perceive.occlusion import Cover, cover_at, cover_of, modal_elements, reachable
from orav.perceive.screens import is_control
from orav.secrets import REDACTED, scenario_secrets


@frozen
class RecordedDecision:
    """One recorded ``decide``: its step, the screen it was made on, and what it decided."""

    step: int
    decision: Decision | None
    observation: Observation | None
    origin: ModelCall | None


def recorded_decisions(cassette: Cassette) -> tuple[RecordedDecision, ...]:
    """Every ``decide`` of ``cassette`` in order, with the screen the engine showed the agent
    (the last observation before it)."""
    found: list[RecordedDecision] = []
    seen: int | None = None
    for index, event in enumerate(cassette.events):
        if isinstance(event, ObserveEvent) and event.observation is not None:
            seen = index
        elif isinstance(event, DecideEvent):
            origin = event.call if event.reused else getattr(event.decision, "call", None)
            observation = cassette.observation(seen) if seen is not None else None
            found.append(RecordedDecision(event.step, event.decision, observation, origin))
    return tuple(found)


@frozen
class Held:
    """A recorded decision as it holds on the live screen (re-aimed when ``heal``)."""

    decision: Decision
    heal: Heal | None = None


@frozen
class Missed:
    """Why a recorded decision does not hold: ``kind`` is ``screen``, ``target``, ``field``
    or ``secret``; what was ``expected`` and what was ``found``."""

    kind: str
    expected: str
    found: str


async def follow(recorded: RecordedDecision, context: AgentContext) -> Held | Missed:
    """Whether ``recorded`` holds on ``context``'s screen, and as what (module docstring)."""
    decision, seen, live = recorded.decision, recorded.observation, context.observation
    if decision is None or seen is None:
        return Missed("screen", "a recorded decision", "none")
    if not same_screen(seen, live):
        return Missed("screen", screen_name(seen), screen_name(live))
    decision = evolve(decision, call=None)
    action = decision.action
    if isinstance(action, TypeText):
        if not _same_field(seen, live):
            return Missed("field", _holding(seen), _holding(live))
        return await _typed(decision, action, context)
    if isinstance(action, Tap):
        return _tapped(context.step, decision, action, seen, live)
    return Held(decision)


def same_screen(seen: Observation, live: Observation) -> bool:
    """The recorded screen and the live one are the same screen (module docstring)."""
    if screen_id(seen) != screen_id(live) or seen.app_running != live.app_running:
        return False
    if seen.elements or live.elements:
        return True
    if seen.text is not None or live.text is not None:
        return matches_redacted(steady(seen.text or ""), steady(live.text or ""))
    shot = seen.screenshot.sha256 if seen.screenshot else None
    return shot == (live.screenshot.sha256 if live.screenshot else None)


def _same_field(seen: Observation, live: Observation) -> bool:
    was, now = seen.focused, live.focused
    return matches_redacted(was.value if was else None, now.value if now else None)


def _holding(observation: Observation) -> str:
    field = observation.focused
    if field is None:
        return "no field with focus"
    return f"{show_target(field)} holding {field.value or ''!r}"


async def _typed(decision: Decision, action: TypeText, context: AgentContext) -> Held | Missed:
    """A typed secret filled in again: from its stand-in, else (``••••••``) from the script."""
    if not action.secure:
        return Held(decision)
    text = action.text
    for value, stand_in in scenario_secrets(context.scenario).items():
        if stand_in != REDACTED and stand_in in text:
            text = text.replace(stand_in, value)
    if REDACTED not in text:
        return Held(evolve(decision, action=evolve(action, text=text)))
    try:
        scripted: Decision | None = await ScriptedAgent().decide(context)
    except AgentError:
        scripted = None
    if scripted is None or not matches_redacted(unstructure(action), unstructure(scripted.action)):
        return Missed("secret", "a secret the script types", "none in the script")
    return Held(evolve(decision, action=scripted.action))


def _tapped(
    step: int, decision: Decision, action: Tap, seen: Observation, live: Observation
) -> Held | Missed:
    """A tap re-aimed at its element on the live screen (module docstring)."""
    target = action.target
    if target is not None and (target.label is not None or target.id is not None):
        was = target_element(seen, target)
        if was is None:
            # Absent from the recorded screen too: an interruption the engine recovered from
            # before acting; played as recorded, and recovered from again.
            return Held(decision)
        named = str(target)
    elif target is None and action.x is not None and action.y is not None:
        was = _control_at(seen, action.x, action.y)
        if was is None:
            return Held(decision)  # on no control (a picture, say): played as recorded
        target, named = Target(label=was.label, id=was.unique_id), f"the tap on {show_target(was)}"
    else:
        return Held(decision)  # a selector: the driver's
    element, by = heal_target(seen, live, target)
    if element is None:
        return Missed("target", named, f"none on {screen_name(live)}")
    aimed = _aimed(action, was, element)
    if by:
        aimed = evolve(aimed, target=Target(label=element.label, id=element.unique_id))
        aimed = aimed if action.target is not None else evolve(aimed, target=None)
    elif aimed == action:
        return Held(decision)
    heal = Heal(step, named, show_target(element), by or "moved")
    return Held(evolve(decision, action=aimed), heal)


def _control_at(observation: Observation, x: float, y: float) -> Element | None:
    """The innermost control a tap at (x, y) lands on (the last in pre-order)."""
    at = [
        e
        for e in observation.elements
        if is_control(e)
        and not e.frame.is_empty
        and e.frame.x <= x < e.frame.x + e.frame.width
        and e.frame.y <= y < e.frame.y + e.frame.height
    ]
    return at[-1] if at else None


def _aimed(action: Tap, was: Element, element: Element) -> Tap:
    """The tap at the same place on ``element`` as it was on ``was`` (its centre if ``was``
    had no size); a tap by target alone stays one."""
    if action.x is None or action.y is None:
        return action
    old, new = was.frame, element.frame
    if old.is_empty:
        centre = new.center
        return evolve(action, x=centre.x, y=centre.y)
    x = new.x + (action.x - old.x) * new.width / old.width
    y = new.y + (action.y - old.y) * new.height / old.height
    return evolve(action, x=round(x, 2), y=round(y, 2))


def heal_target(
    recorded: Observation, live: Observation, target: Target
) -> tuple[Element | None, str]:
    """The live element ``target`` means and how it was found (``""``: as recorded), or
    ``(None, "")``: as recorded, else by the recorded element's id, its label, its position.

    A heal never picks an element under a cover (``orav.perceive.occlusion``): the screen's own
    Delete under an alert is no heal of the alert's renamed answer. A target found as recorded
    but covered live is played as recorded when no heal reaches anything and the cover is one
    the engine clears (the keyboard, a banner) or was there when it was recorded."""
    found = target_element(live, target)
    if found is not None and reachable(live, found):
        return found, ""
    was = target_element(recorded, target)
    named = _by_name(live, target, was, found)
    if named is not None:
        return named
    cover = cover_of(live, found) if found is not None else None
    placed = _by_position(recorded, live, was, cover) if was is not None else None
    if placed is not None:
        return placed, "position"
    if found is not None and _played_covered(recorded, was, cover):
        return found, ""
    return None, ""


def _by_name(
    live: Observation, target: Target, was: Element | None, found: Element | None
) -> tuple[Element, str] | None:
    """The reachable live element (other than the covered ``found``) named by the target's id,
    the recorded element's id, the target's label or the recorded element's label, and by
    which."""
    ids = (target.id, was.unique_id if was else None)
    labels = (target.label, was.label if was else None)
    for by, tries in (("id", ids), ("label", labels)):
        for value in dict.fromkeys(v for v in tries if v):
            healed = target_element(live, Target(**{by: value}))
            if healed is not None and healed is not found and reachable(live, healed):
                return healed, by
    return None


def _by_position(
    recorded: Observation, live: Observation, was: Element, cover: Cover | None
) -> Element | None:
    """The innermost live control of the recorded element's role at its centre, under no
    cover; never one of what covers the target, unless the target was a dialog's own answer."""
    if was.frame.is_empty:
        return None
    over = () if cover is None or was in modal_elements(recorded.elements) else cover.elements
    centre = was.frame.center
    at = [
        e
        for e in live.elements
        if e.role == was.role
        and is_control(e)
        and e.frame.contains(centre)
        and cover_at(live, e, centre) is None
        and e not in over
    ]
    return at[-1] if at else None  # the innermost in pre-order


def _played_covered(recorded: Observation, was: Element | None, cover: Cover | None) -> bool:
    """Whether the target found but covered live is played as recorded: the cover is one the
    engine clears (not a modal), or the target was covered when it was recorded too."""
    covered_then = was is not None and not reachable(recorded, was)
    return cover is None or cover.kind != "modal" or covered_then
