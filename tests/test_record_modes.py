"""Record modes as in vcrpy (once, all, none, new_episodes), against the simulator over gRPC.

The live agent is the real ScriptedAgent behind a counter (``Counting``), so a test can tell
how often the agent was asked; no model is needed to tell reused decisions from asked ones.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from attrs import evolve
from click.testing import CliRunner

from orav.agents import AgentContext
from orav.agents.scripted import ScriptedAgent
from orav.cassette import REDACTED, DecideEvent, read_cassette
from orav.cli import cli
from orav.errors import DeviceError, InputError
from orav.model import Decision
from orav.scenario_loader import example_scenarios, load_scenario
from orav.session import Recording, Replay, record, replay
from orav.sim import DEMO_APP
from orav.testing import VirtualClock

EXAMPLES = {path.stem: path for path in example_scenarios()}
UNUSABLE_DEVICE = "idb:no-such-host"  # starting anything with it fails


def scenario(name: str):
    return evolve(load_scenario(EXAMPLES[name]), settle_seconds=0)


class Counting:
    """The scenario's script, counting the decisions it was asked for, by step."""

    def __init__(self) -> None:
        self.scripted = ScriptedAgent()
        self.name = self.scripted.name
        self.steps: list[int] = []

    async def decide(self, context: AgentContext) -> Decision:
        self.steps.append(context.step)
        return await self.scripted.decide(context)


async def run(sc, path: Path, **options) -> Recording:
    result = await record(sc, path, clock=VirtualClock(), **options)
    assert isinstance(result, Recording)
    return result


def decides(path: Path) -> list[DecideEvent]:
    return [e for e in read_cassette(path).events if isinstance(e, DecideEvent)]


async def test_once_records_a_new_cassette_and_refuses_an_existing_one(tmp_path: Path):
    path = tmp_path / "run.cassette"
    assert (await run(scenario("open_detail"), path)).report.goal_met
    assert read_cassette(path).header.record_mode == "once"
    before = path.read_bytes()
    with pytest.raises(InputError, match="already exists; replay it with `orav replay`") as caught:
        await run(scenario("open_detail"), path, device=UNUSABLE_DEVICE)
    assert "--record-mode new_episodes" in str(caught.value)
    assert path.read_bytes() == before


async def test_all_and_overwrite_record_anew_replacing_the_cassette(tmp_path: Path):
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    first = read_cassette(path).header.run_id
    agent = Counting()
    await run(scenario("open_detail"), path, mode="all", agent=agent)
    assert agent.steps == [1, 2, 3, 4]  # nothing reused
    again = read_cassette(path)
    assert (again.header.record_mode, again.header.run_id != first) == ("all", True)
    await run(scenario("open_detail"), path, overwrite=True)
    assert read_cassette(path).header.record_mode == "all"
    with pytest.raises(InputError, match="--overwrite means --record-mode all"):
        await run(scenario("open_detail"), path, overwrite=True, mode="new_episodes")


async def test_none_replays_without_touching_a_device(tmp_path: Path):
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    before = path.read_bytes()
    result = await record(scenario("open_detail"), path, mode="none", device=UNUSABLE_DEVICE)
    assert isinstance(result, Replay)
    assert result.faithful and result.report.goal_met
    assert path.read_bytes() == before
    with pytest.raises(InputError, match="cannot read cassette"):
        await record(scenario("open_detail"), tmp_path / "missing.cassette", mode="none")


async def test_new_episodes_on_an_unchanged_app_asks_the_agent_nothing(tmp_path: Path):
    path = tmp_path / "run.cassette"
    recorded = await run(scenario("open_detail"), path)
    agent = Counting()
    again = await run(scenario("open_detail"), path, mode="new_episodes", agent=agent)
    assert agent.steps == []
    assert (again.reused, again.asked) == (4, 0)
    assert again.report.goal_met and again.report.total_steps == recorded.report.total_steps
    cassette = read_cassette(path)
    assert cassette.header.record_mode == "new_episodes"
    assert all(e.reused and e.decision.call is None for e in decides(path))
    assert (await replay(path)).ok
    from orav.report.timeline import read_run

    assert [step.reused for step in read_run(path).steps] == [True] * 3  # done is no step


async def test_a_recorded_secret_is_typed_again_from_its_stand_in_never_asked(tmp_path: Path):
    """The password is recorded as its stand-in, {{password}}, never its value: a re-record
    fills it in from the scenario and asks nothing; a cassette that holds it as ••••••
    (recorded before stand-ins) is typed from the script, which holds it."""
    path = tmp_path / "login.cassette"
    await run(scenario("login"), path)
    typed = decides(path)[3].decision.action
    assert (typed.text, typed.secure) == ("{{password}}", True)
    agent = Counting()
    again = await run(scenario("login"), path, mode="new_episodes", agent=agent)
    assert (agent.steps, again.reused, again.asked, again.report.goal_met) == ([], 6, 0, True)
    assert [e.reused for e in decides(path)] == [True] * 6
    assert "Orav-Demo-1!" not in path.read_text() and "{{password}}" in path.read_text()
    assert (await replay(path)).ok
    old = tmp_path / "old.cassette"  # as orav wrote it before stand-ins
    old.write_text(path.read_text().replace("{{password}}", "\\u2022" * 6))
    assert decides(old)[3].decision.action.text == REDACTED
    again = await run(scenario("login"), old, mode="new_episodes", agent=agent)
    assert (agent.steps, again.reused, again.report.goal_met) == ([], 6, True)


async def test_a_screen_changed_from_step_2_on_is_asked_from_step_2_on(tmp_path: Path):
    """A line of text more is the same screen: reused. The release notes screen become
    another screen (another title): asked from there on."""
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    recorded = path.read_bytes()
    app = tmp_path / "demo.yaml"  # the release notes screen gains a line of text
    text = '"Version 1.0: first release.",\n         frame: [20, 110, 350, 60]}'
    assert text in DEMO_APP.read_text()
    app.write_text(
        DEMO_APP.read_text().replace(
            text,
            f"{text}\n      - {{role: AXStaticText, label: New since 1.0, frame: [20, 180, 350, 30]}}",
        )
    )
    agent = Counting()
    again = await run(
        scenario("open_detail"), path, mode="new_episodes", agent=agent, device=f"sim:{app}"
    )
    assert (agent.steps, again.reused, again.report.goal_met) == ([], 4, True)
    path.write_bytes(recorded)
    app.write_text(DEMO_APP.read_text().replace("title: Release notes", "title: What is new"))
    again = await run(
        scenario("open_detail"), path, mode="new_episodes", agent=agent, device=f"sim:{app}"
    )
    assert agent.steps == [2, 3, 4]  # step 3 is on the same screen, but the run left the path
    assert (again.reused, again.asked, again.report.goal_met) == (1, 3, True)
    assert [e.reused for e in decides(path)] == [True, False, False, False]
    outcome = await replay(path)
    assert outcome.ok and outcome.report == again.report


async def test_an_edited_script_step_is_asked_for_from_that_step_on(tmp_path: Path):
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    edited = scenario("open_detail")
    script = list(edited.script)
    script[2] = evolve(script[2], reasoning="Leave the detail screen.")
    edited = evolve(edited, script=tuple(script), max_steps=20)  # limits do not count
    agent = Counting()
    again = await run(edited, path, mode="new_episodes", agent=agent)
    assert agent.steps == [3, 4]
    assert (again.reused, again.asked) == (2, 2)
    assert decides(path)[2].decision.reasoning == "Leave the detail screen."


async def test_new_episodes_without_a_cassette_records_one(tmp_path: Path):
    path = tmp_path / "new" / "run.cassette"
    agent = Counting()
    result = await run(scenario("open_detail"), path, mode="new_episodes", agent=agent)
    assert (result.reused, result.asked, agent.steps) == (0, 4, [1, 2, 3, 4])
    assert result.cassette == path and sorted(p.name for p in path.parent.iterdir()) == [path.name]


class Hanging:
    """Never answers: the run is interrupted while it waits for the agent."""

    name = "scripted"

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def decide(self, context: AgentContext) -> Decision:
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("not reached")


async def test_an_interrupted_new_episodes_run_keeps_the_old_cassette(tmp_path: Path):
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    before = path.read_bytes()
    edited = scenario("open_detail")
    edited = evolve(edited, script=(edited.script[0], evolve(edited.script[1], reasoning="x")))
    agent = Hanging()
    task = asyncio.create_task(run(edited, path, mode="new_episodes", agent=agent))
    await asyncio.wait_for(agent.asked.wait(), 30)  # step 1 reused, then the agent is asked
    assert list(tmp_path.glob(".run.cassette.*.tmp"))  # the new recording goes beside the old
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["run.cassette"]
    assert (await replay(path)).ok


def _scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "open_detail.yaml"
    path.write_text(EXAMPLES["open_detail"].read_text() + "settle_seconds: 0\n")
    return path


def test_cli_modes(tmp_path: Path):
    source, out = _scenario_file(tmp_path), tmp_path / "run.cassette"
    invoke = CliRunner().invoke
    args = ["record", str(source), "--out", str(out)]
    missing = invoke(cli, [*args, "--record-mode", "none"])
    assert missing.exit_code == 2 and "no cassette to replay" in missing.output
    assert invoke(cli, args).exit_code == 0
    kept = invoke(cli, [*args, "--device", UNUSABLE_DEVICE])  # vcrpy's once: replay it
    assert kept.exit_code == 0, kept.output
    assert "a passing cassette exists: replayed, not recorded" in kept.output
    assert "faithful" in kept.output
    replayed = invoke(cli, [*args, "--record-mode", "none"])
    assert replayed.exit_code == 0 and "faithful" in replayed.output
    ignored = invoke(cli, [*args, "--record-mode", "none", "--device", UNUSABLE_DEVICE])
    assert ignored.exit_code == 2 and "--device has no effect" in ignored.output
    reused = invoke(cli, [*args, "--record-mode", "new_episodes"])
    assert reused.exit_code == 0
    assert "4 decisions reused from the old cassette, 0 asked of scripted" in reused.output
    clash = invoke(cli, [*args, "--overwrite", "--record-mode", "once"])
    assert clash.exit_code == 2 and "--overwrite means --record-mode all" in clash.output


async def test_replacing_a_cassette_keeps_its_permissions_and_the_old_one_on_failure(
    tmp_path: Path,
):
    path = tmp_path / "run.cassette"
    await run(scenario("open_detail"), path)
    path.chmod(0o644)
    for mode in ("new_episodes", "all"):
        await run(scenario("open_detail"), path, mode=mode)
        assert path.stat().st_mode & 0o777 == 0o644, mode
    before = path.read_bytes()
    with pytest.raises(DeviceError):
        await record(scenario("open_detail"), path, mode="all", device="idb:127.0.0.1:1")
    assert path.read_bytes() == before  # a failed run replaces nothing
    assert [p.name for p in tmp_path.iterdir()] == ["run.cassette"]


def test_none_refuses_another_scenarios_cassette(tmp_path: Path):
    source, out = _scenario_file(tmp_path), tmp_path / "run.cassette"
    other = tmp_path / "login.yaml"
    other.write_text(EXAMPLES["login"].read_text())
    assert CliRunner().invoke(cli, ["record", str(source), "--out", str(out)]).exit_code == 0
    result = CliRunner().invoke(
        cli, ["record", str(other), "--out", str(out), "--record-mode", "none"]
    )
    assert result.exit_code == 2
    assert "holds scenario 'open_detail', not 'login'" in result.output
