"""The ``orav`` command. Heavy imports (openai, textual, grpc) happen inside the commands."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from orav import __version__
from orav.errors import DeviceError, InputError, Interrupted, OravError


class _Group(click.Group):
    """Turns every OravError into one line on stderr and its exit status: no traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except Interrupted as exc:  # the run's cassette and reports say how far it got
            click.echo(f"orav: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("orav: interrupted", err=True)
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise  # usage errors (exit 2), --help and friends: click reports them itself
        except BrokenPipeError:  # `orav audit … | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # a bug in orav: one line, the traceback only when asked for
            if os.environ.get("ORAV_DEBUG"):
                raise
            click.echo(
                f"orav: internal error: {type(exc).__name__}: {exc} "
                "(set ORAV_DEBUG=1 for the traceback, and please report it)",
                err=True,
            )
            sys.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="orav")
def cli() -> None:
    """AI-driven UI acceptance testing: Observe, Reason, Act, Verify, with replayable cassettes."""


def main() -> None:
    cli(prog_name="orav")


@contextmanager
def _file_errors(verb: str, path: Path) -> Iterator[None]:
    """A path orav cannot write (or read back) is bad input naming the path, exit 2."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"cannot {verb}: {exc.strerror}", str(exc.filename or path)) from None


@cli.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(scenarios: tuple[Path, ...]) -> None:
    """Check scenario files and app models (by their keys or `kind: app`, linted too) without
    running them (each bad one is reported; exit 2 if any). A folder means every YAML file
    under it; a glob its matches."""
    from orav.model import Done
    from orav.scenario import load_scenario
    from orav.sim.lint import check_app_model, looks_like_app_model

    bad = 0
    for path in _expanded(scenarios, (".yaml", ".yml")):
        try:
            if isinstance(path, InputError):
                raise path
            if looks_like_app_model(path):
                model, findings = check_app_model(path)
                for finding in findings:
                    click.echo(f"orav: error: {finding}", err=True)
                bad += bool(findings)
                if not findings:
                    click.echo(f"{path}: ok (app {model.name}, {len(model.screens)} screens)")
                continue
            scenario = load_scenario(path)
        except OravError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad += 1
            continue
        steps = sum(not isinstance(d.action, Done) for d in scenario.script)  # done is no step
        click.echo(f"{path}: ok ({scenario.name}, {steps} scripted steps)")
    if bad:
        sys.exit(2)


@cli.command()
@click.argument("app", required=False, type=click.Path(path_type=Path))
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="TCP port on 127.0.0.1 (0: pick one).",
)
@click.option(
    "--scale",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.25, 4.0),
    help="Pixels per point of screenshots.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of probabilistic faults.")
@click.option(
    "--animation-ms",
    type=click.IntRange(0, 10_000),
    help="How long transitions, alerts, the keyboard and spinners animate (default: the app "
    "model's animation_ms; 0: instant).",
)
def sim(app: Path | None, port: int, scale: float, seed: int, animation_ms: int | None) -> None:
    """Serve a simulated idb companion hosting APP (an app-model YAML; the demo app by default).

    Prints 127.0.0.1:PORT on the first line, then serves until interrupted.
    """
    import asyncio
    import signal

    from orav.sim import DEMO_APP, SimCompanion, load_app_model

    model = load_app_model(app or DEMO_APP, scale=scale)  # refuses a screen too big to draw

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        async with SimCompanion(
            model, port=port, scale=scale, seed=seed, animation_ms=animation_ms
        ) as companion:
            click.echo(companion.address)
            sys.stdout.flush()
            await stop.wait()

    try:
        asyncio.run(serve())
    except DeviceError as exc:
        if port and "cannot listen" in str(exc):  # a busy --port is a bad flag, as others are
            raise InputError(str(exc).split(": ", 1)[-1], f"--port {port}") from None
        raise


def _expanded(paths, suffixes) -> list:
    """Each argument's files (a folder's, a glob's), or the InputError saying it names none,
    in order: a command reports a bad argument and goes on with the others."""
    from orav.suite import expand

    found: list = []
    for path in paths:
        try:
            found += [p for p in expand([path], suffixes=suffixes) if p not in found]
        except InputError as exc:
            found.append(exc)
    return found


def _run(coro):
    import asyncio

    return asyncio.run(coro)


def _agent(spec: str, base_url: str | None, options: tuple[str, ...] = (), config=None):
    """The agent of ``--agent``; an LLM's settings start from the config file's
    ``agent_options`` and ``base_url``, which the flags override."""
    from orav.runner import make_agent

    settings = dict(config.agent_options) if config and spec.startswith("openai:") else {}
    if config is not None and base_url == config.base_url and not spec.startswith("openai:"):
        base_url = None  # the file's LLM settings do not apply to the scripted agent
    settings.update(_option(text) for text in options)
    if base_url:
        from orav.agents.openai import url_problem

        problem = url_problem(base_url)
        if problem:
            raise InputError(problem, "--base-url")
        settings["base_url"] = base_url
    if settings and spec in ("scripted", "explorer"):
        flag = "--agent-option" if options else "--base-url"
        raise InputError(f"the {spec} agent takes no options", flag)
    return make_agent(spec, **settings)


def _option(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` with VALUE read as a YAML scalar (0.2, false, 7, text)."""
    from orav.codec import parse_yaml

    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"expected KEY=VALUE, got {text!r}", "--agent-option")
    parsed = parse_yaml(value, "--agent-option") if value.strip() else ""
    return key.strip(), parsed if isinstance(parsed, (bool, int, float)) else value


_device_option = click.option(
    "--device",
    default="sim",
    show_default=True,
    help="'sim' (the simulator with the demo app), 'sim:APP.yaml' (with your app model), "
    "'idb:HOST:PORT' (an idb companion) or 'textual:package.module:AppClass' (a Textual app, "
    "in-process).",
)
_agent_option = click.option(
    "--agent",
    "agent_spec",
    default="scripted",
    show_default=True,
    help="'scripted' (the scenario's script), 'explorer' (tries every control, no model) or "
    "'openai:MODEL' (any OpenAI-compatible API).",
)
_base_url_option = click.option(
    "--base-url", default=None, help="OpenAI-compatible API base URL (else OPENAI_BASE_URL)."
)
_agent_options = click.option(
    "--agent-option",
    "agent_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="An LLM agent setting, e.g. temperature=0.2, send_screenshot=false (docs/agents.md).",
)


_verbosity_options = [
    click.option("-q", "--quiet", is_flag=True, help="Print nothing while the run goes."),
    click.option(
        "-v",
        "--verbose",
        count=True,
        help="Also print the run's phases and every device call while it goes.",
    ),
]


def _verbosity(quiet: bool, verbose: int) -> int:
    if quiet and verbose:
        raise click.UsageError("-q and -v contradict each other")
    return 0 if quiet else 1 + verbose


def _with(options):
    def apply(function):
        for option in reversed(options):
            function = option(function)
        return function

    return apply


@cli.command()
@click.argument(
    "scenario_paths", metavar="[SCENARIO]...", nargs=-1, type=click.Path(path_type=Path)
)
@click.option(
    "--device",
    default=None,
    help="'sim' (the simulator; default), 'sim:APP.yaml' (with your app model), "
    "'idb:HOST:PORT' (an idb companion; several, comma-separated, run a suite one scenario "
    "per companion at a time) or 'textual:package.module:AppClass' (a Textual app, "
    "in-process).",
)
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="'scripted' (the scenario's script; default), 'explorer' (tries every control, no "
    "model) or 'openai:MODEL' (any OpenAI-compatible API).",
)
@_base_url_option
@_agent_options
@click.option("--out", type=click.Path(path_type=Path), help="Cassette path (one scenario).")
@click.option(
    "--record-mode",
    "mode",
    type=click.Choice(["once", "new_episodes", "all", "none"]),
    default=None,
    help="As in vcrpy. once (default): record, refuse an existing cassette of a run that "
    "passed (one that did not pass is recorded over); new_episodes: re-record, reusing the "
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
    "(or device). Default 1.",
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
@_with(_verbosity_options)
@click.pass_context
def record(
    ctx: click.Context,
    scenario_paths: tuple[Path, ...],
    device: str | None,
    agent_spec: str | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
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
    from orav.config import load_config

    verbosity = _verbosity(quiet, verbose)
    if overwrite and mode not in (None, "all"):
        raise click.UsageError(f"--overwrite means --record-mode all, not {mode}")
    mode = "all" if overwrite else mode or "once"
    config = load_config()
    device = device or config.device
    agent_spec = agent_spec or config.agent
    base_url = base_url or config.base_url
    workers = workers or config.workers
    retries = config.retries if retries is None else retries
    chosen = suite.parse_shard(shard) if shard is not None else None
    jobs = _jobs(scenario_paths or config.scenarios, config, out, tags, skip_tags, chosen)
    if not jobs:
        click.echo(f"orav: shard {shard} has no scenario", err=True)
        sys.exit(0)
    if mode == "none":  # no device, no agent: exactly what orav replay does
        given = [
            flag
            for flag, value in (
                ("--device", device != config.device),
                ("--agent", agent_spec != config.agent),
                (
                    "--seed",
                    ctx.get_parameter_source("seed") is not click.core.ParameterSource.DEFAULT,
                ),
                ("--workers", workers > 1),
                ("--retries", retries > 0),
            )
            if value
        ]
        if given or (base_url and base_url != config.base_url) or agent_options:
            flags = ", ".join(given + ["--base-url"] * bool(base_url))
            raise click.UsageError(
                f"--record-mode none only replays: {flags or '--agent-option'} has no effect"
            )
        for job in jobs:
            _same_scenario(job.out, job.scenario)
        ctx.invoke(replay, cassettes=tuple(job.out for job in jobs))  # exits with its status
    devices = _devices(device, workers)
    device = devices[0]
    agent = _agent(agent_spec, base_url, agent_options, config)  # refuse a bad agent up front
    kept = _goldens(jobs) if mode == "once" else {}
    console = _progress_console()
    for job in kept.values():
        console.print(
            f"{job.out}: a passing cassette exists: replayed, not recorded "
            "(--record-mode all records it again)",
            markup=False,
        )
    replays = {id(job): _replay_golden(job) for job in kept.values()}
    jobs = [job for job in jobs if id(job) not in kept]
    if not jobs:
        _after_suite(list(replays.values()), junit, single=len(replays) == 1)
    if len(jobs) == 1 and workers == 1 and not replays:
        outcome = _record_here(jobs[0], agent, device, mode, seed, retries, verbosity, 1)
        _after_suite([outcome], junit, single=True)

    def done(outcome) -> None:
        if verbosity:
            _say_outcome(console, outcome)

    if workers == 1 and len(devices) == 1:
        outcomes = suite.run_serial(
            jobs,
            lambda job, n: _record_here(job, agent, device, mode, seed, 0, verbosity, n).report,
            retries=retries,
            done=done,
        )
    else:
        argv = _worker_argv(agent_spec, base_url, agent_options, mode, seed)
        pool = devices if len(devices) > 1 else devices * workers
        outcomes = suite.run_parallel(jobs, argv, devices=pool, retries=retries, done=done)
    _after_suite([*replays.values(), *outcomes], junit, single=False)


def _goldens(jobs) -> dict:
    """The jobs whose cassette holds a run that passed: vcrpy's ``once`` replays them."""
    from orav.runner import passed

    return {id(job): job for job in jobs if job.out.exists() and passed(job.out)}


def _replay_golden(job):
    import time

    from orav import runner, suite
    from orav.cassette import ReplayDivergence

    started = time.monotonic()
    try:
        replayed = _run(runner.replay(job.out))
    except ReplayDivergence as exc:
        replayed = runner.Replay(None, None, False, (str(exc),))
        report = suite.recorded(job.out)
        return suite.Outcome(job, report, 0, time.monotonic() - started, replayed=replayed)
    report = replayed.report or replayed.recorded
    return suite.Outcome(job, report, 0, time.monotonic() - started, replayed=replayed)


def _devices(spec: str, workers: int) -> list[str]:
    """``--device`` as a list: several ``idb:`` companions, comma-separated, run a suite one
    scenario per companion at a time (as many workers as companions)."""
    devices = [part.strip() for part in spec.split(",")] if "," in spec else [spec]
    if len(devices) > 1:
        if not all(d.startswith("idb:") and len(d) > 4 for d in devices):
            raise InputError("several devices are idb:HOST:PORT companions only", "--device")
        if len(set(devices)) != len(devices):
            raise InputError("a companion is listed twice: one run at a time each", "--device")
        if workers not in (1, len(devices)):
            what = f"{len(devices)} companions run {len(devices)} scenarios at once"
            raise InputError(f"{what}, not --workers {workers}", "--workers")
    return devices


def _jobs(paths, config, out: Path | None, tags, skip_tags, shard) -> list:
    """The scenarios a record command runs, loaded (a bad one stops it before any runs), with
    their cassettes; filtered by tags, then sharded."""
    from attrs import evolve

    from orav import suite
    from orav.scenario import load_scenario

    if paths == config.scenarios and not any(Path(p).exists() for p in paths):
        raise InputError(
            f"no scenario given, and no {' or '.join(paths)} folder here: name files, folders "
            "or globs, or set `scenarios` in orav.toml",
            "SCENARIO",
        )
    files, roots = suite.expand_with_roots(paths)
    names = suite.cassette_names(files, roots, config.scenarios)
    folder = Path(config.recordings)
    jobs = []
    for file, name in zip(files, names, strict=True):
        scenario = load_scenario(file)
        if config.settle_seconds is not None and scenario.settle_seconds is None:
            scenario = evolve(scenario, settle_seconds=config.settle_seconds)
        if suite.wanted(scenario.tags, tags, skip_tags):
            jobs.append(suite.Job(file, scenario, folder / name))
    if not jobs and (tags or skip_tags):
        flags = " ".join([f"--tag {t}" for t in tags] + [f"--skip-tag {t}" for t in skip_tags])
        raise InputError(f"no scenario of {len(files)} is selected by {flags}", "--tag")
    if out is not None:
        if len(jobs) != 1:
            raise InputError(f"names one cassette, but {len(jobs)} scenarios are selected", "--out")
        jobs = [suite.Job(jobs[0].path, jobs[0].scenario, out)]
    outs = [job.out for job in jobs]
    twice = next((o for o in outs if outs.count(o) > 1), None)
    if twice is not None:
        raise InputError(f"two scenarios would both record {twice}; record them apart", "--out")
    return suite.shard_of(jobs, shard)


def _record_here(job, agent, device, mode, seed, retries, verbosity, attempt):
    """Record one job in this process, with progress on stderr; its reports written, its
    reasons printed when it did not pass. Retries (a fresh recording each) up to ``retries``."""
    import time

    from orav import runner, suite
    from orav.report.console import Progress

    started = time.monotonic()
    for n in range(attempt, attempt + retries + 1):
        progress = Progress(
            _progress_console(), max_steps=job.scenario.max_steps, verbosity=verbosity
        )
        how = mode if n == 1 else "all"  # a retry records over the attempt that failed
        result = _recorded(
            runner.record(
                job.scenario,
                job.out,
                device=device,
                agent=agent,
                mode=how,
                seed=seed,
                progress=progress,
            )
        )
        if result.reused:
            click.echo(
                f"{job.out}: {result.reused} decisions reused from the old cassette, "
                f"{result.asked} asked of {agent.name}"
            )
        elif result.reused is not None:
            click.echo(f"{job.out}: nothing to reuse: every decision was asked of {agent.name}")
        _write_reports(result, job.out)
        _say_reasons(result.report, job.out)
        if result.report.ok:
            break
        if n < attempt + retries:
            click.echo(f"{job.out}: {result.report.status}; retry {n} of {retries}", err=True)
    return suite.Outcome(job, result.report, n - attempt + 1, time.monotonic() - started)


def _worker_argv(agent_spec, base_url, agent_options, mode, seed):
    def argv(job, attempt: int, device: str) -> list[str]:
        command = [sys.executable, "-m", "orav", "record", str(job.path), "--out", str(job.out)]
        command += ["--device", device, "--agent", agent_spec, "--seed", str(seed), "-q"]
        command += ["--record-mode", mode if attempt == 1 else "all", "--retries", "0"]
        command += ["--base-url", base_url] if base_url else []
        for option in agent_options:
            command += ["--agent-option", option]
        return command

    return argv


def _progress_console():
    from orav.report.console import console_for

    return console_for(sys.stderr)


def _say_outcome(console, outcome) -> None:
    """One line as each scenario of a suite ends."""
    from rich.markup import escape

    report = outcome.report
    if report is None:
        console.print(f"[red]error[/] {escape(str(outcome.job.path))}: {escape(outcome.error)}")
        return
    colour = "green" if report.ok else "red"
    flaky = f" (flaky: passed on attempt {outcome.attempts})" if outcome.flaky else ""
    console.print(
        f"[{colour}]{report.status}[/]{flaky} {escape(str(outcome.job.path))} "
        f"[dim]{outcome.seconds:.1f} s[/]"
    )


def _say_reasons(report, cassette: Path) -> None:
    """Why a run did not pass, on stderr, below its progress."""
    from orav.report.console import reasons

    for line in reasons(report):
        click.echo(f"{cassette}: {line}", err=True)


def _after_suite(outcomes, junit: Path | None, *, single: bool) -> None:
    """The summary table, the report files' names, JUnit; exit 0 when every goal was met."""
    from orav.report.console import reasons

    rows = [(o.report, o.job.out, o.replayed, o) for o in outcomes if o.report is not None]
    _print_reports([row[:3] for row in rows], flaky={id(o.report) for *_, o in rows if o.flaky})
    if single and outcomes[0].report is not None:
        out = outcomes[0].job.out
        click.echo(
            f"cassette: {out}\nreport:   {out.with_suffix('.report.json')}\n"
            f"html:     {out.with_suffix('.html')}"
        )
    if not single:
        bad = [o for o in outcomes if not o.ok]
        for outcome in bad:  # every reason again, together, below the table
            if outcome.report is None:
                click.echo(f"{outcome.job.path}: {outcome.error}", err=True)
            for line in reasons(outcome.report) if outcome.report else ():
                click.echo(f"{outcome.job.out}: {line}", err=True)
            if outcome.replayed is not None and outcome.replayed.differences:
                first = outcome.replayed.differences[0]
                click.echo(f"{outcome.job.out}: replay diverged: {first[:300]}", err=True)
        flaky = sum(o.flaky for o in outcomes)
        click.echo(
            f"{len(outcomes) - len(bad)} of {len(outcomes)} passed"
            + (f" ({flaky} flaky)" if flaky else "")
            + (f", {len(bad)} did not" if bad else "")
        )
    if junit is not None:
        from orav.report.junit import write_junit
        from orav.report.run import read_run

        runs = [read_run(o.job.out) for o in outcomes if o.report is not None]
        attempts = {o.job.out: o.attempts for o in outcomes}
        with _file_errors("write", junit):
            click.echo(f"junit:    {write_junit(runs, junit, attempts=attempts)}")
    if any(o.report is None for o in outcomes):
        sys.exit(2)
    sys.exit(0 if all(o.ok for o in outcomes) else 1)


def _recorded(coro):
    """Run a recording; when SIGINT/SIGTERM ends it, its reports are still written (the
    cassette ends in an ``interrupted`` report) before the interruption ends the command."""
    try:
        return _run(coro)
    except Interrupted as exc:
        kept = exc.recording
        if kept is not None:
            _print_reports([(kept.report, kept.cassette, None)])
            click.echo(_write_reports(kept, kept.cassette))
        raise


def _same_scenario(cassette: Path, scenario) -> None:
    """``--record-mode none`` replays the cassette: it must be this scenario's."""
    from orav.cassette import read_cassette

    if not cassette.exists():
        raise InputError(
            "no cassette to replay (--record-mode none records nothing)", str(cassette)
        )
    recorded = read_cassette(cassette).header.scenario.name
    if recorded != scenario.name:
        raise InputError(
            f"the cassette holds scenario {recorded!r}, not {scenario.name!r}", str(cassette)
        )


def _write_reports(result, out: Path) -> str:
    """The JSON and HTML reports beside a recorded cassette; the lines that name the files."""
    from orav.report import write_json
    from orav.report.html import write_html

    report = write_json(result.report, out.with_suffix(".report.json"), secrets=result.secrets)
    return f"cassette: {out}\nreport:   {report}\nhtml:     {write_html(out)}"


@cli.command()
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="A candidate agent judged at every recorded step (decision regression): 'scripted', "
    "'explorer' or 'openai:MODEL'. Default: none, the recorded decisions are replayed.",
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(path_type=Path),
    help="With --agent scripted: judge this scenario file's script instead of the recorded one.",
)
@_base_url_option
@_agent_options
def replay(
    cassettes: tuple[Path, ...],
    agent_spec: str | None,
    scenario_path: Path | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
) -> None:
    """Rerun cassettes offline: no device, no model, no network (exit 0 only if faithful).

    With --agent, a candidate agent sees every recorded screen too and must decide as recorded.
    A cassette that cannot be read is reported and the others still replay (exit 2 at the end).
    """
    from orav import runner
    from orav.cassette import ReplayDivergence

    if agent_spec is None and (base_url or agent_options or scenario_path):
        raise click.UsageError("--base-url, --agent-option and --scenario need --agent")
    if scenario_path is not None and agent_spec != "scripted":
        raise click.UsageError("--scenario goes with --agent scripted")
    rows, failed, bad = [], False, False
    for path in _expanded(cassettes, (".cassette",)):
        agent = _candidate(agent_spec, scenario_path, base_url, agent_options)
        try:
            if isinstance(path, InputError):
                raise path
            outcome = _run(runner.replay(path, agent=agent))
        except ReplayDivergence as exc:  # name the cassette and go on with the next one
            click.echo(f"orav: diverged: {path}: {exc}", err=True)
            failed = True
            continue
        except InputError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad = True
            continue
        rows.append((outcome.report, path, outcome))
        for difference in outcome.differences:
            click.echo(f"{path}: {difference}", err=True)
        if agent is not None:
            same = outcome.compared - len(outcome.decisions)
            click.echo(f"{path}: {same} of {outcome.compared} decisions of {agent.name} matched")
        for diff in outcome.decisions:
            click.echo(
                f"{path}: step {diff.step}: recorded {diff.recorded}, {agent.name}: {diff.candidate}"
            )
    if rows:
        _print_reports(rows)
    if bad:
        sys.exit(2)
    sys.exit(0 if not failed and all(outcome.ok for _, _, outcome in rows) else 1)


@cli.command()
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
    help="A fallback agent asked where the app left the recorded path (e.g. 'openai:MODEL'). "
    "Default: none, the rerun ends at the first regression.",
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
@_base_url_option
@_agent_options
def rerun(
    cassettes: tuple[Path, ...],
    device_spec: str | None,
    scenario_path: Path | None,
    agent_spec: str | None,
    repeat: int,
    screenshots: Path | None,
    base_url: str | None,
    agent_options: tuple[str, ...],
) -> None:
    """Play golden cassettes live against the app: the recorded decisions on the real screens,
    each target found again on the live screen (healed when its id or label moved), the first
    step where the app no longer matches named. Exit 0 when every cassette passed or healed,
    1 when one regressed, 2 on bad input. See docs/goldens.md."""
    from orav import golden
    from orav.scenario import load_scenario

    if agent_spec is None and (base_url or agent_options):
        raise click.UsageError("--base-url and --agent-option need --agent")
    regressed, bad = False, False
    for path in _expanded(cassettes, (".cassette",)):
        try:
            if isinstance(path, InputError):
                raise path
            scenario = load_scenario(scenario_path) if scenario_path else _golden_scenario(path)
            options = {"device": device_spec, "scenario": scenario}
            if agent_spec is not None:
                options["agent"] = _agent(agent_spec, base_url, agent_options)
            if repeat > 1:
                repeated = _run(golden.repeat(path, repeat, **options))
                click.echo(repeated.explain())
                regressed |= repeated.passed == 0  # none of the N held: a regression
                continue
            result = _run(golden.rerun(path, **options))
        except InputError as exc:
            click.echo(f"orav: error: {exc}", err=True)
            bad = True
            continue
        click.echo(result.explain())
        if screenshots is not None and result.regressions:
            for written in result.save_screenshots(screenshots / path.stem):
                click.echo(f"  screenshot: {written}")
        regressed |= not result.ok
    if bad:
        sys.exit(2)
    sys.exit(1 if regressed else 0)


def _golden_scenario(cassette: Path):
    """The scenario file of a cassette's run: by its name beside it or under ./scenarios and
    orav's examples; None to rerun the cassette's own copy."""
    from orav import golden
    from orav.cassette import read_cassette

    name = read_cassette(cassette).header.scenario.name
    folders = [cassette.parent, Path("scenarios"), Path(__file__).parent / "scenarios"]
    return golden.find_scenario(name, [f for f in folders if f.is_dir()])


def _candidate(spec, scenario_path, base_url, options):
    """The agent a decision regression judges, or None to replay the recorded decisions."""
    if spec is None:
        return None
    if spec == "scripted":
        from orav.agents.scripted import ScriptedAgent
        from orav.scenario import load_scenario

        return ScriptedAgent(load_scenario(scenario_path).script if scenario_path else None)
    return _agent(spec, base_url, options)


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("out/demo"),
    show_default=True,
    help="Where the cassettes and reports go.",
)
@_with(_verbosity_options)
def demo(out: Path, quiet: bool, verbose: int) -> None:
    """The whole story on the embedded simulator: record each example, replay it, report."""
    from orav import runner
    from orav.report import write_json
    from orav.report.console import Progress
    from orav.report.html import write_html, write_index
    from orav.report.junit import write_junit
    from orav.report.run import read_run
    from orav.scenario import example_scenarios, load_scenario

    verbosity = _verbosity(quiet, verbose)
    with _file_errors("write", out):
        out.mkdir(parents=True, exist_ok=True)
    rows = []
    runs = []
    for path in example_scenarios():
        scenario = load_scenario(path)
        cassette = out / f"{scenario.name}.cassette"
        progress = Progress(
            _progress_console(),
            max_steps=scenario.max_steps,
            label=scenario.name,
            verbosity=verbosity,
        )
        recorded = _run(runner.record(scenario, cassette, overwrite=True, progress=progress))
        write_json(recorded.report, cassette.with_suffix(".report.json"), secrets=recorded.secrets)
        run = read_run(cassette)
        runs.append((run, write_html(run)))
        rows.append((recorded.report, cassette, _run(runner.replay(cassette))))
    _print_reports(rows)
    index = write_index(runs, out / "index.html")
    junit = write_junit([run for run, _ in runs], out / "junit.xml")
    ok = all(report.ok and outcome.faithful for report, _, outcome in rows)
    click.echo(f"{len(rows)} scenarios recorded and replayed into {out}/ (JUnit: {junit})")
    click.echo(f"HTML report: {index}")
    sys.exit(0 if ok else 1)


@cli.command()
@click.option("--app", "bundle", help="Bundle id to explore (default: the simulated app's).")
@_device_option
@click.option(
    "--max-steps",
    default=100,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Step budget of the exploration.",
)
@click.option(
    "--timeout",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1.0, 7 * 86400),
    help="Seconds the exploration may take.",
)
@click.option("--out", type=click.Path(path_type=Path), help="Cassette path.")
@click.option(
    "--credentials",
    metavar="USER:PASS",
    help="Test credentials for login fields (default: the simulated app's).",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing cassette.")
@_with(_verbosity_options)
def explore(
    bundle: str | None,
    device: str,
    max_steps: int,
    timeout: float,
    out: Path | None,
    credentials: str | None,
    overwrite: bool,
    quiet: bool,
    verbose: int,
) -> None:
    """Discover every reachable screen with the systematic explorer (no model); report coverage.

    Writes a cassette that `orav replay` replays, and the coverage next to it as JSON and as
    markdown with a mermaid screen graph. Exit 0 when the exploration finished within the
    step budget.
    """
    from orav import runner
    from orav.agents.coverage import write_coverage
    from orav.agents.explorer import ExplorerAgent
    from orav.model import Scenario
    from orav.report.console import Progress

    app, known = _explore_target(bundle, device)
    if not app.strip():
        raise InputError("no app to explore (the app model's bundle_id is empty)", "--app")
    scenario = Scenario(
        name="explore-" + re.sub(r"[^A-Za-z0-9_-]+", "-", app)[:80],
        app=app,
        goal="explore",
        description="orav explore: discover every reachable screen, report coverage",
        max_steps=max_steps,
        timeout_seconds=timeout,
        credentials=_credentials(credentials) if credentials else known,
    )
    out = out or Path("recordings") / f"{scenario.name}.cassette"
    if out.exists() and not overwrite and not runner.did_not_pass(out):
        raise InputError("cassette already exists; replace it with --overwrite", str(out))
    explorer = ExplorerAgent()
    progress = Progress(
        _progress_console(), max_steps=max_steps, verbosity=_verbosity(quiet, verbose)
    )
    result = _recorded(
        runner.record(
            scenario, out, device=device, agent=explorer, overwrite=overwrite, progress=progress
        )
    )
    coverage = explorer.coverage()
    json_path, md_path = write_coverage(coverage, out)
    _print_coverage(coverage)
    _print_reports([(result.report, out, None)])
    click.echo(coverage.summary)
    click.echo(_write_reports(result, out))
    click.echo(f"coverage: {json_path}\ngraph:    {md_path}")
    sys.exit(0 if coverage.finished and result.report.ok else 1)


def _explore_target(bundle: str | None, device: str):
    """The bundle to explore and the app model's credentials, when the simulator hosts it."""
    if device == "sim" or device.startswith("sim:"):
        from orav.runner import app_model
        from orav.sim import DEMO_APP

        model = app_model(Path(device.removeprefix("sim:")) if device != "sim" else DEMO_APP)
        return bundle or model.bundle_id, model.credentials
    if bundle is None and device.startswith("idb:"):
        raise InputError(f"name the app to explore on {device!r}", "--app")
    # A Textual app is named by its spec; an unknown device is the runner's to report.
    return bundle or device.removeprefix("textual:"), None


def _credentials(text: str):
    from orav.model import Credentials

    user, sep, password = text.partition(":")
    if not sep or not user or not password:
        raise InputError("expected USER:PASS", "--credentials")
    return Credentials(user, password)


def _print_coverage(coverage) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    for column in ("screen", "tried", "no effect", "untried", "leads to"):
        table.add_column(column, justify="right" if column == "tried" else "left", overflow="fold")
    for screen in coverage.screens:
        targets = dict.fromkeys(
            coverage.name_of(t.target)
            for t in coverage.transitions
            if t.source == screen.key and t.target != screen.key
        )
        table.add_row(
            screen.name,
            f"{len(screen.tried)}/{len(screen.elements)}",
            ", ".join(screen.no_effect),
            ", ".join(screen.untried),
            ", ".join(targets),
        )
    Console(highlight=False).print(table)


def _print_reports(rows, flaky: set[int] = frozenset()) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    for column in ("scenario", "status", "steps", "duration", "replay", "cassette"):
        justify = "right" if column in ("steps", "duration") else "left"
        # Words stay whole at 80 columns: only the scenario and the path may fold.
        whole = column not in ("scenario", "cassette")
        table.add_column(column, justify=justify, overflow="fold", no_wrap=whole)
    for report, path, outcome in rows:
        if report is None:  # a cassette cut off mid-run, replayed as far as it goes
            cut = f"cut after step {outcome.cut_after}"
            table.add_row(outcome.scenario, "[yellow]incomplete[/]", "", "", cut, str(path))
            continue
        colour = "green" if report.ok else "red"
        status = f"[{colour}]{report.status}[/]" + (" (flaky)" if id(report) in flaky else "")
        replayed = "" if outcome is None else ("faithful" if outcome.faithful else "DIVERGED")
        if outcome is not None and outcome.decisions:
            replayed += f", {len(outcome.decisions)} decisions differ"
        table.add_row(
            report.scenario,
            status,
            str(report.total_steps),
            f"{report.duration_seconds:.2f} s",
            replayed,
            str(path),
        )
    # Not a terminal (CI logs, pipes): wide enough that paths are not folded.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(table)
    for report, _, _ in rows:
        for error in report.errors if report is not None else ():
            state = "resolved" if error.resolved else "[red]unresolved[/]"
            console.print(f"{report.scenario} step {error.step}: {error.error} ({state})")


@cli.command()
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--html",
    "html_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the HTML reports and an index.html here (else each next to its cassette).",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write JUnit XML of the runs (one testcase per cassette) to this file.",
)
def report(cassettes: tuple[Path, ...], html_dir: Path | None, junit: Path | None) -> None:
    """Write the single-file HTML report of each cassette, and JUnit XML for CI."""
    from orav.errors import InputError
    from orav.report.html import write_html, write_index
    from orav.report.junit import write_junit
    from orav.report.run import read_run

    runs = [read_run(path) for path in cassettes]
    if html_dir is None:
        with _file_errors("write", cassettes[0]):
            pages = [write_html(run) for run in runs]
    else:
        names = [run.path.with_suffix(".html").name for run in runs]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is not None:
            raise InputError(f"two cassettes would both write {twice}; report them apart", "--html")
        with _file_errors("write", html_dir):
            pages = [
                write_html(run, html_dir / name) for run, name in zip(runs, names, strict=True)
            ]
    for page in pages:
        click.echo(f"html:  {page}")
    if html_dir is not None:
        with _file_errors("write", html_dir):
            index = write_index(list(zip(runs, pages, strict=True)), html_dir / "index.html")
        click.echo(f"index: {index}")
    if junit is not None:
        with _file_errors("write", junit):
            junit = write_junit(runs, junit)
        click.echo(f"junit: {junit}")


@cli.command()
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
def audit(cassettes: tuple[Path, ...]) -> None:
    """Print the recovery paths a recorded run took: fault, transitions, remedy, outcome."""
    from orav.report import recovery_paths

    for path in cassettes:
        paths = recovery_paths(path)
        click.echo(f"{path}: {len(paths)} recover{'y' if len(paths) == 1 else 'ies'}")
        for path_ in paths:
            click.echo(f"  step {path_.step}: {path_.fault} -> {path_.outcome}")
            click.echo(f"    remedy: {path_.remedy}")
            for source, event, target in path_.transitions:
                click.echo(f"    {source} --{event}--> {target}")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), help="Write to this file.")
@click.option("--check", is_flag=True, help="Exit 1 if --out differs from the code.")
def diagrams(out: Path | None, check: bool) -> None:
    """Mermaid diagrams of the state machines, generated from the code."""
    from orav.machines import diagrams as render
    from orav.report.files import write_text

    if check and out is None:
        raise click.UsageError("--check needs --out FILE, the file to compare")
    text = render()
    if out is None:
        click.echo(text, nl=False)
    elif check:
        with _file_errors("read", out):
            current = out.read_text(encoding="utf-8") if out.exists() else None
        if current != text:
            click.echo(f"{out} is out of date: run `orav diagrams --out {out}`", err=True)
            sys.exit(1)
    else:
        with _file_errors("write", out):
            write_text(out, text)  # whole, never through a symlink


@cli.group(cls=_Group)
def export() -> None:
    """Turn a recorded run into a flow for another tool."""


@export.command()
@click.argument("cassette", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), help="Write to this file (else stdout).")
@click.option("--force", is_flag=True, help="Export a run whose goal was not met, marked so.")
def maestro(cassette: Path, out: Path | None, force: bool) -> None:
    """A Maestro flow of the steps a run took: the path found, replayable without a model."""
    from orav.export import export_maestro
    from orav.report.files import write_text

    text = export_maestro(cassette, force=force)
    if out is None:
        click.echo(text, nl=False)
    else:
        with _file_errors("write", out):
            write_text(out, text)  # whole, never through a symlink


def reference() -> str:
    """The CLI reference in markdown, generated from the commands (docs/cli.md)."""
    lines = [
        "# The orav command line",
        "",
        "Generated from the code (`just docs`); do not edit. Exit status: 0 success, 1 the run",
        "failed or the replay diverged, 2 bad input (scenario, cassette, app model, flags).",
    ]
    # The same text on any terminal, whatever ran before in this process.
    width = {"terminal_width": 100, "max_content_width": 100}
    root = click.Context(cli, info_name="orav", help_option_names=["-h", "--help"], **width)
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        context = click.Context(command, info_name=f"orav {name}", parent=root, **width)
        help_text = command.get_help(context).replace("Usage: orav orav", "Usage: orav")
        lines += ["", f"## orav {name}", "", "```text", help_text.rstrip(), "```"]
        for sub in command.list_commands(context) if isinstance(command, click.Group) else ():
            subcommand = command.get_command(context, sub)
            sub_context = click.Context(subcommand, info_name=sub, parent=context, **width)
            help_text = subcommand.get_help(sub_context)
            lines += ["", f"### orav {name} {sub}", "", "```text", help_text.rstrip(), "```"]
    return "\n".join(lines) + "\n"
