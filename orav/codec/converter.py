"""The one cattrs converter, and the structure errors that name the field (and file:line:col).

Everything that crosses a layer boundary or touches disk goes through ``converter``: actions
are a union tagged by ``kind``, unknown keys are errors, defaults are omitted on the way out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
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

from orav.codec.bounds import MAX_DIGITS
from orav.errors import InputError
from orav.model import ACTION_KINDS, Action, Screenshot
from orav.model.limits import InvalidValue

T = TypeVar("T")
PathPart = str | int

converter = make_converter(forbid_extra_keys=True, omit_if_default=True)


def _strict_bool(value: Any, _: type) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {show(value)}")


def _strict_int(value: Any, _: type) -> int:
    """A whole number that a cassette can hold: its JSON reader's bound on digits is the
    same (``duration: 1e308`` once passed validate and made a cassette replay refused)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if len(str(abs(value))) > MAX_DIGITS:
            raise TypeError(f"expected a whole number of at most {MAX_DIGITS} digits")
        return value
    raise TypeError(f"expected a whole number, got {show(value)}")


def _strict_float(value: Any, _: type) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, int) and len(str(abs(value))) > MAX_DIGITS:
            raise TypeError(f"expected a number of at most {MAX_DIGITS} digits")
        return float(value)
    raise TypeError(f"expected a number, got {show(value)}")


def _lenient_str(value: Any, _: type) -> str:
    """Accept YAML numbers as text (``value: 42``); reject maps, lists, booleans, null."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"expected text, got {show(value)}")


SHOWN_CHARACTERS = 60  # of an offending value in a message: a 1 MB string is not echoed


def clip(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def show(value: Any) -> str:
    """An offending value as a message names it: its kind for containers, else its clipped repr."""
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return clip(repr(value))


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
            raise TypeError(f"expected a list of {items}, got {show(value)}")
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


def _action_tag(cls: type[Action]) -> str:
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
    # cattrs types the target as type[T], yet structures a union (the tag picks the member)
    lambda value, _: None if value is None else converter.structure(value, Action),  # type: ignore[arg-type]
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
        for member in exc.exceptions:
            yield from _leaves(member, path)
    else:
        yield path, exc


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        keys = ", ".join(sorted(clip(repr(k)) for k in exc.extra_fields))
        allowed = sorted(a.name for a in getattr(exc.cl, "__attrs_attrs__", ()))
        return f"unknown key {keys}; expected one of {allowed}"
    if isinstance(exc, KeyError):
        return "required field is missing"
    text = str(exc)
    literal = re.match(r"^(.*) not in literal typing\.Literal\[(.*)\]$", text)
    if literal:
        return f"got {clip(literal.group(1))!r}; expected one of [{literal.group(2)}]"
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
            what = _describe(leaf)
            if isinstance(node, Mapping) and all(node.get(k) is None for k in leaf.extra_fields):
                what += "; a comma inside {...} ends a value: quote text that has commas"
            problems.append(((*path, min(leaf.extra_fields, key=str), None), what))
        elif isinstance(leaf, AttributeError) and not isinstance(node, Mapping):
            problems.append((path, f"expected a mapping, got {show(node)}"))
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


def raise_structure_error(exc: Exception, data: Any, source: str, locate) -> None:
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


def structure(data: Any, cls: type[T], *, source: str = "<input>", locate=None) -> T:
    """Build ``cls`` from plain data; any problem is one InputError naming the field.

    ``locate(path)`` gives the ``file:line:col`` of a path into the data, when it is known.
    """
    try:
        return converter.structure(data, cls)
    except Exception as exc:
        raise_structure_error(exc, data, source, locate or (lambda path: None))
        raise  # unreachable


def unstructure(obj: Any) -> Any:
    return converter.unstructure(obj)


def to_json(obj: Any) -> str:
    """Compact, key-ordered JSON of any orav value (one line: cassettes are JSON Lines)."""
    return json.dumps(unstructure(obj), separators=(",", ":"), ensure_ascii=False)
