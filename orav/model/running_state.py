"""The running state of a run, as the methodology keeps it (seed 000, "State Tracking"): where
the run is, how far it went, the screens it saw, the errors it met and its coverage counts.

One rule for the agent's prompt (from the steps so far) and the JSON report (from the
recorded run): both give the screens in the order the run stood on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from attrs import frozen


@frozen
class CoverageCounts:
    """How much of the app the run touched: screens, controls, and moves between screens."""

    screens_tested: int = 0
    elements_interacted: int = 0
    paths_explored: int = 0


@frozen
class RunningState:
    """``current_screen``: where the run stands; ``screens_visited``: each screen once, in the
    order first seen; ``errors_encountered``: a line each; ``coverage``: its counts."""

    current_screen: str = ""
    steps_taken: int = 0
    screens_visited: tuple[str, ...] = ()
    errors_encountered: tuple[str, ...] = ()
    coverage: CoverageCounts = CoverageCounts()

    @classmethod
    def of(
        cls,
        screens: Sequence[str],
        *,
        steps: int,
        errors: Sequence[str] = (),
        elements: int = 0,
    ) -> RunningState:
        """The state after ``steps`` steps that stood on ``screens`` in turn (the last: where
        the run stands now): a path is a move from one screen to another, counted once."""
        visited = tuple(dict.fromkeys(s for s in screens if s))
        paths = {(a, b) for a, b in pairwise(screens) if a and b and a != b}
        return cls(
            current_screen=screens[-1] if screens else "",
            steps_taken=steps,
            screens_visited=visited,
            errors_encountered=tuple(errors),
            coverage=CoverageCounts(len(visited), elements, len(paths)),
        )
