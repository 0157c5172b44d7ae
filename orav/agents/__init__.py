"""The Agent protocol: given what the engine knows, decide the next action.

An agent needs ``name`` and ``decide``. What some agents have besides is declared here, one
protocol per capability, as ``orav.device`` declares ``Settling`` and ``Lifecycle``:

- ``UsesModel``: ``model``, the model behind the decisions (the cassette header names it);
- ``HoldsSecrets``: ``secrets``, strings never to be written (an API key);
- ``Closable``: ``close()``, resources to release when the run ends (an HTTP client);
- ``Reconsiders``: ``reconsiders``, whether it decides again when the engine tells it that its
  ``done`` is not proven or that it repeats itself (a model does; a script has said its last).

``model_of(agent)``, ``close_agent(agent)`` and ``reconsiders(agent)`` ask for a capability
the agent may lack.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from attrs import frozen

from orav.model import Decision, Deed, DeviceInfo, Observation, Scenario, Verification
from orav.model.step import Step
from orav.perceive import Detection


@frozen
class AgentContext:
    """Everything an agent may use to decide step ``step`` (1-based).

    ``interruption`` is what stands on the screen besides the test's own content (an app
    alert, a login form, a spinner, a network error): the agent decides whether it is part of
    the test (answer the dialog) or in the way (``Recover``). orav recovers by itself only
    when it blocks the decided action. ``last_deed`` is the last step when it was a deed (by
    what it was, or by what it changed in the app's world: ``orav.perceive.deeds``).
    """

    scenario: Scenario
    observation: Observation
    step: int
    history: tuple[Step, ...] = ()
    last_verification: Verification | None = None
    device: DeviceInfo | None = None
    interruption: Detection | None = None
    last_deed: Deed | None = None


@runtime_checkable
class Agent(Protocol):
    """Decides one step at a time. ``name`` goes into the cassette header (e.g. ``openai:gpt-4o``).

    Raise ``orav.errors.AgentError`` when no valid decision can be had within the budget. An
    agent may have more: ``UsesModel``, ``HoldsSecrets``, ``Closable`` say what, and orav
    asks for them by those protocols only.
    """

    name: str

    async def decide(self, context: AgentContext) -> Decision: ...


@runtime_checkable
class UsesModel(Protocol):
    """An agent whose decisions come from a model (``openai:gpt-4o``: ``gpt-4o``)."""

    @property
    def model(self) -> str: ...


@runtime_checkable
class HoldsSecrets(Protocol):
    """An agent that holds strings no cassette, report or log may contain (an API key)."""

    @property
    def secrets(self) -> Sequence[str]: ...


@runtime_checkable
class Closable(Protocol):
    """An agent with resources to release once the run is over (an HTTP client)."""

    async def close(self) -> None: ...


@runtime_checkable
class Reconsiders(Protocol):
    """An agent told of its own mistakes in the history it is shown, that decides again: a
    ``done`` whose success criteria do not hold (the step's result says which and what the
    screen shows), the same action on the same screen with nothing new since. The engine goes
    on after them, within budgets; an agent without it ends the run on its ``done``."""

    @property
    def reconsiders(self) -> bool: ...


def reconsiders(agent: Agent) -> bool:
    """Whether the engine goes on after ``agent``'s unproven ``done`` (``Reconsiders``)."""
    return isinstance(agent, Reconsiders) and bool(agent.reconsiders)


def model_of(agent: Agent) -> str:
    """The model behind ``agent``'s decisions, "" when it uses none."""
    return agent.model if isinstance(agent, UsesModel) else ""


async def close_agent(agent: Agent) -> None:
    """Release ``agent``'s resources, if it holds any."""
    if isinstance(agent, Closable):
        await agent.close()
