"""The fault matrix: every fault type injected into the demo scenarios, run through the whole
engine (simulator over real gRPC, fb-idb client, cassette), then replayed.

Each run must end recovered (goal met, every recovery error resolved) or reported the way the
recovery reference says (a login wall without credentials, an app that keeps crashing: aborted
with a clear error); no recovery may spend more than its budget, and no run may hang. Sleeps
are virtual (``VirtualClock``): the remedies' 2-3 s waits are recorded, not waited.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from pathlib import Path

import pytest
from attrs import evolve, field, frozen
from recovery_paths import recoveries, scaled_time

from orav.drivers.idb import IdbDevice
from orav.errors import DeviceError
from orav.machines.attempt import Attempt
from orav.machines.recovery import RecoveryMachine
from orav.model import (
    Assert,
    Credentials,
    Decision,
    Done,
    Fault,
    PressKey,
    Scenario,
    Tap,
    Target,
)
from orav.perceive import keyboard_frame
from orav.scenario_loader import load_scenario
from orav.session import record, replay
from orav.sim import SimCompanion
from orav.testing import VirtualClock

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "orav" / "scenarios"
FAULTS = DEMO / "faults"
WALL_SECONDS = 15.0  # one recorded run and its replay; they take well under a second each


@frozen
class Case:
    """One pair of the matrix: a scenario, the faults injected, and what the report must say."""

    id: str
    scenario: str  # a path under orav/scenarios
    faults: tuple[Fault, ...] | None = None  # None: the scenario's own
    changes: dict = field(factory=dict)
    status: str = "passed"  # every recovery resolved (completed with errors when there were any)
    kinds: tuple[str, ...] = ()  # the recovered faults, in order
    crashes: int = 0
    min_retries: int = 0
    restarted: bool = False
    error: str | None = None  # aborted runs: text of the last error
    scaled: bool = False  # real waits: run on TIME_SCALE (see ``scaled_time``)


CREDENTIALS = Credentials("demo@orav.dev", "Orav-Demo-1!")
CASES = [
    # alerts: behind a focused field (the keyboard comes back), on entering a screen, at random
    Case("alert-login", "faults/alert.yaml", kinds=("alert",)),
    Case(
        "alert-detail",
        "open_detail.yaml",
        (Fault("alert", on_screen="detail_2", message="Rate this app"),),
        kinds=("alert",),
    ),
    Case(
        "alert-random-twice",
        "login.yaml",  # no preconditions: they run blind, faults belong after them
        (Fault("alert", probability=0.5, times=2),),  # after any input, seeded
        kinds=("alert",),  # the second fires on the tap on OK: the same recovery taps again
        min_retries=1,
    ),
    Case("permission-allow", "faults/permission.yaml", kinds=("permission",)),
    Case(
        "permission-deny",
        "faults/permission.yaml",
        changes={"permissions": "deny"},
        kinds=("permission",),
    ),
    Case("crash-mid-form", "faults/crash.yaml", kinds=("crash",), crashes=1, restarted=True),
    Case(
        "crash-at-start",
        "login.yaml",
        (Fault("crash", at_step=2),),  # typing the email
        kinds=("crash",),
        crashes=1,
        restarted=True,
    ),
    Case(
        "crash-keeps-crashing",
        "login.yaml",
        (Fault("crash", times=3),),  # after every input
        status="aborted",
        kinds=("crash", "crash"),
        crashes=2,
        restarted=True,
        error="restarted 2 times; the goal starts over at most 1 time",
    ),
    Case("loading-stuck", "faults/loading.yaml", kinds=("loading",), min_retries=2),
    Case(
        "loading-passes",
        "open_detail.yaml",
        (Fault("loading", on_screen="detail_2", duration=2),),
        kinds=("loading",),
        min_retries=1,
    ),
    Case("network-settings", "faults/network.yaml", kinds=("network",)),
    Case(
        "network-form",
        "submit_form.yaml",
        (Fault("network", on_screen="form"),),
        kinds=("network",),
    ),
    Case("login-wall", "faults/login.yaml", kinds=("login",)),
    Case(
        "login-wall-from-detail",
        "open_detail.yaml",
        (Fault("login", on_screen="detail_2"),),
        changes={"credentials": CREDENTIALS},
        kinds=("login",),
    ),
    Case(
        "login-wall-no-credentials",
        "faults/login.yaml",
        changes={"credentials": None},
        status="aborted",
        kinds=("login",),
        error="a login form, but the scenario has no credentials",
    ),
    Case("empty-dump-once", "faults/empty_dump.yaml", kinds=("empty_dump",)),
    Case(
        "empty-dump-until-relaunch",
        "faults/empty_dump.yaml",
        (Fault("empty_dump", on_screen="detail_2"),),
        kinds=("empty_dump",),
        restarted=True,
    ),
    Case("frozen-tap", "faults/frozen.yaml", kinds=("no_effect",), min_retries=1),
    Case(
        "frozen-typing",
        "login.yaml",
        (Fault("frozen", at_step=1, duration=1),),  # the email is typed into nothing
        kinds=("no_effect",),
        min_retries=1,
    ),
    Case(
        "frozen-until-relaunch",
        "login.yaml",
        (Fault("frozen", at_step=1),),  # every input after the tap on Email, until relaunch
        # typing into the focused field and tapping the password field change nothing: input
        # a responsive app always answers, three times in a row (each retried, handed back)
        kinds=("no_effect", "no_effect", "no_effect", "frozen"),
        min_retries=4,
        restarted=True,
    ),
    Case(
        "list-apps-error",
        "open_detail.yaml",
        (Fault("list_apps_error", at_step=5, duration=3),),  # the tree stays whole
        kinds=(),  # an unknown app state is no crash: nothing to recover
    ),
    Case(
        "slow-describe",
        "open_detail.yaml",
        (Fault("slow_describe", on_screen="detail_2", seconds=8),),
        kinds=("empty_dump",),  # the 5 s rung gives up on it; the re-dump answers
        scaled=True,
    ),
    Case(
        "slow-launch",
        "open_detail.yaml",
        (Fault("crash", at_step=6), Fault("slow_launch", at_step=6, seconds=8)),
        kinds=("crash",),  # the relaunch takes 8 s: within the 30 s restart rung
        crashes=1,
        restarted=True,
        scaled=True,
    ),
    Case("keyboard-over-switch", "faults/keyboard.yaml", kinds=("keyboard",)),
]


def scenario_of(case: Case) -> Scenario:
    scenario = load_scenario(DEMO / case.scenario)
    if case.faults is not None:
        scenario = evolve(scenario, faults=case.faults)
    return evolve(scenario, settle_seconds=0.05, **case.changes)


def limit(state: str) -> int:
    """The most entries the reference allows ``state`` in one recovery (policy tables)."""
    policy = Attempt
    if state == "waiting_loading":
        return math.ceil(policy.LADDER["change"] / policy.LADDER["network"])
    if state == "retrying_action":
        return max(policy.RETRIES[b] for b in policy.ACTION_BUDGET.values())
    spends = policy.SPENDS.get(state)
    return policy.RETRIES[spends] if spends else 1


def restarted(path: list[tuple[str, str, str]]) -> bool:
    return any(target in ("relaunching", "restarting") for _, _, target in path)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_fault_is_recovered_or_reported(case: Case, tmp_path: Path, monkeypatch):
    if case.scaled:
        scaled_time(monkeypatch)
    scenario = scenario_of(case)
    started = time.monotonic()
    recording = await asyncio.wait_for(
        record(scenario, tmp_path / "run.cassette", clock=VirtualClock()), WALL_SECONDS
    )
    report = recording.report
    if case.status == "passed":  # the reference's summary: errors recovered, completed with them
        assert report.status == ("completed_with_errors" if report.errors else "passed"), report
    else:
        assert report.status == case.status, report

    paths = recoveries(report)
    assert [path[0][1] for path in paths] == list(case.kinds)
    for path in paths:
        entries = Counter(target for _, _, target in path if target not in ("resolved", "failed"))
        for state, count in entries.items():
            assert count <= limit(state), f"{state} entered {count} times: {path}"
        assert len(path) <= RecoveryMachine.max_events()
    assert any(map(restarted, paths)) == case.restarted
    assert report.crashes_recovered == case.crashes
    assert report.retries >= case.min_retries

    fault_errors = [e for e in report.errors if e.error.split(":")[0] in case.kinds]
    # an action retried into effect (or handed back) is no error of the run
    assert len(fault_errors) == sum(path[0][1] != "no_effect" for path in paths)
    if case.status == "passed":
        assert report.goal_met and not report.goals_missed and report.goals_achieved
        assert all(e.resolved for e in fault_errors), report.errors
        assert all(path[-1][2] in ("resolved", "handed_back") for path in paths)
    else:
        assert case.error in report.summary
        assert not report.goals_achieved

    outcome = await asyncio.wait_for(replay(recording.cassette), WALL_SECONDS)
    assert outcome.faithful, outcome.differences
    assert outcome.report == report
    assert time.monotonic() - started < WALL_SECONDS


def test_every_fault_type_is_in_the_matrix():
    from orav.model import INJECTED_FAULTS

    injected = {f.type for case in CASES for f in scenario_of(case).faults}
    assert injected == set(INJECTED_FAULTS)
    assert {"keyboard", "no_effect"} <= {k for case in CASES for k in case.kinds}


def test_fault_scenarios_are_not_demo_examples():
    from orav.scenario_loader import example_scenarios

    assert not any("faults" in p.parts for p in example_scenarios())
    assert {p.stem for p in FAULTS.glob("*.yaml")} == {
        "alert",
        "crash",
        "empty_dump",
        "frozen",
        "keyboard",
        "list_apps_error",
        "loading",
        "login",
        "network",
        "permission",
        "slow_describe",
        "slow_launch",
    }


# --- vision fallback: a tap at coordinates the agent estimated from the screenshot ------------

RELEASE_NOTES = (195.0, 184.0)  # the centre of the "Release notes" cell on the home list


def vision_scenario(*faults: Fault) -> Scenario:
    scenario = load_scenario(DEMO / "open_detail.yaml")
    script = (
        Decision(Tap(*RELEASE_NOTES, vision=True), expected_outcome='"Version 1.0"'),
        Decision(Done(summary="opened by pixels")),
    )
    criteria = (Assert(Target(label="Version 1.0: first release.")),)
    return evolve(
        scenario, script=script, success_criteria=criteria, faults=faults, settle_seconds=0.05
    )


async def test_a_vision_tap_that_changed_the_screen_is_a_resolved_error(tmp_path: Path):
    report = (await record(vision_scenario(), tmp_path / "v.cassette", clock=VirtualClock())).report
    assert report.status == "completed_with_errors" and report.goal_met  # its one error is resolved
    (error,) = report.errors
    assert error.error.startswith("vision fallback: tapped (195, 184)")
    assert error.resolved and error.action == "tap" and error.step == 1


async def test_a_vision_tap_that_changed_nothing_is_unresolved_and_retried(tmp_path: Path):
    frozen = Fault("frozen", at_step=5, duration=1)  # the vision tap (input 6) is dropped
    path = tmp_path / "v.cassette"
    report = (await record(vision_scenario(frozen), path, clock=VirtualClock())).report
    (vision,) = report.errors  # a retried action that then worked is no error of the run
    assert vision.error.startswith("vision fallback") and "nothing changed" in vision.error
    assert not vision.resolved
    (taken,) = recoveries(report)
    assert taken[0] == ("detected", "no_effect", "retrying_action")
    assert taken[-1][2] == "resolved" and report.retries >= 1  # the nudged tap worked
    assert report.status == "completed_with_errors" and report.goal_met
    assert (await replay(path)).faithful


# --- the simulator's keyboard and lifetime ------------------------------------------------


async def keyboard_up(sim: SimCompanion, device: IdbDevice) -> None:
    await device.perform(Tap(target=Target(id="email")))
    assert sim.state.keyboard_shown


@pytest.mark.parametrize(
    "dismiss",
    [PressKey("escape"), Tap(195, 140), Tap(380, 480)],  # escape, a label, a blank area
    ids=["escape", "label", "blank"],
)
async def test_escape_or_a_tap_outside_the_fields_hides_the_keyboard(dismiss):
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await keyboard_up(sim, device)
        await device.perform(dismiss)
        assert not sim.state.keyboard_shown
        assert keyboard_frame(await device.observe()) is None
        await device.perform(Tap(target=Target(id="password")))  # a field still takes focus
        assert sim.state.focus == "password"


async def test_an_alert_hides_the_keyboard_and_gives_it_back():
    async with (
        SimCompanion(faults=[Fault("alert", at_step=1)]) as sim,
        IdbDevice.connect(sim.address, bundle_id="com.orav.demo") as device,
    ):
        await device.perform(Tap(target=Target(id="email")))  # input 1: the alert
        behind = await device.observe()
        assert keyboard_frame(behind) is None and behind.focused is None
        await device.perform(Tap(target=Target(label="OK")))
        assert (await device.observe()).focused.unique_id == "email"


async def test_a_closed_sim_cuts_its_clients_off():
    sim = SimCompanion()
    await sim.start()
    async with IdbDevice.connect(sim.address, bundle_id="com.orav.demo", timeout=2) as device:
        await device.observe()
        await sim.close()
        with pytest.raises(DeviceError):
            await device.observe()


async def test_a_run_aborted_by_a_limit_says_why_in_its_errors(tmp_path: Path):
    case = next(c for c in CASES if c.id == "crash-keeps-crashing")
    report = (await record(scenario_of(case), tmp_path / "c.cassette", clock=VirtualClock())).report
    assert report.status == "aborted"
    assert case.error in report.summary
    last = report.errors[-1]
    assert case.error in last.error and not last.resolved
