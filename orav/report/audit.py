"""The recovery paths a recorded run took, as ``orav audit`` prints them.

A view over ``read_run``: the same recoveries, numbered by the same rule, as the HTML report.
"""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.report.run import read_run


@frozen
class RecoveryPath:
    """One recovery: the step it belongs to, the fault, the machine's path, remedy, outcome."""

    step: int
    fault: str
    remedy: str
    outcome: str
    transitions: tuple[tuple[str, str, str], ...]


def recovery_paths(path: Path) -> list[RecoveryPath]:
    """Every recovery in the cassette at ``path``, in the order they ran."""
    return [
        RecoveryPath(
            recovery.step,
            recovery.fault,
            recovery.remedy,
            recovery.outcome,
            tuple(
                (t.source, t.event, t.target)
                for t in recovery.transitions
                if t.machine == "recovery"
            ),
        )
        for recovery in read_run(path).recoveries
    ]
