"""A screen's legend: the keys it lists with what each does (an app's help), read from its text.

An app that handles keys in its own code (``on_key``) has no binding to read; its help screen
is where it says them, in a layout of its own: a table of two columns, a Markdown list, plain
lines. What they share is structure, not words: rows that each start with a key name followed
by words, aligned one under the other (the keys at one column, or their descriptions at one
column, as a centred key column leaves them), at least ``ROWS`` of them. A key name is what
``orav.model.keys`` accepts, as people write it (``Ctrl+T``, ``F2``, ``^x``, ``Esc``,
``[n]``). A hint line ("n next  k catalogue") is no legend: its keys share a row, not a column.

``Legends`` keeps what a run read, per key: where it was read (the screen, the step), for the
explorer to try the keys and for a model's prompt to list them, saying where they came from.
"""

from __future__ import annotations

import re

from attrs import define, field, frozen

from orav.model import Observation
from orav.model.keys import parse_key

ROWS = 3  # rows aligned one under the other: fewer is a hint, not a legend
MAX_KEYS = 60  # a legend longer than this is read up to here
_CELL = re.compile(r"\S+(?: \S+)*")  # a run of words, cells apart by two spaces or more
_WORD = re.compile(r"[^\W\d_]{2,}")  # a description says something: a word of letters
_BULLETS = "•◦▪▫‣∙·●○■□➤►▶*"
_SEPARATORS = {"-", "–", "—", ":", "=", "→", "->", "…"}
_WRAPS = "[]<>()`'\"«»"
# Box drawing and block elements (a table's rules, a panel's edge ▏) and "|": drawn, not read.
_FRAME = {code: " " for code in range(0x2500, 0x25A0)} | {ord("|"): " "}
# How people write a key that Textual names otherwise: data, the one place for it.
_SPELLINGS = {
    "esc": "escape",
    "return": "enter",
    "ret": "enter",
    "del": "delete",
    "ins": "insert",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "pgdown": "pagedown",
    "spc": "space",
    "bksp": "backspace",
    "↑": "up",
    "↓": "down",
    "←": "left",
    "→": "right",
    "⏎": "enter",
    "↵": "enter",
}


@frozen
class Listed:
    """A key a screen lists: Textual's name for it and what the screen says it does."""

    key: str
    description: str


def key_name(token: str) -> str | None:
    """Textual's name of a key as a legend writes it (``Ctrl+T`` → ``ctrl+t``, ``^x`` →
    ``ctrl+x``, ``F2`` → ``f2``, ``[n]`` → ``n``, ``?`` → ``?``), or None: not a key."""
    token = token.strip(_WRAPS).rstrip(":")
    if not token:
        return None
    if len(token) == 2 and token[0] == "^" and token[1].isalpha():
        token = f"ctrl+{token[1]}"
    if len(token) > 1:
        *modifiers, base = token.split("+") if not token.endswith("++") else [token[:-1]]
        base = base if len(base) == 1 and not modifiers else base.lower()
        base = _SPELLINGS.get(base, base)
        token = "+".join([*(m.lower() for m in modifiers), base])
    token = _SPELLINGS.get(token, token)
    try:
        parse_key(token)
    except ValueError:
        return None
    return token


@frozen
class _Pair:
    """A pair read on one row: where its key and its description start, whether a bullet
    marks it (a list's item; a row of the list without one continues the item before)."""

    row: int
    key_x: int
    said_x: int
    bulleted: bool
    listed: Listed


def _pairs(row: int, line: str) -> list[_Pair]:
    """The pairs of one row: each cell that starts with a key name followed by words, in the
    cell or in the next one. A row with a cell that is neither a pair nor words (a data
    table's row: "1  Möwe  3  1200", its row number and a name, then figures) has none."""
    cells = [(m.start(), m.group()) for m in _CELL.finditer(line.translate(_FRAME))]
    found, index, bullet = [], 0, False
    while index < len(cells):
        if cells[index][1] in _BULLETS:  # a bullet apart from its item: "•   q - Quit"
            bullet, index = True, index + 1
            continue
        pair, after = _pair(row, cells, index, bullet)
        bullet = False
        if pair is not None:
            found.append(pair)
        elif not _WORD.search(cells[index][1]):
            return []
        index = after if pair is not None else index + 1
    return found


def _pair(
    row: int, cells: list[tuple[int, str]], index: int, bullet: bool
) -> tuple[_Pair | None, int]:
    """The pair that starts at cell ``index`` (None if it is none), and the cell after it."""
    start, cell = cells[index]
    words = cell.split(" ")
    while len(words) > 1 and len(words[0]) == 1 and words[0] in _BULLETS:
        start, words, bullet = start + len(words[0]) + 1, words[1:], True
    key = key_name(words[0])
    if key is None:
        return None, index + 1
    rest, at, index = words[1:], start + len(words[0]) + 1, index + 1
    if not rest and index < len(cells):
        (at, said), index = cells[index], index + 1
        rest = said.split(" ")
    while rest and rest[0] in _SEPARATORS:
        at += len(rest[0]) + 1
        rest = rest[1:]
    description = " ".join(rest)
    if not _WORD.search(description):
        return None, index
    return _Pair(row, start, at, bullet, Listed(key, description)), index


def read_legend(text: str | None) -> tuple[Listed, ...]:
    """The keys the screen's text lists, in its order, each once (its first description):
    the pairs whose key column or description column at least ``ROWS`` rows share; in a
    bulleted list, its items only (a wrapped item's next row may start with a key's name)."""
    lines = (text or "").splitlines()
    found = [pair for row, line in enumerate(lines) for pair in _pairs(row, line)]
    listed_at = {p.key_x for p in found if p.bulleted}
    found = [p for p in found if p.bulleted or p.key_x not in listed_at]
    found = _in_key_columns(found, [line.translate(_FRAME) for line in lines])
    rows_at: dict[tuple[str, int], set[int]] = {}
    for pair in found:
        rows_at.setdefault(("key", pair.key_x), set()).add(pair.row)
        rows_at.setdefault(("said", pair.said_x), set()).add(pair.row)
    listed: dict[str, Listed] = {}
    for pair in found:
        aligned = max(len(rows_at["key", pair.key_x]), len(rows_at["said", pair.said_x]))
        if aligned >= ROWS and len(listed) < MAX_KEYS:
            listed.setdefault(pair.listed.key, pair.listed)
    return tuple(listed.values())


def _in_key_columns(found: list[_Pair], lines: list[str]) -> list[_Pair]:
    """The pairs whose key column holds keys more than anything else: a column (keys at one
    place, or descriptions at one place and the keys before them) where more rows write
    something that is no key (a code listing's line numbers past 9, its blank lines'
    numbers) is a gutter, not a legend's keys."""
    rows = {p.row for p in found}
    columns: dict[tuple[str, int], list[_Pair]] = {}
    for pair in found:
        columns.setdefault(("key", pair.key_x), []).append(pair)
        columns.setdefault(("said", pair.said_x), []).append(pair)
    kept: set[_Pair] = set()
    for column in columns.values():
        start, end = min(p.key_x for p in column), min(p.said_x for p in column)
        others = sum(
            1
            for row, line in enumerate(lines)
            if row not in rows and line[max(0, start - 1) : end].strip()
        )
        if others <= len(column):
            kept.update(column)
    return [p for p in found if p in kept]


@frozen
class Source:
    """Where a legend was read: the screen's name and the step that saw it."""

    screen: str
    step: int


@define
class Legends:
    """The keys the legends a run saw list, each with its description and where it was read
    (the first place): what the explorer tries and a model's prompt offers."""

    keys: dict[str, tuple[Listed, Source]] = field(factory=dict)

    def read(self, observation: Observation, screen: str, step: int) -> tuple[Listed, ...]:
        """Take in the legend of a screen seen at ``step``; its keys."""
        listed = read_legend(observation.text)
        for pair in listed:
            self.keys.setdefault(pair.key, (pair, Source(screen, step)))
        return listed

    def lines(self) -> list[str]:
        """The keys read, grouped by where they were read, for a prompt."""
        by_source: dict[Source, list[str]] = {}
        for pair, source in self.keys.values():
            by_source.setdefault(source, []).append(f"{pair.key} ({pair.description})")
        return [
            f"Keys the app's help lists (read on {source.screen!r} at step {source.step}; "
            f"not in the tree, pressed with press_key): {', '.join(keys)}"
            for source, keys in by_source.items()
        ]
