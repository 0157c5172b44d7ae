"""One step of a run: what was seen, decided, done and verified."""

from __future__ import annotations

from attrs import frozen

from orav.model.action_result import ActionResult
from orav.model.decision import Decision, Verification


@frozen
class Step:
    """Step ``index`` (1-based): the screen it started on, the decision, its result and check."""

    index: int
    screen: str
    decision: Decision
    result: ActionResult
    verification: Verification | None = None
