"""A model's reply read into the one JSON object it answers with, wherever the server put it.

Servers and models differ in where the answer goes: the whole content, a ```json fence, after
or between prose, inside ``<tool_call>`` tags, a tool call's ``arguments`` (a JSON string, or
an object), or an object wrapped in another (``{"name": ..., "arguments": {...}}``). Each
place is tried in that order, within bounds (``MAX_ANSWER_CHARACTERS`` of text, the first
``MAX_CANDIDATES`` objects in it); a reply with none says where it looked and what it found
there. A UI-TARS ``Action: click(...)`` line is read as its family writes it
(``orav.agents.family``), an answer written as a Python literal (single quotes, ``None``) as
a literal, never run, a string's unescaped double quotes as if escaped, JSON5 by the ``json5``
library, YAML by orav's bounded reader, an XML element's attributes, and fields one a line (Markdown's ``- **Action:** tap``) as an object. Prose alone
holds no answer, but for a ``done`` said in words, a claim the success criteria then prove.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any

from attrs import frozen

from orav.agents.family import action_call
from orav.agents.schema import ANSWER_SCHEMA, FIELDS
from orav.agents.verbs import schema_names, sentence_kind, words
from orav.codec import JSONRefused, parse_json, parse_json_at
from orav.codec.json import MAX_DEPTH, depth
from orav.codec.yaml import read_yaml
from orav.errors import InputError

MAX_ANSWER_CHARACTERS = 64 * 1024  # of one answer's text; a real one is well under 4 KB
MAX_CANDIDATES = 32  # objects tried in one answer's text
MAX_REPAIRED = 4  # of them, those whose unescaped quotes are escaped
MAX_REPAIRS = 8  # quotes escaped in one object
MAX_LENIENT = 8 * 1024  # characters of an object read as JSON5 (a real answer is under 4 KB)
MAX_PROSE = 1000  # characters of prose read for a done said in words
MAX_LINES = 200  # lines of an answer read as fields
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)\n?```", re.DOTALL)


class InvalidAnswer(ValueError):
    """Why an answer was rejected; the message goes back to the model in the re-ask."""


@frozen
class ToolCall:
    """One tool call of a reply: the function's name and its arguments (text or an object)."""

    name: str
    arguments: Any


def strip_fence(text: str) -> str:
    """The text inside the first markdown code fence, or the text itself."""
    text = text.strip()
    match = _FENCE.search(text)
    return match.group(1).strip() if match else text


def _unwrap(data: Any, key: str, depth: int = 0) -> Any:
    """The answer inside a wrapper: an object without ``key`` whose one object value (or JSON
    text of one) has it, as a tool call written out (``{"name", "arguments"}``)."""
    if not isinstance(data, dict) or key in data or depth > 2:
        return data
    inner = []
    for value in data.values():
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:
                value = parse_json(value)
            except JSONRefused:
                continue
        if isinstance(value, dict):
            inner.append(value)
    found = [_unwrap(value, key, depth + 1) for value in inner]
    found = [value for value in found if isinstance(value, dict) and key in value]
    return found[0] if len(found) == 1 else data


def _in_text(text: str, key: str) -> dict[str, Any]:
    """The first object with ``key`` in the text (else the first object)."""
    starts = _starts(text)
    first: dict[str, Any] | None = None
    problem: JSONRefused | None = None
    for data, refused in _candidates(text, starts, key):
        problem = problem or refused
        if isinstance(data, dict) and key in data:
            return data
        if isinstance(data, dict) and first is None:
            first = data
    readers = (_literal, _quotes_escaped, _lenient, _in_lines, _yaml, _in_tag)  # as needed
    for called in chain([action_call(text)], (read(text, starts, key) for read in readers)):
        if called is not None and key in called:
            return called
    if first is not None:
        return first
    if key == "action" and sentence_kind(text[:MAX_PROSE]) == "done":
        # a done said in prose (computer-use models end so): only a claim, which the success
        # criteria prove or refute; any other action is taken from a structured answer only
        return {"action": "done", "summary": text[:MAX_PROSE], "reasoning": text}
    raise _no_object(text, problem)


def _lenient(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The answer written as JSON5 (comments, trailing commas, single quotes, bare keys),
    read by the ``json5`` library on the first ``MAX_REPAIRED`` objects, each to the text's
    last closing brace and at most ``MAX_LENIENT`` characters (it reads ~30 KB a second)."""
    import json5

    end = text.rfind("}")
    for start in starts[:MAX_REPAIRED]:
        if start >= end or end - start > MAX_LENIENT:
            continue
        try:
            data = _unwrap(json5.loads(text[start : end + 1]), key)
        except (ValueError, TypeError, RecursionError, MemoryError):
            continue
        if isinstance(data, dict) and key in data and depth(data) <= MAX_DEPTH:
            return data
    return None


_LINE = re.compile(r"^\s*(?:[-+•]|\d+[.)])?\s*([A-Za-z][A-Za-z _]{0,40}?)\s*:\s*(.+?)\s*$")


def _in_lines(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The answer written as fields, one a line (``Action: tap``, ``- **Element:** e3``,
    Markdown's emphasis and code marks aside), when one of them is ``key``: each field named
    as the schema names it, case and spaces aside."""
    data: dict[str, Any] = {}
    for line in text.replace("*", "").replace("`", "").splitlines()[:MAX_LINES]:
        found = _LINE.match(line)
        if found is None:
            continue
        name = "_".join(found.group(1).casefold().split())
        if name in FIELDS | {key} and name not in data:
            data[name] = found.group(2)
    return data if isinstance(data.get(key), str) else None


def _yaml(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The answer written as YAML (``action:`` then ``kind: tap`` indented), read by orav's
    bounded YAML reader, its field names as the schema writes them."""
    try:
        data = read_yaml(strip_fence(text)[:MAX_LENIENT], "answer")
    except InputError:
        return None
    if not isinstance(data, dict) or depth(data) > MAX_DEPTH:
        return None
    data = schema_names(data, [key])
    return data if key in data else None


_TAG = re.compile(r"<([A-Za-z_][\w-]{0,40})((?:\s+[A-Za-z_][\w-]{0,40}\s*=\s*\"[^\"<>]*\")+)\s*/?>")
_ATTRIBUTE = re.compile(r"([A-Za-z_][\w-]{0,40})\s*=\s*\"([^\"<>]*)\"")


def _in_tag(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The answer written as an XML element's attributes (read by pattern, no XML parser, so
    no entity is ever expanded): one that gives ``key``, or one named ``key`` whose attributes
    are its fields, the answer's own (``reasoning``, ``element``) beside it
    (``<action kind="tap" element="e3"/>``)."""
    for found in _TAG.finditer(text[:MAX_LENIENT]):
        given = _ATTRIBUTE.findall(found.group(2))
        fields = schema_names({name: html.unescape(value) for name, value in given}, [key])
        if key in fields:
            return fields
        if "_".join(words(found.group(1))) == key:
            inner = {k: v for k, v in fields.items() if k not in ANSWER_SCHEMA["properties"]}
            return {**{k: v for k, v in fields.items() if k not in inner}, key: inner}
    return None


def _starts(text: str) -> list[int]:
    """Where the objects tried in ``text`` begin: its first ``MAX_CANDIDATES`` braces."""
    return [match.start() for match in re.finditer(r"\{", text)][:MAX_CANDIDATES]


def _candidates(text: str, starts: list[int], key: str) -> Iterator[tuple[Any, JSONRefused | None]]:
    """Each value the text may hold, in the order tried (the whole text, each fence, then
    each object from one of ``starts``), or why one could not be read."""
    for body in [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]:
        try:
            yield _unwrap(parse_json(body), key), None
        except JSONRefused as exc:
            yield None, (exc if body.startswith("{") else None)
    end = 0
    for start in starts:
        if start < end:  # inside an object already read
            continue
        try:
            data, end = parse_json_at(text, start)
        except JSONRefused as exc:
            yield None, exc
            continue
        yield _unwrap(data, key), None


def _no_object(text: str, problem: JSONRefused | None) -> InvalidAnswer:
    """Why the text holds no answer: the first JSON error, else what it begins with."""
    if problem is not None:
        where = f" at line {problem.line} column {problem.col}" if problem.line else ""
        return InvalidAnswer(
            f"not valid JSON ({problem.what}{where}); reply with the JSON object only"
        )
    begins = " ".join(text.split())[:60]
    return InvalidAnswer(
        f"no JSON object in the answer (it begins {begins!r}); reply with the JSON object only"
    )


def _quotes_escaped(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The decision in an object whose strings hold unescaped double quotes (``"text": "it
    says "hi""``), each such quote escaped where the JSON error points: at most
    ``MAX_REPAIRS`` per object, on the first ``MAX_REPAIRED`` objects."""
    for start in starts[:MAX_REPAIRED]:
        body = text
        for _ in range(MAX_REPAIRS):
            try:
                data = _unwrap(parse_json_at(body, start)[0], key)
            except JSONRefused as exc:
                if exc.line is None or exc.col is None or "delimiter" not in exc.what:
                    break
                lines = body.split("\n")
                index = sum(len(line) + 1 for line in lines[: exc.line - 1]) + exc.col - 1
                quote = body.rfind('"', start, index)
                if quote <= start or body[quote - 1] == "\\":
                    break
                body = body[:quote] + '\\"' + body[quote + 1 :]
                continue
            if isinstance(data, dict) and key in data:
                return data
            break
    return None


def _literal(text: str, starts: list[int], key: str) -> dict[str, Any] | None:
    """The answer written as a Python literal (single quotes, None, True), read as a literal
    (never run), when it holds ``key``."""
    end = text.rfind("}")
    for start in starts:
        if start >= end:
            break
        try:
            data = _unwrap(ast.literal_eval(text[start : end + 1]), key)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(data, dict) and key in data and depth(data) <= MAX_DEPTH:
            return data
    return None


def _in_tool_call(index: int, call: ToolCall, key: str) -> dict[str, Any]:
    where = f"tool_calls[{index}].function.arguments"
    arguments = call.arguments
    if isinstance(arguments, str):
        if len(arguments) > MAX_ANSWER_CHARACTERS:
            raise InvalidAnswer(f"{where}: {len(arguments)} characters, more than allowed")
        try:
            arguments = parse_json(arguments or "{}")
        except JSONRefused as exc:
            at = f" at line {exc.line} column {exc.col}" if exc.line else ""
            raise InvalidAnswer(f"{where}: not valid JSON ({exc.what}{at})") from None
    data = _unwrap(arguments, key)
    if not isinstance(data, dict):
        raise InvalidAnswer(f"{where}: expected an object, got {type(data).__name__}")
    named = call.name and call.name not in ("decide", "orav_decision")
    if key == "action" and key not in data and named:
        data = {"action": call.name, **data}  # the function named the action (``tap(...)``)
    return data


def answer_object(
    content: str | None, tool_calls: Sequence[ToolCall] = (), key: str = "action"
) -> dict[str, Any]:
    """The answer's object, the first that holds ``key`` (the agent's ``action``, the judge's
    ``holds``): from the first tool call, else from the content's text."""
    if tool_calls:
        return _in_tool_call(0, tool_calls[0], key)
    text = content or ""
    if len(text) > MAX_ANSWER_CHARACTERS:
        raise InvalidAnswer(
            f"the answer was {len(text)} characters long, more than {MAX_ANSWER_CHARACTERS}; "
            "keep the reasoning to one sentence"
        )
    if not text.strip():
        raise InvalidAnswer("the answer was empty; reply with the JSON object")
    return _in_text(text, key)


def answer_objects(
    content: str | None, tool_calls: Sequence[ToolCall] = (), key: str = "action"
) -> list[dict[str, Any]]:
    """Every object of the answer that holds ``key``, each tool call's then the text's (within
    the same bounds): where a model answered twice, and maybe both ways."""
    found = []
    for index, call in enumerate(tool_calls):
        try:
            found.append(_in_tool_call(index, call, key))
        except InvalidAnswer:
            continue
    text = (content or "")[:MAX_ANSWER_CHARACTERS]
    for data, _ in _candidates(text, _starts(text), key):
        if isinstance(data, dict) and key in data and data not in found:
            found.append(data)
    return found
