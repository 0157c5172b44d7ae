"""``orav replay`` (a cassette offline: guards orav) and ``orav rerun`` (a golden played live
against the app: guards the app)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from orav.cli.flags import (
    agent_options,
    base_url_option,
    examples,
    expanded,
    file_errors,
    for_agent,
    judge_option,
    make_agent,
    make_judge,
    needs_agent,
    world,
    world_options,
)
from orav.cli.group import cli
from orav.cli.render import print_reports
from orav.errors import InputError

if TYPE_CHECKING:
    from orav.agents import Agent
    from orav.cassette.rerun import Rerun
    from orav.judges import Judge
    from orav.model import Scenario
    from orav.session import Replay


@cli.command(
    epilog=examples(
        "orav replay recordings/login.cassette",
        "orav replay recordings/",
    )
)
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="A candidate agent judged at every recorded step (decision regression), as `orav "
    "record` takes it ('scripted', 'explorer', 'openai:MODEL', 'class:package.module:Class'). "
    "Default: none, the recorded decisions are replayed.",
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(path_type=Path),
    help="With --agent scripted: judge this scenario file's script instead of the recorded one.",
)
@base_url_option
@agent_options
@click.option(
    "--judge",
    "judge_spec",
    default=None,
    metavar="SPEC",
    help="A candidate judge asked every recorded judgement's claim on its recorded screen "
    "(judgement regression): 'table:FILE', 'openai:MODEL' or 'class:package.module:Class'. "
    "Default: none, the recorded judgements are served.",
)
def replay(
    cassettes: tuple[Path, ...],
    agent_spec: str | None,
    scenario_path: Path | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
    judge_spec: str | None,
) -> None:
    """Rerun cassettes offline: no device, no model, no network (exit 0 only if faithful).

    With --agent, a candidate agent sees every recorded screen too and must decide as recorded;
    with --judge, a candidate judge must judge every recorded claim as recorded.
    A cassette that cannot be read is reported and the others still replay (exit 2 at the end).
    """
    import asyncio

    from orav import session
    from orav.errors import ReplayDivergence

    given = {"--base-url": base_url, "--agent-option": agent_options, "--scenario": scenario_path}
    needs_agent(agent_spec or judge_spec, given)
    if scenario_path is not None and agent_spec != "scripted":
        raise click.UsageError("--scenario goes with --agent scripted")
    rows, failed, bad = [], False, False
    for path in expanded(cassettes, (".cassette",)):
        try:
            url, settings = for_agent(agent_spec, judge_spec, base_url, agent_options)
            agent = _candidate(agent_spec, scenario_path, url, settings)
            judge = make_judge(judge_spec, base_url, agent_options)
            if isinstance(path, InputError):
                raise path
            outcome = asyncio.run(session.replay(path, agent=agent, judge=judge))
        except ReplayDivergence as exc:  # name the cassette and go on with the next one
            click.echo(f"orav: diverged: {path}: {exc}", err=True)
            failed = True
            continue
        except InputError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad = True
            continue
        rows.append((outcome.report, path, outcome))
        _say_differences(path, outcome, agent, judge)
    if rows:
        print_reports(rows)
    if bad:
        sys.exit(2)
    sys.exit(0 if not failed and all(outcome.ok for _, _, outcome in rows) else 1)


def _say_differences(path: Path, outcome: Replay, agent: Agent | None, judge: Judge | None) -> None:
    """Where the replay differed from the cassette, and how far a candidate agent or judge
    decided as recorded, on stderr (differences) and stdout (the candidates)."""
    for difference in outcome.differences:
        click.echo(f"{path}: {difference}", err=True)
    if agent is not None:
        same = outcome.compared - len(outcome.decisions)
        click.echo(f"{path}: {same} of {outcome.compared} decisions of {agent.name} matched")
        for diff in outcome.decisions:
            click.echo(
                f"{path}: step {diff.step}: recorded {diff.recorded}, "
                f"{agent.name}: {diff.candidate}"
            )
    if judge is not None:
        same = outcome.judged - len(outcome.judgements)
        click.echo(f"{path}: {same} of {outcome.judged} judgements of {judge.name} matched")
        for judged in outcome.judgements:
            click.echo(
                f"{path}: step {judged.step}: {judged.claim!r}: recorded {judged.recorded}, "
                f"{judge.name}: {judged.candidate}"
            )


def _candidate(
    spec: str | None, scenario_path: Path | None, base_url: str | None, options: Sequence[str]
) -> Agent | None:
    """The agent a decision regression judges, or None to replay the recorded decisions."""
    if spec is None:
        return None
    if spec == "scripted":
        from orav.agents.scripted import ScriptedAgent
        from orav.scenario_loader import load_scenario

        return ScriptedAgent(load_scenario(scenario_path).script if scenario_path else None)
    return make_agent(spec, base_url, options)


@cli.command(
    epilog=examples(
        "orav rerun recordings/login.cassette --html out/reruns",
        "orav rerun recordings/change_setting.cassette --repeat 3",
    )
)
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--device",
    "device_spec",
    default=None,
    help="Where the app runs: as `orav record` takes it. Default: the scenario's Textual app "
    "when its app is module:App, else 'sim'.",
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(path_type=Path),
    help="The scenario file (needed when it types a secret: the cassette holds bullets). "
    "Default: the one of that name beside the cassette or under scenarios/, else the "
    "cassette's own.",
)
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="A fallback agent asked where the app left the recorded path, as `orav record` takes "
    "it (e.g. 'openai:MODEL', 'class:package.module:Class'). Default: none, the rerun ends at "
    "the first regression.",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Rerun each cassette N times: pass@k and the steps that flip.",
)
@click.option(
    "--screenshots",
    type=click.Path(path_type=Path),
    default=None,
    help="Write each regression's recorded and live screenshots under DIR/CASSETTE/.",
)
@click.option(
    "--html",
    "html_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write an HTML page of each cassette's rerun here (CASSETTE.rerun.html): its heals, "
    "and each regression candidate with the recorded and the live screenshot.",
)
@base_url_option
@agent_options
@judge_option
@world_options
def rerun(
    cassettes: tuple[Path, ...],
    device_spec: str | None,
    scenario_path: Path | None,
    agent_spec: str | None,
    repeat: int,
    screenshots: Path | None,
    html_dir: Path | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
    judge_spec: str | None,
    network: bool | None,
    keep_sandbox: bool,
    disposable: bool,
) -> None:
    """Play golden cassettes live against the app: the recorded decisions on the real screens,
    each target found again on the live screen (healed when its id or label moved), the first
    step where the app no longer matches named; a recorded judgement is served where the live
    screen is the recorded one, the judge asked again where it changed. Exit 0 when every
    cassette passed or healed, 1 when one regressed, 2 on bad input. See docs/goldens.md."""
    import asyncio

    from orav import golden
    from orav.cassette import read_cassette
    from orav.config import load_config
    from orav.scenario_loader import load_scenario

    needs_agent(agent_spec or judge_spec, {"--base-url": base_url, "--agent-option": agent_options})
    regressed, bad = False, False
    for path in expanded(cassettes, (".cassette",)):
        try:
            if isinstance(path, InputError):
                raise path
            recorded = read_cassette(path)  # once: the scenario and every rerun read it
            scenario = (
                load_scenario(scenario_path)
                if scenario_path
                else _golden_scenario(path, recorded.header.scenario)
            )
            options: dict[str, Any] = {
                "device": device_spec,
                "scenario": scenario,
                "recorded": recorded,
                "world": world(load_config(), network, keep_sandbox, disposable),
            }
            if agent_spec is not None:
                url, settings = for_agent(agent_spec, judge_spec, base_url, agent_options)
                options["agent"] = make_agent(agent_spec, url, settings)
            options["judge"] = make_judge(judge_spec, base_url, agent_options)
            if repeat > 1:
                repeated = asyncio.run(golden.repeat(path, repeat, **options))
                click.echo(repeated.explain())
                regressed |= repeated.passed == 0  # none of the N held: a regression
                runs = repeated.runs
            else:
                result = asyncio.run(golden.rerun(path, **options))
                click.echo(result.explain())
                if screenshots is not None and result.regressions:
                    for written in result.save_screenshots(screenshots / path.stem):
                        click.echo(f"  screenshot: {written}")
                regressed |= not result.ok
                runs = (result,)
        except InputError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad = True
            continue
        if html_dir is not None:
            _write_rerun_page(path, runs, html_dir)
    if bad:
        sys.exit(2)
    sys.exit(1 if regressed else 0)


def _write_rerun_page(cassette: Path, runs: Sequence[Rerun], folder: Path) -> None:
    from orav.report.html.rerun_page import write_rerun_html

    with file_errors("write", folder):
        page = write_rerun_html(runs, folder / f"{cassette.stem}.rerun.html")
    click.echo(f"  html: {page}")


def _golden_scenario(cassette: Path, recorded: Scenario) -> Scenario:
    """The scenario a rerun of ``cassette`` plays: its file by its name beside the cassette or
    under ./scenarios and orav's examples, else the cassette's own copy (``recorded``)."""
    from orav import golden

    shipped = Path(__file__).resolve().parent.parent / "scenarios"
    folders = [cassette.parent, Path("scenarios"), shipped]
    return golden.scenario_of(cassette, recorded, [f for f in folders if f.is_dir()])
