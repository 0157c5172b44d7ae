"""Workspace defaults: ``orav.toml``, or ``[tool.orav]`` in ``pyproject.toml``.

The nearest of the two, from the working folder up, holds what a team would otherwise repeat
on every command line (the device, the agent, the model's base URL, where scenarios and
cassettes live). A flag given on the command line wins over the file. The file holds no
secret: an API key or a password comes from the environment (``${NAME}`` in a scenario).
"""

from __future__ import annotations

import os
import stat
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import field, frozen

from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_TOML_BYTES, size
from orav.errors import InputError

FILE = "orav.toml"


@frozen
class Config:
    """The defaults a config file may set; ``source`` names the file (empty: none found)."""

    device: str | None = None  # None: the scenario's, else orav.specs.device_for's
    devices: tuple[str, ...] = ()  # a pool of idb: companions a suite runs on, one run each
    agent: str = "scripted"
    base_url: str | None = None
    agent_options: dict[str, object] = field(factory=dict)
    scenarios: tuple[str, ...] = ("scenarios",)  # what `orav record` with no argument runs
    recordings: str = "recordings"  # where cassettes go
    # the passing flows (cassettes, folders of them) a run revisits once its goal is reached
    regression_check: tuple[str, ...] = ()
    settle_seconds: float | None = None  # a fixed settle for scenarios that set none
    workers: int | None = None  # None: as many as the machine or the pool can run
    retries: int = 0
    # the app's world (orav.sandbox): the network on in a Textual app's sandbox, files copied
    # into it beyond the working folder, an idb: device declared orav's own to throw away
    network: bool = False
    sandbox_files: tuple[str, ...] = ()
    disposable: bool = False
    source: str = ""
    lines: dict[str, int] = field(factory=dict)  # the line of each setting the file sets

    def ignored(self, keys: tuple[str, ...], why: str) -> None:
        """Say on stderr, once a process, that settings the file sets are not used, and
        ``why``: a setting passed over in silence reads as one that holds."""
        named = [key for key in keys if key in self.lines]
        if not named or (self.source, named[0]) in _SAID:
            return
        _SAID.add((self.source, named[0]))
        prefix = "tool.orav." if self.source.endswith("pyproject.toml") else ""
        settings = " and ".join(f"{prefix}{key}" for key in named)
        verb = "is" if len(named) == 1 else "are"
        where = f"{self.source}:{self.lines[named[0]]}"
        print(f"orav: note: {where}: {settings} {verb} not used: {why}", file=sys.stderr)


_SAID: set[tuple[str, str]] = set()  # (file, first setting) said to be ignored


_TYPES: dict[str, tuple[type, ...]] = {
    "device": (str,),
    "devices": (list,),
    "agent": (str,),
    "base_url": (str,),
    "agent_options": (dict,),
    "scenarios": (list, str),
    "regression_check": (list, str),
    "recordings": (str,),
    "settle_seconds": (int, float),
    "workers": (int,),
    "retries": (int,),
    "network": (bool,),
    "sandbox_files": (list,),
    "disposable": (bool,),
}
_LIMITS = {"workers": (1, 64), "retries": (0, 10), "settle_seconds": (0, 60)}


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``orav.toml`` (whatever it is: a folder, a FIFO or a broken link by that
    name is refused when read, not passed over), or ``pyproject.toml`` that sets ``tool.orav``
    (in any form: one that is not a table is refused when read)."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / FILE):
            return candidate / FILE
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and _names_orav(pyproject):
            return pyproject
    return None


def _names_orav(pyproject: Path) -> bool:
    """Does this pyproject.toml set ``tool.orav``? (One that mentions orav and is no TOML is
    taken as ours, for its error to be seen.)"""
    text = _read(pyproject)
    if b"orav" not in text:
        return False
    try:
        tool = tomllib.loads(text.decode("utf-8", errors="replace")).get("tool")
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return True
    return isinstance(tool, dict) and "orav" in tool


def load_config(path: Path | None = None) -> Config:
    """The defaults of the file at ``path`` (else the nearest one; none: the built-ins).

    A key orav does not know or a value of the wrong type is an InputError at file:line.
    """
    path = path or find_config()
    if path is None:
        return Config()
    text = _read(path).decode("utf-8", errors="replace")
    data = _parsed(text, path)
    prefix = ""
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data, prefix = tool.get("orav", {}) if isinstance(tool, dict) else tool, "tool.orav."
        if not isinstance(data, dict):
            where = f"{path}:{_line_of(text, 'orav', tables=True)}"
            raise InputError(f"tool.orav: expected a table ([tool.orav]), got {_kind(data)}", where)
    if "device" in data and "devices" in data:
        where = f"{path}:{_line_of(text, 'devices')}"
        raise InputError(f"{prefix}devices: set device or devices, not both", where)
    values: dict[str, Any] = {}  # each checked against _TYPES by _checked
    lines: dict[str, int] = {}
    for key, value in data.items():
        lines[key] = _line_of(text, key)
        values[key] = _checked(path, key, value, f"{prefix}{key}", f"{path}:{lines[key]}")
    return Config(**values, source=str(path), lines=lines)


def _checked(path: Path, key: str, value: object, name: str, where: str) -> object:
    """``value`` of setting ``key`` as Config holds it; a wrong one is an InputError at
    ``where`` naming the setting (``name``)."""
    if key not in _TYPES:
        raise InputError(f"{name}: unknown setting; known are {', '.join(sorted(_TYPES))}", where)
    if isinstance(value, bool) is not (bool in _TYPES[key]) or not isinstance(value, _TYPES[key]):
        kinds = " or ".join("a list" if t is list else t.__name__ for t in _TYPES[key])
        raise InputError(f"{name}: expected {kinds}, got {value!r}", where)
    if key in _LIMITS and isinstance(value, (int, float)):
        low, high = _LIMITS[key]
        if not low <= value <= high:
            raise InputError(f"{name}: expected {low} to {high}, got {value!r}", where)
    held = _HELD.get(key)
    return value if held is None else held(path, value, name, where)


def _folders(path: Path, value: Any, name: str, where: str) -> tuple[str, ...]:
    """A path or a list of them, each relative to the file."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise InputError(f"{name}: expected paths or globs", where)
    return tuple(_relative(path, item) for item in items)


def _files(path: Path, value: Any, name: str, where: str) -> tuple[str, ...]:
    return _strings(value, name, where, "file paths")


def _strings(value: list[Any], name: str, where: str, what: str) -> tuple[str, ...]:
    if not all(isinstance(item, str) and item.strip() for item in value):
        raise InputError(f"{name}: expected {what}", where)
    return tuple(value)


# The settings Config holds otherwise than TOML writes them (their type already checked):
# (config file, value, setting's name, where) -> the value held.
_HELD: dict[str, Callable[[Path, Any, str, str], object]] = {
    "scenarios": _folders,
    "regression_check": _folders,
    "recordings": lambda path, value, name, where: _relative(path, value),
    "sandbox_files": _files,
    "devices": lambda path, value, name, where: _strings(value, name, where, "device specs"),
    "settle_seconds": lambda path, value, name, where: float(value),
}


def _relative(config: Path, item: str) -> str:
    """A folder named in the file is relative to the file's folder, not the working one."""
    if Path(item).is_absolute():
        return item
    base = config.parent
    try:
        base = base.relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    return str(base / item) if str(base) != "." else item


def _parsed(text: str, path: Path) -> dict[str, Any]:
    """The TOML document within the codec's bounds (depth, digits): an InputError at the
    file otherwise, never a RecursionError or a ValueError from the parser."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", str(path)) from None
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", str(path)) from None
    except ValueError:  # Python's own bound on an integer's digits
        raise InputError(f"a number of more than {MAX_DIGITS} digits", str(path)) from None
    _within_bounds(data, path)
    return data


def _within_bounds(data: object, path: Path) -> None:
    """No table or array nested past MAX_DEPTH, no integer past MAX_DIGITS digits."""
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"nested more than {MAX_DEPTH} levels deep", str(path))
        if isinstance(value, int) and len(str(abs(value))) > MAX_DIGITS:
            raise InputError(f"a number of more than {MAX_DIGITS} digits", str(path))
        if isinstance(value, dict):
            stack.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            stack.extend((child, depth + 1) for child in value)


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "an array of tables ([[tool.orav]])" if value else "an array"
    return f"{type(value).__name__} {value!r}"[:80]


def _line_of(text: str, key: str, tables: bool = False) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(key) and stripped[len(key) :].lstrip().startswith("="):
            return number
        if tables and stripped.lstrip("[").replace(" ", "").startswith(f"tool.{key}"):
            return number
        if stripped.startswith("[") and stripped.strip("[] ").split(".")[-1] == key:
            return number  # a table: [agent_options], [tool.orav.agent_options]
    return 1


def _read(path: Path) -> bytes:
    """A regular file of at most MAX_TOML_BYTES (a config file is small); a larger one, a
    folder, a FIFO, a device or a link that leads nowhere is an InputError, never a wait, a
    pass-over or half a file read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InputError("not a regular file (a folder, a FIFO or a device)", str(path))
    with os.fdopen(descriptor, "rb") as file:
        try:
            text = file.read(MAX_TOML_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if len(text) > MAX_TOML_BYTES:
        raise InputError(
            f"more than {size(MAX_TOML_BYTES)}: too large for a config file", str(path)
        )
    return text
