"""Cassettes of the four-phase run machine (before issue 15) read as today's machine records.

The two cassettes in tests/cassettes/four_phase/ were recorded by that machine (the goldens
frozen.cassette and empty_dump.cassette as they were): an action that changed nothing
(``verifying → recovering``) and faults on the screen an action settled on (``verifying →
observing → recovering``). They must still replay faithfully."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orav.cassette import read_cassette
from orav.cassette.events import ClockEvent, StepEvent, TransitionEvent
from orav.cassette.upgrade import fold_verifying, four_phase
from orav.machines import flat_transitions
from orav.machines.run import RunMachine
from orav.session import replay

OLD = sorted((Path(__file__).parent / "cassettes" / "four_phase").glob("*.cassette"))
TODAY = {
    (source, name, target)
    for source, names, target in flat_transitions(RunMachine)
    for name in names
}


def run_transitions(transitions) -> list[tuple[str, str, str]]:
    return [(t.source, t.event, t.target) for t in transitions if t.machine == "run"]


def raw_lines(path: Path, kind: str) -> list[dict]:
    return [d for d in map(json.loads, path.read_text().splitlines()) if d.get("type") == kind]


@pytest.mark.parametrize("path", OLD, ids=lambda p: p.stem)
async def test_an_old_cassette_replays_faithfully(path: Path):
    assert any(t["target"] == "verifying" for t in raw_lines(path, "transition"))
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    assert outcome.report is not None and outcome.report.goal_met


@pytest.mark.parametrize("path", OLD, ids=lambda p: p.stem)
def test_an_old_cassette_reads_as_todays_machine(path: Path):
    cassette = read_cassette(path)
    events = [e for e in cassette.events if isinstance(e, TransitionEvent)]
    assert set(run_transitions(events)) <= TODAY
    report = cassette.report()
    assert report is not None
    assert run_transitions(report.transitions) == run_transitions(events)
    dropped = sum(
        t["source"] == "verifying" and t["target"] == "observing"
        for t in raw_lines(path, "transition")
    )
    clocks = sum(isinstance(e, ClockEvent) for e in cassette.events)
    assert clocks == len(raw_lines(path, "clock")) - dropped  # verifying's readings
    assert len(cassette.lines) == len(cassette.events) == len(cassette.steps)


def test_a_cassette_of_todays_machine_is_read_as_it_is():
    path = Path(__file__).parent.parent / "recordings" / "recovery" / "frozen.cassette"
    cassette = read_cassette(path)
    assert not four_phase(cassette.events)
    transitions = [e for e in cassette.events if isinstance(e, TransitionEvent)]
    assert len(transitions) == len(raw_lines(path, "transition"))
    clocks = [e for e in cassette.events if isinstance(e, ClockEvent)]
    assert len(clocks) == len(raw_lines(path, "clock"))


# --- the folding, over any sequence of steps the four-phase machine could record ----------

T = TransitionEvent
# How a step of the old machine ended, as (run transitions, clock readings) after ``decided``:
# readings are taken by verifying (before ``verified``) and by observing (before ``observed``).
ENDINGS = {
    "next": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "observing"),
        "clock",
        T("run", "observing", "observed", "reasoning"),
    ],
    "fault_on_look": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "observing"),
        "clock",
        T("run", "observing", "observed", "recovering"),
        T("run", "recovering", "recovered", "observing"),
        "clock",
        T("run", "observing", "observed", "reasoning"),
    ],
    "no_effect": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "recovering"),
        T("run", "recovering", "recovered", "observing"),
        "clock",
        T("run", "observing", "observed", "reasoning"),
    ],
    "behind": [
        T("run", "acting", "acted", "recovering"),
        T("run", "recovering", "recovered", "observing"),
        "clock",
        T("run", "observing", "observed", "reasoning"),
    ],
}
LAST = {
    "timed_out_at_verifying": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "timed_out"),
    ],
    "timed_out_at_look": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "observing"),
        "clock",
        T("run", "observing", "observed", "timed_out"),
    ],
    "step_limit": [
        T("run", "acting", "acted", "verifying"),
        "clock",
        T("run", "verifying", "verified", "step_limit"),
    ],
    "time_up_while_verifying": [
        T("run", "acting", "acted", "verifying"),
        T("run", "verifying", "time_up", "timed_out"),
    ],
}


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(st.sampled_from(sorted(ENDINGS)), max_size=8),
    last=st.sampled_from(sorted(LAST)),
)
def test_folding_any_old_run_gives_a_path_of_todays_machine(steps, last):
    events: list = [
        T("run", "preparing", "prepared", "observing"),
        ClockEvent(0.0),
        T("run", "observing", "observed", "reasoning"),
    ]
    for ending in [*steps, last]:
        events += [StepEvent(len(events)), T("run", "reasoning", "decided", "acting")]
        events += [ClockEvent(1.0) if e == "clock" else e for e in {**ENDINGS, **LAST}[ending]]
    assert four_phase(events)
    folded, lines, numbers = fold_verifying(events, range(len(events)), [0] * len(events))
    path = run_transitions(e for e in folded if isinstance(e, T))
    assert set(path) <= TODAY, "a transition today's machine does not have"
    assert all(a[2] == b[0] for a, b in pairwise(path)), "the path is not connected"
    assert path[-1][2] == ("step_limit" if last == "step_limit" else "timed_out")
    assert path.count(("acting", "acted", "reasoning")) == steps.count("next")
    assert path.count(("acting", "acted", "recovering")) == len(steps) - steps.count("next")
    looks = sum(ending in ("next", "fault_on_look") for ending in steps) + (
        last == "timed_out_at_look"
    )
    readings = sum(isinstance(e, ClockEvent) for e in events)
    assert sum(isinstance(e, ClockEvent) for e in folded) == readings - looks
    assert list(lines) == sorted(lines) and len(lines) == len(folded) == len(numbers)
