"""The Agent protocol: given what the engine knows, decide the next action."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from attrs import frozen

from orav.model import Decision, DeviceInfo, Observation, Scenario, Verification
from orav.model.step import Step
from orav.perceive import Detection


@frozen
class AgentContext:
    """Everything an agent may use to decide step ``step`` (1-based).

    ``interruption`` is what stands on the screen besides the test's own content (an app
    alert, a login form, a spinner, a network error): the agent decides whether it is part of
    the test (answer the dialog) or in the way (``Recover``). orav recovers by itself only
    when it blocks the decided action.
    """

    scenario: Scenario
    observation: Observation
    step: int
    history: tuple[Step, ...] = ()
    last_verification: Verification | None = None
    device: DeviceInfo | None = None
    interruption: Detection | None = None


@runtime_checkable
class Agent(Protocol):
    """Decides one step at a time. ``name`` goes into the cassette header (e.g. ``openai:gpt-4o``).

    Raise ``orav.errors.AgentError`` when no valid decision can be had within the budget.
    """

    name: str

    async def decide(self, context: AgentContext) -> Decision: ...
