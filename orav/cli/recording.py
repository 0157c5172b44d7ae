"""``orav record``: scenarios run live into cassettes, one at a time, in workers or on several
companions, with retries; a golden that passed is replayed instead (record mode ``once``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from attrs import evolve

from orav.cli.flags import (
    agent_options,
    base_url_option,
    default_workers,
    device_pool,
    examples,
    file_errors,
    for_agent,
    judge_option,
    make_agent,
    make_judge,
    regression_check_option,
    verbosity,
    verbosity_options,
    world,
    world_argv,
    world_options,
)
from orav.cli.group import cli, held
from orav.cli.render import print_reports, progress_console, say_outcome, say_reasons
from orav.cli.suite_jobs import (
    WORKER,
    jobs_of,
    kept_goldens,
    replay_golden,
    same_scenario,
    worker_argv,
)
from orav.errors import InputError, Interrupted

if TYPE_CHECKING:
    from orav.agents import Agent
    from orav.config import Config
    from orav.judges import Judge
    from orav.sandbox import WorldOptions
    from orav.session import Recording, Replay
    from orav.suite import Job, Outcome, Shard


@cli.command(
    epilog=examples(
        "orav record scenarios/login.yaml",
        "orav record scenarios/login.yaml --record-mode all",
        "orav record orav/scenarios/textual/ --junit out/textual.xml",
    )
)
@click.argument(
    "scenario_paths", metavar="[SCENARIO]...", nargs=-1, type=click.Path(path_type=Path)
)
@click.option(
    "--device",
    "device_specs",
    multiple=True,
    help="'sim' (the simulator; default), 'sim:APP.yaml' (with your app model), "
    "'idb:HOST:PORT' (an idb companion; several, the flag repeated or comma-separated, are a "
    "pool: a suite runs one scenario on each at a time, and one that stops answering is taken "
    "out, its run moved to another), 'textual:package.module:AppClass' (a Textual app, in a "
    "sandbox of its own; 'textual-in-process:...' in orav's process, in your own world) or "
    "'class:package.module:Class[?name=value&...]' (a Device of your own, "
    "imported from the working folder; docs/guide-device.md). Wins over the scenario's "
    "`device:`, which wins over the config's; none: a module:App app's Textual device, "
    "else 'sim'.",
)
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="'scripted' (the scenario's script; default), 'explorer' (tries every control, no "
    "model), 'openai:MODEL' (any OpenAI-compatible API) or "
    "'class:package.module:Class[?name=value&...]' (an Agent of your own, imported from the "
    "working folder; docs/guide-agent.md).",
)
@base_url_option
@agent_options
@judge_option
@click.option("--out", type=click.Path(path_type=Path), help="Cassette path (one scenario).")
@click.option(
    "--record-mode",
    "mode",
    metavar="MODE",
    default=None,
    help="As in vcrpy (the policy: orav.cassette.slot). once (default): record, unless the cassette "
    "holds a run that passed: that one is replayed instead (one that did not pass is recorded "
    "over); new_episodes: re-record, reusing the "
    "existing cassette's decisions where the screen is the same and asking the agent only for "
    "new screens; all: record, replacing the cassette; none: no device or agent, replay the "
    "existing cassette (as orav replay).",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing cassette (--record-mode all).")
@click.option(
    "--seed", default=0, show_default=True, help="Seed of the simulator's faults (sim only)."
)
@click.option("--tag", "tags", multiple=True, help="Run only scenarios with this tag (repeatable).")
@click.option("--skip-tag", "skip_tags", multiple=True, help="Leave out scenarios with this tag.")
@click.option("--shard", metavar="I/N", help="Run shard I of N (a CI matrix): every Nth scenario.")
@click.option(
    "--workers",
    "--jobs",
    "workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Record this many scenarios at once, each in its own process with its own simulator "
    "(or device of the pool). Default: one per free core (cores less the load average) for "
    "sim and textual: devices, one per device of a pool, else 1 (said on stderr).",
)
@click.option(
    "--retries",
    type=click.IntRange(0, 10),
    default=None,
    help="Record a scenario that did not pass again, up to N times; one that passes on a retry "
    "is reported flaky. Default 0.",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write JUnit XML of the runs (one testcase per scenario) to this file.",
)
@click.option(
    "--keep-aborted",
    is_flag=True,
    help="Keep an aborted run's cassette and reports in recordings/ (by default they are set "
    "aside in .orav/aborted/ beside it, the path said; --out keeps them where it says).",
)
@regression_check_option(
    "Once a run reaches its goal", "its app", " Default: the config's regression_check."
)
@world_options
@verbosity_options
@click.pass_context
def record(
    ctx: click.Context,
    scenario_paths: tuple[Path, ...],
    device_specs: tuple[str, ...],
    agent_spec: str | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
    judge_spec: str | None,
    out: Path | None,
    mode: str | None,
    overwrite: bool,
    seed: int,
    tags: tuple[str, ...],
    skip_tags: tuple[str, ...],
    shard: str | None,
    workers: int | None,
    retries: int | None,
    junit: Path | None,
    keep_aborted: bool,
    regression_check: tuple[Path, ...],
    network: bool | None,
    keep_sandbox: bool,
    disposable: bool,
    quiet: bool,
    verbose: int,
) -> None:
    """Run scenarios live and write each one's cassette and reports (exit 0 when every goal is
    met).

    SCENARIO is a file, a folder (every YAML file under it) or a glob; none: the `scenarios`
    of the config file (orav.toml or [tool.orav] in pyproject.toml), else ./scenarios.
    Cassettes go to recordings/ (the config's `recordings`), named after the scenario file and
    its place under the folder given. While a run goes its steps, actions and recoveries are
    printed on stderr; a run that did not pass says why.
    """
    from orav import suite
    from orav.cassette.record_mode import RecordMode
    from orav.config import load_config
    from orav.specs import check_app

    loud = verbosity(quiet, verbose)
    mode = RecordMode.of(mode, overwrite=overwrite)
    config = load_config()
    pool = device_pool(device_specs, config)
    agent_spec = agent_spec or config.agent
    base_url = base_url or config.base_url
    workers = workers or config.workers
    retries = config.retries if retries is None else retries
    chosen = suite.parse_shard(shard) if shard is not None else None
    everything = jobs_of(scenario_paths or config.scenarios, config, out, tags, skip_tags)
    jobs = suite.shard_of(everything, chosen)
    shards = _Shards(chosen, everything, Path(config.recordings))
    if not jobs:
        shards.write([])
        click.echo(f"orav: shard {shard} has no scenario", err=True)
        sys.exit(0)
    flows = regression_check or config.regression_check
    where = Where(bool(device_specs), bool(config.devices or config.device))
    revisit = _revisit(flows, config, jobs, pool[0] if where.told else None, seed)
    if mode == "none":  # no device, no agent: exactly what orav replay does
        seeded = ctx.get_parameter_source("seed") is not click.core.ParameterSource.DEFAULT
        live = {
            "--device": bool(device_specs),
            "--agent": agent_spec != config.agent,
            "--seed": seeded,
            "--workers": ctx.get_parameter_source("workers")
            is click.core.ParameterSource.COMMANDLINE,
            "--retries": retries > 0,
            "--regression-check": bool(regression_check),
            "--judge": bool(judge_spec),
        }
        _replay_instead(ctx, jobs, live, base_url, config.base_url, agent_options)
    agent_url, agent_settings = for_agent(agent_spec, judge_spec, base_url, agent_options)
    agent = make_agent(agent_spec, agent_url, agent_settings, config)  # refuse a bad one up front
    judge = make_judge(judge_spec, base_url, agent_options)
    for job in jobs:  # a scenario on a device without its app: said before any runs
        check_app(where(job, pool[0]), job.scenario)
    replays, jobs = _kept_replayed(jobs, mode)
    if not jobs:
        _after_suite(replays, junit, single=len(replays) == 1, revisit=revisit, shards=shards)
    if not any(spec.startswith("textual") for spec in pool):
        config.ignored(("network", "sandbox_files"), "only a textual: app runs in a sandbox")
    here = _Here(
        agent,
        where,
        pool[0],
        mode,
        seed,
        loud,
        judge,
        world(config, network, keep_sandbox, disposable),
    )
    in_worker = worker_argv(
        agent_spec, base_url, agent_options, mode, seed, judge_spec, world_argv(here.world)
    )

    def argv(job: Job, attempt: int, slot: str) -> list[str]:
        return in_worker(job, attempt, where(job, slot))

    workers = _workers(workers, pool, len(jobs), loud)
    keep = keep_aborted or out is not None
    if len(jobs) == 1 and len(pool) == 1 and workers == 1 and not replays:
        outcome = here.record(jobs[0], retries, 1)
        outcomes = set_aside([evolve(outcome, device=here.device(jobs[0]))], config, keep)
        _after_suite(outcomes, junit, single=True, revisit=revisit, shards=shards)
    outcomes = _record_suite(jobs, here, argv, pool, workers=workers, retries=retries)
    outcomes = set_aside(outcomes, config, keep)
    _after_suite([*replays, *outcomes], junit, single=False, revisit=revisit, shards=shards)


class _Shards:
    """With ``--shard``, the manifest a shard leaves beside its cassettes, for
    ``orav report --merge`` to join the shards (``orav.report.shards``)."""

    def __init__(self, shard: Shard | None, suite: Sequence[Job], folder: Path) -> None:
        self.shard, self.suite, self.folder = shard, suite, folder

    def write(self, outcomes: Sequence[Outcome]) -> None:
        from orav.report.shards import write_manifest

        if self.shard is None:
            return
        runs = [(o.job.out, o.device, o.attempts, o.error) for o in outcomes]
        where = (self.shard.index, self.shard.count)
        with file_errors("write", self.folder):
            path = write_manifest(self.folder, where, [job.out for job in self.suite], runs)
        click.echo(f"shard:    {path}")


def _workers(given: int | None, pool: Sequence[str], jobs: int, loud: int) -> int:
    """``--workers`` (or the config's), at most one per device of a pool; else what the
    machine or the pool can run, said on stderr when a suite is recorded."""
    if given is not None:
        if len(pool) > 1 and given > len(pool):
            what = f"{len(pool)} devices run at most {len(pool)} scenarios at once"
            raise InputError(f"{what}, not {given}", "--workers")
        return given
    workers, why = default_workers(pool, jobs)
    if loud and jobs > 1:
        plural = "s" * (workers > 1)
        click.echo(f"orav: {workers} worker{plural} ({why}; --workers N to choose)", err=True)
    return workers


def _replay_instead(
    ctx: click.Context,
    jobs: Sequence[Job],
    live: dict[str, bool],
    base_url: str | None,
    config_base_url: str | None,
    agent_options: Sequence[str],
) -> None:
    """Record mode ``none``: each job's cassette replayed (the command exits with the replay's
    status); a flag of a live run (``live``: given or not) is refused, as it has no effect."""
    from orav.cli.replaying import replay

    given = [flag for flag, value in live.items() if value]
    if given or (base_url and base_url != config_base_url) or agent_options:
        flags = ", ".join(given + ["--base-url"] * bool(base_url))
        raise click.UsageError(
            f"--record-mode none only replays: {flags or '--agent-option'} has no effect"
        )
    for job in jobs:
        same_scenario(job.out, job.scenario)
    ctx.invoke(replay, cassettes=tuple(job.out for job in jobs))  # exits with its status


def _kept_replayed(jobs: Sequence[Job], mode: str) -> tuple[list[Outcome], list[Job]]:
    """Record mode ``once``: the jobs whose cassette passed, replayed instead (each said on
    stderr); and the jobs left to record."""
    kept = kept_goldens(jobs) if mode == "once" else {}
    console = progress_console()
    for job in kept.values():
        console.print(
            f"{job.out}: a passing cassette exists: replayed, not recorded "
            "(--record-mode all records it again)",
            markup=False,
        )
    replays = [replay_golden(job) for job in kept.values()]
    if replays:
        from orav.report.html import write_html

        for outcome in replays:  # its HTML report, as a recording's: the summary names it
            write_html(outcome.job.out)
    return replays, [job for job in jobs if id(job) not in kept]


def _record_suite(
    jobs: Sequence[Job],
    here: _Here,
    argv: Callable[[Job, int, str], list[str]],
    pool: Sequence[str],
    *,
    workers: int,
    retries: int,
) -> list[Outcome]:
    """The jobs recorded one after the other in this process, or in worker processes
    (``workers`` at once over the devices of ``pool``, else on its one device); each outcome
    said as it comes."""
    from orav import suite
    from orav.specs import answers

    console = progress_console()

    def done(outcome: Outcome) -> None:
        if here.loud:
            say_outcome(console, outcome, device=len(pool) > 1)

    if workers == 1 and len(pool) == 1:
        outcomes = suite.run_serial(
            jobs, lambda job, n: here.attempt(job, n).report, retries=retries, done=done
        )
        return [evolve(outcome, device=here.device(outcome.job)) for outcome in outcomes]
    if len(pool) == 1:
        pool = [*pool] * workers  # a device each run starts for itself
    return suite.run_parallel(
        jobs,
        argv,
        worker=WORKER,
        devices=pool,
        workers=workers,
        retries=retries,
        done=done,
        answers=answers,
    )


class Where:
    """The device a job runs on: ``--device`` (``flag``: given), else its scenario's ``device:``,
    else the config's (``configured``: set), else ``orav.specs.device_for``'s default. ``slot``
    is the one of several companions (``--device idb:A,idb:B``, or the config's) given to it."""

    def __init__(self, flag: bool, configured: bool) -> None:
        self.flag, self.configured = flag, configured

    @property
    def told(self) -> bool:
        """Whether the flag or the config named the device (else each scenario says)."""
        return self.flag or self.configured

    def __call__(self, job: Job, slot: str) -> str:
        from orav.specs import device_for

        if self.flag:
            return slot
        return device_for(job.scenario, None, slot if self.configured else None)


class _Here:
    """Records jobs in this process, with progress on stderr; each one's reports written, its
    reasons printed when it did not pass."""

    def __init__(
        self,
        agent: Agent,
        where: Where,
        slot: str,
        mode: str,
        seed: int,
        loud: int,
        judge: Judge | None,
        world: WorldOptions,
    ) -> None:
        self.agent, self.where, self.slot = agent, where, slot
        self.mode, self.seed, self.loud = mode, seed, loud
        self.judge, self.world = judge, world

    def device(self, job: Job) -> str:
        """The device ``job`` runs on in this process."""
        return self.where(job, self.slot)

    def record(self, job: Job, retries: int, attempt: int) -> Outcome:
        """Attempt ``attempt`` and up to ``retries`` more (a fresh recording each)."""
        from orav import suite

        started = time.monotonic()
        for n in range(attempt, attempt + retries + 1):
            result = self.attempt(job, n)
            if result.report.goal_met:
                break
            if n < attempt + retries:
                click.echo(f"{job.out}: {result.report.status}; retry {n} of {retries}", err=True)
        return suite.Outcome(job, result.report, n - attempt + 1, time.monotonic() - started)

    def attempt(self, job: Job, n: int) -> Recording:
        """Attempt ``n`` at recording ``job``: a retry records over the attempt that failed."""
        from orav import session
        from orav.report.console import Progress

        progress = Progress(
            progress_console(), max_steps=job.scenario.max_steps, verbosity=self.loud
        )
        result = recorded(
            session.record(
                job.scenario,
                job.out,
                device=self.device(job),
                agent=self.agent,
                mode=self.mode if n == 1 else "all",
                seed=self.seed,
                progress=progress,
                judge=self.judge,
                world=self.world,
            )
        )
        name = self.agent.name
        if result.reused:
            click.echo(
                f"{job.out}: {result.reused} decisions reused from the old cassette, "
                f"{result.asked} asked of {name}"
            )
            for heal in result.heals:
                click.echo(f"  {heal}")
        elif result.reused is not None:
            click.echo(f"{job.out}: nothing to reuse: every decision was asked of {name}")
        write_reports(result, job.out)
        say_reasons(result.report, job.out)
        return result


def set_aside(outcomes: Sequence[Outcome], config: Config, keep: bool) -> list[Outcome]:
    """The outcomes, an aborted run's cassette and reports moved out of the recordings folder
    into ``.orav/aborted/`` beside it (said on stderr): a run that never got going is no golden
    and no failure of the app to keep beside them. The project's own folder, not a shared temp
    one another user could have made first; ignored by git as ``.pytest_cache`` is. ``keep``:
    left where they are."""
    import shutil

    from attrs import evolve

    if keep:
        return list(outcomes)
    aside = Path(config.recordings).resolve().parent / ".orav" / "aborted"
    moved = []
    for outcome in outcomes:
        report = outcome.report
        if report is None or report.status != "aborted" or outcome.replayed is not None:
            moved.append(outcome)
            continue
        out = outcome.job.out
        try:
            where = aside / out.resolve().relative_to(Path(config.recordings).resolve())
        except ValueError:
            where = aside / out.name
        with file_errors("set aside", where.parent):
            where.parent.mkdir(parents=True, exist_ok=True)
            ignore = aside.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# made by orav: what it sets aside is no one's to commit\n*\n")
            for suffix in (".cassette", ".report.json", ".html"):
                if out.with_suffix(suffix).exists():
                    shutil.move(out.with_suffix(suffix), where.with_suffix(suffix))
        click.echo(
            f"{out}: aborted: its cassette and reports set aside in {where.parent}/ "
            "(--keep-aborted keeps them here)",
            err=True,
        )
        moved.append(evolve(outcome, job=evolve(outcome.job, out=where)))
    return moved


def _revisit(
    paths: Sequence[str | Path],
    config: Config,
    jobs: Sequence[Job],
    device: str | None,
    seed: int,
) -> Callable[..., bool] | None:
    """The regression check after the runs (``orav.regression_check.revisit_after``), its
    flows found up front; None when none is asked for."""
    from functools import partial

    from orav.regression_check import find_flows, revisit_after

    if not paths:
        return None
    homes = [Path(p) for p in config.scenarios] + [job.path.parent for job in jobs]
    return partial(revisit_after, find_flows(paths), device=device, seed=seed, scenarios=homes)


def _after_suite(
    outcomes: Sequence[Outcome],
    junit: Path | None,
    *,
    single: bool,
    revisit: Callable[..., bool] | None = None,
    shards: _Shards | None = None,
) -> None:
    """The summary table, the report files' names, JUnit, the shard's manifest, the
    regression check (``revisit``); exit 0 when every goal was met and no earlier flow
    regressed."""
    rows = [(o.report, o.job.out, o.replayed, o) for o in outcomes if o.report is not None]
    print_reports([row[:3] for row in rows], flaky={id(o.report) for *_, o in rows if o.flaky})
    if single and outcomes[0].report is not None:
        out = outcomes[0].job.out
        click.echo(
            f"cassette: {out}\nreport:   {out.with_suffix('.report.json')}\n"
            f"html:     {out.with_suffix('.html')}"
        )
    if not single:
        _say_suite(outcomes)
    if junit is not None:
        _write_junit(outcomes, junit)
    if shards is not None:
        shards.write(outcomes)
    checked = revisit is None or _checked(outcomes, junit, revisit)
    sys.exit(_status(outcomes, checked))


def _status(outcomes: Sequence[Outcome], checked: bool) -> int:
    """2 when a run left no report, 0 when every goal was met and the check passed, else 1."""
    if any(o.report is None for o in outcomes):
        return 2
    return 0 if all(o.ok for o in outcomes) and checked else 1


def _checked(outcomes: Sequence[Outcome], junit: Path | None, revisit: Callable[..., bool]) -> bool:
    """The regression check after the runs that left a cassette (their HTML reports written
    again with it): whether no earlier flow regressed."""
    ran = [(o.job.out, o.job.scenario.app, o.ok) for o in outcomes if o.report is not None]
    checked = revisit(ran, junit=junit, say=click.echo)
    with_check([out for out, _, _ in ran])
    return checked


def _say_suite(outcomes: Sequence[Outcome]) -> None:
    """Below a suite's table: every reason a run did not pass, together, then the count."""
    from orav.secrets import Scrubber, scenario_secrets

    bad = [o for o in outcomes if not o.ok]
    for outcome in bad:
        scrub = Scrubber(named=scenario_secrets(outcome.job.scenario)).text  # a goal's ${VAR}
        if outcome.report is None:
            click.echo(f"{outcome.job.path}: {scrub(str(outcome.error))}", err=True)
        for line in outcome.report.reasons() if outcome.report else ():
            click.echo(f"{outcome.job.out}: {scrub(line)}", err=True)
        if outcome.replayed is not None and outcome.replayed.differences:
            first = outcome.replayed.differences[0]
            click.echo(f"{outcome.job.out}: replay diverged: {first[:300]}", err=True)
    click.echo(suite_count(outcomes))


def suite_count(outcomes: Sequence[Outcome]) -> str:
    """The suite's last line: how many passed, met their goal with errors, were flaky, did
    not (``3 of 4 met their goal: 2 passed, 1 completed with errors; 1 did not``)."""
    met = [o for o in outcomes if o.ok]
    with_errors = sum(o.report is not None and not o.report.ok for o in met)
    flaky = sum(o.flaky for o in outcomes)
    parts = [f"{len(met) - with_errors} passed"]
    parts += [f"{with_errors} completed with errors"] if with_errors else []
    parts += [f"{flaky} flaky"] if flaky else []
    left = len(outcomes) - len(met)
    return (
        f"{len(met)} of {len(outcomes)} met their goal: "
        + ", ".join(parts)
        + (f"; {left} did not" if left else "")
    )


def _write_junit(outcomes: Sequence[Outcome], junit: Path) -> None:
    """The runs that left a cassette as JUnit XML, with each scenario's attempts."""
    from orav.report.junit import write_junit
    from orav.report.timeline import read_run

    # what JUnit reads of each run, one run's screens in memory at a time
    ran = [o.job.out for o in outcomes if o.report is not None]
    runs = [read_run(out, screenshots=False).unseen() for out in ran]
    attempts = {o.job.out: o.attempts for o in outcomes}
    with file_errors("write", junit):
        click.echo(f"junit:    {write_junit(runs, junit, attempts=attempts)}")


def recorded(coro: Coroutine[Any, Any, Recording | Replay]) -> Recording:
    """Run a recording; when SIGINT/SIGTERM ends it, its reports are still written (the
    cassette ends in an ``interrupted`` report) before the interruption ends the command."""
    import asyncio

    from orav.session import Recording

    try:
        result = asyncio.run(coro)
    except Interrupted as exc:
        kept = exc.recording
        if kept is not None:
            print_reports([(kept.report, kept.cassette, None)])
            click.echo(write_reports(kept, kept.cassette))
        raise
    assert isinstance(result, Recording), "record mode none is a replay, not asked for here"
    return result


def with_check(cassettes: Sequence[Path]) -> None:
    """The HTML reports of the runs a regression check followed, written again with it."""
    from orav.report.html import write_html
    from orav.report.revisits import revisits_path

    for cassette in cassettes:
        if revisits_path(cassette).exists():
            write_html(cassette)


def write_reports(result: Recording, out: Path) -> str:
    """The JSON and HTML reports beside a recorded cassette, written whole before a signal
    ends the command; the lines that name the files."""
    from orav.report import write_json
    from orav.report.html import write_html
    from orav.report.timeline import read_run

    with held():
        run = read_run(out, screenshots=False)  # each screen read as its card is written
        path = out.with_suffix(".report.json")
        report = write_json(result.report, path, secrets=result.secrets, run=run)
        html = write_html(run)
    return f"cassette: {out}\nreport:   {report}\nhtml:     {html}"
