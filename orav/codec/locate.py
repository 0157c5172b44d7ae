"""Where a path into loaded YAML is in its file: an error path becomes file:line:col.

``position(root, path, source)`` walks ruamel's round-trip nodes (which remember their lines)
along a path as the converter reports it (``("script", 2, "action", "kind")``; a trailing None
asks for the key rather than its value) and answers with the deepest node that exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ruamel.yaml import CommentedMap, CommentedSeq

from orav.codec.converter import PathPart


def _key(node: Any, part: PathPart) -> Any:
    """The key of a round-trip mapping that ``part`` names (keys were made text by _Plain)."""
    if isinstance(node, CommentedMap) and part not in node:
        return next((key for key in node if str(key) == part), part)
    return part


def position(root: Any, path: Sequence[PathPart | None], source: str) -> str:
    """file:line:col of the deepest node on ``path`` that exists (1-based, as editors count)."""
    parts = [part for part in path if part is not None]  # None ends a path only
    asks_key = bool(path) and path[-1] is None  # the key of the last step, not its value
    key = _key_at(root, parts) if asks_key else None
    line, col = key or _deepest(root, parts)
    if line is None or col is None:
        lc = getattr(root, "lc", None)
        line, col = (lc.line, lc.col) if lc is not None else (0, 0)
    return f"{source}:{line + 1}:{col + 1}"


def _key_at(root: Any, parts: Sequence[PathPart]) -> tuple[int, int] | None:
    """Where the key of the path's last step is written, when the path leads to it."""
    parent = root
    try:
        for part in parts[:-1]:
            parent = parent[_key(parent, part)]
        key = _key(parent, parts[-1])
        if isinstance(parent, CommentedMap) and key in parent:
            return parent.lc.key(key)
    except (KeyError, IndexError, TypeError):
        pass
    return None


def _deepest(root: Any, parts: Sequence[PathPart]) -> tuple[int | None, int | None]:
    """Where the deepest node on the path is written; a mapping that lacks the next part
    stands for it when nothing on the path was found before."""
    line: int | None = None
    col: int | None = None
    node = root
    for part in parts:
        try:
            found = _step(node, _key(node, part))
        except (AttributeError, KeyError, TypeError):
            break
        if found is None:
            if isinstance(node, CommentedMap) and line is None:
                line, col = node.lc.line, node.lc.col
            break
        (line, col), node = found
    return line, col


def _step(node: Any, part: PathPart) -> tuple[tuple[int, int], Any] | None:
    """Where ``part`` of ``node`` is written (a collection: its key, a scalar: its value) and
    the node it names; None when ``node`` has no such part."""
    if isinstance(node, CommentedMap) and part in node:
        child = node[part]
        nested = isinstance(child, (CommentedMap, CommentedSeq))
        return (node.lc.key(part) if nested else node.lc.value(part)), child
    if isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
        return node.lc.item(part), node[part]
    return None
