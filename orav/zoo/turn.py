"""One request to the zoo read back as a model reads it: the goal, the account, the screen's
elements with their references, the recent steps, and whether it is a re-ask.

The zoo plays a model that reads orav's prompt, so this reads the prompt's own words
(``orav/agents/prompt.py``) leniently: a line it cannot read is skipped, as a model would skim
past it, never an error.
"""

from __future__ import annotations

import base64
import re
import struct
from typing import Any

from attrs import field, frozen

_SIZE = re.compile(r"(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?) (?:points|cells|pixels)")
_AT = re.compile(r"^@(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$")
_QUOTED = re.compile(r'"([^"]*)"')
_TEXT_ROLES = frozenset({"Heading", "Text", "StaticText", "Window", "Group", "Other", "Image"})
_ACCOUNT = re.compile(r'Test account: username "([^"]*)"')
_NOTES = re.compile(r"^Your notes \(step \d+\): (.*)$", re.MULTILINE)


@frozen
class Seen:
    """One element line of the prompt: ``e4 TextField "Email" #email ="a@b.c" @195,242 focused``."""

    ref: str
    role: str
    label: str = ""
    id: str = ""
    value: str | None = None
    x: float = 0.0
    y: float = 0.0
    flags: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        """What a model calls the element: its label, else its id."""
        return self.label or self.id

    @property
    def focused(self) -> bool:
        return "focused" in self.flags

    @property
    def enabled(self) -> bool:
        return "disabled" not in self.flags


def read_element(line: str) -> Seen | None:
    """An element line, or None for any other line."""
    head, _, rest = line.strip().partition(" ")
    if not re.fullmatch(r"e\d+", head):
        return None
    role, _, rest = rest.partition(" ")
    label = ""
    quoted = _QUOTED.match(rest)
    if quoted:
        label, rest = quoted.group(1), rest[quoted.end() :]
    value: str | None = None
    fields: dict[str, Any] = {}
    flags = set()
    for token in re.findall(r'=?"[^"]*"|\S+', rest):
        at = _AT.match(token)
        if at:
            fields["x"], fields["y"] = float(at.group(1)), float(at.group(2))
        elif token.startswith("#"):
            fields["id"] = token[1:]
        elif token.startswith('="'):
            value = token[2:-1]
        elif token == "=•••":
            value = "•••"
        elif "=" not in token:
            flags.add(token)
    if "x" not in fields:
        return None
    return Seen(head, role, label, value=value, flags=frozenset(flags), **fields)


def _image_size(url: str) -> tuple[int, int] | None:
    """A PNG data URL's width and height, read from its header (no decoding)."""
    if not url.startswith("data:image/png;base64,"):
        return None
    head = base64.b64decode(url.split(",", 1)[1][:44] + "==", validate=False)
    if len(head) < 24 or head[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


def _text(content: Any) -> tuple[str, tuple[int, int] | None]:
    if isinstance(content, str):
        return content, None
    texts, size = [], None
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") == "image_url":
            size = _image_size(str((part.get("image_url") or {}).get("url", "")))
    return "\n".join(texts), size


@frozen
class Turn:
    """What one request says, as far as a model needs it to decide."""

    goal: str = ""
    username: str | None = None
    elements: tuple[Seen, ...] = ()
    history: tuple[str, ...] = ()
    text: str = ""  # the whole user turn: feedback the zoo does not parse is still read here
    screen: tuple[float, float] | None = None
    image: tuple[int, int] | None = None
    reask: bool = False
    tools: tuple[str, ...] = ()
    model: str = ""
    keys: tuple[str, ...] = field(factory=tuple)
    notes: str | None = None  # the model's own notes, shown again

    def find(self, label: str | None = None, *, id: str | None = None) -> Seen | None:
        """The element with this label (case and spaces aside) or id: the first control, else
        the first text (a title that repeats a button's label is not what a model taps)."""
        hits = [
            seen
            for seen in self.elements
            if (id is not None and seen.id == id)
            or (label is not None and _fold(seen.label) == _fold(label))
        ]
        controls = [seen for seen in hits if seen.role not in _TEXT_ROLES]
        return next(iter(controls or hits), None)

    def shows(self, text: str) -> bool:
        """Whether any element's label or value contains ``text`` (case aside)."""
        wanted = text.casefold()
        return any(
            wanted in seen.label.casefold() or wanted in (seen.value or "").casefold()
            for seen in self.elements
        )

    @property
    def points_per_pixel(self) -> float:
        """Screen points per image pixel, 1.0 when either size is unknown."""
        if self.screen is None or self.image is None or not self.image[0]:
            return 1.0
        return self.screen[0] / self.image[0]


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def read_turn(body: dict[str, Any]) -> Turn:
    """The request body of a chat completion, read as the zoo's model reads it."""
    messages = [m for m in body.get("messages") or () if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    first = users[0] if users else {}
    text, image = _text(first.get("content", ""))
    lines = text.splitlines()
    goal = next((ln.removeprefix("Goal: ") for ln in lines if ln.startswith("Goal: ")), "")
    account = _ACCOUNT.search(text)
    notes = _NOTES.search(text)
    elements = tuple(seen for ln in lines if (seen := read_element(ln)) is not None)
    history = tuple(ln for ln in lines if re.match(r"\d+\. \[", ln))
    return Turn(
        goal=goal,
        username=account.group(1) if account else None,
        elements=elements,
        history=history,
        text=text,
        screen=_screen(lines),
        image=image,
        reask=any(m.get("role") == "assistant" for m in messages),
        tools=_tools(body),
        model=str(body.get("model", "")),
        keys=_keys(lines),
        notes=notes.group(1) if notes else None,
    )


def _tools(body: dict[str, Any]) -> tuple[str, ...]:
    """The names of the tools the request offers."""
    offered = [tool for tool in body.get("tools") or () if isinstance(tool, dict)]
    return tuple(str((tool.get("function") or {}).get("name")) for tool in offered)


def _screen(lines: list[str]) -> tuple[float, float] | None:
    """The screen's size from the last ``Screen:`` line that gives one."""
    screen = None
    for ln in lines:
        size = _SIZE.search(ln) if ln.startswith("Screen:") else None
        if size:
            screen = (float(size.group(1)), float(size.group(2)))
    return screen


def _keys(lines: list[str]) -> tuple[str, ...]:
    """The app's keys from the last ``App ... keys:`` line."""
    keys: tuple[str, ...] = ()
    for ln in lines:
        if ln.startswith("App ") and " keys: " in ln:
            keys = tuple(k.strip() for k in ln.split(" keys: ", 1)[1].split(","))
    return keys
