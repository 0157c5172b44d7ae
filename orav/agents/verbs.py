"""An action's kind from the words a model used for it, read by meaning rather than spelling.

Each kind is known by its own name and the verbs its description in the answer schema gives
it (``orav.agents.schema.KINDS``: ``tap (click, press, select, ...)``). A verb as models write
it (``left_click``, ``CLICK_ELEMENT``, ``click_element_by_index``, ``type_text_at``,
``send_keys``, ``wait_5_seconds``, ``task_complete``) is split into its words, each word
matched as written or without an ending (``keys``, ``finished``); a word that two kinds share
counts half for each, and the answer's own fields (a ``key``, a ``text``, an element) tip a
tie to the kind that takes them. A sentence (``Tap on the "Sign in" button``) is read the same
way, its quoted parts aside. A verb that names no kind, or two alike, is None: the answer is
re-asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from orav.agents.schema import FIELDS, KINDS

# What each kind takes: an answer that gives it points to that kind when its verb is shared.
TAKES: dict[str, frozenset[str]] = {
    "tap": frozenset({"element", "x", "y", "coordinate", "button"}),
    "type_text": frozenset({"text", "content", "value"}),
    "swipe": frozenset({"start", "end", "direction"}),
    "press_key": frozenset({"key", "keys"}),
    "wait": frozenset({"seconds", "duration", "time"}),
    "done": frozenset({"success", "summary", "status"}),
    "assert": frozenset({"condition"}),
}
_ENDINGS = ("", "s", "es", "ed", "d", "ing")


def words(text: str) -> list[str]:
    """The words of a verb or a sentence: camelCase, snake_case and spaces split, folded."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return re.findall(r"[a-z]+", spaced.casefold())


def _verbs() -> dict[str, frozenset[str]]:
    """Each word the schema gives a kind (its name's and its description's verbs), with the
    kinds that word names."""
    named: dict[str, set[str]] = {}
    for kind, description in KINDS.items():
        head = description.partition(":")[0]
        for word in words(kind) + words(head):
            named.setdefault(word, set()).add(kind)
    return {word: frozenset(kinds) for word, kinds in named.items()}


VERBS = _verbs()


def _kinds(word: str) -> frozenset[str]:
    """The kinds a word names, as written or without a common ending."""
    for ending in _ENDINGS:
        if word.endswith(ending) and (stem := word[: len(word) - len(ending)]) in VERBS:
            return VERBS[stem]
    return frozenset()


def kind_of(verb: str, given: Iterable[str] = ()) -> str | None:
    """The kind ``verb`` names (its words scored as the module says), ``given`` the fields the
    answer gives beside it; None when it names none, or two alike."""
    scores: dict[str, float] = {}
    for word in words(verb):
        kinds = _kinds(word)
        for kind in kinds:
            scores[kind] = scores.get(kind, 0.0) + 1 / len(kinds)
    if not scores:
        return None
    fields = {word for field in given for word in words(field)}
    for kind in scores:
        scores[kind] += 0.25 * len(fields & TAKES.get(kind, frozenset()))
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def sentence_kind(sentence: str, given: Iterable[str] = ()) -> str | None:
    """The kind a sentence asks for: its first word that names one kind alone, else its words
    scored together (quoted parts aside, they are what it acts on)."""
    plain = re.sub(r"\"[^\"]*\"|'[^']*'|“[^”]*”", " ", sentence)
    for word in words(plain):
        kinds = _kinds(word)
        if len(kinds) == 1:
            return next(iter(kinds))
    return kind_of(plain, given)


def schema_names(data: dict[str, object], also: Iterable[str] = ()) -> dict[str, object]:
    """``data`` with each key that names a field of the answer schema (or one of ``also``) in
    another case or spacing (``Reasoning``, ``expectedOutcome``, ``Expected outcome``) renamed
    to the schema's own name; other keys, and a name already given, as they are."""
    names = FIELDS | set(also)
    renamed: dict[str, object] = {}
    for key, value in data.items():
        name = "_".join(words(key)) if isinstance(key, str) else key
        renamed[name if name in names and name not in data else key] = value
    return renamed
