"""The scripted agent: the scenario's own ``script:`` decisions, in order. Free and deterministic."""

from __future__ import annotations

from collections.abc import Sequence

from orav.agents import AgentContext
from orav.errors import AgentError
from orav.model import Decision


class ScriptedAgent:
    """Returns the scenario's script one decision a step; fails clearly when it runs out.

    ``script`` replaces the scenario's own (a decision regression of an edited script).
    """

    name = "scripted"

    def __init__(self, script: Sequence[Decision] | None = None) -> None:
        self.script = script

    async def decide(self, context: AgentContext) -> Decision:
        script = context.scenario.script if self.script is None else self.script
        index = len(context.history)
        if index >= len(script):
            raise AgentError(
                f"the script of scenario {context.scenario.name!r} has "
                f"{len(script)} decision{'s' if len(script) != 1 else ''} and no decision is "
                "left; end it with a `done` action"
            )
        return script[index]
