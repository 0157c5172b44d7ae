"""Scenario lifecycle fields (install, launch arguments and environment, permission presets,
reset) done by orav.provision against `orav sim` through the real fb-idb client, and the seed's
goal YAML through named states."""

from __future__ import annotations

from pathlib import Path

import pytest
from command import orav

from orav.device import CrashReport
from orav.drivers.idb import IdbDevice
from orav.errors import InputError
from orav.model import Assert, Fault, Scenario, Target
from orav.provision import crash_report, needs_lifecycle, provision
from orav.scenario_loader import load_scenario
from orav.sim import SHOP_APP, SimCompanion

SEED = (
    Path(__file__).resolve().parent.parent / "orav" / "scenarios" / "shop" / "seed_login_flow.yaml"
)
SHOP = "com.orav.shop"

LIFECYCLE = f"""\
name: fresh_start
app: {SHOP}
goal: Start logged out with location allowed and the UI-test flag.
install: {SHOP_APP}
reset: [keychain, reinstall]
grant: {{location: allow, camera: deny}}
launch:
  arguments: [-UITests, "1"]
  environment: {{API_URL: "http://127.0.0.1:9"}}
"""


def test_the_seed_goal_yaml_maps_through_named_states() -> None:
    scenario = load_scenario(SEED)
    assert scenario.name == "Login_Flow"
    assert scenario.reset == ("keychain",)  # logged_in: false
    assert scenario.preconditions == ()  # app_launched: true is every run's launch
    assert scenario.success_criteria == (
        Assert(Target(id="tab_profile"), name="logged_in"),
        Assert(Target(id="product_tee"), name="home_screen_visible"),
    )


def test_a_true_precondition_runs_the_states_setup_and_false_negates_a_check(tmp_path) -> None:
    text = SEED.read_text().replace("  - logged_in: false\n", "  - logged_in: true\n")
    text = text.replace("  - home_screen_visible: true\n", "  - home_screen_visible: false\n")
    path = tmp_path / "flow.yaml"
    path.write_text(text)
    scenario = load_scenario(path)
    assert [a.kind for a in scenario.preconditions] == ["tap", "type_text"] * 2 + ["tap"]
    assert scenario.success_criteria[-1] == Assert(
        Target(id="product_tee"), "absent", name="not home_screen_visible"
    )
    assert scenario.reset == ()


@pytest.mark.parametrize(
    ("old", "new", "where", "what"),
    [
        ("  - logged_in: false\n", "  - logged_in: 'no'\n", "8:5", "expected"),
        ("  - app_launched: true\n", "  - app_launched: false\n", "7:5", "always launches"),
        ("    reset: [keychain]", "    reset: []", "8:5", "has no `reset`"),
        ("grant: ", "grant: ", "", ""),
    ],
)
def test_named_state_errors_are_located(tmp_path, old: str, new: str, where: str, what: str):
    if not where:
        text = SEED.read_text() + "grant: {gps: allow}\n"
        where, what = "36:1", "unknown permission 'gps'"
    else:
        assert old in SEED.read_text()
        text = SEED.read_text().replace(old, new, 1)
    path = tmp_path / "flow.yaml"
    path.write_text(text)
    done = orav("validate", path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"orav: error: {path}:{where}: "), line
    assert what in line


async def test_provision_reinstalls_resets_grants_and_launches_with_arguments(tmp_path) -> None:
    path = tmp_path / "fresh.yaml"
    path.write_text(LIFECYCLE)
    scenario = load_scenario(path)
    assert needs_lifecycle(scenario) and scenario.install == str(SHOP_APP)
    async with SimCompanion(SHOP_APP) as sim, IdbDevice.connect(sim.address, bundle_id=SHOP) as d:
        sim.state.keychain["session"] = "someone@orav.dev"  # signed in from an earlier run
        sim.state.memory["cart"] = ("tee",)
        await provision(d, scenario)
        state = sim.app(SHOP)
        assert state is not sim.service.apps.get("gone")  # the reinstalled app
        assert state.running and state.screen == "sign_in"  # logged out
        assert state.args == ("-UITests", "1") and state.env == {"API_URL": "http://127.0.0.1:9"}
        assert state.grants == {"location": True, "camera": False}
        assert state.memory["cart"] == ()


async def test_a_plain_scenario_only_launches() -> None:
    scenario = Scenario(name="plain", app=SHOP, goal="g")
    assert not needs_lifecycle(scenario)
    async with SimCompanion(SHOP_APP) as sim, IdbDevice.connect(sim.address, bundle_id=SHOP) as d:
        await d.terminate(SHOP)
        await provision(d, scenario)
        assert sim.state.running


async def test_a_device_without_the_lifecycle_is_refused_not_skipped() -> None:
    class Plain:
        async def launch(self, bundle_id: str) -> None:
            raise AssertionError("not reached")

    scenario = Scenario(name="s", app=SHOP, goal="g", reset=("keychain",))
    with pytest.raises(InputError, match="need an iOS device"):
        await provision(Plain(), scenario)  # type: ignore[arg-type]
    assert await crash_report(Plain(), SHOP, 0) is None  # type: ignore[arg-type]


async def test_crash_report_is_the_newest_since_the_run_began() -> None:
    async with SimCompanion(SHOP_APP) as sim, IdbDevice.connect(sim.address, bundle_id=SHOP) as d:
        sim.schedule(Fault("crash", at_step=1, message="nil session"))
        await d.client.tap(195, 200)
        report = await crash_report(d, SHOP, 0)
        assert isinstance(report, CrashReport) and "nil session" in report.contents
        assert await crash_report(d, SHOP, report.timestamp + 1) is None


async def test_a_provisioned_run_records_its_install_step_and_replays_it(tmp_path) -> None:
    """The run machine's install step and the launch with arguments go through the recorded
    device: the cassette holds them and a replay asks for the same, with no companion."""
    from orav.cassette import LifecycleEvent, read_cassette
    from orav.model import Decision, Done
    from orav.session import record, replay
    from orav.testing import VirtualClock

    text = LIFECYCLE + "script:\n  - action: {kind: done, success: true}\n"
    path = tmp_path / "fresh.yaml"
    path.write_text(text)
    scenario = load_scenario(path)
    assert scenario.script == (Decision(Done()),)
    out = tmp_path / "fresh.cassette"
    recording = await record(scenario, out, clock=VirtualClock())
    assert recording.report.goal_met, recording.report
    run = [t for t in recording.report.transitions if t.machine == "run"]
    assert [(t.source, t.target) for t in run[:3]] == [
        ("idle", "installing"),
        ("installing", "launching"),
        ("launching", "preparing"),
    ]
    calls = [e.call for e in read_cassette(out).events if isinstance(e, LifecycleEvent)]
    assert calls == ["uninstall", "install", "clear_keychain", "approve", "revoke", "launch"]
    outcome = await replay(out)
    assert outcome.faithful, outcome.differences
