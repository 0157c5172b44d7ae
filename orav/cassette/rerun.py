"""Play a cassette's recorded decisions live against the app: the decision side of a live rerun,
which guards the app under test, where a replay guards only orav.

API::

    agent = RerunAgent(cassette, fallback=None)   # serves cassette's decisions to a live run
    agent.heals, agent.regressions                # what it found on the way
    agent.walked                                  # each step's live screen and action
    agent.served, agent.asked                     # decisions served / asked of ``fallback``

The n-th decision asked for is the n-th recorded one while the run is on the recorded path, as
long as it holds on the live screen by the one matcher the decision cache uses too
(``orav.cassette.follow``): the recorded screen by the one screen identity, a tap's element
re-found (as recorded; else by the recorded element's id, its label, then the control of its
role at its recorded position, never under a cover), text into a field holding what it held,
a secret typed again from its stand-in or the script. A tap re-aimed is a ``Heal``; a target
the recorded screen lacked too (an interruption's) is played as recorded: the engine recovers
as it did. A decision that does not hold is a ``Regression``: the run leaves the recorded
path, and ``fallback`` (an LLM agent) decides from then on; without one the run ends there,
failed, naming the step.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.agents import Agent, AgentContext, model_of
from orav.cassette.follow import Missed, RecordedDecision, follow, recorded_decisions
from orav.cassette.reader import Cassette
from orav.model import Decision, Done, Heal, RunReport, Screenshot, show_action
from orav.perceive import screen_name

__all__ = ["Heal", "Regression", "Rerun", "RerunAgent", "Walked"]


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
    element is not there any way, or a secret nothing types), ``field`` (text would go into a
    field holding other text than recorded), ``goal`` (every step held, the goal did not) or
    ``ended`` (an error ended the run first: at the launch, say).
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
        lines += [f"  {heal}" for heal in self.heals]
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
        held = await follow(recorded, context)
        if isinstance(held, Missed):
            kind = "target" if held.kind == "secret" else held.kind
            return await self._off(context, recorded, kind, held.expected, held.found)
        if held.heal is not None:
            self.heals.append(held.heal)
        self.served += 1
        return held.decision

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
