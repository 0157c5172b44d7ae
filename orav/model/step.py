"""One step of a run: what was seen, decided, done and verified."""

from __future__ import annotations

from attrs import frozen

from orav.model.action_result import ActionResult
from orav.model.decision import Decision, Verification


@frozen
class Step:
    """Step ``index`` (1-based): the screen it started on, the decision, its result and check.

    ``repeat_of``: the earlier step that took the same action on the same screen, with no
    screen new to the run since: the agent is going round in circles.
    """

    index: int
    screen: str
    decision: Decision
    result: ActionResult
    verification: Verification | None = None
    repeat_of: int | None = None
