"""Decision regression: a candidate agent sees every recorded screen and is judged against the
recorded decisions, while the replay itself follows the recording.

    agent = ComparingAgent(ReplayAgent(cassette), candidate)
    ...run the engine over ReplayDevice/ReplayClock with ``agent``...
    agent.differences   # the steps where the candidate decided otherwise

The candidate never acts: its decision is compared and the recorded one is returned, so the
replay stays faithful and every step of the recording is judged, not just the first mismatch.
"""

from __future__ import annotations

from attrs import frozen

from orav.agents import Agent, AgentContext, reconsiders
from orav.cassette.redact import matches_redacted
from orav.codec import unstructure
from orav.errors import AgentError
from orav.model import Action, Decision, Done, Tap, TypeText, show_action

TAP_TOLERANCE = 10.0  # points: two taps this close without targets hit the same thing


@frozen
class DecisionDiff:
    step: int
    recorded: str
    candidate: str


def same_action(recorded: Action, candidate: Action) -> bool:
    """Whether ``candidate`` does what ``recorded`` did (targets before coordinates)."""
    if type(recorded) is not type(candidate):
        return False
    if isinstance(recorded, Tap) and isinstance(candidate, Tap):
        return _same_tap(recorded, candidate)
    if isinstance(recorded, TypeText) and isinstance(candidate, TypeText):
        return matches_redacted(recorded.text, candidate.text)
    if isinstance(recorded, Done) and isinstance(candidate, Done):
        return recorded.success == candidate.success  # the summary is prose: the verdict counts
    return matches_redacted(unstructure(recorded), unstructure(candidate))


def _same_tap(recorded: Tap, candidate: Tap) -> bool:
    if recorded.target is not None and candidate.target is not None:
        if recorded.target.id:
            return recorded.target.id == candidate.target.id
        return recorded.target.label == candidate.target.label
    if recorded.x is None or recorded.y is None or candidate.x is None or candidate.y is None:
        return False
    return (
        abs(recorded.x - candidate.x) <= TAP_TOLERANCE
        and abs(recorded.y - candidate.y) <= TAP_TOLERANCE
    )


class ComparingAgent:
    """Serves ``recorded``'s decisions and collects where ``candidate`` would have differed."""

    def __init__(self, recorded: Agent, candidate: Agent) -> None:
        self.recorded = recorded
        self.candidate = candidate
        self.name = candidate.name
        self.reconsiders = reconsiders(recorded)  # the replay follows the recorded run
        self.differences: list[DecisionDiff] = []
        self.compared = 0

    async def decide(self, context: AgentContext) -> Decision:
        expected = await self.recorded.decide(context)
        self.compared += 1
        try:
            candidate = await self.candidate.decide(context)
        except AgentError as exc:
            actual, same = f"no decision: {exc}", False
        else:
            actual, same = (
                show_action(candidate.action),
                same_action(expected.action, candidate.action),
            )
        if not same:
            self.differences.append(
                DecisionDiff(context.step, show_action(expected.action), actual)
            )
        return expected
