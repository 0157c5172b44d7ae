"""Secrets never leave: the one scrubber for every text orav writes, shows or sends.

A known secret is a value: the scenario's test password, the values of the ``${NAME}``
variables it reads, text it types with ``secure: true`` (``scenario_secrets``), and a model's
API key. Wherever text leaves orav (a cassette, a report, the console, a model's prompt) each
is replaced by its stand-in: ``{{password}}`` or ``{{NAME}}`` where a model must be able to
name the value it cannot see (orav types the value, ``orav.agents.answer``), ``REDACTED``
elsewhere. Text that looks secret is replaced too, known or not: ``sk-...`` API keys,
``Authorization`` header values and ``Bearer`` tokens.

``Scrubber(secrets=(), named={}, typed={})`` (``named``: value to stand-in; ``typed``: the same,
for secure typing alone) works on text and on the plain JSON data of a cassette line, so every
event type, the header and JSON blobs get the same treatment:

- ``text(s) -> str``: replaces known secrets by their stand-ins and secret-looking text;
- ``data(obj) -> obj``: a copy where secure values are replaced (the ``text`` of a ``type_text``
  action with ``secure: true`` by its stand-in in ``typed`` when it is exactly that secret, so
  a re-record can type it again (``orav.cassette.follow``), else by ``REDACTED``, as is any
  ``password``; the ``value`` of an element by ``•`` per character, see below), each such value
  is also registered as a secret, and every other string is passed through ``text``;
- ``messages(list) -> list``: a chat's messages with every text part through ``text`` (images
  are left alone: a secret's characters may occur in base64 by chance);
- ``add(secret) -> bool``: registers a secret (at least ``MIN_SECRET_LENGTH`` characters:
  shorter strings would erase unrelated text; a shorter one is known whole: text typed that is
  exactly it, and an element's value that is, are secure as above, and shown as bullets);
- ``hold(label, unique_id)``: a secret was typed into this field (``RecordingDevice`` says so);
- ``shown(action) -> Action``: the action as a terminal shows it (a piece of a secret typed is
  shown as bullets).

``scrubbed_logs(scrubber)`` holds every log record made while a run records to it.

A secret is followed through edits of the field that held it: an element's ``value`` is stored
as one bullet per character (``••••••••••`` for ten; what iOS itself exposes of a secure field)
when the element is secure, when a secret was typed into it (``hold``, whatever its length and
whether or not the field masks it), or when the value contains the first ``MIN_SECRET_LENGTH``
characters of a registered secret (what is left of it after a backspace). Never the text, never a
prefix; and the length the device showed, so a replay computes the same number of backspaces.

Tags, hashes and enumerated values (``STRUCTURAL_KEYS``) are never scrubbed, so a cassette still
reads back.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from attrs import evolve

from orav.model import Action, PressKey, Scenario, TypeText

BULLET = "•"
REDACTED = BULLET * 6
PASSWORD = "{{password}}"  # the test password's stand-in in a model's prompt
STAND_IN = re.compile(r"\{\{\w+\}\}")  # a named secret's stand-in: {{password}}, {{NAME}}
MIN_SECRET_LENGTH = 4
_REMEMBERED, _SHORT = 4096, 256  # texts a scrubber remembers, up to this length each
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

_API_KEY = re.compile(r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{5,}")
_AUTHORIZATION = re.compile(
    r"""(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?)"""
    r"""(?:(?:bearer|basic|token|digest)\s+)?[^\s"',;}]+"""
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*")


@runtime_checkable
class Shows(Protocol):
    """What shows a run's text on a terminal (the console's progress): a recording sets its
    ``scrubber`` to the cassette's own, so a line shows no secret the cassette would not
    (and no piece of one typed: ``Scrubber.shown``)."""

    scrubber: Scrubber


class Scrubber:
    """Redacts and scrubs plain JSON data before it is written; remembers secrets it meets."""

    def __init__(
        self,
        secrets: Iterable[str] = (),
        named: Mapping[str, str] = {},
        typed: Mapping[str, str] = {},
    ) -> None:
        self._secrets: dict[str, str] = {}  # each secret's stand-in
        # A secret typed securely, as a whole, is written as its stand-in: {{password}}.
        self._typed = {k: v for k, v in typed.items() if STAND_IN.fullmatch(v)}
        self._pattern: re.Pattern[str] | None = None
        self._prefixes: set[str] = set()  # each secret's first MIN_SECRET_LENGTH characters
        self._held: set[tuple[str, str]] = set()  # fields a secret was typed into
        # Secrets too short to search text for (a PIN of 1-3 characters): text typed that is
        # one of them, and a field's value that is one, is treated as secure all the same.
        self._whole: frozenset[str] = frozenset()
        # Counts the changes to what is scrubbed (a secret added, a field held): data scrubbed
        # at one version is scrubbed alike again until it moves (a writer's cache rests on it).
        self.version = 0
        # A cassette's disk thread scrubs while the run's thread shows and checks text.
        self._lock = threading.RLock()
        self._scrubbed: tuple[int, dict[str, str]] = (0, {})  # texts scrubbed at a version
        for secret, stand_in in named.items():
            self.add(secret, stand_in)
        for secret in secrets:
            self.add(secret)

    def hold(self, label: str | None, unique_id: str | None) -> None:
        """A secret was typed into the field with this id (else label): from now on its
        value is stored as bullets, however it is edited."""
        held = ("unique_id", unique_id) if unique_id else ("label", label) if label else None
        with self._lock:
            if held is not None and held not in self._held:
                self._held = self._held | {held}
                self.version += 1

    def add(self, secret: str, stand_in: str = REDACTED) -> bool:
        """Replace ``secret`` by ``stand_in`` from now on (the first stand-in given stays); False
        (and not registered) when it is too short."""
        if not secret.strip(BULLET):
            return False  # bullets already
        if len(secret) < MIN_SECRET_LENGTH:  # too short to scrub out of text safely
            with self._lock:
                if secret not in self._whole:
                    self._whole = self._whole | {secret}
                    self.version += 1
            return False
        with self._lock:  # each field replaced whole: a reader sees the old or the new
            if secret not in self._secrets:
                self._secrets = {**self._secrets, secret: stand_in}
                self._prefixes = self._prefixes | {secret[:MIN_SECRET_LENGTH]}
                # Longest first, so a secret that contains another is removed whole.
                ordered = sorted(self._secrets, key=len, reverse=True)
                self._pattern = re.compile("|".join(re.escape(s) for s in ordered))
                self.version += 1
        return True

    def shown(self, action: Action) -> Action:
        """``action`` as a terminal shows it: text typed that is a piece of a known secret (a
        character of it, or any part, either way round), or a key pressed that is one, is shown
        as secure text is, so a secret typed a piece or a key at a time is never pieced
        together from the lines that show each."""
        if isinstance(action, TypeText) and not action.secure and self.piece(action.text):
            return evolve(action, secure=True)
        key = action.key if isinstance(action, PressKey) else None
        if isinstance(key, str) and len(key) == 1 and self.piece(key):
            return TypeText(key, secure=True)  # a character's key types what it names
        return action

    def piece(self, text: str) -> bool:
        """Whether ``text`` is a piece of a known secret (a character of it, or any part,
        either way round), or a secret too short to scrub out of text, whole."""
        turned = text[::-1]
        pieces = any(text in s or turned in s for s in self._secrets)
        return bool(text) and (pieces or text in self._whole)

    def holds_secret(self, text: str) -> bool:
        """True when ``text`` contains a registered secret or an ``sk-…`` API key."""
        if _API_KEY.search(text):
            return True
        return self._pattern is not None and self._pattern.search(text) is not None

    def text(self, text: str) -> str:
        """``text`` with every secret replaced; the same text again (a label each step shows,
        a phase's name) is looked up, until what is scrubbed changes."""
        if self._scrubbed[0] != self.version or len(self._scrubbed[1]) > _REMEMBERED:
            self._scrubbed = (self.version, {})
        known = self._scrubbed[1].get(text)
        if known is None:
            known = self._text(text)
            if len(text) <= _SHORT:
                self._scrubbed[1][text] = known
        return known

    def _text(self, text: str) -> str:
        if "sk-" in text:
            text = _API_KEY.sub(REDACTED, text)
        lowered = text.lower()
        if "authorization" in lowered:
            text = _AUTHORIZATION.sub(lambda m: m.group(1) + REDACTED, text)
        if "bearer" in lowered:
            text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
        if self._pattern is not None:
            text = self._pattern.sub(lambda m: self._secrets[m.group()], text)
        return text

    def messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Chat messages as a model may see them: every text scrubbed, images as they are."""
        return [self._message(message) for message in messages]

    def _message(self, node: Any) -> Any:
        if isinstance(node, str):
            return self.text(node)
        if isinstance(node, dict):
            return {k: v if k == "image_url" else self._message(v) for k, v in node.items()}
        if isinstance(node, list):
            return [self._message(value) for value in node]
        return node

    def data(self, data: Any) -> Any:
        """A redacted, scrubbed copy of plain JSON data (dicts, lists, scalars)."""
        with self._lock:
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
            text = node.get("text")
            if node.get("kind") == "type_text" and isinstance(text, str) and self.piece(text):
                secure = (*secure, "text")  # typed as plain text: stored as if secure
            masked = self._masked_value(node)
            return {
                k: (BULLET * len(v) if k == masked else self._stand_in(node, k))
                if k in secure or k == masked
                else self._scrub(v, k if isinstance(k, str) else None)
                for k, v in node.items()
            }
        if isinstance(node, list | tuple):
            return [self._scrub(value, key) for value in node]
        return node

    def _stand_in(self, node: dict, key: str) -> str:
        """What a secure value is written as: a secret typed whole, its stand-in in ``typed``;
        anything else, ``REDACTED``."""
        if key == "text" and node.get("kind") == "type_text":
            return self._typed.get(node[key], REDACTED)
        return REDACTED

    def _masked_value(self, node: dict) -> str | None:
        """``"value"`` when ``node`` is an element whose value is stored as bullets."""
        value = node.get("value")
        if "kind" in node or not isinstance(value, str):
            return None  # an action (an assert's value is the scenario's), not an element
        held = any(node.get(field) == name for field, name in self._held) or value in self._whole
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


def scenario_secrets(scenario: Scenario) -> dict[str, str]:
    """The scenario's known secrets, each with the stand-in a model sees: the test password
    (``{{password}}``), each ``${NAME}`` variable's value (``{{NAME}}``), and text the scenario
    types with ``secure: true`` (``REDACTED``: orav types it, a model never needs to)."""
    found: dict[str, str] = {}
    for name in scenario.variables:
        found.setdefault(os.environ.get(name, ""), "{{" + name + "}}")
    if scenario.credentials is not None:
        found[scenario.credentials.password] = PASSWORD
    typed = [d.action for d in scenario.script] + list(scenario.preconditions)
    for action in typed:
        if isinstance(action, TypeText) and action.secure:
            found.setdefault(action.text, REDACTED)
    found.pop("", None)
    return found


_logging: list[Scrubber] = []  # the scrubbers of the runs recording now, each a log's filter
_made: list[Callable[..., logging.LogRecord]] = []  # the record factory ours wraps


@contextmanager
def scrubbed_logs(scrubber: Scrubber) -> Iterator[None]:
    """While a run records, every log record made in this process (orav's, an HTTP client's,
    an in-process app's) has its message, its exception's text and its stack through
    ``scrubber``, whichever handler shows it: the record is scrubbed where it is made, so a
    handler added later (pytest's, a user's) never sees the secret either."""
    if not _logging:
        _made.append(logging.getLogRecordFactory())
        logging.setLogRecordFactory(_scrubbed_record)
    _logging.append(scrubber)
    try:
        yield
    finally:
        _logging.remove(scrubber)
        if not _logging:
            logging.setLogRecordFactory(_made.pop())


def _scrubbed_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _made[-1](*args, **kwargs)
    if not _logging:
        return record
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a call whose arguments do not fit: its text, not theirs
        message = str(record.msg)
    error = logging.Formatter().formatException(record.exc_info) if record.exc_info else None
    for scrubber in _logging:
        message = scrubber.text(message)
        error = scrubber.text(error) if error else error
        record.stack_info = scrubber.text(record.stack_info) if record.stack_info else None
    record.msg, record.args = message, None
    record.exc_info, record.exc_text = None, error  # the text shown, never the live objects
    return record
