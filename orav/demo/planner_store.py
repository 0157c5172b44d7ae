"""The planner demo's data: one SQLite table of items, the rules that read a commitment out of a
sentence, and the seeds its scenarios start from.

Every item is a row of ``items``: a type (commitment, task, idea, note, vision, goal,
milestone), a title, an optional due date, a status (``inbox`` until triage processes it,
``active``, ``done``) and an optional parent (the planning hierarchy: vision → goal →
milestone → commitment). Dates are ISO strings and "today" is given, so a seeded database and
every screen built from it are the same on every run.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import date, timedelta
from pathlib import Path

from attrs import frozen

TYPES = ("commitment", "task", "idea", "note")
LEVELS = ("vision", "goal", "milestone", "commitment")
SEEDS = ("empty", "demo", "large")
# A commitment due this many days ahead (or overdue) and not done is at risk.
AT_RISK_DAYS = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    title TEXT NOT NULL,
    due TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    parent_id INTEGER REFERENCES items(id),
    done_on TEXT
)
"""
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_COMMITMENT = re.compile(
    r"^\s*(?:i will|i'll|i shall|i promise to|i commit to|i am going to|i'm going to)\s+"
    r"(?P<what>.+?)"
    r"(?:\s+(?:by|on|before|due)\s+(?P<when>today|tomorrow|next week|"
    + "|".join(_WEEKDAYS)
    + r"|\d{4}-\d{2}-\d{2}))?"
    r"\s*[.!]?\s*$",
    re.IGNORECASE,
)


@frozen
class Item:
    id: int
    type: str
    title: str
    due: str | None
    status: str
    parent_id: int | None
    done_on: str | None


@frozen
class Draft:
    """A commitment read from a sentence, not yet saved."""

    title: str
    due: str | None


def parse_commitment(text: str, today: date) -> Draft | None:
    """``I will call the dentist by Friday`` → Draft("Call the dentist", the coming Friday).

    Rules, no model: a first-person promise, then what, then optionally by/on/before a day
    (today, tomorrow, next week, a weekday: the next one, today included, or an ISO date).
    """
    match = _COMMITMENT.match(text)
    if match is None:
        return None
    what = match["what"].strip()
    when = (match["when"] or "").lower()
    due: date | None = None
    if when == "today":
        due = today
    elif when == "tomorrow":
        due = today + timedelta(days=1)
    elif when == "next week":
        due = today + timedelta(days=7 - today.weekday())
    elif when in _WEEKDAYS:
        due = today + timedelta(days=(_WEEKDAYS.index(when) - today.weekday()) % 7)
    elif when:
        try:
            due = date.fromisoformat(when)
        except ValueError:
            return None
    return Draft(what[0].upper() + what[1:], due.isoformat() if due else None)


def show_due(due: str | None) -> str:
    """``Fri 2026-11-27``, or ``no date``."""
    if due is None:
        return "no date"
    return f"{date.fromisoformat(due):%a} {due}"


class Store:
    """The planner's items in a SQLite database at ``path`` (created when missing)."""

    def __init__(self, path: str | Path, today: date) -> None:
        self.path = Path(path)
        self.today = today
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        self.db.execute(_SCHEMA)
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    def add(
        self,
        type: str,
        title: str,
        *,
        due: str | None = None,
        status: str = "active",
        parent_id: int | None = None,
        done_on: str | None = None,
    ) -> int:
        cursor = self.db.execute(
            "INSERT INTO items (type, title, due, status, parent_id, done_on) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (type, title, due, status, parent_id, done_on),
        )
        self.db.commit()
        assert cursor.lastrowid is not None  # an INSERT sets it
        return cursor.lastrowid

    def get(self, item_id: int) -> Item | None:
        row = self.db.execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchone()
        return Item(**row) if row else None

    def _items(self, where: str, *args: object) -> list[Item]:
        rows = self.db.execute(f"SELECT * FROM items WHERE {where} ORDER BY id", args)
        return [Item(**row) for row in rows]

    def inbox(self) -> list[Item]:
        return self._items("status = 'inbox'")

    def commitments(self) -> list[Item]:
        return self._items("type = 'commitment' AND status != 'inbox'")

    def children(self, parent_id: int | None) -> list[Item]:
        if parent_id is None:
            return self._items("type = 'vision' AND status != 'inbox'")
        return self._items("parent_id = ? AND status != 'inbox'", parent_id)

    def update(self, item_id: int, **values: object) -> None:
        names = ", ".join(f"{name} = ?" for name in values)
        self.db.execute(f"UPDATE items SET {names} WHERE id = ?", (*values.values(), item_id))
        self.db.commit()

    def delete(self, item_id: int) -> None:
        self.db.execute("DELETE FROM items WHERE id = ?", (item_id,))
        self.db.commit()

    def at_risk(self, item: Item) -> bool:
        """Not done, and overdue or due within ``AT_RISK_DAYS``."""
        if item.status == "done" or item.due is None:
            return False
        return date.fromisoformat(item.due) <= self.today + timedelta(days=AT_RISK_DAYS)

    def seed(self, name: str) -> None:
        """Fill an empty database: ``empty`` (nothing), ``demo`` (a few commitments, some at
        risk, an inbox to triage), ``large`` (50 commitments and a four-level plan)."""
        if name not in SEEDS:
            raise ValueError(f"unknown seed {name!r}; expected one of {SEEDS}")
        if name == "empty" or self.db.execute("SELECT 1 FROM items").fetchone():
            return
        day = self.today

        def on(days: int) -> str:
            return (day + timedelta(days=days)).isoformat()

        if name == "demo":
            for title, due, done in (
                ("Send the quarterly report", -6, -7),
                ("Book the flights", -4, -4),
                ("Review the budget", -2, -3),
                ("Renew the passport", -1, None),
                ("Pay the electricity bill", 1, None),
                ("Water the plants", 6, None),
            ):
                self.add(
                    "commitment",
                    title,
                    due=on(due),
                    status="done" if done is not None else "active",
                    done_on=on(done) if done is not None else None,
                )
            for type, title in (
                ("task", "Buy a birthday present for Sam"),
                ("idea", "Start a reading club at work"),
                ("task", "Sort the photo archive"),
                ("note", "Old flyer from the gym"),
            ):
                self.add(type, title, status="inbox")
        else:
            vision = self.add("vision", "Be healthy")
            goal = self.add("goal", "Run a marathon", parent_id=vision)
            milestone = self.add("milestone", "Run 10 km", parent_id=goal)
            for n in range(50):
                done = n % 3 == 0
                self.add(
                    "commitment",
                    f"Training run {n + 1}",
                    due=on(n - 25),
                    status="done" if done else "active",
                    done_on=on(n - 25) if done else None,
                    parent_id=milestone,
                )
