"""The function agent: a Python function decides each step, as PydanticAI's ``FunctionModel``
does for a model. Deterministic and free, for tests that need a decision the script cannot
know in advance (read the screen, then act)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from orav.agents import AgentContext
from orav.errors import AgentError
from orav.model import ACTION_TYPES, Action, Decision

Decide = Callable[[AgentContext], "Decision | Action | Awaitable[Decision | Action]"]


class FunctionAgent:
    """Calls ``function(context)`` every step; it returns a Decision, or just an Action (the
    reasoning then says so). It may be a coroutine function. ``reconsiders=True``: the run
    goes on after an unproven ``done``, as for a model (``orav.agents.Reconsiders``)."""

    def __init__(
        self, function: Decide, *, name: str | None = None, reconsiders: bool = False
    ) -> None:
        self.function = function
        self.reconsiders = reconsiders
        self.name = f"function:{name or getattr(function, '__name__', 'decide')}"

    async def decide(self, context: AgentContext) -> Decision:
        answer = self.function(context)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Decision):
            return answer
        if isinstance(answer, ACTION_TYPES):
            return Decision(reasoning=f"decided by {self.name}", action=answer)
        raise AgentError(f"{self.name} returned {answer!r}, not a Decision or an Action")
