"""Workspace defaults: ``orav.toml``, or ``[tool.orav]`` in ``pyproject.toml``.

The nearest of the two, from the working folder up, holds what a team would otherwise repeat
on every command line (the device, the agent, the model's base URL, where scenarios and
cassettes live). A flag given on the command line wins over the file. The file holds no
secret: an API key or a password comes from the environment (``${NAME}`` in a scenario).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import field, frozen

from orav.errors import InputError

FILE = "orav.toml"


@frozen
class Config:
    """The defaults a config file may set; ``source`` names the file (empty: none found)."""

    device: str = "sim"
    agent: str = "scripted"
    base_url: str | None = None
    agent_options: dict[str, object] = field(factory=dict)
    scenarios: tuple[str, ...] = ("scenarios",)  # what `orav record` with no argument runs
    recordings: str = "recordings"  # where cassettes go
    # the passing flows (cassettes, folders of them) a run revisits once its goal is reached
    regression_check: tuple[str, ...] = ()
    settle_seconds: float | None = None  # a fixed settle for scenarios that set none
    workers: int = 1
    retries: int = 0
    # the app's world (orav.sandbox): the network on in a Textual app's sandbox, files copied
    # into it beyond the working folder, an idb: device declared orav's own to throw away
    network: bool = False
    sandbox_files: tuple[str, ...] = ()
    disposable: bool = False
    source: str = ""


_TYPES: dict[str, tuple[type, ...]] = {
    "device": (str,),
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
    """The nearest ``orav.toml``, or ``pyproject.toml`` with a ``[tool.orav]`` table."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / FILE).is_file():
            return candidate / FILE
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and b"[tool.orav]" in _read(pyproject):
            return pyproject
    return None


def load_config(path: Path | None = None) -> Config:
    """The defaults of the file at ``path`` (else the nearest one; none: the built-ins).

    A key orav does not know or a value of the wrong type is an InputError at file:line.
    """
    path = path or find_config()
    if path is None:
        return Config()
    text = _read(path).decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", str(path)) from None
    prefix = ""
    if path.name == "pyproject.toml":
        data, prefix = data.get("tool", {}).get("orav", {}), "tool.orav."
    values: dict[str, Any] = {}  # each checked against _TYPES by _checked
    for key, value in data.items():
        where = f"{path}:{_line_of(text, key)}"
        values[key] = _checked(path, key, value, f"{prefix}{key}", where)
    return Config(**values, source=str(path))


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
    if not all(isinstance(item, str) and item.strip() for item in value):
        raise InputError(f"{name}: expected file paths", where)
    return tuple(value)


# The settings Config holds otherwise than TOML writes them (their type already checked):
# (config file, value, setting's name, where) -> the value held.
_HELD: dict[str, Callable[[Path, Any, str, str], object]] = {
    "scenarios": _folders,
    "regression_check": _folders,
    "recordings": lambda path, value, name, where: _relative(path, value),
    "sandbox_files": _files,
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


def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(key) and line.strip()[len(key) :].lstrip().startswith("="):
            return number
    return 1


def _read(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(1 << 20)  # a config file is small; a huge one is not read whole
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
