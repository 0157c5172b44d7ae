"""What an agent decided, and what verification found afterwards."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve, frozen

from orav.model.action import Action
from orav.model.action_result import Settled


@frozen
class ModelCall:
    """What one model call cost: for the cassette and the report.

    ``cost`` is priced by the agent's own price table when it knows the model, else None.
    """

    model: str
    prompt_digest: str = ""
    raw_response: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0
    attempts: int = 1
    cost: float | None = None


MAX_TEXT_CHARACTERS = 2000  # kept of a decision's free text, whichever agent decided
# A model's memory is shown to it again every step: kept short, so it cannot crowd out the screen.
MAX_NOTES_CHARACTERS = 500
MAX_PLAN_ITEMS = 5
MAX_PLAN_ITEM_CHARACTERS = 100


@frozen
class Decision:
    """One step of reasoning, as in the ORAV methodology.

    ``previous_outcome_met`` is the agent's own verdict on the previous step's expected outcome
    (an LLM verifies and decides in one call); ``call`` is set when a model was asked.
    ``notes`` and ``plan`` are a model's memory and sub-goals: written by it, shown to it
    again on the steps after (the last given), and recorded, so a replay shows them too.
    """

    action: Action
    reasoning: str = ""
    element_label: str | None = None
    expected_outcome: str = ""
    previous_outcome_met: bool | None = None
    notes: str | None = None
    plan: tuple[str, ...] | None = None
    call: ModelCall | None = None


@frozen
class Verification:
    """Did the action change the screen, and did the expected outcome appear?

    ``expected_seen`` is None when the expected outcome names nothing checkable.
    """

    changed: bool
    expected_seen: bool | None = None
    input_dropped: bool = False
    note: str = ""
    settled: Settled | None = None  # how the app settled before the screen was compared


def _cut(text: str, limit: int = MAX_TEXT_CHARACTERS) -> str:
    return text[:limit] + "… (cut)" if len(text) > limit else text


def cut_decision(decision: Decision) -> Decision:
    """``decision`` with its free text (reasoning, expected outcome, label) cut to
    MAX_TEXT_CHARACTERS (a 20 MB reasoning once made a 60 MB cassette), its notes and plan
    to theirs."""
    label, notes, plan = decision.element_label, decision.notes, decision.plan
    return evolve(
        decision,
        reasoning=_cut(decision.reasoning),
        expected_outcome=_cut(decision.expected_outcome),
        element_label=_cut(label) if isinstance(label, str) else label,
        notes=_cut(notes, MAX_NOTES_CHARACTERS) if isinstance(notes, str) else notes,
        plan=None if plan is None else cut_plan(plan),
    )


def cut_plan(plan: Sequence[str]) -> tuple[str, ...]:
    """At most MAX_PLAN_ITEMS sub-goals of MAX_PLAN_ITEM_CHARACTERS each."""
    return tuple(_cut(str(item), MAX_PLAN_ITEM_CHARACTERS) for item in plan[:MAX_PLAN_ITEMS])
