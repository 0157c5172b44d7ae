"""YAML loading within bounds, whose every error names file:line:col.

A document is refused, located, when it is larger than ``MAX_YAML_BYTES``, nests deeper than
``MAX_DEPTH`` (checked as it is composed, before Python's recursion limit), expands through its
aliases to more than ``MAX_NODES`` values (an alias bomb stops there, not at 2 GB), holds a
number of more than ``MAX_DIGITS`` digits, a value a tag cannot make (``!!float abc``), a tag
YAML core does not define, or characters YAML does not allow.

``read_yaml`` reads plain data through libyaml's events (``orav.codec.libyaml``), which also
say where each value is written, and falls back to ruamel's round-trip parser (whose nodes
remember their lines) only for what they do not decide.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from attrs import has
from ruamel.yaml import YAML, CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.reader import ReaderError

from orav.codec import libyaml
from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_NODES, MAX_YAML_BYTES, size
from orav.codec.converter import (
    PathPart,
    clip,
    show,
    structure,
    unstructure,
)
from orav.codec.libyaml import UNDECIDED
from orav.codec.locate import position
from orav.errors import InputError

T = TypeVar("T")

_ALIAS_LOOP = "an alias refers to a mapping or list that contains it (an alias loop)"
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class _Composer(Composer):
    """ruamel's composer, refusing nesting deeper than MAX_DEPTH where it starts."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.parser.peek_event().start_mark
                raise ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Constructor(RoundTripConstructor):
    """ruamel's round-trip constructor, refusing an alias inside the node it names, numbers
    past MAX_DIGITS digits and scalars their tag cannot make, each at the node's mark.

    ruamel would build such an alias as null deep inside the document (``a: &x [*x]``).
    """

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node in self.recursive_objects and node not in self.constructed_objects:
            raise ConstructorError(None, None, _ALIAS_LOOP, node.start_mark)
        return super().construct_object(node, deep)

    def check_mapping_key(self, node: Any, key_node: Any, *args: Any) -> Any:
        try:
            return super().check_mapping_key(node, key_node, *args)
        except TypeError:  # ruamel hashes a mapping used as a key (``{a: 1}: b``) and fails
            what = "a mapping or list cannot be a key"
            raise ConstructorError(None, None, what, key_node.start_mark) from None

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        if not isinstance(node, ScalarNode):
            return super().construct_non_recursive_object(node, tag)
        if (tag or node.tag) in _NUMBER_TAGS and len(node.value) > MAX_DIGITS:
            what = f"a number of {len(node.value)} characters (at most {MAX_DIGITS})"
            raise ConstructorError(None, None, what, node.start_mark)
        try:
            return super().construct_non_recursive_object(node, tag)
        except YAMLError:
            raise
        except Exception:  # noqa: BLE001 - ruamel's scalar constructors raise what they meet
            kind = str(tag or node.tag).rsplit(":", 1)[-1]
            what = f"{clip(repr(node.value))} is not a valid {kind}"
            raise ConstructorError(None, None, what, node.start_mark) from None


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    yaml.allow_duplicate_keys = False
    return yaml


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _within(text: str, source: str) -> None:
    if len(text) > MAX_YAML_BYTES:
        what = f"{size(len(text.encode('utf-8')))} of YAML, more than the {size(MAX_YAML_BYTES)}"
        raise InputError(f"{what} orav reads", source)


def parse_yaml(text: str, source: str) -> Any:
    """Parse YAML text into round-trip nodes (which remember their lines), within bounds."""
    _within(text, source)
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(problem, where) from None
    except ReaderError as exc:
        line, col = _line_col(text, exc.position)
        character = exc.character
        code = ord(character) if isinstance(character, str) else character
        what = f"character #x{code:04x} is not allowed in YAML ({exc.reason})"
        raise InputError(what, f"{source}:{line}:{col}") from None
    except YAMLError as exc:
        raise InputError(f"invalid YAML: {clip(str(exc), 200)}", source) from None
    except RecursionError:  # the composer's depth bound comes first; this is a backstop
        raise InputError(f"nested deeper than {MAX_DEPTH} levels", source) from None
    except Exception as exc:  # noqa: BLE001 - ruamel raises what it meets; bad input all the same
        raise InputError(f"invalid YAML ({type(exc).__name__}: {clip(str(exc))})", source) from None


def _where(source: str, position: tuple[int, int] | None) -> str:
    return f"{source}:{position[0] + 1}:{position[1] + 1}" if position else source


def _child(node: Any, key: Any) -> tuple[int, int] | None:
    """0-based (line, col) of the value under ``key`` of a round-trip mapping or list."""
    try:
        return node.lc.item(key) if isinstance(node, CommentedSeq) else node.lc.value(key)
    except (AttributeError, KeyError, IndexError, TypeError):
        return None


class _Plain:
    """Round-trip nodes to plain Python within MAX_NODES values, aliases expanded; refuses
    alias loops and tags YAML core does not define, each at its file:line:col."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.nodes = 0

    def __call__(self, node: Any, where: str, within: frozenset[int] = frozenset()) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            what = f"more than {MAX_NODES} values once its aliases are expanded (an alias bomb?)"
            raise InputError(f"the document has {what}", where)
        if isinstance(node, (CommentedMap, CommentedSeq)):
            if id(node) in within:
                raise InputError(_ALIAS_LOOP, where)
            within = within | {id(node)}
        if isinstance(node, CommentedMap):
            return {
                # Keys are text: a YAML ``1:`` beside ``foo:`` is the key "1".
                k if isinstance(k, str) else str(k): self(v, self._at(node, k, where), within)
                for k, v in node.items()
            }
        if isinstance(node, CommentedSeq):
            return [self(v, self._at(node, i, where), within) for i, v in enumerate(node)]
        return _scalar(node, where)

    def _at(self, node: Any, key: Any, where: str) -> str:
        position = _child(node, key)
        return _where(self.source, position) if position else where


def _scalar(node: Any, where: str) -> Any:
    """A scalar node as plain Python: text, a number, true/false or null; a tag YAML core does
    not define, or any other value, is an InputError."""
    tag = getattr(node, "tag", None)
    tag_value = getattr(tag, "value", tag) if tag is not None else None
    if tag_value and isinstance(tag_value, str) and tag_value.startswith("!"):
        raise InputError(f"unsupported YAML tag {clip(tag_value)}", where)
    if isinstance(node, bool) or type(node).__name__ == "ScalarBoolean":
        return bool(node)
    for plain_type in (int, float, str):
        if isinstance(node, plain_type):
            return plain_type(node)
    if node is None:
        return None
    kind = type(node).__name__.removeprefix("Commented").lower()
    raise InputError(
        f"unsupported YAML value ({kind}); expected text, a number or true/false", where
    )


def _start(root: Any, source: str) -> str:
    lc = getattr(root, "lc", None)
    line = getattr(lc, "line", None)  # a tagged scalar's is None
    if lc is None or line is None:
        return f"{source}:1:1"
    return _where(source, (line, lc.col or 0))


def plain(root: Any, source: str) -> Any:
    """Plain Python data from the round-trip nodes of ``parse_yaml``."""
    return _Plain(source)(root, _start(root, source))


def read_yaml(text: str, source: str) -> Any:
    """Plain Python data from YAML text, within bounds; InputError at file:line:col."""
    return read_located(text, source)[0]


def read_located(text: str, source: str) -> tuple[Any, Locator]:
    """Plain Python data from YAML text and where each of its values is written, within
    bounds: through libyaml's events where they decide it, else the round-trip parser."""
    _within(text, source)
    try:
        found = libyaml.read(text)
    except libyaml.TooDeep as exc:
        raise InputError(str(exc), _where(source, exc.at)) from None
    if found is not UNDECIDED:
        data, spot = found
        return data, Locator(source, spot)
    root = parse_yaml(text, source)
    return plain(root, source), Locator(source, root)


def locate(text: str, path: Sequence[PathPart | None], source: str) -> str:
    """file:line:col of ``path`` in YAML ``text``, for checks made after loading."""
    return read_located(text, source)[1](path)


class Locator:
    """file:line:col of a path into one document: from where libyaml's events wrote each
    value (a ``libyaml.Spot``) or from ruamel's round-trip nodes, by the same rules."""

    def __init__(self, source: str, written: Any) -> None:
        self.source, self.written = source, written

    def __call__(self, path: Sequence[PathPart | None]) -> str:
        if isinstance(self.written, libyaml.Spot):
            return self.written.position(path, self.source)
        if not path:
            return _start(self.written, self.source)
        return position(self.written, path, self.source)


def read_text(path: Path, source: str) -> str:
    """A UTF-8 file's text, at most MAX_YAML_BYTES; InputError naming ``source`` (and, for
    bytes that are not UTF-8, their line and column) when it cannot be read."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source) from None
    if len(data) > MAX_YAML_BYTES:
        raise InputError(f"more than the {size(MAX_YAML_BYTES)} of YAML orav reads", source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace"))
        raise InputError("not UTF-8 text", f"{source}:{line}:{col + 1}") from None


def load_yaml(text_or_path: str | Path, cls: type[T], *, source: str | None = None) -> T:
    """Load ``cls`` from YAML text or a file; every error names file:line:col and the field."""
    if isinstance(text_or_path, Path):
        source = source or str(text_or_path)
        text = read_text(text_or_path, source)
    else:
        text = text_or_path
        source = source or "<yaml>"
    data, where = read_located(text, source)
    if data is None:
        raise InputError(f"empty document; expected a {cls.__name__} mapping", f"{source}:1:1")
    if has(cls) and not isinstance(data, dict):
        raise InputError(f"expected a {cls.__name__} mapping, got {show(data)}", where(()))
    return structure(data, cls, source=source, locate=where)


def dump_yaml(obj: Any) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    # ruamel declares this None (its "sort" default) and reads any bool
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(unstructure(obj), out)
    return out.getvalue()
