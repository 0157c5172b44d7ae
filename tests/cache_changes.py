"""Kestrel (tests/unseen_apps/kestrel.yaml) changed as an app changes between releases, the
model's answers that book a seat on it, and the heals each change must give: shared by
tests/test_cache_heals.py and bench/cache_heals.py."""

from __future__ import annotations

from pathlib import Path

from model_server import answer

APPS = Path(__file__).parent / "unseen_apps"
KESTREL = APPS / "kestrel.yaml"
BOARD = APPS / "kestrel_board.yaml"
PASSWORD = "Tern-Harbour-42"

ANSWERS = [
    answer({"kind": "tap"}, "Email address"),
    answer({"kind": "type_text", "text": "skipper@kestrel.example"}),
    answer({"kind": "tap"}, "Passphrase"),
    answer({"kind": "type_text", "text": "{{password}}"}),
    answer({"kind": "tap"}, "Board"),
    answer({"kind": "tap"}, "Oban to Craignure"),
    answer({"kind": "tap"}, "Reserve a seat"),
    answer({"kind": "done", "success": True, "summary": "A seat on the Oban crossing is held."}),
]

ROWS = (
    "      - {role: AXCell, id: row_stornoway, label: Stornoway to Ullapool, frame: [0, 100, 390, 56]",
    "      - {role: AXCell, id: row_oban, label: Oban to Craignure, frame: [0, 156, 390, 56]",
)

# How an app changes between releases, and the heals each must give (as `orav record` lists
# them): the edit to Kestrel's model, then the heal lines.
CHANGES = {
    "moved": (
        [("frame: [20, 330, 350, 50]", "frame: [20, 370, 350, 50]")],
        ["healed step 5: #board is now #board (by moved)"],
    ),
    "renamed id": (
        [("mariner_email", "contact_email")],
        ["healed step 1: #mariner_email is now #contact_email (by label)"],
    ),
    "relabelled": (
        [("label: Board", "label: Step aboard")],
        ["healed step 5: #board is now #board (by id)"],
    ),
    "reordered": (
        [
            (ROWS[0], ROWS[0].replace("[0, 100,", "[0, 156,")),
            (ROWS[1], ROWS[1].replace("[0, 156,", "[0, 100,")),
        ],
        ["healed step 6: #row_oban is now #row_oban (by moved)"],
    ),
}


def changed(folder: Path, edits: list[tuple[str, str]]) -> Path:
    """Kestrel's model with ``edits`` (old, new) made, written into ``folder``."""
    text = KESTREL.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = folder / "kestrel.yaml"
    path.write_text(text)
    return path


# A change nothing heals: the crossings become another screen (another title).
REPLACED = [("title: Crossings today", "title: Timetable")]
