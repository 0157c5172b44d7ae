"""Expressions and templates of app models: conditions, computed values and templated labels.

A small, safe subset of Python's expression syntax, parsed with ``ast`` and evaluated by walking
the tree (never ``eval``): names, numbers, strings, lists, arithmetic, comparisons, ``and`` /
``or`` / ``not``, ``a if c else b``, subscripts, one-``for`` list comprehensions and a few
functions (``len``, ``count``, ``unique``, ``sum``, ``min``, ``max``, ``money``, ``matches``,
``str``, ``int``). ``true`` / ``false`` are YAML's spellings of True / False. A template is text
with ``{expression}`` holes: ``"Cart ({len(cart)})"``; ``{{`` and ``}}`` are literal braces.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from attrs import frozen

Value = Any  # str, int, float, bool, tuple (a list), dict (app data)
MAX_EXPRESSION = 1000  # characters of one expression


class ExprError(ValueError):
    """An expression that does not parse or uses what the language lacks; ``col`` is 0-based."""

    def __init__(self, what: str, col: int = 0) -> None:
        super().__init__(what)
        self.what = what
        self.col = col


def _money(cents: Value) -> str:
    """Whole cents as dollars: 4200 → "$42.00", -150 → "-$1.50"."""
    cents = int(cents)
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def _matches(text: Value, pattern: str) -> bool:
    try:
        return re.fullmatch(pattern, str(text)) is not None
    except re.error as exc:
        raise ExprError(f"bad pattern {pattern!r}: {exc}") from None


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "len": lambda x: len(x),
    "count": lambda items, item: list(items).count(item),
    "unique": lambda items: tuple(dict.fromkeys(items)),
    "sum": lambda items: sum(items),
    "min": min,
    "max": max,
    "money": _money,
    "matches": _matches,
    "str": lambda x: as_text(x),
    "int": lambda x: int(x) if str(x).strip().lstrip("-").isdigit() else 0,
}
CONSTANTS = {"true": True, "false": False, "True": True, "False": False}

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: _times(a, b),
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}
MAX_REPEAT_TEXT = 10_000  # a text or list times a number: at most this many items


def _times(a: Value, b: Value) -> Value:
    """``*``, with text or a list repeated at most MAX_REPEAT_TEXT times (no 1 GB labels)."""
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, tuple)) and isinstance(n, int) and n * len(seq) > MAX_REPEAT_TEXT:
            raise ExprError(f"repeating {len(seq)} items {n} times is too long")
    return a * b


_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


@frozen
class Expr:
    """A parsed expression; ``names`` are the free names it reads (for the lint)."""

    source: str
    tree: ast.expr
    names: frozenset[str]

    def evaluate(self, scope: Mapping[str, Value]) -> Value:
        """The value in ``scope``; ExprError (with what went wrong) on a runtime error."""
        try:
            return _eval(self.tree, scope)
        except ExprError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError) as exc:
            raise ExprError(f"{self.source!r}: {type(exc).__name__}: {exc}") from None
        except (RecursionError, OverflowError, MemoryError) as exc:
            raise ExprError(f"{self.source!r}: {type(exc).__name__}") from None


@lru_cache(maxsize=4096)
def parse_expr(text: str) -> Expr:
    """Parse one expression; ExprError names what is not allowed and where."""
    if len(text) > MAX_EXPRESSION:
        raise ExprError(f"an expression of {len(text)} characters (at most {MAX_EXPRESSION})")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"not an expression: {exc.msg}", max((exc.offset or 1) - 1, 0)) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes, nesting, digits
        raise ExprError(f"not an expression: {exc or type(exc).__name__}") from None
    names: set[str] = set()
    try:
        _check(tree, names, bound=frozenset())
    except RecursionError:
        raise ExprError("nested too deeply") from None
    return Expr(text, tree, frozenset(names))


_COMPOUND = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript)
_OPERATORS = (ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.expr_context)


def _check(node: ast.AST, names: set[str], bound: frozenset[str]) -> None:
    """Refuse every construct the language lacks; collect free names."""
    col = getattr(node, "col_offset", 0)
    if isinstance(node, ast.Name):
        if node.id not in bound and node.id not in CONSTANTS:
            names.add(node.id)
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, (str, int, float, bool)):
            raise ExprError(f"constant {node.value!r} is not allowed", col)
    elif isinstance(node, ast.Call):
        func = node.func.id if isinstance(node.func, ast.Name) else None
        if func not in FUNCTIONS or node.keywords:
            raise ExprError(f"unknown function; known are {sorted(FUNCTIONS)}", col)
        for arg in node.args:
            _check(arg, names, bound)
    elif isinstance(node, ast.ListComp):
        gen = node.generators[0]
        if len(node.generators) != 1 or not isinstance(gen.target, ast.Name):
            raise ExprError("a list comprehension takes one `for NAME in ...`", col)
        _check(gen.iter, names, bound)
        inner = bound | {gen.target.id}
        for cond in gen.ifs:
            _check(cond, names, inner)
        _check(node.elt, names, inner)
    elif isinstance(node, (*_COMPOUND, ast.List, ast.Tuple)):
        if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
            raise ExprError("only + - * / // % are arithmetic here", col)
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, (ast.Not, ast.USub)):
            raise ExprError("only `not` and `-` apply to one value", col)
        if isinstance(node, ast.Compare) and not all(type(o) in _COMPARE for o in node.ops):
            raise ExprError("unsupported comparison", col)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            raise ExprError("slices are not allowed", col)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _OPERATORS):
                _check(child, names, bound)
    else:
        raise ExprError(f"{type(node).__name__} is not allowed in an app-model expression", col)


def _eval(node: ast.expr, scope: Mapping[str, Value]) -> Value:
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name):
            if name in scope:
                return scope[name]
            if name in CONSTANTS:
                return CONSTANTS[name]
            raise ExprError(f"unknown name {name!r}")
        case ast.BinOp(left=left, op=op, right=right):
            return _BINARY[type(op)](_eval(left, scope), _eval(right, scope))
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            return not _eval(operand, scope)
        case ast.UnaryOp(operand=operand):
            return -_eval(operand, scope)
        case ast.BoolOp(op=ast.And(), values=values):
            result: Value = True
            for value in values:
                result = _eval(value, scope)
                if not result:
                    return result
            return result
        case ast.BoolOp(values=values):
            result = False
            for value in values:
                result = _eval(value, scope)
                if result:
                    return result
            return result
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            current = _eval(left, scope)
            for comparison, right in zip(ops, comparators, strict=True):
                other = _eval(right, scope)
                if not _COMPARE[type(comparison)](current, other):
                    return False
                current = other
            return True
        case ast.IfExp(test=test, body=body, orelse=orelse):
            return _eval(body, scope) if _eval(test, scope) else _eval(orelse, scope)
        case ast.Subscript(value=value, slice=index):
            return _eval(value, scope)[_eval(index, scope)]
        case ast.List(elts=elts) | ast.Tuple(elts=elts):
            return tuple(_eval(e, scope) for e in elts)
        case ast.Call(func=ast.Name(id=func), args=args):
            return FUNCTIONS[func](*(_eval(a, scope) for a in args))
        case ast.ListComp(
            elt=elt, generators=[ast.comprehension(target=ast.Name(id=var), iter=source, ifs=ifs)]
        ):
            out = []
            for item in _eval(source, scope):
                inner = {**scope, var: item}
                if all(_eval(cond, inner) for cond in ifs):
                    out.append(_eval(elt, inner))
            return tuple(out)
    raise ExprError(f"{type(node).__name__} is not allowed")  # _check refused it already


# --- templates --------------------------------------------------------------------------------

_HOLE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


@frozen
class Template:
    """Text with ``{expression}`` holes. ``whole`` is the expression when the text is one hole
    and nothing else (its value keeps its type: a number stays a number)."""

    parts: tuple[str | Expr, ...]
    names: frozenset[str]

    @property
    def whole(self) -> Expr | None:
        if len(self.parts) == 1 and isinstance(self.parts[0], Expr):
            return self.parts[0]
        return None

    @property
    def is_constant(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)

    def render(self, scope: Mapping[str, Value]) -> str:
        return "".join(p if isinstance(p, str) else as_text(p.evaluate(scope)) for p in self.parts)

    def value(self, scope: Mapping[str, Value]) -> Value:
        whole = self.whole
        return whole.evaluate(scope) if whole is not None else self.render(scope)


@lru_cache(maxsize=8192)
def parse_template(text: str) -> Template:
    """Parse a template; ExprError (``col`` within the text) on a bad hole or a lone brace."""
    parts: list[str | Expr] = []
    names: set[str] = set()
    pos = 0
    literal = ""
    for match in _HOLE.finditer(text):
        literal += _literal(text[pos : match.start()], pos)
        if match.group(0) in ("{{", "}}"):
            literal += match.group(0)[0]
        else:
            if literal:
                parts.append(literal)
                literal = ""
            try:
                expr = parse_expr(match.group(1))
            except ExprError as exc:
                raise ExprError(exc.what, match.start(1) + exc.col) from None
            parts.append(expr)
            names |= expr.names
        pos = match.end()
    literal += _literal(text[pos:], pos)
    if literal:
        parts.append(literal)
    return Template(tuple(parts), frozenset(names))


def _literal(text: str, offset: int) -> str:
    for brace in "{}":
        if brace in text:
            raise ExprError(
                f"lone {brace!r}; write {brace * 2} for a brace", offset + text.index(brace)
            )
    return text


def as_text(value: Value) -> str:
    """How a value reads in a label: booleans as 1 / 0 (as switches show them), whole floats
    without ``.0``, lists joined with commas."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (tuple, list)):
        return ", ".join(as_text(v) for v in value)
    return str(value)


def truthy(value: Value) -> bool:
    """A condition's verdict: "0" and "" are false, as a switch's value "0" is off."""
    if isinstance(value, str):
        return value not in ("", "0")
    return bool(value)
