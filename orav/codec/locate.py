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
    line: int | None = None
    col: int | None = None
    node = root
    parts = [part for part in path if part is not None]  # None ends a path only
    if path and path[-1] is None:  # the key of the last step, not its value
        parent = root
        try:
            for part in parts[:-1]:
                parent = parent[_key(parent, part)]
            key = _key(parent, parts[-1])
            if isinstance(parent, CommentedMap) and key in parent:
                line, col = parent.lc.key(key)
                return f"{source}:{line + 1}:{col + 1}"
        except (KeyError, IndexError, TypeError):
            pass
    for part in parts:
        part = _key(node, part)
        try:
            if isinstance(node, CommentedMap) and part in node:
                line, col = (
                    node.lc.value(part)
                    if not isinstance(node[part], (CommentedMap, CommentedSeq))
                    else node.lc.key(part)
                )
                node = node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
                line, col = node.lc.item(part)
                node = node[part]
            else:
                if isinstance(node, CommentedMap) and line is None:
                    line, col = node.lc.line, node.lc.col
                break
        except (AttributeError, KeyError, TypeError):
            break
    if line is None or col is None:
        lc = getattr(root, "lc", None)
        line, col = (lc.line, lc.col) if lc is not None else (0, 0)
    return f"{source}:{line + 1}:{col + 1}"
