"""Scripted scenarios on app models of real iOS apps not designed for orav, Apple's Clock
(``orav/sim/clock.yaml``) and Monzo (``orav/sim/monzo.yaml``): the faults the apps meet are
recovered by the one remedy each names, and their look-alikes (a running stopwatch's label
changing at every look, a "Delete" in a help article, a card frozen by the test, the test's
own Delete and its alert, a selected tab) start none. Each run replays faithfully.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recovery_paths import recoveries, walked

from orav.model import Decision, Point, Swipe, Tap, Target
from orav.scenario_loader import load_scenario
from orav.session import record, replay
from orav.testing import VirtualClock

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "orav" / "scenarios" / "realapps"
MODELS = {"com.apple.mobiletimer": "clock.yaml", "co.uk.getmondo": "monzo.yaml"}
WALL_SECONDS = 60.0
# Each scenario's recoveries: (what was detected, the state it ended in), in order.
EXPECTED = {
    "clock_stopwatch_running": [("no_effect", "handed_back")],  # the selected tab, tapped
    "clock_delete_city": [],
    "clock_alarm_song": [("permission", "resolved")],
    "monzo_statement_network": [
        ("permission", "resolved"),
        ("loading", "resolved"),
        ("network", "resolved"),
    ],
    "monzo_lookalikes": [("permission", "resolved"), ("no_effect", "handed_back")],
}


def device_of(app: str) -> str:
    return f"sim:{ROOT / 'orav' / 'sim' / MODELS[app]}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_a_real_apps_faults_are_recovered_and_its_lookalikes_left_alone(name, tmp_path):
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    recording = await asyncio.wait_for(
        record(
            scenario,
            tmp_path / "run.cassette",
            device=device_of(scenario.app),
            clock=VirtualClock(),
        ),
        WALL_SECONDS,
    )
    report = recording.report
    paths = recoveries(report)
    assert [(p[0][1], p[-1][2]) for p in paths] == EXPECTED[name], paths
    assert report.goal_met and not report.goals_missed, report.errors
    # no remedy pressed anything but what it names: Allow / Don't Allow, Retry, nothing
    remedies = {t for p in paths for _, _, t in p}
    assert remedies <= {
        "answering_permission",
        "waiting_loading",
        "retrying_network",
        "retrying_action",
        "handed_back",
        "resolved",
    }, remedies
    outcome = await asyncio.wait_for(replay(recording.cassette), WALL_SECONDS)
    assert outcome.faithful, outcome.differences


def _tap(target: str) -> Decision:
    return Decision(Tap(target=Target(id=target)))


def _swipe(left: bool) -> Decision:
    ends = (Point(300, 300), Point(60, 300))
    start, end = ends if left else ends[::-1]
    return Decision(Swipe(start=start, end=end))


# Benign walks through Clock's tabs: a stopwatch that runs (its label changes at every look),
# laps, its faces swiped, a timer that counts down and pauses, Edit turned on and off again.
WALKS = {
    "tab_stopwatch": [
        [_tap("start"), _tap("lap"), _swipe(True), _swipe(False), _tap("lap"), _tap("stop")],
        [_tap("start"), _tap("stop"), _tap("reset")],
        [_tap("start"), _tap("tab_stopwatch"), _tap("stop")],
    ],
    "tab_timers": [
        [_tap("start_timer"), _tap("pause_timer"), _tap("pause_timer"), _tap("cancel_timer")],
        [_tap("start_t5"), _tap("pause_timer"), _tap("cancel_timer")],
    ],
    "tab_world_clock": [[_tap("edit"), _tap("edit")]],
    "tab_alarms": [[_tap("edit"), _tap("edit")], [_tap("alarm_on_6:30 AM")]],
}
walks = st.sampled_from(sorted(WALKS)).flatmap(
    lambda tab: st.sampled_from(WALKS[tab]).map(lambda steps: [_tap(tab), *steps])
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(walks, min_size=1, max_size=3))
async def test_clocks_that_run_start_no_remedy_in_any_order(walk):
    """Whatever order Clock's running stopwatch and timer, its faces and its Edit modes are
    met in, the only recovery is a tap that rightly changed nothing (the selected tab while
    the stopwatch is stopped; while it runs, its label changes), handed back."""
    base = load_scenario(SCENARIOS / "clock_delete_city.yaml")
    report = await walked(base, walk, "tab_world_clock", device_of(base.app))
    paths = recoveries(report)
    assert all(p[0][1] == "no_effect" and p[-1][2] == "handed_back" for p in paths), paths
    assert report.status == "passed", report.errors
