"""A Textual app run by `orav record` and `orav explore` runs in a sandbox: the user's files
stay byte for byte as they were, the ledger lists what the app did in its world, the network
is off unless asked for. The app (tests/world_app.py) is real, run in its own process through
the companion; its database is SQLite; the network is a real socket."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from command import orav

from orav.cassette import ObserveEvent, read_cassette
from orav.errors import InputError
from orav.model import Assert, Decision, Done, FileChange, Scenario, Tap, Target
from orav.perceive import target_element
from orav.sandbox import MAX_FILES, Sandbox, WorldOptions, network_namespace
from orav.session import record, replay

APP = "world_app:Scribe"
HERE = Path(__file__).parent


def tap(id: str) -> Decision:
    return Decision(Tap(target=Target(id=id)))


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, bytes]]:
    """A user's working folder (a database, a scratch file, a git folder, a virtualenv) and
    home (notes): what each file held before the run."""
    work, home = tmp_path / "project", tmp_path / "user-home"
    work.mkdir()
    home.mkdir()
    with sqlite3.connect(work / "sample.db") as db:
        db.execute("CREATE TABLE people (name TEXT)")
        db.executemany("INSERT INTO people VALUES (?)", [("Ada",), ("Grace",)])
    db.close()
    (work / "scratch.txt").write_text("keep me\n")
    (work / ".git").mkdir()
    (work / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (work / ".venv").mkdir()
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / "notes.md").write_text("# my notes\n")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.syspath_prepend(str(HERE))
    files = [work / "sample.db", work / "scratch.txt", home / "notes.md"]
    yield {str(path): path.read_bytes() for path in files}


def untouched(before: dict[str, bytes]) -> None:
    for path, data in before.items():
        assert Path(path).read_bytes() == data, f"{path} changed"


async def test_record_runs_the_app_in_a_sandbox_and_lists_what_it_changed(
    user: dict[str, bytes], tmp_path: Path
) -> None:
    scenario = Scenario(
        name="scribe",
        app=APP,
        goal="jot, tidy and wipe",
        files=("~/notes.md",),  # the user's notes, copied in for the app to change
        script=(
            tap("jot"),
            tap("tidy"),
            tap("wipe"),
            Decision(Assert(target=Target(id="said"), condition="contains", value="wiped")),
            Decision(Done(success=True, summary="done")),
        ),
    )
    out = tmp_path / "scribe.cassette"
    recording = await record(scenario, out, device=f"textual:{APP}")
    assert recording.report.goal_met, recording.report
    untouched(user)
    ledger = recording.report.side_effects
    assert ledger is not None and ledger.disposable
    assert ledger.files == (
        FileChange("home/notes.md", "changed"),
        FileChange("work/sample.db", "changed"),
        FileChange("work/scratch.txt", "deleted"),
    )
    assert read_cassette(out).header.device.disposable  # type: ignore[union-attr]
    replayed = await replay(out)  # served from the cassette: no app, no sandbox
    assert replayed.faithful, replayed.differences
    assert replayed.report.side_effects == ledger


def knock_scenario() -> Scenario:
    return Scenario(
        name="knock",
        app=APP,
        goal="knock",
        script=(tap("knock"), Decision(Done(success=True, summary="knocked"))),
    )


@pytest.fixture
def listener() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        yield server.getsockname()[1]


@pytest.mark.skipif(network_namespace() is None, reason="no unprivileged network namespace here")
async def test_the_network_is_off_unless_asked_for(
    user: dict[str, bytes], tmp_path: Path, listener: int
) -> None:
    device = f"textual:{APP}?port={listener}"
    off = await record(knock_scenario(), tmp_path / "off.cassette", device=device)
    on = await record(
        knock_scenario(), tmp_path / "on.cassette", device=device, world=WorldOptions(network=True)
    )
    said = {}
    for name, recording in (("off", off), ("on", on)):
        cassette = read_cassette(recording.cassette)  # type: ignore[arg-type]
        looks = [i for i, e in enumerate(cassette.events) if isinstance(e, ObserveEvent)]
        last = cassette.observation(looks[-1])
        said[name] = target_element(last, Target(id="said")).label  # type: ignore[union-attr]
    assert said["off"].startswith("no answer"), said
    assert said["on"] == "answered", said
    assert off.report.side_effects.network == "off"  # type: ignore[union-attr]
    assert on.report.side_effects.network == "on"  # type: ignore[union-attr]


def test_explore_on_the_command_line_leaves_the_users_files_alone(
    user: dict[str, bytes], tmp_path: Path
) -> None:
    """`orav explore` presses every button of Scribe: in the sandbox, nothing of the user's
    changes; the console and the JSON report list what changed there. The app is the user's
    own, in their working folder (the command is a process of its own)."""
    shutil.copy(HERE / "world_app.py", Path.cwd())
    out = tmp_path / "explore.cassette"
    done = orav(
        "explore",
        "--device",
        f"textual:{APP}",
        "--max-steps",
        "12",
        "--out",
        out,
        cwd=Path.cwd(),
    )
    assert done.returncode == 0, done.stderr
    untouched(user)
    assert "deleted work/scratch.txt" in done.stdout, done.stdout
    summary = json.loads(out.with_suffix(".report.json").read_text())
    files = {(f["path"], f["change"]) for f in summary["side_effects"]["files"]}
    assert ("work/scratch.txt", "deleted") in files
    assert ("work/sample.db", "changed") in files
    assert ("home/notes.md", "created") in files  # not copied in: the app made its own


def test_the_copy_skips_git_virtualenvs_and_is_bounded(user: dict[str, bytes]) -> None:
    sandbox = Sandbox.make(options=WorldOptions())
    try:
        copied = {p.relative_to(sandbox.work).as_posix() for p in sandbox.work.rglob("*")}
        assert {"sample.db", "scratch.txt"} <= copied
        assert not {".git", ".venv"} & copied
        assert sandbox.environment({})["HOME"].startswith(str(sandbox.root))
    finally:
        sandbox.remove()
    assert not sandbox.root.exists()
    for n in range(MAX_FILES + 1):
        (Path.cwd() / f"f{n}").touch()
    with pytest.raises(InputError, match="too much to copy"):
        Sandbox.make(options=WorldOptions())
    with pytest.raises(InputError, match="no such file"):
        Sandbox.make(Path("/nonexistent-orav"), options=WorldOptions(files=("~/nope",)))
