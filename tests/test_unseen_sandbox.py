"""Issue 22's proof on Textual apps orav never saw (tests/unseen_apps/): ``orav explore``, in a
process of its own, from a working folder and a HOME of the test's, leaves every file of the
user's byte-identical, reaches no server, lets no remedy do a deed, does no outward deed, and
its ledger lists what happened in the sandbox it made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from unseen_apps.harness import (
    explore_textual,
    fingerprint,
    ledger,
    loopback,
    no_outward_and_no_remedy,
    user_folders,
)

STEPS = 200
pytestmark = [
    pytest.mark.timeout(900),  # each app explored through the CLI, ~0.5 s a step
    pytest.mark.slow(reason="each app explored 200 steps through orav explore in a sandbox"),
]


@pytest.fixture
def user(tmp_path: Path):
    with loopback() as (url, received):
        work, home = user_folders(tmp_path / "user", url)
        yield work, home, received


def _explore(tmp_path: Path, user, app: str) -> dict:
    """Explore ``app``; the user's files are as they were, the server got nothing; the
    ledger, which says the world was disposable and lists no outward deed and none by a
    remedy."""
    work, home, received = user
    before = fingerprint(work, home)
    spec = f"textual:unseen_apps.{app}@100x30"
    report = explore_textual(spec, work, home, tmp_path / "explore.cassette", STEPS)
    assert fingerprint(work, home) == before
    assert received == []
    found = ledger(report)
    assert found["disposable"] is True
    no_outward_and_no_remedy(found.get("deeds", []))
    return found


def test_tafel_explored_leaves_sample_db_alone_and_lists_the_sandbox_s_changes(tmp_path, user):
    found = _explore(tmp_path, user, "tafel:Tafel")
    changed = {f["path"]: f["change"] for f in found.get("files", [])}
    assert any(p.endswith("sample.db") and c == "changed" for p, c in changed.items()), changed
    # the CSV export wrote into the sandbox's copy of the working folder, not the user's
    assert any(p.startswith("work/") and p.endswith(".csv") for p in changed), changed
    assert any(d["kind"] == "destructive" for d in found["deeds"]), found["deeds"]


def test_kiste_explored_deletes_nothing_of_the_user_s(tmp_path, user):
    found = _explore(tmp_path, user, "kiste:Kiste")
    made = [f for f in found.get("files", []) if "Neuer Ordner" in f["path"]]
    assert made, found.get("files")  # ＋📁 made a folder in the sandbox, and the ledger says so


def test_plauder_explored_posts_nothing_and_keeps_the_history(tmp_path, user):
    _explore(tmp_path, user, "plauder:Plauder")


def test_quaderno_explored_publishes_nothing_empties_nothing_and_lists_the_outbox(tmp_path, user):
    """Quaderno (written after the rules): emptying asks twice and both answers that go on are
    icons; publishing is the bare key ``p`` that only the footer describes. Nothing reaches
    the server, no note is deleted (the icons' kind is unknown: never confirmed), and the
    ledger lists what the key did in the sandbox: the outbox it wrote the notes to."""
    work = user[0]
    server = json.loads((work / "plauder.json").read_text())["server"]  # the test's loopback
    (work / "quaderno.json").write_text(json.dumps({"server": server}))
    found = _explore(tmp_path, user, "quaderno:Quaderno")
    changed = {f["path"]: f["change"] for f in found.get("files", [])}
    notes = "home/.local/share/quaderno/note.json"
    assert changed.get(notes) == "created", changed  # "＋" wrote a note, "💣" never ran
    outbox = [p for p in changed if p.startswith("home/.local/share/quaderno/uscita/")]
    assert any(p.endswith(".json") for p in outbox), changed  # ``p`` tried to publish
