"""The recovery paths a recorded run took, as ``orav audit`` prints them.

A view over ``read_run``: the same recoveries, at the steps the engine recorded, as the HTML
report shows.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.model import Action, FaultKind, show_action
from orav.report.timeline import read_run


@frozen
class RecoveryPath:
    """One recovery: its step, the fault, the machine's path, the remedy's actions, and how it
    ended (``outcome`` in words: ``resolved``, the hand-back, ``failed: why``, or empty when
    the cassette ends mid-recovery)."""

    step: int
    fault: FaultKind
    remedy: tuple[Action, ...]
    resolved: bool
    outcome: str
    transitions: tuple[tuple[str, str, str], ...]

    @property
    def shown_remedy(self) -> str:
        return ", ".join(show_action(a) for a in self.remedy) or "none"


def recovery_paths(path: Path) -> list[RecoveryPath]:
    """Every recovery in the cassette at ``path``, in the order they ran."""
    return [
        RecoveryPath(
            recovery.step,
            recovery.fault,
            recovery.remedy,
            recovery.resolved,
            recovery.outcome,
            tuple((t.source, t.event, t.target) for t in recovery.transitions),
        )
        for recovery in read_run(path).recoveries
    ]
