"""What an agent decided, and what verification found afterwards."""

from __future__ import annotations

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


@frozen
class Decision:
    """One step of reasoning, as in the ORAV methodology.

    ``previous_outcome_met`` is the agent's own verdict on the previous step's expected outcome
    (an LLM verifies and decides in one call); ``call`` is set when a model was asked.
    """

    action: Action
    reasoning: str = ""
    element_label: str | None = None
    expected_outcome: str = ""
    previous_outcome_met: bool | None = None
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


def _cut(text: str) -> str:
    return text[:MAX_TEXT_CHARACTERS] + "… (cut)" if len(text) > MAX_TEXT_CHARACTERS else text


def cut_decision(decision: Decision) -> Decision:
    """``decision`` with its free text (reasoning, expected outcome, label) cut to
    MAX_TEXT_CHARACTERS: a 20 MB reasoning once made a 60 MB cassette."""
    label = decision.element_label
    return evolve(
        decision,
        reasoning=_cut(decision.reasoning),
        expected_outcome=_cut(decision.expected_outcome),
        element_label=_cut(label) if isinstance(label, str) else label,
    )
