"""The index page: one row per run (scenario, cassette, status, why, steps, recoveries,
duration, agent, when), each linking its report."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from orav.report.files import write_text
from orav.report.html.elements import el, page, seconds, status, when
from orav.report.timeline import RunView

HEAD = (
    "scenario",
    "cassette",
    "status",
    "why",
    "steps",
    "recoveries",
    "duration",
    "agent",
    "recorded",
)


def write_index(
    runs: Sequence[tuple[RunView, Path]],
    out: Path,
    *,
    facts: Mapping[Path, Mapping[str, str]] | None = None,
    unrun: Sequence[tuple[str, str]] = (),
) -> Path:
    """Write an index page linking each ``(run, its report's path)``; return its path.

    ``facts``: more columns, by cassette (a merged suite's shard and device); ``unrun``: the
    runs that left no cassette, ``(name, why)``, listed below the table."""
    out.parent.mkdir(parents=True, exist_ok=True)
    more = list(next(iter((facts or {}).values()), {}))
    rows = []
    for run, report in runs:
        href = Path(os.path.relpath(report, out.parent)).as_posix()
        why = "; ".join(run.report.reasons()[:2]) if run.report is not None else None
        rows.append(
            el(
                "tr",
                {"class": "run", "data-status": run.status},
                el("td", None, el("a", {"href": href}, run.header.scenario.name)),
                el(
                    "td", {"class": "file", "title": str(run.path)}, el("code", None, run.path.name)
                ),
                el("td", None, status(run.status)),
                el("td", {"class": "why"}, why),
                el("td", None, str(run.report.total_steps if run.report else len(run.steps))),
                el("td", None, str(len(run.recoveries))),
                el("td", None, seconds(run.report.duration_seconds) if run.report else ""),
                el("td", None, run.header.agent),
                el(
                    "td",
                    {"class": "when", "title": run.header.created_at},
                    when(run.header.created_at),
                ),
                [el("td", None, (facts or {}).get(run.path, {}).get(name, "")) for name in more],
            )
        )
    reports = [run.report for run, _ in runs if run.report is not None]
    met = sum(report.goal_met for report in reports)
    with_errors = sum(report.status == "completed_with_errors" for report in reports)
    goal = f"{met} of {len(runs) + len(unrun)} met their goal" + (
        f" ({with_errors} with errors on the way)." if with_errors else "."
    )
    body = el(
        "body",
        None,
        el("h1", None, "orav runs"),
        el("p", {"class": "goal"}, goal),
        el(
            "table",
            {"class": "runs"},
            el("tr", None, [el("th", None, h) for h in (*HEAD, *more)]),
            rows,
        ),
        [el("p", {"class": "unrun"}, f"{name}: no cassette: {why}") for name, why in unrun],
    )
    return write_text(out, page("orav runs", body))
