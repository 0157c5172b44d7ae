"""The words of controls, read from one data file (``words.yaml``): the last resort.

Structure and effect come first (``orav.perceive.deeds``); these words say which kind a deed
is where neither has shown it yet, and which answer of a dialog declines (``declining``), so
that a confirmation's cancel answer and the answer a remedy presses are one notion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from importlib import resources
from typing import Literal

from attrs import frozen

from orav.codec.yaml import load_yaml
from orav.model import Element
from orav.perceive.roles import BUTTON_ROLES

Category = Literal["outward", "destructive", "sign_out", "quit", "cancel", "acknowledge"]


@frozen
class Words:
    """The data file: per category, per language, words and stems (``delet*``)."""

    outward: dict[str, list[str]]
    destructive: dict[str, list[str]]
    sign_out: dict[str, list[str]]
    quit: dict[str, list[str]]
    cancel: dict[str, list[str]]
    acknowledge: dict[str, list[str]]


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_SEPARATORS = re.compile(r"[\s_\-./:#]+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2026": " "})


def plain_words(text: str) -> str:
    """A text as its words: camelCase, ``_``, ``-`` and dots split, casefolded, spaced once
    (``confirmDrop_table`` → "confirm drop table")."""
    text = _CAMEL.sub(" ", text.translate(_QUOTES))
    return " ".join(_SEPARATORS.sub(" ", text).casefold().split())


def _pattern(entry: str) -> str:
    stem = entry.endswith("*")
    words = plain_words(entry.rstrip("*")).split(" ")
    body = r"\s+".join(re.escape(w) for w in words)
    tail = r"\w*" if stem else ""
    return rf"(?<![\w']){body}{tail}(?![\w'])"


@cache
def _words() -> Words:
    source = resources.files("orav.perceive") / "words.yaml"
    return load_yaml(source.read_text(encoding="utf-8"), Words, source="orav/perceive/words.yaml")


@cache
def _regex(category: Category) -> re.Pattern[str]:
    entries = [e for words in getattr(_words(), category).values() for e in words]
    return re.compile("|".join(_pattern(e) for e in entries))


@cache
def answers(category: Category) -> dict[str, int]:
    """Whole answers of ``category``, each with its rank: the file's order, language by
    language (a language's first entries before another's later ones)."""
    ranked: dict[str, int] = {}
    for words in getattr(_words(), category).values():
        for rank, entry in enumerate(words):
            said = plain_words(entry)
            ranked[said] = min(rank, ranked.get(said, rank))
    return ranked


@lru_cache(maxsize=4096)
def finds(category: Category, text: str) -> str | None:
    """The first word of ``category`` in ``text`` (at word edges, any case), or None; kept
    for the screen's few labels: the word lists' one regex costs ~0.1 ms a search."""
    found = _regex(category).search(plain_words(text))
    return found.group(0) if found else None


def is_cancel(element: Element) -> bool:
    """An answer that declines: its whole label says so ("Cancel", "Not Now", "Keep it"), not
    "Cancel payment"."""
    return plain_words(element.label or "") in answers("cancel")


def declining(buttons: Sequence[Element]) -> Element | None:
    """The enabled answer among ``buttons`` that declines (``is_cancel``), the most plainly
    declining first ("Cancel" before "Never"), or None."""
    ranks = answers("cancel")
    declines = [b for b in _offered(buttons) if plain_words(b.label or "") in ranks]
    return min(declines, key=lambda b: ranks[plain_words(b.label or "")], default=None)


def dismissing(buttons: Sequence[Element]) -> Element | None:
    """The answer a remedy presses to dismiss a dialog or a cover: its declining answer, else
    an acknowledgement ("OK", "Got it") that is its only answer; never one that confirms,
    grants or consents."""
    decline = declining(buttons)
    offered = _offered(buttons)
    if decline is not None or len(offered) != 1:
        return decline
    only = offered[0]
    return only if plain_words(only.label or "") in answers("acknowledge") else None


def dismissible(buttons: Sequence[Element]) -> bool:
    """Whether the remedies may clear what offers ``buttons``: nothing to answer (a toast, a
    terminal dialog: escape), or an answer that dismisses (``dismissing``). One whose every
    answer is a deed (a draft's Delete or Save) is the test's to answer."""
    return not buttons or dismissing(buttons) is not None


def _offered(buttons: Sequence[Element]) -> list[Element]:
    return [b for b in buttons if b.role in BUTTON_ROLES and b.enabled and b.label]
