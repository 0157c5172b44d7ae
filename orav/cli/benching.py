"""``orav bench``: a task set run k times by one agent, criteria judged; a table and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from orav.cli.flags import agent_options, agent_setting, base_url_option, file_errors, make_judge
from orav.cli.group import cli


@cli.command()
@click.argument("task_paths", metavar="[TASKS]...", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_spec",
    default="scripted",
    show_default=True,
    help="As `orav record` takes it ('scripted', 'explorer', 'openai:MODEL', "
    "'class:package.module:Class'), or 'zoo[:MISTAKE,...][@RATE]': a simulated model of "
    "orav's zoo, for the tasks tagged zoo:POLICY.",
)
@click.option(
    "--judge",
    "judge_spec",
    default=None,
    metavar="SPEC",
    help="Who decides the claims in words: 'table:FILE', 'openai:MODEL' or "
    "'class:package.module:Class'. Default: the shipped task set's table (free, the same for "
    "every agent).",
)
@click.option(
    "-k",
    "--repeat",
    "k",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Runs of each task: pass@1 is the share that passed, pass@k whether any did.",
)
@base_url_option
@agent_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bench-runs"),
    show_default=True,
    help="Where each run's cassette goes (OUT/TASK/AGENT-N.cassette).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the result as JSON here (comparable across runs by its tasks_digest).",
)
def bench(
    task_paths: tuple[Path, ...],
    agent_spec: str,
    judge_spec: str | None,
    k: int,
    base_url: str | None,
    agent_options: tuple[str, ...],
    out: Path,
    json_path: Path | None,
) -> None:
    """Benchmark an agent: each task of the set (default: orav's shipped one, goals and
    criteria in words on the demo, the shop and the planner) run k times; per task pass@1,
    pass@k, steps, tokens, cost, wall time and the failures by reason (docs/performance.md).
    Exit 0 once measured, 2 on bad input."""
    import asyncio

    from orav import bench as benchmark

    tasks = benchmark.task_set(task_paths)
    judge = make_judge(judge_spec, base_url, agent_options)
    options = dict(agent_setting(text) for text in agent_options)
    if base_url and agent_spec.startswith("openai:"):
        options["base_url"] = base_url
    result = asyncio.run(
        benchmark.bench(tasks, agent_spec, k=k, out=out, judge=judge, agent_options=options)
    )
    data = result.data()
    _print(data)
    if json_path is not None:
        with file_errors("write", json_path):
            json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        click.echo(f"json: {json_path}")


def _print(data: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False)
    columns = ("task", "runs", "pass@1", "pass@k", "steps", "tokens", "cost", "seconds")
    for column in (*columns, "failures"):
        table.add_column(column, justify="left" if column in ("task", "failures") else "right")
    for row in data["tasks"]:
        cost = "" if row["cost"] is None else f"${row['cost']:.4f}"
        failures = ", ".join(f"{why} ×{n}" for why, n in row["failures"].items())
        table.add_row(
            row["task"], str(row["runs"]), f"{row['pass@1']:.2f}", f"{row['pass@k']:.2f}",
            f"{row['steps']:g}", f"{row['tokens']:g}", cost, f"{row['seconds']:.2f}", failures,
        )  # fmt: skip
    console = Console(width=max(Console().width, 100))
    console.print(table)
    overall = data["overall"]
    click.echo(
        f"{data['agent']} (judge {data['judge']}, k={data['k']}, tasks {data['tasks_digest']}): "
        f"pass@1 {overall['pass@1']:.2f}, pass@k {overall['pass@k']:.2f} over "
        f"{overall['tasks']} tasks, {overall['runs']} runs"
    )
    for left in data["left_out"]:
        click.echo(f"left out: {left['task']}: {left['why']}")
