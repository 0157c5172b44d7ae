"""Issue 22's proof on app models orav never saw (tests/unseen_apps/): the explorer, 200 steps
on an ``idb:`` companion nobody declared disposable (the simulator over real gRPC, held by the
test so it reads the app's own record afterwards), performs no deed at all: nothing sent,
paid, rated, granted or signed in with, nothing trashed, marked or thrown away; and a screen
whose only ways out are deeds does not end the exploration."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from unseen_apps.harness import FARAWAY, PLI, destructive, explore_model, outward

from orav.model import RunReport

STEPS = 200


def _no_deed_at_all(report: RunReport, deeds: tuple[str, ...]) -> None:
    assert outward(deeds) == [], deeds  # the app's own record
    assert destructive(deeds) == [], deeds  # idb: not declared disposable
    ledger = report.side_effects
    if ledger is not None:
        assert not ledger.disposable
        assert ledger.deeds == (), ledger.deeds


async def test_pli_explored_on_idb_sends_trashes_and_marks_nothing_and_is_not_cornered(
    tmp_path,
):
    report, state = await explore_model(PLI, "fr.pli.mail", tmp_path / "pli.cassette", STEPS)
    _no_deed_at_all(report, state["deeds"])
    # The draft's only ways out are deeds; the explorer starts over and explores the rest.
    seen = set(report.screens_visited)
    assert {"Nouveau message", "Réception", "Envoyés", "Corbeille"} <= seen, seen
    assert any(s in seen for s in ("Dîner vendredi ?", "Votre relevé de novembre")), seen


@pytest.fixture(scope="module")
def faraway(tmp_path_factory) -> tuple[RunReport, dict, Path]:
    """One exploration of Faraway on an ``idb:`` companion: the report, the app's state, the
    cassette."""
    cassette = tmp_path_factory.mktemp("faraway") / "faraway.cassette"
    report, state = asyncio.run(explore_model(FARAWAY, "com.faraway.trips", cassette, STEPS))
    return report, state, cassette


def test_faraway_explored_on_idb_grants_pays_rates_and_signs_in_with_nothing(faraway):
    report, state, _ = faraway
    _no_deed_at_all(report, state["deeds"])
    assert True not in state["permissions"].values(), state["permissions"]  # tracking refused
    assert state["consent"] in ("", "essentials")  # the banner's least consent, if any
