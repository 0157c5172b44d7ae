"""Reuse an earlier cassette's decisions where a new run stands on the same screen again, and ask
the live agent only for what is new: the decision side of vcrpy's ``new_episodes`` mode.

API::

    agent = ReusingAgent(recorded, live, writer=None)   # a Cassette (None: nothing to reuse)
    agent.reused, agent.asked                           # decisions served from it / asked of live
    agent.heals                                         # the taps re-aimed on a changed screen

The n-th decision asked for is the n-th recorded one while the run is on the recorded path:
every earlier decision was served from the recording (so the same actions were taken), the
scenario is the same as far as the agent sees it, and the recorded decision holds on the live
screen by the one matcher a live rerun uses (``orav.cassette.follow``): a moved control, a
renamed id, a relabelled button or a reordered list is healed, not asked again, and a secret is
typed again from its stand-in. The first decision that fails is asked of ``live``, and so is
every later one: the run has left the recorded path. A secret the cassette holds only as
``••••••`` that the script does not type is asked of ``live``, and the run stays on the path
when it decided the recorded action.

With ``writer``, every decision is recorded: asked ones as ``RecordingAgent`` does, reused ones
as ``decide`` events marked ``reused`` whose decision has no ``call`` (it cost nothing this run)
and whose ``call`` is the model call that originally made it. The decision the engine gets is
the one written (re-aimed where it healed), so a replay of the new cassette is faithful.
"""

from __future__ import annotations

from typing import Any

from orav.agents import Agent, AgentContext, model_of, reconsiders
from orav.cassette.events import DecideEvent
from orav.cassette.follow import Missed, RecordedDecision, follow, recorded_decisions
from orav.cassette.reader import Cassette
from orav.cassette.record import RecordingAgent
from orav.cassette.redact import matches_redacted
from orav.cassette.writer import CassetteWriter
from orav.codec import unstructure
from orav.model import Decision, Heal, Scenario

# Scenario fields that bound the run but never reach an agent's decision.
RUN_LIMITS = ("max_steps", "timeout_seconds", "settle_seconds", "faults")


def agent_view(scenario: Scenario, taken: int) -> dict[str, Any]:
    """The scenario as an agent deciding after ``taken`` steps sees it: without run limits and
    without the script beyond the next entry (a scripted agent reads no further)."""
    data = {k: v for k, v in unstructure(scenario).items() if k not in RUN_LIMITS}
    data["script"] = list(data.get("script", ()))[: taken + 1]
    return data


class ReusingAgent:
    """Serves ``recorded``'s decisions while the run follows it; asks ``live`` from then on."""

    def __init__(
        self, recorded: Cassette | None, live: Agent, *, writer: CassetteWriter | None = None
    ) -> None:
        self.name = live.name
        self.model = model_of(live)
        self.reconsiders = reconsiders(live)
        self.reused = 0
        self.asked = 0
        self.heals: list[Heal] = []
        self._scenario = recorded.header.scenario if recorded is not None else None
        self._recorded = recorded_decisions(recorded) if recorded is not None else ()
        self._live = RecordingAgent(live, writer) if writer is not None else live
        self._writer = writer
        self._next = 0
        self._on_path = True

    @property
    def on_path(self) -> bool:
        """Whether the run still follows the recording (every decision so far was served)."""
        return self._on_path

    async def decide(self, context: AgentContext) -> Decision:
        recorded = self._match(context)
        held = await follow(recorded, context) if recorded is not None else None
        if recorded is None or held is None or isinstance(held, Missed):
            self._on_path = False
            decision = await self._ask(context)
            if isinstance(held, Missed) and held.kind == "secret" and recorded is not None:
                # A secret held only as bullets: the run stays on the path if live typed it.
                was = recorded.decision.action if recorded.decision is not None else None
                self._on_path = matches_redacted(unstructure(was), unstructure(decision.action))
            return decision
        self.reused += 1
        if held.heal is not None:
            self.heals.append(held.heal)
        if self._writer is not None:
            self._writer.write(
                DecideEvent(context.step, held.decision, call=recorded.origin, reused=True)
            )
        return held.decision

    def _match(self, context: AgentContext) -> RecordedDecision | None:
        """The next recorded decision if the run is still on the recorded path and the agent
        sees the same scenario."""
        index, self._next = self._next, self._next + 1
        if not self._on_path or index >= len(self._recorded) or self._scenario is None:
            return None
        taken = len(context.history)
        if not matches_redacted(
            agent_view(self._scenario, taken), agent_view(context.scenario, taken)
        ):
            return None
        return self._recorded[index]

    async def _ask(self, context: AgentContext) -> Decision:
        self.asked += 1
        return await self._live.decide(context)
