"""Keep secrets out of cassettes: redact secure values, scrub secret-looking text.

``Scrubber(secrets=())`` works on the plain JSON data of a line, so every event type, the
header and JSON blobs get the same treatment:

- ``data(obj) -> obj``: a copy where secure values are replaced (the ``text`` of a ``type_text``
  action with ``secure: true`` and any ``password`` by ``REDACTED``; the ``value`` of an element
  by ``•`` per character, see below), each such value is also registered as a secret, and every
  other string is passed through ``text``;
- ``text(s) -> str``: replaces registered secrets, ``sk-...`` API keys, ``Authorization`` header
  values and ``Bearer`` tokens;
- ``add(secret) -> bool``: registers a secret (at least ``MIN_SECRET_LENGTH`` characters:
  shorter strings would erase unrelated text);
- ``hold(label, unique_id)``: a secret was typed into this field (``RecordingDevice`` says so).

A secret is followed through edits of the field that held it: an element's ``value`` is stored
as one bullet per character (``••••••••••`` for ten; what iOS itself exposes of a secure field)
when the element is secure, when a secret was typed into it (``hold``, whatever its length and
whether or not the field masks it), or when the value contains the first ``MIN_SECRET_LENGTH``
characters of a registered secret (what is left of it after a backspace). Never the text, never a
prefix; and the length the device showed, so a replay computes the same number of backspaces.

Tags, hashes and enumerated values (``STRUCTURAL_KEYS``) are never scrubbed, so a cassette still
reads back. ``matches_redacted(recorded, actual)`` is how replay compares a recorded (redacted)
value with a live one: ``REDACTED`` in a recorded string stands for any text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

BULLET = "•"
REDACTED = BULLET * 6
MIN_SECRET_LENGTH = 4
STRUCTURAL_KEYS = frozenset(
    {
        "type",
        "kind",
        "sha256",
        "elements",
        "media_type",
        "format",
        "condition",
        "permissions",
        "record_mode",
        "key",
        "prompt_digest",
        "run_id",
    }
)

_API_KEY = re.compile(r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}")
_AUTHORIZATION = re.compile(
    r"""(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?)"""
    r"""(?:(?:bearer|basic|token|digest)\s+)?[^\s"',;}]+"""
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*")


class Scrubber:
    """Redacts and scrubs plain JSON data before it is written; remembers secrets it meets."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._prefixes: set[str] = set()  # each secret's first MIN_SECRET_LENGTH characters
        self._held: set[tuple[str, str]] = set()  # fields a secret was typed into
        for secret in secrets:
            self.add(secret)

    def hold(self, label: str | None, unique_id: str | None) -> None:
        """A secret was typed into the field with this id (else label): from now on its
        value is stored as bullets, however it is edited."""
        if unique_id:
            self._held.add(("unique_id", unique_id))
        elif label:
            self._held.add(("label", label))

    def add(self, secret: str) -> bool:
        """Scrub ``secret`` from now on; False (and not registered) when it is too short."""
        if len(secret) < MIN_SECRET_LENGTH or not secret.strip(BULLET):
            return False  # too short to scrub safely, or bullets already
        if secret not in self._secrets:
            self._secrets.add(secret)
            self._prefixes.add(secret[:MIN_SECRET_LENGTH])
            # Longest first, so a secret that contains another is removed whole.
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))
        return True

    def holds_secret(self, text: str) -> bool:
        """True when ``text`` contains a registered secret or an ``sk-…`` API key."""
        if _API_KEY.search(text):
            return True
        return self._pattern is not None and self._pattern.search(text) is not None

    def text(self, text: str) -> str:
        if "sk-" in text:
            text = _API_KEY.sub(REDACTED, text)
        lowered = text.lower()
        if "authorization" in lowered:
            text = _AUTHORIZATION.sub(lambda m: m.group(1) + REDACTED, text)
        if "bearer" in lowered:
            text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return text

    def data(self, data: Any) -> Any:
        """A redacted, scrubbed copy of plain JSON data (dicts, lists, scalars)."""
        self._collect(data)
        return self._scrub(data, None)

    def _collect(self, node: Any) -> None:
        if isinstance(node, dict):
            for key in _secure_keys(node):
                self.add(node[key])
            for value in node.values():
                self._collect(value)
        elif isinstance(node, list | tuple):
            for value in node:
                self._collect(value)

    def _scrub(self, node: Any, key: str | None) -> Any:
        if isinstance(node, str):
            return node if key in STRUCTURAL_KEYS else self.text(node)
        if isinstance(node, dict):
            secure = _secure_keys(node)
            masked = self._masked_value(node)
            return {
                k: (BULLET * len(v) if k == masked else REDACTED)
                if k in secure or k == masked
                else self._scrub(v, k if isinstance(k, str) else None)
                for k, v in node.items()
            }
        if isinstance(node, list | tuple):
            return [self._scrub(value, key) for value in node]
        return node

    def _masked_value(self, node: dict) -> str | None:
        """``"value"`` when ``node`` is an element whose value is stored as bullets."""
        value = node.get("value")
        if "kind" in node or not isinstance(value, str):
            return None  # an action (an assert's value is the scenario's), not an element
        held = any(node.get(field) == name for field, name in self._held)
        if node.get("secure") is True or held or any(p in value for p in self._prefixes):
            return "value"
        return None


def _secure_keys(node: dict) -> tuple[str, ...]:
    """The keys of ``node`` whose string values are secrets by their place in the data."""
    keys: list[str] = []
    if node.get("secure") is True:
        if node.get("kind") == "type_text" and isinstance(node.get("text"), str):
            keys.append("text")
        elif "kind" not in node and isinstance(node.get("value"), str):
            keys.append("value")
    if isinstance(node.get("password"), str):
        keys.append("password")
    return tuple(keys)


def matches_redacted(recorded: Any, actual: Any) -> bool:
    """Equal plain data, except that ``REDACTED`` inside a recorded string matches any text."""
    if isinstance(recorded, str) and isinstance(actual, str):
        if recorded == actual:
            return True
        if REDACTED not in recorded:
            return False
        pattern = ".*".join(re.escape(part) for part in recorded.split(REDACTED))
        return re.fullmatch(pattern, actual, flags=re.DOTALL) is not None
    if isinstance(recorded, dict) and isinstance(actual, dict):
        return recorded.keys() == actual.keys() and all(
            matches_redacted(value, actual[key]) for key, value in recorded.items()
        )
    if isinstance(recorded, list | tuple) and isinstance(actual, list | tuple):
        return len(recorded) == len(actual) and all(
            matches_redacted(r, a) for r, a in zip(recorded, actual, strict=True)
        )
    return recorded == actual and isinstance(recorded, bool) == isinstance(actual, bool)
