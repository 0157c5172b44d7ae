"""``orav demo``: the whole story on the embedded simulator, for a first look: each example
scenario recorded, replayed and reported."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orav.cli.flags import file_errors, verbosity, verbosity_options
from orav.cli.group import cli
from orav.cli.recording import recorded
from orav.cli.render import print_reports, progress_console


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("out/demo"),
    show_default=True,
    help="Where the cassettes and reports go.",
)
@verbosity_options
def demo(out: Path, quiet: bool, verbose: int) -> None:
    """The whole story on the embedded simulator: record each example, replay it, report."""
    import asyncio

    from orav import session
    from orav.report import write_json
    from orav.report.console import Progress
    from orav.report.html import write_html, write_index
    from orav.report.junit import write_junit
    from orav.report.timeline import read_run
    from orav.scenario_loader import example_scenarios, load_scenario

    loud = verbosity(quiet, verbose)
    with file_errors("write", out):
        out.mkdir(parents=True, exist_ok=True)
    rows = []
    runs = []
    for path in example_scenarios():
        scenario = load_scenario(path)
        cassette = out / f"{scenario.name}.cassette"
        progress = Progress(
            progress_console(), max_steps=scenario.max_steps, label=scenario.name, verbosity=loud
        )
        result = recorded(session.record(scenario, cassette, overwrite=True, progress=progress))
        run = read_run(cassette)
        path = cassette.with_suffix(".report.json")
        write_json(result.report, path, secrets=result.secrets, run=run)
        runs.append((run, write_html(run)))
        rows.append((result.report, cassette, asyncio.run(session.replay(cassette))))
    print_reports(rows)
    index = write_index(runs, out / "index.html")
    junit = write_junit([run for run, _ in runs], out / "junit.xml")
    ok = all(report.goal_met and outcome.faithful for report, _, outcome in rows)
    click.echo(f"{len(rows)} scenarios recorded and replayed into {out}/ (JUnit: {junit})")
    click.echo(f"HTML report: {index}")
    sys.exit(0 if ok else 1)
