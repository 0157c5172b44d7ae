"""The commands that read recorded runs: ``orav report`` (HTML, JUnit), ``orav audit`` (the
recovery paths), ``orav export`` (a flow for another tool), and ``orav diagrams`` (the state
machines, from the code)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from orav.cli.flags import examples, file_errors
from orav.cli.group import OravGroup, cli
from orav.errors import InputError


@cli.command(
    epilog=examples(
        "orav report recordings/login.cassette",
        "orav report recordings/*.cassette --html out/reports --junit out/junit.xml",
    )
)
@click.argument(
    "cassettes", metavar="CASSETTE...", nargs=-1, required=True, type=click.Path(path_type=Path)
)
@click.option(
    "--merge",
    is_flag=True,
    help="The arguments are the folders of a suite's shards (each `orav record --shard I/N`'s "
    "recordings, e.g. CI artifacts): join them into one index (--html, needed), one JUnit "
    "file and one summary (summary.md beside the index), each run with its shard and device; "
    "exit 0 when every goal was met, else 1.",
)
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
def report(
    cassettes: tuple[Path, ...], merge: bool, html_dir: Path | None, junit: Path | None
) -> None:
    """Write the single-file HTML report of each cassette, and JUnit XML for CI; or, with
    --merge, join the shards of one suite run."""
    from orav.report.html import write_html, write_index
    from orav.report.junit import write_junit
    from orav.report.timeline import read_run

    if merge:
        if html_dir is None:
            raise InputError("needs --html DIR, where the merged index goes", "--merge")
        _merge(cassettes, html_dir, junit)
    if html_dir is not None:
        names = [path.with_suffix(".html").name for path in cassettes]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is not None:
            raise InputError(f"two cassettes would both write {twice}; report them apart", "--html")
    runs, pages = [], []
    for path in cassettes:  # one run's screens in memory at a time
        run = read_run(path, screenshots=False)
        out = html_dir / path.with_suffix(".html").name if html_dir is not None else None
        with file_errors("write", html_dir or path):
            pages.append(write_html(run, out))
        runs.append(run.unseen())
    for page in pages:
        click.echo(f"html:  {page}")
    if html_dir is not None:
        with file_errors("write", html_dir):
            index = write_index(list(zip(runs, pages, strict=True)), html_dir / "index.html")
        click.echo(f"index: {index}")
    if junit is not None:
        with file_errors("write", junit):
            junit = write_junit(runs, junit)
        click.echo(f"junit: {junit}")


def _merge(folders: tuple[Path, ...], html_dir: Path, junit: Path | None) -> None:
    """``orav report --merge``: the shards under ``folders`` as one suite run; exits."""
    from orav.cli.render import print_reports
    from orav.report.html import write_html, write_index
    from orav.report.junit import write_junit
    from orav.report.shards import merged, write_summary
    from orav.report.timeline import read_run

    runs = merged(folders)
    ran, pages = [], []
    for run in runs:  # one run's screens in memory at a time
        if not run.error:
            view = read_run(run.cassette, screenshots=False)
            with file_errors("write", html_dir):
                page = write_html(view, html_dir / Path(run.name).with_suffix(".html"))
            ran.append((run, view.unseen()))
            pages.append((ran[-1][1], page))
    facts = {
        view.path: {"shard": run.shard, "device": run.device or "replayed"} for run, view in ran
    }
    unrun = [(run.name, f"shard {run.shard}: {run.error}") for run in runs if run.error]
    with file_errors("write", html_dir):
        index = write_index(pages, html_dir / "index.html", facts=facts, unrun=unrun)
        summary = write_summary(runs, [view for _, view in ran], html_dir / "summary.md")
    print_reports([(view.report, view.path, None) for _, view in ran if view.report])
    for name, why in unrun:
        click.echo(f"{name}: no cassette: {why}", err=True)
    click.echo(f"index:   {index}\nsummary: {summary}")
    if junit is not None:
        attempts = {view.path: run.attempts for run, view in ran}
        with file_errors("write", junit):
            junit = write_junit(
                [view for _, view in ran], junit, attempts=attempts, facts=facts, unrun=unrun
            )
        click.echo(f"junit:   {junit}")
    met = all(view.report is not None and view.report.goal_met for _, view in ran)
    sys.exit(0 if met and not unrun else 1)


@cli.command(epilog=examples("orav audit recordings/recovery/loading.cassette"))
@click.argument("cassettes", nargs=-1, required=True, type=click.Path(path_type=Path))
def audit(cassettes: tuple[Path, ...]) -> None:
    """Print the recovery paths a recorded run took: fault, transitions, remedy, outcome."""
    from orav.report import recovery_paths

    for cassette in cassettes:
        paths = recovery_paths(cassette)
        click.echo(f"{cassette}: {len(paths)} recover{'y' if len(paths) == 1 else 'ies'}")
        for path in paths:
            click.echo(f"  step {path.step}: {path.fault} -> {path.outcome}")
            click.echo(f"    remedy: {path.shown_remedy}")
            for source, event, target in path.transitions:
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
        with file_errors("read", out):
            current = out.read_text(encoding="utf-8") if out.exists() else None
        if current != text:
            click.echo(f"{out} is out of date: run `orav diagrams --out {out}`", err=True)
            sys.exit(1)
    else:
        with file_errors("write", out):
            write_text(out, text)  # whole, never through a symlink


@cli.group(cls=OravGroup)
def export() -> None:
    """Turn a recorded run into a flow for another tool."""


@export.command(epilog=examples("orav export maestro recordings/login.cassette --out login.yaml"))
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
        with file_errors("write", out):
            write_text(out, text)  # whole, never through a symlink
