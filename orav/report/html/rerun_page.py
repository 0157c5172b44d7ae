"""The page of a live rerun of a golden cassette (``orav rerun --html``): the verdict, each
heal, and each regression candidate as a card with the recorded and the live screenshot,
linked from the top. Several runs of one cassette (``--repeat``) share a page under pass@k.

It reads what ``orav.golden.rerun`` returns (``orav.cassette.rerun.Rerun``: heals, regressions with their
screenshots); the golden's own run report, when it is beside the cassette, is linked.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orav.report.files import write_text
from orav.report.html.elements import (
    Child,
    el,
    field,
    page,
    screens_shown_once,
    status,
    zoom,
)
from orav.report.html.regression_section import heals_table, regression_card, verdict_badge

if TYPE_CHECKING:
    from orav.cassette.rerun import Rerun


def write_rerun_html(runs: Sequence[Rerun], out: Path) -> Path:
    """Write the page of one cassette's reruns (one or more) to ``out``; return its path."""
    return write_text(out, render_rerun_html(runs, out))


def render_rerun_html(runs: Sequence[Rerun], out: Path | None = None) -> str:
    """The page of one cassette's reruns; ``out`` (where it goes) makes the link to the
    golden's report relative."""
    if not runs:
        raise ValueError("a rerun page needs at least one rerun")
    cassette = runs[0].cassette
    with screens_shown_once():
        body = el(
            "body",
            None,
            _header(runs, out),
            [_run(run, n, len(runs)) for n, run in enumerate(runs, 1)],
            zoom(),
        )
    return page(f"orav rerun: {cassette.name} ({_verdict(runs)})", body)


def _verdict(runs: Sequence[Rerun]) -> str:
    passed = sum(run.ok for run in runs)
    if len(runs) == 1:
        return runs[0].status
    return "flaky" if 0 < passed < len(runs) else ("passed" if passed else "regressed")


def _header(runs: Sequence[Rerun], out: Path | None) -> ET.Element:
    cassette = runs[0].cassette
    verdict = _verdict(runs)
    facts: list[tuple[str, Child]] = [("cassette", el("code", None, str(cassette)))]
    report = cassette.with_suffix(".html")
    if report.is_file():
        href = report.resolve().as_uri()
        if out is not None:
            href = Path(os.path.relpath(report.resolve(), out.resolve().parent)).as_posix()
        facts.append(("golden", el("a", {"href": href, "class": "golden"}, "its recorded run")))
    if len(runs) > 1:
        passed = sum(run.ok for run in runs)
        facts.append(("pass@k", f"{passed} of {len(runs)} runs passed or healed"))
    regressions = [
        (n, i, r) for n, run in enumerate(runs, 1) for i, r in enumerate(run.regressions, 1)
    ]
    links = [
        el(
            "a",
            {"class": "chip bad", "href": f"#{_anchor(n, i, len(runs))}"},
            f"step {r.step}: {r.kind}",
        )
        for n, i, r in regressions
    ]
    return el(
        "header",
        None,
        el("h1", None, f"{cassette.name}: live rerun ", verdict_badge(verdict)),
        el(
            "table",
            {"class": "facts"},
            [el("tr", None, el("th", None, k), el("td", None, v)) for k, v in facts],
        ),
        el("nav", {"class": "timeline", "id": "regressions"}, "regression candidates: ", links)
        if links
        else el("p", {"class": "goal"}, "No regression: the app still takes the recorded path."),
    )


def _run(run: Rerun, n: int, of: int) -> ET.Element:
    played = f"{run.served} recorded decisions played, {run.asked} asked of the fallback agent"
    parts: list[Child] = [
        el("h2", None, f"Run {n} " if of > 1 else "The rerun ", verdict_badge(run.status)),
        field("live run", status(run.report.status), f" after {run.report.total_steps} steps"),
        field("decisions", played),
    ]
    if run.heals:
        parts += [el("h3", None, "Heals"), heals_table(run.heals)]
    parts += [regression_card(r, _anchor(n, i, of)) for i, r in enumerate(run.regressions, 1)]
    return el("section", {"class": "rerun", "data-status": run.status}, parts)


def _anchor(run: int, regression: int, of: int) -> str:
    return f"run-{run}-regression-{regression}" if of > 1 else f"regression-{regression}"
