"""What the commands print with rich: the table of runs, an exploration's coverage, the line
each scenario of a suite ends with. rich is imported when something is printed, not for
``--help``."""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

    from orav.model import RunReport
    from orav.report.coverage import Coverage
    from orav.session import Replay
    from orav.suite import Outcome

# A run as the table shows it: its report (None: a cassette cut off mid-run, replayed as far
# as it goes), its cassette, and its replay when it was replayed.
Row = tuple["RunReport | None", Path, "Replay | None"]


def progress_console() -> Console:
    """Where live progress goes: stderr, so stdout keeps what a script reads."""
    from orav.report.console import console_for

    return console_for(sys.stderr)


def print_reports(rows: Sequence[Row], flaky: Collection[int] = frozenset()) -> None:
    """The table of runs (``flaky``: the ids of the reports that passed only on a retry), then
    every error a run met, resolved or not."""
    import os

    from rich.console import Console
    from rich.table import Table

    # Not a terminal (CI logs, pipes): wide enough that paths are not folded, unless COLUMNS
    # says how wide (rich reads it).
    told = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    console = Console(highlight=False, width=None if told else 160)
    table = Table(show_edge=False, pad_edge=False)
    cells = [_cells(*row, flaky=flaky) for row in rows]
    names = ("scenario", "status", "steps", "duration", "replay", "cassette")
    shown = [n for n, column in enumerate(zip(*cells, strict=True)) if any(column)] or [0]
    longest = max((len(c[0]) + len(c[5]) for c in cells), default=0)
    below = console.width < longest + 60  # the paths whole under a narrow table, not folded
    shown = [n for n in shown if not (below and names[n] == "cassette")]
    for n in shown:  # a column empty in every row (replay, for a recording) takes no room
        # Words stay whole at 80 columns: only the scenario and the path may fold.
        table.add_column(
            names[n],
            justify="right" if names[n] in ("steps", "duration") else "left",
            overflow="fold",
            no_wrap=names[n] not in ("scenario", "cassette"),
        )
    for row_cells in cells:
        table.add_row(*(row_cells[n] for n in shown))
    console.print(table)
    for row_cells in cells if below else ():
        console.print(f"{row_cells[0]}: {row_cells[5]}", markup=False, soft_wrap=True)
    for report in (row[0] for row in rows):
        if report is not None:
            _say_errors(console, report)


def _cells(
    report: RunReport | None, path: Path, outcome: Replay | None, *, flaky: Collection[int]
) -> list[str]:
    """One run's row of the table."""
    if report is None:  # a cassette cut off mid-run, replayed as far as it goes
        assert outcome is not None, "a run without a report is a replay's"
        cut = f"cut after step {outcome.cut_after}"
        return [outcome.scenario, "[yellow]incomplete[/]", "", "", cut, str(path)]
    status = f"[{_colour(report)}]{report.status}[/]" + (" (flaky)" if id(report) in flaky else "")
    replayed = "" if outcome is None else ("faithful" if outcome.faithful else "DIVERGED")
    if outcome is not None and outcome.decisions:
        replayed += f", {len(outcome.decisions)} decisions differ"
    duration = f"{report.duration_seconds:.2f} s"
    return [report.scenario, status, str(report.total_steps), duration, replayed, str(path)]


def _colour(report: RunReport) -> str:
    """Green for a run that passed, yellow for one that met its goal with errors, else red."""
    return "green" if report.ok else "yellow" if report.goal_met else "red"


def _say_errors(console: Console, report: RunReport) -> None:
    """Every error the run met, resolved or not, and what it changed in its world."""
    for error in report.errors:
        state = "resolved" if error.resolved else "[red]unresolved[/]"
        console.print(f"{report.scenario} step {error.step}: {error.error} ({state})")
    ledger = report.side_effects
    if ledger is not None:
        done = "nothing changed" if not (ledger.files or ledger.deeds) else "side effects"
        console.print(f"{report.scenario} ran in {ledger.world}: {done}", markup=False)
        for line in ledger.lines():
            console.print(f"  {line}", markup=False)


def print_coverage(coverage: Coverage) -> None:
    """An exploration's screens: what was tried, what did nothing, what is left, where to."""
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


def say_outcome(console: Console, outcome: Outcome, *, device: bool = False) -> None:
    """One line as each scenario of a suite ends (``device``: naming the device of the pool
    it ran on); a line before it for each device that stopped answering under it."""
    from rich.markup import escape

    for lost in outcome.lost:
        console.print(
            f"[yellow]device lost[/] {escape(lost)}: taken out of the pool "
            f"(under {escape(str(outcome.job.path))})"
        )
    report = outcome.report
    if report is None:
        console.print(f"[red]error[/] {escape(str(outcome.job.path))}: {escape(outcome.error)}")
        return
    colour = _colour(report)
    flaky = f" (flaky: passed on attempt {outcome.attempts})" if outcome.flaky else ""
    on = f" on {escape(outcome.device)}" if device and outcome.device else ""
    console.print(
        f"[{colour}]{report.status}[/]{flaky} {escape(str(outcome.job.path))}{on} "
        f"[dim]{outcome.seconds:.1f} s[/]"
    )


def say_reasons(report: RunReport, cassette: Path) -> None:
    """Why a run did not pass, and its warnings, on stderr, below its progress."""
    for line in report.reasons():
        click.echo(f"{cassette}: {line}", err=True)
    for warning in report.warnings:
        click.echo(f"{cassette}: warning: {warning}", err=True)
