"""Regression candidates in the HTML reports: a card per candidate with the recorded and the
live screenshot side by side, a table of heals, and the run page's "Regression check" section
(the previously passing flows revisited after the run, ``orav.regression_check``, read from
``NAME.regressions.json`` beside its cassette). The rerun page uses the same cards."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from orav.report.html.elements import Child, el, field, figure

if TYPE_CHECKING:
    from orav.cassette.rerun import Heal, Regression
    from orav.report.revisits import RegressionCheck

VERDICT_CLASS = {
    "passed": "ok",
    "healed": "warn",
    "regressed": "bad",
    "flaky": "warn",
    "unchecked": "gray",
}

KINDS = {
    "screen": "another screen than the recorded one",
    "target": "the control the recorded step used is not there",
    "goal": "every step held, the goal did not",
    "ended": "an error ended the run before its recorded steps did",
}


def verdict_badge(verdict: str) -> ET.Element:
    """A rerun's verdict (passed, healed, regressed, flaky, unchecked) as a coloured badge."""
    return el("span", {"class": f"status {VERDICT_CLASS.get(verdict, 'gray')}"}, verdict)


def regression_card(regression: Regression, anchor: str) -> ET.Element:
    """One regression candidate: where, what was expected and found, both screenshots."""
    step = regression.step
    return el(
        "article",
        {
            "class": "card recovery failed regression",
            "id": anchor,
            "data-step": str(step),
            "data-kind": regression.kind,
        },
        el(
            "div",
            {"class": "shots"},
            figure(regression.recorded, "recorded", f"the recorded screen at step {step}"),
            figure(regression.live, "live", f"the live screen at step {step}"),
        ),
        el(
            "div",
            None,
            el(
                "h3",
                None,
                el("span", {"class": "badge fault"}, regression.kind),
                f"Regression at step {step}",
            ),
            field("what", KINDS.get(regression.kind, regression.kind)),
            field("expected", regression.expected),
            field("found", regression.found),
        ),
    )


def heals_table(heals: Sequence[Heal]) -> ET.Element:
    """Each control that moved or was renamed, found again: as recorded, as found, by what."""
    head = el("tr", None, [el("th", None, h) for h in ("step", "recorded", "found as", "by")])
    rows = [
        el(
            "tr",
            {"class": "heal", "data-step": str(h.step)},
            el("td", None, str(h.step)),
            el("td", None, el("code", None, h.recorded)),
            el("td", None, el("code", None, h.live)),
            el("td", None, h.by),
        )
        for h in heals
    ]
    return el("table", {"class": "runs heals"}, head, rows)


def regression_check_section(check: RegressionCheck) -> ET.Element:
    """The run page's "Regression check": every flow revisited with its verdict, linked to
    its regression candidates below, and the heals on the way."""
    counts = {s: sum(r.status == s for r in check.revisits) for s in VERDICT_CLASS}
    said = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no flow of this app"
    rows: list[Child] = []
    details: list[Child] = []
    number = 0
    for revisit in check.revisits:
        links = []
        for regression in revisit.regressions:
            number += 1
            anchor = f"check-regression-{number}"
            details.append(regression_card(regression, anchor))
            links.append(
                el("a", {"class": "chip bad", "href": f"#{anchor}"}, f"step {regression.step}")
            )
        if revisit.heals:
            details += [
                el("h3", None, f"Heals in {revisit.cassette.name}"),
                heals_table(revisit.heals),
            ]
        rows.append(
            el(
                "tr",
                {"class": "revisit", "data-status": revisit.status},
                el("td", {"title": str(revisit.cassette)}, el("code", None, revisit.cassette.name)),
                el("td", None, revisit.scenario),
                el("td", None, verdict_badge(revisit.status)),
                el("td", None, str(revisit.steps)),
                el("td", None, revisit.reason or None, links),
            )
        )
    head = el("tr", None, [el("th", None, h) for h in ("flow", "scenario", "verdict", "steps", "")])
    passed_over = [
        el("li", None, el("code", None, p.name), " (its recorded run did not pass)")
        for p in check.not_goldens
    ]
    return el(
        "section",
        {"id": "regression-check"},
        el("h2", None, "Regression check"),
        el(
            "p",
            {"class": "goal"},
            f"{len(check.revisits)} previously passing flow{'s' if len(check.revisits) != 1 else ''}"
            f" of the app revisited live after the run: {said}.",
        ),
        el("table", {"class": "runs revisits"}, head, rows) if rows else None,
        details,
        el("details", None, el("summary", None, "passed over"), el("ul", None, passed_over))
        if passed_over
        else None,
    )
