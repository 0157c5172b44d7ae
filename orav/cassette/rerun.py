"""Play a cassette's recorded decisions live against the app: the decision side of a live rerun,
which guards the app under test, where a replay guards only orav.

API::

    agent = RerunAgent(cassette, fallback=None)   # serves cassette's decisions to a live run
    agent.heals, agent.regressions                # what it found on the way
    agent.walked                                  # each step's live screen and action
    agent.served, agent.asked                     # decisions served / asked of ``fallback``

The n-th decision asked for is the n-th recorded one while the run is on the recorded path. The
live screen must be the recorded one by the one screen identity (``orav.perceive.screen_id``),
and a tap's target is re-resolved on the live screen by the one target rule
(``orav.perceive.target_element``): as recorded; else by the recorded element's id alone, its
label alone, then the control of the same role at its recorded position, never onto an
element under a cover (``orav.perceive.occlusion``). Found any way but the
first, the tap goes to the live element and the step is a ``Heal``; a target the recorded
screen lacked too (an interruption's) is played as recorded: the engine recovers as it did. A
screen that is not the recorded one, or a target found no way, is a ``Regression``: the run
leaves the recorded path, and ``fallback`` (an LLM agent) decides from then on; without one the
run ends there, failed, naming the step. A secret recorded as ``••••••`` is typed from the
scenario's script, which holds it, when the script's step is what was recorded.
"""

from __future__ import annotations

from pathlib import Path

from attrs import evolve, frozen

from orav.agents import Agent, AgentContext, model_of
from orav.agents.scripted import ScriptedAgent
from orav.cassette.reader import Cassette
from orav.cassette.redact import matches_redacted
from orav.cassette.reuse import RecordedDecision, recorded_decisions
from orav.codec import unstructure
from orav.errors import AgentError
from orav.model import (
    Decision,
    Done,
    Element,
    Observation,
    RunReport,
    Screenshot,
    Tap,
    Target,
    show_action,
)
from orav.perceive import screen_id, screen_name
from orav.perceive.assertions import show_target
from orav.perceive.occlusion import Cover, cover_at, cover_of, modal_elements, reachable
from orav.perceive.screens import is_control
from orav.perceive.targets import target_element
from orav.secrets import REDACTED


@frozen
class Heal:
    """A recorded tap whose target moved or was renamed, re-found on the live screen."""

    step: int
    recorded: str  # the target as recorded
    live: str  # the element it was found as
    by: str  # "id", "label" or "position"


@frozen
class Walked:
    """One step of a live rerun: the screen it was on and the action taken there (repeated
    reruns compare them: a step whose screen or action differs between runs is flaky)."""

    step: int
    screen: str
    action: str


@frozen
class Regression:
    """Where the app no longer matches its cassette: a regression candidate.

    ``kind`` is ``screen`` (another screen than the recorded one), ``target`` (the tap's
    element is not there any way), ``goal`` (every step held, the goal did not) or ``ended``
    (an error ended the run first: at the launch, say).
    ``recorded`` and ``live`` are the screenshots of the recorded and the live screen."""

    step: int
    kind: str
    expected: str
    found: str
    recorded: Screenshot | None = None
    live: Screenshot | None = None

    def __str__(self) -> str:
        return f"step {self.step}: {self.kind}: expected {self.expected}, found {self.found}"


@frozen
class Rerun:
    """One live rerun of a cassette: the live run's report, its heals and its regressions."""

    cassette: Path
    report: RunReport
    heals: tuple[Heal, ...] = ()
    regressions: tuple[Regression, ...] = ()
    served: int = 0  # recorded decisions played live
    asked: int = 0  # decisions asked of the fallback agent
    walked: tuple[Walked, ...] = ()  # each step's live screen and the action taken there
    judged: int = 0  # recorded judgements served: their screen was the recorded one
    rejudged: tuple[str, ...] = ()  # the claims judged again, their screen having changed

    @property
    def status(self) -> str:
        """``regressed`` when anything no longer matched, else ``healed`` or ``passed``."""
        if self.regressions or not self.report.goal_met:
            return "regressed"
        return "healed" if self.heals else "passed"

    @property
    def ok(self) -> bool:
        return self.status != "regressed"

    @property
    def first_regression(self) -> Regression | None:
        return self.regressions[0] if self.regressions else None

    def explain(self) -> str:
        """What a person reads: the verdict, each heal, each regression."""
        played = f"{self.served} recorded decisions played, {self.asked} asked"
        if self.judged or self.rejudged:
            played += f"; {self.judged} judgements served, {len(self.rejudged)} asked again"
        lines = [f"{self.cassette.name}: {self.status} ({self.report.status}, {played})"]
        lines += [f"  judged again (the screen changed): {claim!r}" for claim in self.rejudged]
        lines += [
            f"  healed step {h.step}: {h.recorded} is now {h.live} (by {h.by})" for h in self.heals
        ]
        lines += [f"  regression at {r}" for r in self.regressions]
        ledger = self.report.side_effects
        if ledger is not None:
            lines.append(
                f"  ran in {ledger.world}" + ("" if ledger.lines() else ": nothing changed")
            )
            lines += [f"    {line}" for line in ledger.lines()]
        return "\n".join(lines)

    def save_screenshots(self, folder: Path) -> list[Path]:
        """Write each regression's recorded and live screenshots into ``folder``."""
        written = []
        folder.mkdir(parents=True, exist_ok=True)
        for regression in self.regressions:
            for which, shot in (("recorded", regression.recorded), ("live", regression.live)):
                if shot is not None and shot.data:
                    path = folder / f"step{regression.step}-{which}.{shot.format}"
                    path.write_bytes(shot.data)
                    written.append(path)
        return written


def _holds_secret(decision: Decision) -> bool:
    return REDACTED in repr(unstructure(decision.action))


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


class RerunAgent:
    """Serves ``cassette``'s decisions to a live run, healing targets and noting regressions."""

    def __init__(self, cassette: Cassette, fallback: Agent | None = None) -> None:
        self.name = "rerun"
        self.model = model_of(fallback) if fallback is not None else ""
        self.reconsiders = cassette.header.reconsiders  # it goes on where the recording did
        self._recorded = recorded_decisions(cassette)
        self._fallback = fallback
        self._next = 0
        self.on_path = True
        self.served = 0
        self.asked = 0
        self.heals: list[Heal] = []
        self.regressions: list[Regression] = []
        self.walked: list[Walked] = []  # every step: the live screen and what was done there

    async def decide(self, context: AgentContext) -> Decision:
        decision = await self._decide(context)
        screen = screen_name(context.observation)
        self.walked.append(Walked(context.step, screen, show_action(decision.action)))
        return decision

    async def _decide(self, context: AgentContext) -> Decision:
        index, self._next = self._next, self._next + 1
        if not self.on_path:
            return await self._ask(context)
        if index >= len(self._recorded):
            return await self._off(context, None, "goal", "the run to end", "the run went on")
        recorded = self._recorded[index]
        decision, seen = recorded.decision, recorded.observation
        if decision is None or seen is None:
            return await self._off(context, recorded, "screen", "a recorded decision", "none")
        live = context.observation
        if screen_id(seen) != screen_id(live):
            return await self._off(
                context, recorded, "screen", screen_name(seen), screen_name(live)
            )
        if _holds_secret(decision):
            return await self._secret(context, recorded, decision)
        action = decision.action
        if isinstance(action, Tap) and action.target is not None and action.x is None:
            target = action.target
            # A target absent from the recorded screen too was an interruption the engine
            # recovered from before acting: the step is played as recorded, and recovers again.
            if (target.label is not None or target.id is not None) and target_element(
                seen, target
            ) is not None:
                element, by = heal_target(seen, live, target)
                if element is None:
                    return await self._off(
                        context, recorded, "target", str(target), f"none on {screen_name(live)}"
                    )
                if by:
                    healed = Target(label=element.label, id=element.unique_id)
                    self.heals.append(Heal(context.step, str(target), show_target(element), by))
                    decision = evolve(decision, action=evolve(action, target=healed))
        self.served += 1
        return evolve(decision, call=None)

    async def _secret(
        self, context: AgentContext, recorded: RecordedDecision, was: Decision
    ) -> Decision:
        """A secret recorded as bullets (``was``) is typed from the scenario's script, where
        it was written; the step holds when that is what was recorded."""
        decision: Decision | None
        try:
            decision = await ScriptedAgent().decide(context)
        except AgentError:
            decision = None
        if decision is None or not matches_redacted(
            unstructure(was.action), unstructure(decision.action)
        ):
            return await self._off(
                context, recorded, "target", "a secret the script types", "none in the script"
            )
        self.served += 1
        return evolve(decision, call=None)

    def _note(
        self,
        context: AgentContext,
        recorded: RecordedDecision | None,
        kind: str,
        expected: str,
        found: str,
    ) -> None:
        before = recorded.observation.screenshot if recorded and recorded.observation else None
        after = context.observation.screenshot
        self.regressions.append(Regression(context.step, kind, expected, found, before, after))
        self.on_path = False

    async def _off(
        self,
        context: AgentContext,
        recorded: RecordedDecision | None,
        kind: str,
        expected: str,
        found: str,
    ) -> Decision:
        """Leave the recorded path there: note the regression, then ask the fallback (without
        one, the run ends failed, naming the step)."""
        self._note(context, recorded, kind, expected, found)
        return await self._ask(context)

    async def _ask(self, context: AgentContext) -> Decision:
        if self._fallback is None:
            last = self.regressions[-1] if self.regressions else None
            return Decision(
                action=Done(success=False, summary=f"regression at {last}"),
                reasoning="the app no longer matches its cassette",
            )
        self.asked += 1
        return await self._fallback.decide(context)
