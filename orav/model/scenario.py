"""A scenario: the goal an agent pursues in one app, with its limits and optional script."""

from __future__ import annotations

from typing import Literal

from attrs import field, frozen

from orav.model.action import Action, Assert
from orav.model.decision import Decision
from orav.model.fault import Fault
from orav.model.limits import above, at_least, at_most, file_name, not_blank


@frozen
class Credentials:
    """Test credentials for a login wall; the password is redacted wherever it is written."""

    username: str
    password: str = field(repr=False)


@frozen
class Scenario:
    name: str = field(validator=file_name)
    app: str = field(validator=not_blank)
    goal: str = field(validator=not_blank)
    description: str = ""
    preconditions: tuple[Action, ...] = ()
    success_criteria: tuple[Assert, ...] = ()
    max_steps: int = field(default=50, validator=[at_least(1), at_most(100_000)])
    timeout_seconds: float = field(default=120.0, validator=[above(0), at_most(7 * 86400)])
    settle_seconds: float = field(default=0.4, validator=[at_least(0), at_most(60)])
    script: tuple[Decision, ...] = ()
    credentials: Credentials | None = None
    permissions: Literal["allow", "deny"] = "allow"
    faults: tuple[Fault, ...] = ()
