"""What the tests of the unseen apps share: their folders and fingerprints, a loopback server
that counts what reaches it, and the deeds the app models write down."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PLI = HERE / "pli.yaml"
FARAWAY = HERE / "faraway.yaml"

# What each model writes to its keychain's `deeds`, by the class of deed it is (issue 22).
OUTWARD_PREFIXES = ("envoye:", "paid:", "rated", "google_sign_in", "called:", "maps:", "consent:")
DESTRUCTIVE_PREFIXES = ("tout_lu", "corbeille:", "brouillon_", "called_off:", "erased")


def outward(deeds: tuple[str, ...]) -> list[str]:
    return [d for d in deeds if d.startswith(OUTWARD_PREFIXES)]


def destructive(deeds: tuple[str, ...]) -> list[str]:
    return [d for d in deeds if d.startswith(DESTRUCTIVE_PREFIXES)]


def fingerprint(*folders: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folders`` (and each folder's entries), by path."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            key = str(path)
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "/"
    return found


@contextmanager
def loopback() -> Iterator[tuple[str, list[bytes]]]:
    """An HTTP server on 127.0.0.1: its URL and the bodies POSTed to it."""
    received: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/post", received
    finally:
        server.shutdown()
        server.server_close()


def user_folders(root: Path, server: str = "http://127.0.0.1:9/post") -> tuple[Path, Path]:
    """A user's working folder (``sample.db``, a readme, a folder, Plauder's server) and HOME
    (notes, a config, Plauder's history), as a user has them: what no run may change."""
    from unseen_apps.tafel import make_sample

    work, home = root / "work", root / "home"
    (work / "docs").mkdir(parents=True)
    make_sample(work / "sample.db")
    (work / "readme.txt").write_text("Lies mich.\n")
    (work / "docs" / "plan.md").write_text("# Plan\n")
    (work / "plauder.json").write_text(f'{{"server": "{server}"}}\n')
    (home / ".config" / "kiste").mkdir(parents=True)
    (home / "notes.md").write_text("# Notizen\nnicht löschen\n")
    (home / ".config" / "kiste" / "settings.toml").write_text("hidden = false\n")
    (home / ".local" / "share" / "plauder").mkdir(parents=True)
    (home / ".local" / "share" / "plauder" / "verlauf.json").write_text('["Hallo"]')
    return work, home


def explore_textual(spec: str, work: Path, home: Path, out: Path, steps: int) -> dict:
    """``orav explore`` of ``spec`` in a process of its own, from ``work`` with ``home`` as
    HOME (no XDG folders: the app's own defaults under HOME): its JSON report."""
    tests = HERE.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ORAV_"))}
    env |= {"HOME": str(home), "PYTHONPATH": os.pathsep.join([str(tests.parent), str(tests)])}
    done = subprocess.run(
        [sys.executable, "-m", "orav", "explore", "--device", spec, "--max-steps", str(steps)]
        + ["--out", str(out), "-q"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # finished, or a budget ran out
    return json.loads(out.with_suffix(".report.json").read_text())


def ledger(report: dict) -> dict:
    """The report's side-effect ledger (empty when the report has none)."""
    return report.get("side_effects") or {"disposable": False, "files": [], "deeds": []}


def no_outward_and_no_remedy(deeds: list[dict]) -> None:
    assert [d for d in deeds if d.get("by") == "remedy"] == []
    assert [d for d in deeds if d["kind"] == "outward"] == []


async def explore_model(model: Path, bundle: str, cassette: Path, steps: int) -> tuple[Any, dict]:
    """The explorer on ``model`` served as an ``idb:`` companion nobody declared disposable
    (the scenario ``orav explore`` builds, on a virtual clock): the RunReport, and the app's
    state afterwards (its keychain and the permissions answered)."""
    from orav.agents.explorer import ExplorerAgent
    from orav.cli.exploring import exploration
    from orav.session import record
    from orav.sim import SimCompanion
    from orav.testing import VirtualClock

    async with SimCompanion(model) as sim:
        recording = await record(
            exploration(bundle, steps, 3600, None),
            cassette,
            device=f"idb:{sim.address}",
            agent=ExplorerAgent(),
            clock=VirtualClock(),
        )
        app = sim.app(bundle)
        return recording.report, {**app.keychain, "permissions": dict(app.permissions)}
