"""The API reference (docs/api.md), written from the docstrings of orav's public API.

The public API is ``orav.__all__``; each name is documented where it is defined, so the page
cannot say what the code does not. ``inspect`` reads signatures and docstrings: no third-party
generator (pdoc and mkdocstrings render HTML sites; this is one markdown page in the repo,
checked by ``tests/test_docs_api.py`` the way the CLI reference is).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

import attrs

HEADER = """\
# API reference

Generated from the docstrings of `orav.__all__` and of the test doubles in `orav.testing`
(`just docs`); do not edit. The guides teach with these names: [test your own iOS
app](guide-ios-app.md), [write an agent](guide-agent.md), [write a device](guide-device.md).

What is public is what this page lists: the names of `orav.__all__` (importable from `orav` or
from the module each is listed under) and `orav.testing`; any other module is orav's own and may
change. A public name that moves keeps working from its old place for one release, warning
(`DeprecationWarning`) where it lives now: `orav.moved` lists them (`orav.runner`,
`orav.scenario`, `orav.cassette.mode`, `orav.cassette.use_cassette`, `orav.revisits`, ...),
then goes. Every name a release published (this page's and `orav.__all__`'s history) is kept in
`tests/published_names.txt`, and `tests/test_moved.py` imports each one from where it was
published: silently where it still lives, with the warning where it moved."""

# Public modules documented whole (their own public classes and functions), besides ``orav``.
WHOLE = ("orav.testing",)


def reference(package: str = "orav") -> str:
    """docs/api.md: every public name of ``package``, grouped by the module that defines it,
    then the modules of ``WHOLE``."""
    module = importlib.import_module(package)
    groups: dict[str, list[tuple[str, Any]]] = {}
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None) or package
        groups.setdefault(home, []).append((name, obj))
    for whole in WHOLE:
        groups[whole] = _own(importlib.import_module(whole))
    lines = [HEADER, ""]
    anchors: dict[str, int] = {}  # GitHub numbers a repeated heading: replay, then replay-1
    for home in sorted(groups):
        links = [f"[`{name}`](#{_anchor(name, anchors)})" for name, _ in groups[home]]
        lines.append(f"- `{home}`: {', '.join(links)}")
    for home in sorted(groups):
        lines += ["", f"## `{home}`", ""]
        for name, obj in groups[home]:
            lines += ["", *_entry(name, obj)]
    return _tidy("\n".join(lines))


def _own(module: Any) -> list[tuple[str, Any]]:
    """The public classes and functions ``module`` defines, in source order."""
    return [
        (name, obj)
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__ == module.__name__
    ]


def _anchor(name: str, seen: dict[str, int]) -> str:
    slug = name.lower()
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return f"{slug}-{count}" if count else slug


def _entry(name: str, obj: Any) -> Iterator[str]:
    if inspect.isclass(obj):
        yield from _class(name, obj)
    elif callable(obj):
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None and inspect.isasyncgenfunction(wrapped):
            prefix = "@asynccontextmanager\nasync def"  # used as ``async with name(...)``
        else:
            prefix = "async def" if inspect.iscoroutinefunction(obj) else "def"
        yield f"### `{name}`"
        lead = len(f"{prefix.splitlines()[-1]} {name}")
        yield from _code(f"{prefix} {name}{_signature(obj, wrap=True, lead=lead)}: ...")
        yield from _doc(obj)
    elif isinstance(obj, types.UnionType):
        yield f"### `{name}`"
        kinds = [member.__name__ for member in typing.get_args(obj)]
        line = f"{name} = {' | '.join(kinds)}"
        # wrapped the way ruff formats a long union
        wrapped = f"{name} = (\n    " + "\n    | ".join(kinds) + "\n)"
        yield from _code(line if len(line) <= 100 else wrapped)
        yield ""
        yield "One of these types (a union has no docstring of its own)."
    else:
        yield f"### `{name}`"
        yield from _code(f"{name} = {_show_value(obj)}")


def _class(name: str, cls: type) -> Iterator[str]:
    yield f"### `{name}`"
    bases = [base.__name__ for base in cls.__bases__ if base is not object]
    heading = f"class {name}" + (f"({', '.join(bases)})" if bases else "") + ":"
    if attrs.has(cls) and _frozen(cls):
        heading = "@frozen\n" + heading
    body = _class_body(cls)
    # Valid Python as ruff formats it: CI's ``ruff format --check`` reads markdown code blocks.
    yield from _code("\n".join([heading, *body]) if body else f"{heading} ...")
    yield from _doc(cls)
    members = [line for member, value in _members(cls) for line in _member(member, value)]
    if members:
        yield ""
        yield from members


def _class_body(cls: type) -> list[str]:
    """What the class's code block shows under its heading: an enum's members, an attrs
    class's fields, else its own ``__init__`` (a protocol's is not its own)."""
    if issubclass(cls, enum.Enum):
        return [f"    {m.name} = {_show_value(m.value)}" for m in cls]
    if attrs.has(cls):
        return [f"    {_attrs_field(cls, field)}" for field in attrs.fields(cls) if field.init]
    if "__init__" in vars(cls) and not _is_protocol(cls):
        init = vars(cls)["__init__"]
        signature = _signature(init, wrap=True, indent="    ", lead=len("    def __init__"))
        return [f"    def __init__{signature}: ..."]
    return []


def _frozen(cls: type) -> bool:
    return getattr(cls.__setattr__, "__name__", "") == "_frozen_setattrs"


def _attrs_field(cls: type, field: attrs.Attribute) -> str:
    """As the source writes it: ``attrs.resolve_types`` (cattrs calls it) replaces a field's
    ``type`` with the type itself, the class's own annotations keep the text."""
    written = next(
        (
            vars(base)["__annotations__"][field.name]
            for base in cls.__mro__
            if field.name in vars(base).get("__annotations__", {})
        ),
        field.type,
    )
    text = f"{field.name}: {_annotation(written)}"
    factory = getattr(field.default, "factory", None)  # an attrs Factory
    if factory is not None:
        return f"{text} = field(factory={getattr(factory, '__name__', repr(factory))})"
    if field.default is not attrs.NOTHING:
        return f"{text} = {_show_value(field.default)}"
    return text


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """Public attributes the class itself defines, in source order; protocol fields too."""
    hints = getattr(cls, "__annotations__", {}) if _is_protocol(cls) and not attrs.has(cls) else {}
    for field, hint in hints.items():
        if not field.startswith("_"):
            yield field, _Field(hint)
    for member, value in vars(cls).items():
        if member.startswith("_") or member in hints:
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if inspect.isfunction(value) or isinstance(value, property):
            yield member, value


class _Field:
    """A protocol's declared attribute: only its annotation."""

    def __init__(self, hint: Any) -> None:
        self.hint = hint if isinstance(hint, str) else inspect.formatannotation(hint)


def _member(name: str, value: Any) -> Iterator[str]:
    if isinstance(value, _Field):
        yield f"- `{name}: {value.hint}`"
        return
    if isinstance(value, property):
        getter: Callable[..., Any] | None = value.fget
        returns = _returns(getter) if getter is not None else ""
        yield f"- `{name}` (property{returns})" + _first_line(getter)
        return
    prefix = "async " if inspect.iscoroutinefunction(value) else ""
    yield f"- `{prefix}{name}{_signature(value, drop_self=True)}`" + _first_line(value)


def _returns(getter: Callable[..., Any]) -> str:
    annotation = inspect.signature(getter).return_annotation
    if annotation is inspect.Signature.empty:
        return ""
    return f" -> {_annotation(annotation)}"


def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) if obj is not None else None
    if not doc:
        return ""
    paragraph = doc.split("\n\n")[0].replace("\n", " ")
    return f": {_inline(paragraph)}"


def _signature(
    obj: Any, *, drop_self: bool = False, wrap: bool = False, indent: str = "", lead: int = 0
) -> str:
    """``(a: int, *, b: str = 'x') -> T``: annotations as written, no quotes, no addresses."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    parts: list[str] = []
    star = False
    parameters = list(signature.parameters.values())
    if drop_self and parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    for parameter in parameters:
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
        star = star or parameter.kind in (parameter.KEYWORD_ONLY, parameter.VAR_POSITIONAL)
        parts.append(_parameter(parameter))
    returns = signature.return_annotation
    tail = f" -> {_annotation(returns)}" if returns is not signature.empty else ""
    one_line = f"({', '.join(parts)}){tail}"
    if not wrap or lead + len(one_line) + len(": ...") <= 100:  # ruff's line length here
        return one_line
    return "(\n" + "".join(f"{indent}    {part},\n" for part in parts) + f"{indent}){tail}"


_STARS: dict[object, str] = {
    inspect.Parameter.VAR_POSITIONAL: "*",
    inspect.Parameter.VAR_KEYWORD: "**",
}


def _parameter(parameter: inspect.Parameter) -> str:
    """``name: T = default`` (``*args``, ``**kwargs``), as the source writes it."""
    text = _STARS.get(parameter.kind, "") + parameter.name
    annotated = parameter.annotation is not parameter.empty
    if annotated:
        text += f": {_annotation(parameter.annotation)}"
    if parameter.default is not parameter.empty:
        text += (" = " if annotated else "=") + _show_value(parameter.default)
    return text


def _annotation(annotation: Any) -> str:
    """As written in the source: ``Observation``, not ``orav.model.observation.Observation``."""
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    text = re.sub(r"\b(?:[a-z_][a-z0-9_]*\.)+(?=[A-Za-z_])", "", text)
    return _double_quoted(text)


def _show_value(value: Any) -> str:
    """A default as code: no addresses, double quotes (as ruff writes them), a long attrs
    value abridged to its type."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    text = re.sub(r"<(?:built-in )?function ([\w.]+) at 0x[0-9a-f]+>", r"\1", repr(value))
    text = re.sub(r"<([\w.]+) object at 0x[0-9a-f]+>", r"\1()", text)
    if attrs.has(type(value)) and len(text) > 50:
        return f"{type(value).__name__}(...)"
    return _double_quoted(text)


def _double_quoted(text: str) -> str:
    """Python's reprs (and unparsed annotations) quote with ', ruff with \"."""
    return re.sub(r"'([^'\"\\]*)'", r'"\1"', text)


def _is_protocol(cls: type) -> bool:
    return bool(getattr(cls, "_is_protocol", False))


def _doc(obj: Any) -> Iterator[str]:
    doc = inspect.getdoc(obj)
    if doc and not _inherited(obj, doc):
        yield ""
        yield _rst_to_md(doc)


def _inherited(obj: Any, doc: str) -> bool:
    """A class without a docstring of its own would show its base's (an attrs class's)."""
    return inspect.isclass(obj) and "__doc__" in vars(obj) and vars(obj)["__doc__"] is None


def _rst_to_md(doc: str) -> str:
    """Docstrings use reST's double backticks and ``::`` blocks; markdown wants single ones."""
    out: list[str] = []
    block = False
    for line in doc.splitlines():
        if block and line and not line.startswith("    "):
            out.append("```")
            block = False
        if block:
            out.append(line[4:])
            continue
        if line.rstrip().endswith("::"):
            text = line.rstrip()[:-1].rstrip(":")
            out.append(_inline(text + (":" if text else "")) if text.strip() else "")
            out += ["", "```python"]
            block = True
            continue
        out.append(_inline(line))
    if block:
        out.append("```")
    text = "\n".join(out)
    return re.sub(r"```python\n\n", "```python\n", text)


def _inline(line: str) -> str:
    return line.replace("``", "`")


def _code(text: str) -> Iterator[str]:
    yield "```python"
    yield text
    yield "```"


def _tidy(text: str) -> str:
    text = re.sub(r"\n{3,}", "\n\n", text)
    text = re.sub(r"\n+```\n", "\n```\n", text)
    return text.strip() + "\n"


if __name__ == "__main__":
    print(reference(), end="")
