"""Benign look-alikes of faults (issue 9): scenarios on apps not written for orav, each a test's
own flow that merely looks like a fault, must pass live with no recovery and replay faithfully.

The apps: Jotter (``orav.demo.notes``, a Textual notes app) and Ledger (``orav/demo/bank.yaml``,
an app model of an iOS banking app served by ``orav sim`` to the real fb-idb client). Each
scenario is first driven straight through the device, without the engine, to prove the app and
the script are right; then through the engine, where any recovery is a false one. The iOS
scenarios named after an RPC fault (list_apps_error, slow_describe, slow_launch) inject it in
the simulator; a correct engine rides it out.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recovery_paths import recoveries, scaled_time, walked

from orav.demo.notes import NotesApp
from orav.drivers.textual import TextualDevice
from orav.model import (
    Assert,
    Decision,
    Done,
    Observation,
    Scenario,
    Tap,
    Target,
    TypeText,
)
from orav.perceive.targets import target_element
from orav.scenario_loader import load_scenario
from orav.session import record, replay
from orav.specs import open_device
from orav.testing import VirtualClock

ROOT = Path(__file__).resolve().parent.parent
LOOKALIKES = ROOT / "orav" / "scenarios" / "lookalikes"
BANK = ROOT / "orav" / "demo" / "bank.yaml"
WALL_SECONDS = 60.0  # a run and its replay: a few seconds (the 8 s stalls run at a tenth)

# Scenarios today's engine fails, and how; the marks go as the engine is fixed.
TODAY: dict[str, str] = {}
# Taps that rightly change nothing: retried, then handed back to the agent, never "cleared".
NO_OPS = ("active_tab", "idempotent_buttons")
# Faults of the companion's RPCs, injected by the simulator: the timeout ladder rides them out.
RPC_FAULTS = ("list_apps_error", "slow_describe", "slow_launch")


class SettleClock(VirtualClock):
    """Real settle waits (the app's own timers run in real time: a clicked Textual button
    flashes for 0.2 s and ignores clicks meanwhile), virtual remedy waits (2 s and more)."""

    REAL_UP_TO = 0.4  # the settle after an action and after a remedy (LADDER["settle"])

    async def sleep(self, seconds: float) -> None:
        if seconds <= self.REAL_UP_TO:
            await asyncio.sleep(seconds)
        else:
            await super().sleep(seconds)


def device_of(scenario: Scenario) -> str:
    """A Textual scenario names its app as module:Class; the others run on the bank model."""
    return f"textual:{scenario.app}" if ":" in scenario.app else f"sim:{BANK}"


def scenarios() -> list:
    found = []
    for path in sorted(LOOKALIKES.glob("*.yaml")):
        reason = TODAY.get(path.stem)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        found.append(pytest.param(path, id=path.stem, marks=marks))
    return found


def holds(assertion: Assert, observation: Observation) -> bool:
    element = target_element(observation, assertion.target)
    if assertion.condition == "absent":
        return element is None
    if assertion.condition == "value_equals":
        return element is not None and element.value == assertion.value
    return element is not None


def aimed(action, observation: Observation):
    """A targeted tap at the centre of its element (the engine's rule: an alert's own button
    before the one behind it), as a user would click it."""
    if isinstance(action, Tap) and action.target is not None and action.x is None:
        element = target_element(observation, action.target)
        assert element is not None, f"no {action.target} on screen"
        return Tap(element.frame.center.x, element.frame.center.y)
    return action


@pytest.mark.parametrize("path", sorted(LOOKALIKES.glob("*.yaml")), ids=lambda p: p.stem)
async def test_the_script_reaches_the_goal_without_the_engine(path: Path):
    """Driven action by action through the device alone, every scenario's criteria hold: a
    failure of the engine test below is the engine's, not the app's or the script's."""
    scenario = evolve(load_scenario(path), faults=())  # the faults are the engine's business
    actions = [*scenario.preconditions, *(d.action for d in scenario.script)]
    async with open_device(device_of(scenario), scenario) as device:
        await device.launch(scenario.app)
        for action in actions:
            if isinstance(action, Done):
                break
            if isinstance(action, Assert):
                assert holds(action, await device.observe()), action
            elif isinstance(action, Tap) and action.target is not None:
                assert (await device.perform(aimed(action, await device.observe()))).ok, action
            else:  # typing and keys go to the focus: nothing to look up
                assert (await device.perform(action)).ok, action
        observation = await device.observe()
        for criterion in scenario.success_criteria:
            assert holds(criterion, observation), criterion


@pytest.mark.slow(
    reason="a Textual look-alike runs on the app's own timers (SettleClock), in real time"
)
@pytest.mark.parametrize("path", scenarios())
async def test_a_lookalike_passes_live_with_no_recovery(path: Path, tmp_path: Path, monkeypatch):
    """No remedy runs on a look-alike. A tap that rightly changes nothing may be retried, but
    the retries change nothing either (else they hit something else) and the agent gets it back;
    an RPC fault is a rung of the timeout ladder, and only a crash relaunches the app."""
    scenario = load_scenario(path)
    kind = path.stem.split("_", 1)[1]
    if kind in RPC_FAULTS:
        scaled_time(monkeypatch)  # the stalls and the driver's rungs at a tenth of the wall time
    # A Textual app's own timers run in real time; the simulator has none, its waits can be virtual.
    clock = SettleClock() if ":" in scenario.app else VirtualClock()
    recording = await asyncio.wait_for(
        record(scenario, tmp_path / "run.cassette", device=device_of(scenario), clock=clock),
        WALL_SECONDS,
    )
    report = recording.report
    paths = recoveries(report)
    if kind in NO_OPS:
        assert all(p[0][1] == "no_effect" and p[-1][2] == "handed_back" for p in paths), paths
        assert report.status == "passed", report.errors
    elif kind in RPC_FAULTS:
        crashed = kind == "slow_launch"  # the crash whose relaunch is slow
        assert [p[0][1] for p in paths if p[0][1] != "empty_dump"] == ["crash"] * crashed, paths
        assert all(p[-1][2] == "resolved" for p in paths), paths
        assert not any(t == "restarting" for p in paths for _, _, t in p)
        assert report.crashes_recovered == crashed
        assert report.goal_met and not report.goals_missed, report.errors
    else:
        assert paths == []
        assert not any(t.target == "recovering" for t in report.transitions)
        assert report.status == "passed", report.errors
        assert report.errors == () and report.retries == 0

    outcome = await asyncio.wait_for(replay(recording.cassette), WALL_SECONDS)
    assert outcome.faithful, outcome.differences
    assert outcome.report == report


# --- Jotter, the app itself -------------------------------------------------------------------


async def signed_in(device: TextualDevice) -> Observation:
    from orav.demo.notes import EMAIL, PASSWORD
    from orav.model import PressKey, TypeText

    await device.launch()
    for action in (TypeText(EMAIL), PressKey("tab"), TypeText(PASSWORD, secure=True)):
        assert (await device.perform(action)).ok
    assert (await device.perform(PressKey("return"))).ok
    return await device.observe()


async def test_tabs_are_named_by_their_text():
    async with TextualDevice(NotesApp) as device:
        seen = await signed_in(device)
        tabs = [e.label for e in seen.elements if e.role == "AXTab"]
        assert tabs == ["Notes", "Dashboard", "Upgrade", "Settings", "About"]


async def test_a_wrong_password_is_refused_and_nothing_else_shows():
    from orav.model import PressKey, TypeText

    async with TextualDevice(NotesApp) as device:
        await device.launch()
        for action in (TypeText("ada@jotter.app"), PressKey("tab"), TypeText("nope", secure=True)):
            await device.perform(action)
        await device.perform(PressKey("return"))
        seen = await device.observe()
        assert (
            target_element(seen, Target(id="sign_in_error")).label
            == "That e-mail and password don't match."
        )
        assert target_element(seen, Target(id="password")).secure


async def test_every_launch_starts_from_the_same_notes():
    async with TextualDevice(NotesApp) as device:
        seen = await signed_in(device)
        await device.perform(aimed(Tap(target=_id("mark_read")), seen))
        assert target_element(await device.observe(), Target("3 notes, 0 unread")) is not None
        await device.terminate()
        again = await signed_in(device)
        assert target_element(again, Target("3 notes, 2 unread")) is not None


def _id(unique_id: str):
    from orav.model import Target

    return Target(id=unique_id)


# --- Ledger: look-alikes in any order -------------------------------------------------------


def _tap(unique_id: str | None = None, label: str | None = None) -> Decision:
    return Decision(Tap(target=Target(label=label, id=unique_id)))


# What a user does on each tab of Ledger, starting and ending at the tab's root: benign taps
# that change nothing, the app's own alert answered either way, a form with secure fields, a
# plain offline hint, read-only rows.
MOVES = {
    "tab_accounts": [
        [],
        [_tap("refresh")],
        [_tap("checking"), _tap("txn_1"), _tap("txn_2"), _tap("back")],
        [_tap("savings"), _tap("back")],
    ],
    "tab_payments": [
        [_tap("payee_landlord")],
        [_tap("delete_payee"), _tap(label="Cancel")],
        [_tap("delete_payee"), _tap("confirm_delete")],
        [
            _tap("add_card"),
            _tap("card_name"),
            Decision(TypeText("Sam Taylor")),
            _tap("card_number"),
            Decision(TypeText("4242424242424242", secure=True)),
            _tap("cvv"),
            Decision(TypeText("123", secure=True)),
            _tap("save_card"),
            _tap("back"),
        ],
    ],
    "tab_cards": [[], [_tap("card_visa")]],
    "tab_more": [
        [_tap("messages"), _tap("mark_read"), _tap("mark_read"), _tap("back")],
        [_tap("statements"), _tap("statement_oct"), _tap("back"), _tap("back")],
    ],
}
moves = st.sampled_from(sorted(MOVES)).flatmap(
    lambda tab: st.sampled_from(MOVES[tab]).map(lambda steps: [_tap(tab), *steps])
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(moves, min_size=1, max_size=4))
async def test_benign_moves_in_any_order_start_no_remedy(walk):
    """Whatever order a user goes through Ledger's look-alikes in, the only recovery is a
    no-op tap retried and handed back: nothing is dismissed, typed, retried or restarted."""
    base = load_scenario(LOOKALIKES / "bank_answer_no.yaml")
    report = await walked(base, walk, "tab_accounts", f"sim:{BANK}")
    paths = recoveries(report)
    assert all(p[0][1] == "no_effect" and p[-1][2] == "handed_back" for p in paths), paths
    assert report.status == "passed", report.errors
