"""The one cattrs converter, and YAML/JSON loading whose errors name file:line:col.

Everything that crosses a layer boundary or touches disk goes through ``converter``: actions
are a union tagged by ``kind``, unknown keys are errors, defaults are omitted on the way out.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

from attrs import has
from cattrs import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.cols import homogenous_tuple_structure_factory
from cattrs.gen import make_dict_unstructure_fn, override
from cattrs.preconf.json import make_converter
from cattrs.strategies import configure_tagged_union
from ruamel.yaml import YAML, CommentedMap, CommentedSeq
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from orav.errors import InputError
from orav.model import ACTION_KINDS, Action, Screenshot
from orav.model.limits import InvalidValue

T = TypeVar("T")
PathPart = str | int

converter = make_converter(forbid_extra_keys=True, omit_if_default=True)


def _strict_bool(value: Any, _: type) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {_show(value)}")


def _strict_int(value: Any, _: type) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise TypeError(f"expected a whole number, got {_show(value)}")


def _strict_float(value: Any, _: type) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"expected a number, got {_show(value)}")


def _lenient_str(value: Any, _: type) -> str:
    """Accept YAML numbers as text (``value: 42``); reject maps, lists, booleans, null."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"expected text, got {_show(value)}")


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return repr(value)


converter.register_structure_hook(bool, _strict_bool)
converter.register_structure_hook(int, _strict_int)
converter.register_structure_hook(float, _strict_float)
converter.register_structure_hook(str, _lenient_str)


def _items(types: Sequence[Any]) -> str:
    """What a YAML author calls the items of a list of ``types``."""
    if all(t in (int, float) for t in types):
        return "numbers"
    if all(t is str for t in types):
        return "strings"
    if all(has(t) or t == Action for t in types):
        return "mappings"
    return "values"


def _tuple_hook(cls: Any, conv: Any) -> Any:
    """Tuples from YAML/JSON lists only: cattrs would take a string as a list of characters."""
    args = get_args(cls)
    if len(args) == 2 and args[1] is Ellipsis:
        inner, wanted, size = homogenous_tuple_structure_factory(cls, conv), args[:1], None
    else:
        inner, wanted, size = conv.gen_structure_hetero_tuple(cls), args, len(args)
    items = f"{size} {_items(wanted)}" if size else _items(wanted)

    def structure_tuple(value: Any, _: type) -> Any:
        if isinstance(value, str):
            raise TypeError(f"expected a list of {items}, got a string {value!r}")
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list of {items}, got {_show(value)}")
        if size is not None and len(value) != size:
            raise TypeError(f"expected a list of {items}, got {len(value)}")
        return inner(value, cls)

    return structure_tuple


converter.register_structure_hook_factory(
    lambda cls: get_origin(cls) is tuple and bool(get_args(cls)), _tuple_hook
)

# Screenshot bytes never go into JSON: cassettes keep them as content-addressed blobs.

converter.register_unstructure_hook(
    Screenshot,
    make_dict_unstructure_fn(Screenshot, converter, data=override(omit=True)),
)


def _action_tag(cls: type) -> str:
    return cls.kind


configure_tagged_union(Action, converter, tag_name="kind", tag_generator=_action_tag)

# An optional action (``Action | None`` flattens into a different union) keeps the tag too.
_OPTIONAL_ACTION = Action | None
converter.register_unstructure_hook_func(
    lambda t: t == _OPTIONAL_ACTION,
    lambda value: None if value is None else converter.unstructure(value, Action),
)
converter.register_structure_hook_func(
    lambda t: t == _OPTIONAL_ACTION,
    lambda value, _: None if value is None else converter.structure(value, Action),
)


# --- errors -------------------------------------------------------------------------------


def _leaves(exc: BaseException, path: tuple[PathPart, ...] = ()) -> Iterator[tuple]:
    """Flatten cattrs' exception groups into (path, exception) pairs."""
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            step = getattr(note, "name", None)
            if step is None:
                step = getattr(note, "index", None)
            yield from _leaves(sub, (*path, step) if step is not None else path)
        for sub in without:
            yield from _leaves(sub, path)
    elif isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            yield from _leaves(sub, path)
    else:
        yield path, exc


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        keys = ", ".join(sorted(repr(k) for k in exc.extra_fields))
        allowed = sorted(a.name for a in getattr(exc.cl, "__attrs_attrs__", ()))
        return f"unknown key {keys}; expected one of {allowed}"
    if isinstance(exc, KeyError):
        return "required field is missing"
    text = str(exc)
    literal = re.match(r"^(.*) not in literal typing\.Literal\[(.*)\]$", text)
    if literal:
        return f"got {literal.group(1)!r}; expected one of [{literal.group(2)}]"
    return text or type(exc).__name__


def _format_path(path: Sequence[PathPart | None]) -> str:
    out = ""
    for part in path:
        if part is None:
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _walk(data: Any, path: Sequence[PathPart]) -> Any:
    node = data
    for part in path:
        node = node[part]
    return node


def _error_paths(exc: BaseException, data: Any) -> list[tuple[tuple[PathPart, ...], str]]:
    """Each problem as (path into the data, what is wrong)."""
    problems = []
    for path, leaf in _leaves(exc):
        try:
            node = _walk(data, path)
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(leaf, InvalidValue):
            problems.append(((*path, leaf.field), leaf.what))
        elif isinstance(leaf, ForbiddenExtraKeysError):
            # Point at the unknown key itself, not its value.
            problems.append(((*path, min(leaf.extra_fields), None), _describe(leaf)))
        elif isinstance(leaf, AttributeError) and not isinstance(node, Mapping):
            problems.append((path, f"expected a mapping, got {_show(node)}"))
        elif (
            isinstance(leaf, KeyError)
            and isinstance(node, Mapping)
            and (leaf.args[0] == "kind" or leaf.args[0] == node.get("kind"))
        ):
            # cattrs reports a bad union tag as a bare KeyError on the action mapping.
            kinds = sorted(ACTION_KINDS)
            if "kind" in node:
                what = f"unknown action kind {node['kind']!r}; expected one of {kinds}"
                problems.append(((*path, "kind"), what))
            else:
                problems.append((path, f"action has no 'kind'; expected one of {kinds}"))
        else:
            problems.append((path, _describe(leaf)))
    return problems


SHOWN_PROBLEMS = 5  # problems listed in one InputError; the rest are counted


def _raise_structure_error(exc: Exception, data: Any, source: str, locate) -> None:
    """One InputError: the first problem is the headline, the next ones follow a line each."""
    problems = _error_paths(exc, data) or [((), str(exc))]
    lines = []
    for path, what in problems:
        where = locate(path) or source
        field = _format_path(path)
        lines.append((where, f"{field}: {what}" if field else what))
    lines.sort(key=lambda item: _position(item[0]))
    (where, what), *more = lines
    listed = more[: SHOWN_PROBLEMS - 1]
    what += "".join(f"\n  {other}: {problem}" for other, problem in listed)
    if len(more) > len(listed):
        rest = len(more) - len(listed)
        what += f"\n  (and {rest} more problem{'s' if rest > 1 else ''})"
    raise InputError(what, where) from None


def _position(where: str | None) -> tuple[int, int]:
    parts = (where or "").rsplit(":", 2)
    try:
        return int(parts[-2]), int(parts[-1])
    except (IndexError, ValueError):
        return (0, 0)


# --- structure / unstructure ------------------------------------------------------------------


def structure(data: Any, cls: type[T], *, source: str = "<input>") -> T:
    """Build ``cls`` from plain data; any problem is one InputError naming the field."""
    try:
        return converter.structure(data, cls)
    except Exception as exc:
        _raise_structure_error(exc, data, source, lambda path: None)
        raise  # unreachable


def unstructure(obj: Any) -> Any:
    return converter.unstructure(obj)


def to_json(obj: Any) -> str:
    """Compact, key-ordered JSON of any orav value (one line: cassettes are JSON Lines)."""
    return json.dumps(unstructure(obj), separators=(",", ":"), ensure_ascii=False)


def from_json(text: str, cls: type[T], *, source: str = "<json>") -> T:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        what = f"not valid JSON: {exc.msg.removesuffix(' at')}"  # the position is in ``where``
        raise InputError(what, f"{source}:{exc.lineno}:{exc.colno}") from None
    return structure(data, cls, source=source)


# --- YAML -------------------------------------------------------------------------------------


_ALIAS_LOOP = "an alias refers to a mapping or list that contains it (an alias loop)"


class _Constructor(RoundTripConstructor):
    """ruamel's round-trip constructor, refusing an alias inside the node it names.

    ruamel would build such an alias as null deep inside the document (``a: &x [*x]``).
    """

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node in self.recursive_objects and node not in self.constructed_objects:
            raise ConstructorError(None, None, _ALIAS_LOOP, node.start_mark)
        return super().construct_object(node, deep)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Constructor = _Constructor
    yaml.allow_duplicate_keys = False
    return yaml


def _plain(node: Any, source: str, within: frozenset[int] = frozenset()) -> Any:
    """Round-trip nodes to plain Python, refusing tags that YAML core does not define.

    ``within`` holds the ids of the enclosing mappings and lists, to refuse alias loops.
    """
    if isinstance(node, (CommentedMap, CommentedSeq)):
        if id(node) in within:
            raise InputError(_ALIAS_LOOP, f"{source}:{node.lc.line + 1}:{node.lc.col + 1}")
        within = within | {id(node)}
    if isinstance(node, CommentedMap):
        return {
            str(k) if not isinstance(k, (int, float)) else k: _plain(v, source, within)
            for k, v in node.items()
        }
    if isinstance(node, CommentedSeq):
        return [_plain(v, source, within) for v in node]
    tag = getattr(node, "tag", None)
    tag_value = getattr(tag, "value", tag) if tag is not None else None
    if tag_value and isinstance(tag_value, str) and tag_value.startswith("!"):
        raise InputError(f"unsupported YAML tag {tag_value}", source)
    if isinstance(node, bool) or type(node).__name__ == "ScalarBoolean":
        return bool(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    if node is None:
        return None
    raise InputError(f"unsupported YAML value of type {type(node).__name__}", source)


def _locate(root: Any, path: Sequence[PathPart], source: str) -> str:
    """file:line:col of the deepest node on ``path`` that exists (1-based, as editors count)."""
    line = col = None
    node = root
    if path and path[-1] is None:  # the key of the last step, not its value
        *path, _ = path
        parent = root
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, CommentedMap) and path[-1] in parent:
            line, col = parent.lc.key(path[-1])
            return f"{source}:{line + 1}:{col + 1}"
    for part in path:
        lc = getattr(node, "lc", None)
        try:
            if isinstance(node, CommentedMap) and part in node:
                line, col = (
                    lc.value(part)
                    if not isinstance(node[part], (CommentedMap, CommentedSeq))
                    else lc.key(part)
                )
                node = node[part]
            elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
                line, col = lc.item(part)
                node = node[part]
            else:
                if isinstance(node, CommentedMap) and lc is not None and line is None:
                    line, col = lc.line, lc.col
                break
        except (AttributeError, KeyError, TypeError):
            break
    if line is None:
        lc = getattr(root, "lc", None)
        line, col = (lc.line, lc.col) if lc is not None else (0, 0)
    return f"{source}:{line + 1}:{col + 1}"


def locate(text: str, path: Sequence[PathPart], source: str) -> str:
    """file:line:col of ``path`` in YAML ``text``, for checks made after loading."""
    return _locate(parse_yaml(text, source), path, source)


def parse_yaml(text: str, source: str) -> Any:
    """Parse YAML text into round-trip nodes (which remember their lines)."""
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(problem, where) from None
    except YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", source) from None


def read_text(path: Path, source: str) -> str:
    """A UTF-8 file's text; InputError naming ``source`` when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", source) from None


def load_yaml(text_or_path: str | Path, cls: type[T], *, source: str | None = None) -> T:
    """Load ``cls`` from YAML text or a file; every error names file:line:col and the field."""
    if isinstance(text_or_path, Path):
        source = source or str(text_or_path)
        text = read_text(text_or_path, source)
    else:
        text = text_or_path
        source = source or "<yaml>"
    root = parse_yaml(text, source)
    if root is None:
        raise InputError(f"empty document; expected a {cls.__name__} mapping", f"{source}:1:1")
    data = _plain(root, source)
    try:
        return converter.structure(data, cls)
    except Exception as exc:
        _raise_structure_error(exc, data, source, lambda path: _locate(root, path, source))
        raise  # unreachable


def dump_yaml(obj: Any) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False
    out = io.StringIO()
    yaml.dump(unstructure(obj), out)
    return out.getvalue()
