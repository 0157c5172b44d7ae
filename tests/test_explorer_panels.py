"""A modal panel of settings is no question, a modal page that takes no key gets escape
alone, and a back move that goes nowhere is not repeated (what meine 2.0.3 from PyPI
showed): Leitstelle (tests/unseen_apps/), explored through the
Textual companion in its disposable world."""

from __future__ import annotations

import itertools

from explorer_runs import Noting

from orav.model import PressKey, Scenario
from orav.session import record

LOG = "07:00 Dienstbeginn\n07:12 Einsatz 1\n"


async def test_a_panels_buttons_are_judged_each_on_its_own_and_escape_that_goes_nowhere_once(
    tmp_path, monkeypatch
):
    """Leitstelle's options panel holds a switch, a picker and two buttons under a title. It
    asks nothing: "Über uns" is no deed, so the way to the credits is walked again to try
    their page key (its footer key). The log's keys left untried lie behind a deed (the log,
    which was there before the run, emptied), a way not walked twice; escape on the desk, with no known way on, only shows a
    toast: it is pressed there at most once in a row. The notes the desk's F4 opens are a
    modal page of text that takes no focus and binds no key: any key but escape would be
    aimed at the desk under it (the run closes the page first), so escape alone is tried
    there, and the run goes on (before, each key tried there was recovered from until the
    run aborted)."""
    monkeypatch.chdir(tmp_path)  # the working folder the sandbox copies: the desk's log
    (tmp_path / "protokoll.txt").write_text(LOG)
    explorer = Noting()
    scenario = Scenario(
        name="explore-leitstelle",
        app="unseen_apps.leitstelle:Leitstelle@80x24",
        goal="explore",
        max_steps=60,
        timeout_seconds=240,
    )
    run = await record(
        scenario,
        tmp_path / "x.cassette",
        device="textual:unseen_apps.leitstelle:Leitstelle@80x24",
        agent=explorer,
    )
    assert run.report.status != "aborted", run.report.errors
    screens = {s.name.split()[0]: s for s in explorer.coverage().screens}
    # the notes' page takes escape only: no other key is tried there, for the desk under it
    assert screens["Hinweise"].elements == ("(escape)",), screens["Hinweise"].elements
    assert screens["Hinweise"].tried == ("(escape)",), screens["Hinweise"].tried
    assert "Mitwirkende" in screens, set(screens)
    assert "'Nächste Seite'" in screens["Mitwirkende"].tried, screens["Mitwirkende"].tried
    ledger = run.report.side_effects
    assert ledger is not None
    assert not [d for d in ledger.deeds if "ueber" in d.action], ledger.deeds
    # the switch's setting, saved to a file the app made in this run, harmed nothing there was
    assert not [d for d in ledger.deeds if "nacht" in d.action], ledger.deeds
    assert [d for d in ledger.deeds if "kuerzen" in d.action], ledger.deeds  # the log was
    assert (tmp_path / "protokoll.txt").read_text() == LOG, "the user's log changed"
    assert "Mitwirkende" not in explorer.coverage().summary, explorer.coverage().summary
    blind = [
        d.reasoning if isinstance(d.action, PressKey) and "no known way on" in d.reasoning else ""
        for d in explorer.decisions
    ]
    assert "Nothing left to try on 'Pult' and no known way on: going back (escape)." in blind
    assert not [a for a, b in itertools.pairwise(blind) if a and a == b], blind


async def test_escape_is_no_way_back_where_it_ends_the_app(tmp_path):
    """Kompass's bearing screen binds escape (with f10, in one binding) to the app's quit: the
    explorer never presses escape there, not even to go back; on its map page escape goes
    back and is tried. The app is never ended, so no crash is recovered from."""
    explorer = Noting()
    app = "unseen_apps.kompass:Kompass@80x24"
    scenario = Scenario(
        name="explore-kompass", app=app, goal="explore", max_steps=20, timeout_seconds=240
    )
    run = await record(scenario, tmp_path / "k.cassette", device=f"textual:{app}", agent=explorer)
    assert not run.report.errors, run.report.errors
    on_bearing = [
        d.action.key
        for d in explorer.decisions
        if isinstance(d.action, PressKey) and "'Peilung'" in d.reasoning
    ]
    assert "escape" not in on_bearing and "f10" not in on_bearing, explorer.decisions
    screens = {s.name: s for s in explorer.coverage().screens}
    assert "(escape)" in screens["Karte"].tried, screens["Karte"].tried
    assert explorer.coverage().finished, explorer.coverage().summary
