"""Cassettes of the four-phase run machine, read as the run machine records runs today.

Until issue 15 a step of the run machine was four events: ``observed``, ``decided``, ``acted``
(into ``verifying``) and ``verified`` (back to ``observing``, which read the clock again before
``observed``). Today acting verifies too, and the settled screen it ends on is the next step's
observation: ``acted`` goes straight to ``reasoning`` (or to a recovery, or a limit), with one
clock reading. Such a cassette (format version 2 still) is read as if recorded today, so it
replays faithfully and its report shows today's phases:

* ``acting → verifying`` is dropped; ``verifying → X`` on ``verified`` is ``acting → X`` on
  ``acted`` (a time-up or an abort keeps its event);
* ``verifying → observing`` is dropped with the clock reading verifying took for it, and the
  ``observing → Y`` that followed is ``acting → Y`` on ``acted``: that look's reading decided.

The recorded report's transitions are folded the same way. Anything else is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import evolve

from orav.cassette.events import ClockEvent, Event, ReportEvent, TransitionEvent

_FIELDS = ("machine", "source", "event", "target", "step")


def four_phase(events: Sequence[Event]) -> bool:
    """Whether the run machine that wrote ``events`` still had a ``verifying`` phase."""
    return any(
        isinstance(e, TransitionEvent)
        and e.machine == "run"
        and "verifying" in (e.source, e.target)
        for e in events
    )


def fold_verifying(
    events: Sequence[Event], lines: Sequence[int], steps: Sequence[int]
) -> tuple[tuple[Event, ...], tuple[int, ...], tuple[int, ...]]:
    """``events`` (with their lines and steps) as today's run machine records them."""
    kept: list[tuple[Event, int, int]] = []
    folding = _Folding()
    for event, line, step in zip(events, lines, steps, strict=True):
        if isinstance(event, ReportEvent) and isinstance(event.report, dict):
            event = evolve(event, report=_fold_report(event.report))
        elif isinstance(event, TransitionEvent) and event.machine == "run":
            folded = folding.fold(event)
            if folded is None:
                if folding.drop_reading and kept and isinstance(kept[-1][0], ClockEvent):
                    del kept[-1]  # verifying's reading, taken just before its transition
                folding.drop_reading = False
                continue
            event = folded
        kept.append((event, line, step))
    return (
        tuple(e for e, _, _ in kept),
        tuple(n for _, n, _ in kept),
        tuple(s for _, _, s in kept),
    )


class _Folding:
    """Run-machine transitions, one after the other, as today's machine takes them."""

    def __init__(self) -> None:
        self.looking = False  # verifying went back to observing: its look ends the step
        self.drop_reading = False  # the transition just dropped ended verifying's clock reading

    def fold(self, t: TransitionEvent) -> TransitionEvent | None:
        looking, self.looking = self.looking, False
        if t.source == "acting" and t.target == "verifying":
            return None
        if t.source == "verifying" and t.target == "observing" and t.event == "verified":
            self.looking = self.drop_reading = True
            return None
        if t.source == "verifying" or (looking and t.source == "observing"):
            event = "acted" if t.event in ("verified", "observed") else t.event
            return evolve(t, source="acting", event=event)
        return t


def _fold_report(report: dict[str, Any]) -> dict[str, Any]:
    transitions = report.get("transitions")
    if not isinstance(transitions, list):
        return report
    folding = _Folding()
    folded: list[Any] = []
    for item in transitions:
        if not (isinstance(item, dict) and item.get("machine") == "run"):
            folded.append(item)
            continue
        try:
            t = TransitionEvent(*(item[k] for k in _FIELDS))
        except KeyError:
            folded.append(item)
            continue
        new = folding.fold(t)
        if new is not None:
            folded.append({**item, "source": new.source, "event": new.event})
    return {**report, "transitions": folded}
