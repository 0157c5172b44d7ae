"""A Textual device spec: ``module:AppClass[@WIDTHxHEIGHT][?name=value&...]``, the app, the size
of its terminal and its constructor's arguments (strings); ``textual+PYTHON:...`` runs it with
another interpreter, in the app's own environment (``remote``)."""

from __future__ import annotations

from urllib.parse import parse_qsl

from attrs import frozen

from orav.errors import InputError

MAX_CELLS = 1000


@frozen
class AppSpec:
    module: str
    class_name: str
    size: tuple[int, int] | None = None
    arguments: tuple[tuple[str, str], ...] = ()
    python: str | None = None

    @property
    def app(self) -> str:
        return f"{self.module}:{self.class_name}"


def parse_spec(spec: str) -> AppSpec:
    """The spec after ``textual:`` (or ``textual+PYTHON:``); InputError saying what is wrong."""
    python = None
    if spec.startswith("textual+"):
        python, sep, spec = spec.removeprefix("textual+").partition(":")
        if not sep or not python:
            raise InputError(
                f"expected textual+PYTHON:package.module:AppClass, got {spec!r}", "--device"
            )
    spec = spec.removeprefix("textual:")
    path, _, query = spec.partition("?")
    path, at, size = path.partition("@")
    module_name, sep, class_name = path.partition(":")
    if not sep or not module_name or not class_name:
        raise InputError(
            f"expected textual:package.module:AppClass[@WxH][?name=value&...], got {spec!r}",
            "--device",
        )
    try:
        arguments = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise InputError(f"expected name=value&... after '?', got {query!r}", "--device") from None
    return AppSpec(
        module_name,
        class_name,
        parse_size(size) if at else None,
        tuple(dict(arguments).items()),
        python,
    )


def parse_size(text: str) -> tuple[int, int]:
    """``120x40`` → (120, 40); InputError unless both are whole numbers 1..1000."""
    width, x, height = text.lower().partition("x")
    if x and width.isdigit() and height.isdigit():
        size = int(width), int(height)
        if all(1 <= n <= MAX_CELLS for n in size):
            return size
    raise InputError(
        f"expected a terminal size WIDTHxHEIGHT (1 to {MAX_CELLS} cells each), got {text!r}",
        "--device",
    )
