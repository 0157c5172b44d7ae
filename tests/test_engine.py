"""The engine end to end: real fb-idb client over real gRPC to the simulator, then replay."""

import asyncio
from pathlib import Path

import pytest
from attrs import evolve

from orav.agents.scripted import ScriptedAgent
from orav.cassette import ReplayClock, ReplayDevice, ReplayDivergence, read_cassette
from orav.codec import load_yaml
from orav.drivers.idb import IdbDevice
from orav.engine import Engine, RunTimeout, StepLimitExceeded
from orav.model import Decision, Done, Scenario, Tap, Target, Wait
from orav.scenario_loader import example_scenarios, load_scenario
from orav.session import record, replay
from orav.sim import SimCompanion
from orav.testing import VirtualClock

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "recordings").glob("*.cassette"))


@pytest.mark.parametrize("path", example_scenarios(), ids=lambda p: p.stem)
async def test_example_scenario_records_and_replays_faithfully(path: Path, tmp_path: Path):
    scenario = load_scenario(path)
    recording = await record(scenario, tmp_path / "run.cassette", clock=VirtualClock())
    assert recording.report.status == "passed", recording.report
    assert recording.report.goals_achieved and not recording.report.goals_missed
    assert recording.report.total_steps == len(scenario.script) - 1
    outcome = await replay(recording.cassette)
    assert outcome.faithful, outcome.differences
    assert outcome.report == recording.report
    assert [t.target for t in outcome.report.transitions][-1] == "passed"


def test_golden_cassettes_are_there():
    assert {p.stem for p in GOLDEN} >= {p.stem for p in example_scenarios()}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
async def test_golden_cassette_replays_faithfully(path: Path):
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    assert outcome.report.goal_met


def _scenario(**changes) -> Scenario:
    base = Scenario(name="t", app="com.orav.demo", goal="g", settle_seconds=0.01)
    return evolve(base, **changes)


async def _run(scenario: Scenario, **engine_options):
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app) as device,
    ):
        return await Engine(device, ScriptedAgent(), **engine_options).run(scenario)


TAP_EMAIL = Decision(Tap(target=Target(id="email")), expected_outcome='"email" focused')


async def test_step_limit_ends_the_run_with_its_status():
    scenario = _scenario(max_steps=2, script=(TAP_EMAIL,) * 5)
    report = await _run(scenario)
    assert report.status == "step_limit"
    assert report.total_steps == 2
    assert report.goals_missed == ("g",)
    assert report.transitions[-1].target == "step_limit"
    with pytest.raises(StepLimitExceeded, match="step limit"):
        await _run(scenario, raise_on_limit=True)


async def test_timeout_ends_the_run_even_mid_phase():
    scenario = _scenario(timeout_seconds=1.0, script=(Decision(Wait(5.0)),) * 3)
    started = asyncio.get_running_loop().time()
    report = await _run(scenario)
    assert report.status == "timed_out"
    assert asyncio.get_running_loop().time() - started < 5.0
    with pytest.raises(RunTimeout):
        await _run(scenario, raise_on_limit=True)


async def test_script_that_runs_out_aborts_with_a_clear_error():
    report = await _run(_scenario(script=(TAP_EMAIL,)))
    assert report.status == "aborted"
    assert "no decision is left" in report.errors[-1].error
    assert report.total_steps == 1


async def test_unmet_success_criteria_fail_the_run():
    scenario = load_yaml(
        "name: t\napp: com.orav.demo\ngoal: g\nsettle_seconds: 0.01\n"
        "success_criteria:\n  - {target: {id: settings}}\n"
        "script:\n  - action: {kind: done}\n",
        Scenario,
    )
    report = await _run(scenario)
    assert report.status == "failed"
    assert report.goals_missed == ("#settings is visible",)


async def test_a_tap_on_a_missing_element_is_a_failed_action_not_a_crash():
    scenario = _scenario(
        script=(Decision(Tap(target=Target(label="Nope"))), Decision(Done(success=True)))
    )
    report = await _run(scenario)
    assert report.failed_actions == 1
    assert report.status == "completed_with_errors"
    assert "no element 'Nope'" in report.errors[0].error


async def test_replay_names_the_first_divergent_step(tmp_path: Path):
    scenario = load_scenario(ROOT / "scenarios" / "login.yaml")
    recording = await record(scenario, tmp_path / "login.cassette", clock=VirtualClock())
    cassette = read_cassette(recording.cassette)
    engine = Engine(ReplayDevice(cassette), _Swapped(scenario), clock=ReplayClock(cassette))
    with pytest.raises(ReplayDivergence) as caught:
        await engine.run(scenario)
    assert "step 3" in str(caught.value)
    assert "#sign_in" in str(caught.value) and "#password" in str(caught.value)


class _Swapped(ScriptedAgent):
    """The login script with step 3 tapping Sign in instead of the password field."""

    def __init__(self, scenario: Scenario) -> None:
        self.script = list(scenario.script)
        self.script[2] = Decision(Tap(target=Target(id="sign_in")))

    async def decide(self, context):
        return self.script[len(context.history)]


async def test_decision_regression_judges_every_step_against_the_recording(tmp_path: Path):
    scenario = load_scenario(ROOT / "scenarios" / "login.yaml")
    recording = await record(scenario, tmp_path / "login.cassette", clock=VirtualClock())
    outcome = await replay(recording.cassette, agent=_Swapped(scenario))
    assert outcome.faithful  # the replay follows the recorded decisions
    assert outcome.compared == len(scenario.script)
    assert [(d.step, d.recorded, d.candidate) for d in outcome.decisions] == [
        (3, "tap #password", "tap #sign_in")
    ]
    assert not outcome.ok
    same = await replay(recording.cassette, agent=ScriptedAgent())
    assert same.ok and same.compared == len(scenario.script)


async def test_secrets_never_reach_the_cassette(tmp_path: Path):
    scenario = load_scenario(ROOT / "scenarios" / "login.yaml")
    recording = await record(scenario, tmp_path / "login.cassette", clock=VirtualClock())
    raw = recording.cassette.read_bytes()
    assert b"Orav-Demo-1!" not in raw
    header = read_cassette(recording.cassette).header
    assert header.scenario.script[3].action.text != "Orav-Demo-1!"


@pytest.mark.slow(
    reason="three `orav record` processes, each killed at a random point and read back"
)
def test_a_killed_recording_reads_back_and_replays_up_to_where_it_was_cut(tmp_path: Path):
    """SIGKILL `orav record` at random points: the cassette always reads back to a whole step."""
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(7)
    scenario = ROOT / "scenarios" / "submit_form.yaml"
    for trial in range(3):
        out = tmp_path / f"cut{trial}.cassette"
        process = subprocess.Popen(
            [sys.executable, "-m", "orav", "record", str(scenario), "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.3, 2.5))
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        cassette = read_cassette(out)
        assert cassette.header.scenario.name == "submit_form"
        outcome = asyncio.run(replay(out))
        if outcome.report is None:
            assert not outcome.faithful
            assert f"through step {cassette.last_step}" in outcome.differences[-1]


def test_cli_exit_codes(tmp_path: Path):
    from command import orav

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\napp: y\ngoal: z\nmax_steps: many\n")
    result = orav("record", str(bad), "--out", str(tmp_path / "x.cassette"))
    assert result.returncode == 2
    assert "bad.yaml:4:12: max_steps: expected a whole number" in result.stderr
    assert "Traceback" not in result.stderr

    garbage = tmp_path / "garbage.cassette"
    garbage.write_bytes(b"\x00\xffnot a cassette\n")
    result = orav("replay", str(garbage))
    assert result.returncode == 2 and "Traceback" not in result.stderr

    existing = GOLDEN[0]
    copy = tmp_path / existing.name
    copy.write_bytes(existing.read_bytes())
    scenario = ROOT / "scenarios" / f"{existing.stem}.yaml"
    result = orav("record", str(scenario), "--out", str(copy))  # a golden: vcrpy's once replays
    assert "replayed, not recorded" in result.stderr, result.stderr
    assert result.returncode == orav("replay", str(copy)).returncode

    result = orav("replay", str(copy))
    assert result.returncode == 0, result.stderr
    assert "faithful" in result.stdout

    result = orav(
        "record",
        str(scenario),
        "--device",
        "idb:127.0.0.1:1",
        "--out",
        str(tmp_path / "n.cassette"),
    )
    assert result.returncode == 1
    assert "127.0.0.1:1" in result.stderr and "Traceback" not in result.stderr


async def test_a_timed_out_run_replays_as_it_ran(tmp_path: Path):
    """The deadline cut a sleep and a device call short: replay cuts them at the same place."""
    scenario = _scenario(timeout_seconds=1.2, script=(TAP_EMAIL, Decision(Wait(5.0))))
    recording = await record(scenario, tmp_path / "late.cassette")
    assert recording.report.status == "timed_out"
    outcome = await replay(recording.cassette)
    assert outcome.faithful, outcome.differences
    assert outcome.report == recording.report


class _Broken:
    """Stands in for a device with a bug: observe raises something no driver should."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        return getattr(self.device, name)

    async def observe(self):
        raise KeyError("frame")


async def test_a_bug_in_a_callee_aborts_the_run_with_the_error_in_the_report():
    scenario = _scenario(script=(TAP_EMAIL,))
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app) as device,
    ):
        report = await Engine(_Broken(device), ScriptedAgent()).run(scenario)
    assert report.status == "aborted"
    assert report.errors[-1].error == "KeyError: 'frame'"
    assert report.transitions[-1].event == "error.execution"


async def test_a_failed_model_call_still_counts_in_usage_and_replays(tmp_path: Path):
    from orav.errors import AgentError
    from orav.model import ModelCall

    class Failing:
        """Stands in for an LLM agent whose every answer was invalid (no server needed)."""

        name = "openai:stand-in"

        async def decide(self, context):
            error = AgentError("no valid decision after 3 answers")
            error.call = ModelCall("stand-in", prompt_tokens=300, completion_tokens=30, cost=0.01)
            raise error

    recording = await record(_scenario(), tmp_path / "f.cassette", agent=Failing())
    assert recording.report.status == "aborted"
    assert (recording.report.usage.calls, recording.report.usage.prompt_tokens) == (1, 300)
    assert recording.report.usage.cost == 0.01
    outcome = await replay(recording.cassette)
    assert outcome.faithful, outcome.differences


async def test_a_failed_assertion_fails_the_run_even_when_the_agent_says_done():
    from orav.model import Assert

    check = Decision(Assert(Target(id="settings")))  # not on the login screen
    report = await _run(_scenario(script=(check, Decision(Done(success=True)))))
    assert report.status == "failed"
    assert report.goals_missed == ("#settings is visible",)
    assert report.failed_actions == 1


def test_the_json_report_is_scrubbed_like_a_cassette(tmp_path: Path):
    from orav.model import RunError, RunReport
    from orav.report import write_json

    report = RunReport(
        "r",
        "s",
        "aborted",
        errors=(RunError(1, "server said: bad key sk-abcdefghijklmnop for hunter2222"),),
    )
    text = write_json(report, tmp_path / "r.json", secrets=["hunter2222"]).read_text()
    assert "sk-abcdefghijklmnop" not in text and "hunter2222" not in text
    assert '"status": "aborted"' in text


async def test_tapping_the_focused_field_again_is_not_dropped_input():
    scenario = _scenario(script=(TAP_EMAIL, TAP_EMAIL, Decision(Done(success=True))))
    report = await _run(scenario)
    assert report.status == "passed", report.errors
    assert report.retries == 0 and report.errors == ()


async def test_a_bug_in_a_callee_is_recorded_so_the_cassette_still_replays(tmp_path: Path):
    scenario = _scenario(script=(TAP_EMAIL,))
    path = tmp_path / "bug.cassette"
    async with (
        SimCompanion() as sim,
        IdbDevice.connect(sim.address, bundle_id=scenario.app) as device,
    ):
        report = (await record(scenario, path, device=_Broken(device))).report
    assert report.errors[-1].error == "KeyError: 'frame'"
    outcome = await replay(path)
    assert outcome.faithful, outcome.differences
    assert outcome.report.errors[-1].error == "KeyError: 'frame'"
