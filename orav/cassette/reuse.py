"""Reuse an earlier cassette's decisions where a new run stands on the same screen again, and ask
the live agent only for what is new: the decision side of vcrpy's ``new_episodes`` mode.

API::

    agent = ReusingAgent(recorded, live, writer=None)   # a Cassette (None: nothing to reuse)
    agent.reused, agent.asked                           # decisions served from it / asked of live

The n-th decision asked for is the n-th recorded one when the run is still on the recorded path:
the same step, every earlier decision served from the recording (so the same actions were
taken), the same scenario as far as the agent sees it, and the same screen state (``orav.perceive.screen_state``).
The first decision that fails any of these is asked of ``live``, and so is every later one: the
run has left the recorded path. A recorded action holding a redacted secret (``••••••``, a
secure ``type_text``) cannot be typed again: ``live`` is asked, and the run stays on the path
when it decided the recorded action.

With ``writer``, every decision is recorded: asked ones as ``RecordingAgent`` does, reused ones
as ``decide`` events marked ``reused`` whose decision has no ``call`` (it cost nothing this run)
and whose ``call`` is the model call that originally made it. The decision the engine gets is
the one written, so a replay of the new cassette is faithful.
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from orav.agents import Agent, AgentContext, model_of, reconsiders
from orav.cassette.events import DecideEvent, ObserveEvent
from orav.cassette.reader import Cassette
from orav.cassette.record import RecordingAgent
from orav.cassette.redact import matches_redacted
from orav.cassette.writer import CassetteWriter
from orav.codec import unstructure
from orav.model import Decision, ModelCall, Observation, Scenario
from orav.perceive import screen_state
from orav.secrets import REDACTED

# Scenario fields that bound the run but never reach an agent's decision.
RUN_LIMITS = ("max_steps", "timeout_seconds", "settle_seconds", "faults")


def agent_view(scenario: Scenario, taken: int) -> dict[str, Any]:
    """The scenario as an agent deciding after ``taken`` steps sees it: without run limits and
    without the script beyond the next entry (a scripted agent reads no further)."""
    data = {k: v for k, v in unstructure(scenario).items() if k not in RUN_LIMITS}
    data["script"] = list(data.get("script", ()))[: taken + 1]
    return data


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


def _holds_secret(decision: Decision) -> bool:
    return REDACTED in repr(unstructure(decision.action))


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
        if recorded is None or recorded.decision is None:
            self._on_path = False
            return await self._ask(context)
        if _holds_secret(recorded.decision):
            decision = await self._ask(context)
            self._on_path = matches_redacted(
                unstructure(recorded.decision.action), unstructure(decision.action)
            )
            return decision
        self.reused += 1
        decision = evolve(recorded.decision, call=None)
        if self._writer is not None:
            self._writer.write(
                DecideEvent(context.step, decision, call=recorded.origin, reused=True)
            )
        return decision

    def _match(self, context: AgentContext) -> RecordedDecision | None:
        """The recorded decision for this request if the run is still on the recorded path."""
        index, self._next = self._next, self._next + 1
        if not self._on_path or index >= len(self._recorded):
            return None
        recorded = self._recorded[index]
        taken = len(context.history)
        same = (
            recorded.step == context.step
            and recorded.observation is not None
            and self._scenario is not None
            and matches_redacted(
                agent_view(self._scenario, taken), agent_view(context.scenario, taken)
            )
            and matches_redacted(
                screen_state(recorded.observation), screen_state(context.observation)
            )
        )
        return recorded if same else None

    async def _ask(self, context: AgentContext) -> Decision:
        self.asked += 1
        return await self._live.decide(context)
