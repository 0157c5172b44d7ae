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
from collections.abc import Iterator

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
_FRAME = {code: " " for code in range(0x2500, 0x2580)} | {ord("|"): " "}
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


def _pairs(line: str) -> Iterator[tuple[int, int, Listed]]:
    """(key column, description column, the pair) for each cell of a row that starts with a
    key name followed by words, in the cell or in the next one."""
    cells = [(m.start(), m.group()) for m in _CELL.finditer(line.translate(_FRAME))]
    for index, (start, cell) in enumerate(cells):
        words = cell.split(" ")
        while len(words) > 1 and len(words[0]) == 1 and words[0] in _BULLETS:
            start += len(words[0]) + 1
            words = words[1:]
        key = key_name(words[0])
        if key is None:
            continue
        rest = words[1:]
        at = start + len(words[0]) + 1
        if not rest and index + 1 < len(cells):
            at, rest = cells[index + 1][0], cells[index + 1][1].split(" ")
        while rest and rest[0] in _SEPARATORS:
            at += len(rest[0]) + 1
            rest = rest[1:]
        description = " ".join(rest)
        if _WORD.search(description):
            yield start, at, Listed(key, description)


def read_legend(text: str | None) -> tuple[Listed, ...]:
    """The keys the screen's text lists, in its order, each once (its first description):
    the pairs whose key column or description column at least ``ROWS`` rows share."""
    found = [
        (row, *pair) for row, line in enumerate((text or "").splitlines()) for pair in _pairs(line)
    ]
    rows_at: dict[tuple[str, int], set[int]] = {}
    for row, key_x, said_x, _ in found:
        rows_at.setdefault(("key", key_x), set()).add(row)
        rows_at.setdefault(("said", said_x), set()).add(row)
    listed: dict[str, Listed] = {}
    for _, key_x, said_x, pair in found:
        aligned = max(len(rows_at["key", key_x]), len(rows_at["said", said_x])) >= ROWS
        if aligned and len(listed) < MAX_KEYS:
            listed.setdefault(pair.key, pair)
    return tuple(listed.values())


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
