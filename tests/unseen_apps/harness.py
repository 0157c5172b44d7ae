"""What the tests of the unseen apps share: their folders and fingerprints, a loopback server
that counts what reaches it, and the deeds the app models write down."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
