"""The recovery paths a recorded run took, read back from its cassette."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from orav.cassette import RecoveryEvent, TransitionEvent, read_cassette


@frozen
class RecoveryPath:
    """One recovery: the step it interrupted, the fault, the machine's path, remedy, outcome."""

    step: int
    fault: str
    remedy: str
    outcome: str
    transitions: tuple[tuple[str, str, str], ...]


def recovery_paths(path: Path) -> list[RecoveryPath]:
    """Every recovery in the cassette at ``path``, in the order they ran."""
    cassette = read_cassette(path)
    found: list[RecoveryPath] = []
    pending: list[tuple[str, str, str]] = []
    for event, step in zip(cassette.events, cassette.steps, strict=True):
        if isinstance(event, TransitionEvent) and event.machine == "recovery":
            pending.append((event.source, event.event, event.target))
        elif isinstance(event, RecoveryEvent):
            found.append(
                RecoveryPath(step, event.fault, event.remedy, event.outcome, tuple(pending))
            )
            pending = []
    return found
