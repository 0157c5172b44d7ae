"""Model calls of the decision cache per change kind: Kestrel's booking recorded once with an
LLM agent (the real openai client over HTTP to the loopback model server, tests/model_server.py,
which counts its calls), then ``orav record --record-mode new_episodes`` through the real CLI on
the app changed in each way an app changes between releases (tests/cache_changes.py), and once
in a way nothing heals. Goal (issue 25): 0 calls for every change a rerun heals.

Run: python bench/cache_heals.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cache_changes import ANSWERS, BOARD, CHANGES, KESTREL, REPLACED, changed
from model_server import ModelServer, serving


def record(server: ModelServer, out: Path, app: Path, *more: str) -> tuple[str, float]:
    """``orav record`` of Kestrel's booking by the model: its output and seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "orav", "record", str(BOARD), "--out", str(out),
         "--device", f"sim:{app}", "--agent", "openai:gpt-4o-mini", "--base-url", server.url,
         *more],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"orav record failed:\n{done.stdout}{done.stderr}")
    return done.stdout, time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        recorded = root / "recorded.cassette"
        with serving() as server:
            server.answer(*ANSWERS)
            _, seconds = record(server, recorded, KESTREL)
            print(f"recorded: {len(server.requests)} model calls ({seconds:.1f} s)")
        kinds = {"unchanged": []} | {k: edits for k, (edits, _) in CHANGES.items()}
        kinds["screen replaced (nothing heals)"] = REPLACED
        for kind, edits in kinds.items():
            place = root / kind.split()[0]
            place.mkdir()
            app = changed(place, edits)
            out = place / "board.cassette"
            shutil.copy(recorded, out)
            with serving() as server:
                server.answer(*ANSWERS[5:])  # what a model would answer from the crossings on
                output, seconds = record(server, out, app, "--record-mode", "new_episodes")
                calls = len(server.requests)
            heals = [line.strip() for line in output.splitlines() if "healed step" in line]
            print(
                f"{kind}: {calls} model calls of {len(ANSWERS)} ({seconds:.1f} s); "
                f"heals: {'; '.join(heals) or 'none'}"
            )


if __name__ == "__main__":
    main()
