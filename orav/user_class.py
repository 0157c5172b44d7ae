"""A class of the user's own named on the command line: ``class:package.module:Class``, with
``?name=value&...`` for its constructor's keyword arguments (strings, as in a URL's query).

``--agent`` and ``--device`` take it, as do the config file and the pytest plugin. The module
is imported as pytest imports a test module, with the working folder on ``sys.path``, and the
class is checked against orav's protocol (``Agent``, ``Device``) before it is built. Every
mistake is one ``InputError`` naming the flag and what was expected, never a traceback: no
such module, no such attribute, not a class, not the protocol, arguments it does not take, an
exception while importing or building.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import re
import sys
import typing
from typing import Any
from urllib.parse import parse_qsl

from attrs import frozen

from orav.errors import AgentError, DeviceError, InputError, Interrupted
from orav.model import Decision
from orav.model.decision import cut_decision
from orav.watchdog import Cut

PREFIX = "class:"
FORM = "class:package.module:Class[?name=value&...]"
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@frozen
class ClassSpec:
    """What ``class:module:Class?name=value`` names."""

    module: str
    name: str
    arguments: tuple[tuple[str, str], ...] = ()

    @property
    def call(self) -> str:
        """``module:Class(name='value')``, as a message shows the call."""
        given = ", ".join(f"{key}={value!r}" for key, value in self.arguments)
        return f"{self.module}:{self.name}({given})"


def parse_class_spec(spec: str, flag: str) -> ClassSpec:
    """The parts of ``class:module:Class[?name=value&...]``; InputError naming ``flag``."""
    path, _, query = spec.removeprefix(PREFIX).partition("?")
    module, _, name = path.partition(":")
    if not _DOTTED.fullmatch(module) or not name.isidentifier():
        raise InputError(f"expected {FORM}, got {spec!r}", flag)
    try:
        arguments = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        arguments = [("", "")]
    if not all(key.isidentifier() for key, _ in arguments):
        raise InputError(f"expected name=value&... after '?', got {query!r}", flag)
    return ClassSpec(module, name, tuple(dict(arguments).items()))


def build(spec: str, protocol: type, flag: str) -> Any:
    """The instance of the class ``spec`` names, built with its arguments once the class is
    found to have what ``protocol`` asks for."""
    parsed = parse_class_spec(spec, flag)
    cls = _import_class(parsed, flag)
    what = f"{parsed.module}:{parsed.name}"
    _check_methods(cls, what, protocol, flag)
    try:
        inspect.signature(cls).bind(**dict(parsed.arguments))
    except TypeError as exc:
        raise InputError(f"cannot build {parsed.call}: {exc}", flag) from None
    except ValueError:
        pass  # no signature to read (a class in C): let the call say
    try:
        instance = cls(**dict(parsed.arguments))
    except Interrupted:
        raise
    except BaseException as exc:  # noqa: BLE001 - whatever the code raised, SystemExit too
        raise InputError(f"{parsed.call} raised {_described(exc)}", flag) from None
    for member, annotation in _data_members(protocol).items():
        value = getattr(instance, member, None)
        if annotation in (str, "str") and not isinstance(value, str):
            raise InputError(
                f"{what} is no orav {protocol.__name__}: its {member!r} is {value!r}, not a string",
                flag,
            )
    return bounded(instance, protocol, what)


def _import_class(spec: ClassSpec, flag: str) -> type:
    """The class, its module imported with the working folder on ``sys.path`` (first, as
    ``python -m`` and pytest put it)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(spec.module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (spec.module + ".").startswith(exc.name + "."):
            raise InputError(
                f"no module {spec.module!r} in the working folder ({here}) or orav's Python",
                flag,
            ) from None
        raise InputError(f"importing {spec.module!r} raised {_described(exc)}", flag) from None
    except Interrupted:
        raise
    except BaseException as exc:  # noqa: BLE001 - whatever the module raised, SystemExit too
        raise InputError(f"importing {spec.module!r} raised {_described(exc)}", flag) from None
    found = getattr(module, spec.name, None)
    if found is None:
        raise InputError(f"module {spec.module!r} has no {spec.name!r}", flag)
    if not isinstance(found, type):
        kind = type(found).__name__
        raise InputError(f"{spec.module}:{spec.name} is not a class (it is of type {kind})", flag)
    return found


def _check_methods(cls: type, what: str, protocol: type, flag: str) -> None:
    """Every method of ``protocol`` is on ``cls``, an ``async def`` where the protocol's is."""
    wanted = _methods(protocol)
    missing = {
        name: method
        for name, method in wanted.items()
        if not callable(getattr(cls, name, None))
        or (
            inspect.iscoroutinefunction(method)
            and not inspect.iscoroutinefunction(getattr(cls, name))
        )
    }
    kind = protocol.__name__
    if len(missing) > 1 and missing.keys() == wanted.keys():
        raise InputError(f"{what} is no orav {kind}: it has none of {_shape(wanted)}", flag)
    if missing:
        raise InputError(
            f"{what} is no orav {kind}: it lacks {_shape(missing)} "
            f"(an orav {kind} has {_shape(wanted, _data_members(protocol))})",
            flag,
        )


def _shape(methods: dict[str, Any], data: dict[str, Any] | None = None) -> str:
    """``name: str and async def decide``: attributes and methods as a reader writes them."""
    parts = [f"{name}: {getattr(kind, '__name__', kind)}" for name, kind in (data or {}).items()]
    coroutines = [name for name, method in methods.items() if inspect.iscoroutinefunction(method)]
    plain = [name for name in methods if name not in coroutines]
    parts += [f"async def {', '.join(coroutines)}"] if coroutines else []
    parts += [f"def {', '.join(plain)}"] if plain else []
    return " and ".join(parts)


def _methods(protocol: type) -> dict[str, Any]:
    """The protocol's methods, read from the protocol itself: the check cannot drift."""
    return {
        name: value
        for name, value in vars(protocol).items()
        if not name.startswith("_") and callable(value)
    }


def _data_members(protocol: type) -> dict[str, Any]:
    """The protocol's attributes (``name: str``), by their annotations."""
    return dict(vars(protocol).get("__annotations__", {}))


def _described(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class Bounded:
    """A user's object behind orav's protocol, held to it at every call: a ``SystemExit``,
    ``KeyboardInterrupt`` or any other BaseException it raises is its failure, located
    (``error``: AgentError, DeviceError), never orav's exit; an answer of the wrong type is refused, naming the
    method; a decision's free text is cut as a model's is; a call a deadline cuts short is
    named (``watchdog.Cut``), so the run's report says what was cut. Everything else is the object's
    own (``isinstance`` against orav's optional protocols reads through)."""

    def __init__(self, inner: Any, protocol: type, what: str, error: type[Exception]) -> None:
        self._inner = inner
        self._what = what
        self._error = error
        self._answers = _answers(protocol)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not inspect.iscoroutinefunction(value):
            return value

        async def held(*args: Any, **kwargs: Any) -> Any:
            try:
                answer = await value(*args, **kwargs)
            except asyncio.CancelledError as cancelled:  # a deadline or a signal: say what
                raise Cut.of(f"{self._what}.{name}", cancelled) from cancelled
            except (Exception, Interrupted):
                raise  # its ordinary failure (the run says it), or a signal orav took
            except BaseException as exc:  # noqa: BLE001 - SystemExit, GeneratorExit, its own
                raise self._error(f"{self._what}.{name} raised {_described(exc)}") from None
            return self._checked(name, answer)

        return held

    def _checked(self, name: str, answer: Any) -> Any:
        expected = self._answers.get(name)
        if isinstance(expected, type) and not isinstance(answer, expected):
            if inspect.iscoroutine(answer):
                answer.close()  # refused unawaited: no warning that it never ran
            raise self._error(
                f"{self._what}.{name} returned {_shown(answer)}, not {expected.__name__}"
            )
        return cut_decision(answer) if isinstance(answer, Decision) else answer


def bounded(instance: Any, protocol: type, what: str) -> Any:
    """``instance`` held to ``protocol`` (``Bounded``), for the protocols orav calls."""
    error = DeviceError if protocol.__name__ == "Device" else AgentError
    return Bounded(instance, protocol, what, error)


def _answers(protocol: type) -> dict[str, Any]:
    """What each of the protocol's methods returns, by its annotations (None: no check)."""
    answers = {}
    for name, method in _methods(protocol).items():
        try:
            answer = typing.get_type_hints(method).get("return")
        except (NameError, TypeError):
            continue
        answers[name] = None if answer is type(None) else answer
    return answers


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'…' if len(text) > 60 else ''}"
