"""Golden cassettes of recovered runs (recordings/recovery/, one per fault type): they replay
faithfully, hold every recovery transition and remedy, and `orav audit` prints their paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from orav.cassette import (
    LaunchEvent,
    PerformEvent,
    RecoveryBeginEvent,
    RecoveryEndEvent,
    TerminateEvent,
    TransitionEvent,
    read_cassette,
)
from orav.cli import cli
from orav.model import INJECTED_FAULTS, Launch, Terminate
from orav.report import recovery_paths
from orav.session import replay

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "recordings" / "recovery").glob("*.cassette"))
# The recoveries each injected fault takes: input dropped once is an action with no effect,
# retried until it works; a failed list_apps is no fault; a dump slower than its 5 s rung is a
# failed dump, re-dumped;
# a crash whose relaunch is slow is a crash.
PATHS = {
    "frozen": ["no_effect"],
    "list_apps_error": [],
    "slow_describe": ["empty_dump"],  # the stalled look is a failed dump: re-dumped
    "slow_launch": ["crash"],
}


def test_one_golden_cassette_per_fault_type():
    assert {p.stem for p in GOLDEN} == {*INJECTED_FAULTS, "keyboard"}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
async def test_recovered_golden_replays_faithfully(path: Path):
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    report = outcome.report
    assert report.goal_met and not report.goals_missed
    kinds = PATHS.get(path.stem, [path.stem])
    assert [p.fault for p in recovery_paths(path)] == kinds
    faults = [k for k in kinds if k != "no_effect"]  # an action retried until it worked: no error
    assert report.status == ("completed_with_errors" if faults else "passed")
    assert [e.error.split(":")[0] for e in report.errors] == faults
    assert all(e.resolved for e in report.errors)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_every_transition_and_remedy_is_in_the_cassette(path: Path):
    """Between a recovery's begin and end, the device calls made are its remedy, as its end
    records them; the machine's transitions are those the report lists, at the same steps."""
    cassette = read_cassette(path)
    report = cassette.report()
    assert report is not None
    recorded = [t for t in report.transitions if t.machine == "recovery"]
    in_cassette = [e.transition for e in cassette.events if isinstance(e, TransitionEvent)]
    assert [t for t in in_cassette if t.machine == "recovery"] == recorded
    paths = recovery_paths(path)
    assert [t for p in paths for t in p.transitions] == [
        (t.source, t.event, t.target) for t in recorded
    ]

    remedies, actions, begun = [], [], None
    for event in cassette.events:
        if isinstance(event, RecoveryBeginEvent):
            actions, begun = [], event
        elif isinstance(event, RecoveryEndEvent):
            assert begun is not None and (begun.step, begun.fault) == (event.step, event.fault)
            remedies.append((event.actions, tuple(actions)))
            begun = None
        elif begun is not None and isinstance(event, PerformEvent):
            actions.append(event.action)
        elif begun is not None and isinstance(event, LaunchEvent | TerminateEvent):
            kind = Launch if isinstance(event, LaunchEvent) else Terminate
            actions.append(kind(event.bundle_id))
    assert all(summary == performed for summary, performed in remedies)
    assert bool(remedies) == bool(PATHS.get(path.stem, [path.stem]))
    assert [p.step for p in paths] == [
        e.step for e in cassette.events if isinstance(e, RecoveryEndEvent)
    ]


def test_audit_prints_fault_transitions_remedy_and_outcome():
    network = ROOT / "recordings" / "recovery" / "network.cassette"
    loading = ROOT / "recordings" / "recovery" / "loading.cassette"
    result = CliRunner().invoke(cli, ["audit", str(network), str(loading)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index(f"{network}: 1 recovery")
    assert lines[start + 1 : start + 5] == [
        "  step 2: network -> resolved",
        "    remedy: tap #retry",
        "    detected --network--> retrying_network",
        "    retrying_network --cleared--> resolved",
    ]
    start = lines.index(f"{loading}: 1 recovery")
    assert lines[start + 1 : start + 8] == [
        "  step 2: loading -> resolved",
        "    remedy: swipe (195, 253.2) → (195, 590.8)",  # pull to refresh
        "    detected --loading--> waiting_loading",
        "    waiting_loading --persists--> waiting_loading",
        "    waiting_loading --persists--> waiting_loading",
        "    waiting_loading --stalled--> refreshing",
        "    refreshing --cleared--> resolved",
    ]


def test_orav_replay_reproduces_every_recovered_golden():
    result = CliRunner().invoke(cli, ["replay", *map(str, GOLDEN)])
    assert result.exit_code == 0, result.output
    assert result.output.count("faithful") == len(GOLDEN)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_each_recovery_error_is_at_the_step_its_events_record(path: Path):
    """The report's error for a recovery and the recovery's own events name the same step and
    fault: no reader has to re-derive where a recovery happened."""
    cassette = read_cassette(path)
    report = cassette.report()
    assert report is not None
    errors = [
        (e.step, e.error.split(":")[0], e.resolved)
        for e in report.errors
        if not e.error.startswith("vision fallback")
    ]
    ends = [
        (e.step, e.fault, e.resolved)
        for e in cassette.events
        if isinstance(e, RecoveryEndEvent)
        and not e.handed_back
        and not (e.fault == "no_effect" and e.resolved)
    ]
    assert ends == errors
