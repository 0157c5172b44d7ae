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
    check = _CHECKS.get(type(node))
    if check is None:
        what = f"{type(node).__name__} is not allowed in an app-model expression"
        raise ExprError(what, getattr(node, "col_offset", 0))
    check(node, names, bound)


def _check_name(node: ast.Name, names: set[str], bound: frozenset[str]) -> None:
    if node.id not in bound and node.id not in CONSTANTS:
        names.add(node.id)


def _check_constant(node: ast.Constant, names: set[str], bound: frozenset[str]) -> None:
    if not isinstance(node.value, (str, int, float, bool)):
        raise ExprError(f"constant {node.value!r} is not allowed", node.col_offset)


def _check_call(node: ast.Call, names: set[str], bound: frozenset[str]) -> None:
    func = node.func.id if isinstance(node.func, ast.Name) else None
    if func not in FUNCTIONS or node.keywords:
        raise ExprError(f"unknown function; known are {sorted(FUNCTIONS)}", node.col_offset)
    for arg in node.args:
        _check(arg, names, bound)


def _check_comprehension(node: ast.ListComp, names: set[str], bound: frozenset[str]) -> None:
    gen = node.generators[0]
    if len(node.generators) != 1 or not isinstance(gen.target, ast.Name):
        raise ExprError("a list comprehension takes one `for NAME in ...`", node.col_offset)
    _check(gen.iter, names, bound)
    inner = bound | {gen.target.id}
    for cond in gen.ifs:
        _check(cond, names, inner)
    _check(node.elt, names, inner)


def _check_compound(node: ast.expr, names: set[str], bound: frozenset[str]) -> None:
    """Operators, conditionals, subscripts, lists: their own operator refused or not, then
    every operand."""
    refused = _refused_operator(node)
    if refused is not None:
        raise ExprError(refused, node.col_offset)
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _OPERATORS):
            _check(child, names, bound)


def _refused_operator(node: ast.expr) -> str | None:
    match node:
        case ast.BinOp(op=op) if type(op) not in _BINARY:
            return "only + - * / // % are arithmetic here"
        case ast.UnaryOp(op=op) if not isinstance(op, (ast.Not, ast.USub)):
            return "only `not` and `-` apply to one value"
        case ast.Compare(ops=ops) if not all(type(o) in _COMPARE for o in ops):
            return "unsupported comparison"
        case ast.Subscript(slice=ast.Slice()):
            return "slices are not allowed"
    return None


_CHECKS: dict[type[ast.AST], Callable[[Any, set[str], frozenset[str]], None]] = {
    ast.Name: _check_name,
    ast.Constant: _check_constant,
    ast.Call: _check_call,
    ast.ListComp: _check_comprehension,
    **{kind: _check_compound for kind in (*_COMPOUND, ast.List, ast.Tuple)},
}


def _eval(node: ast.expr, scope: Mapping[str, Value]) -> Value:
    evaluate = _EVALUATE.get(type(node))
    if evaluate is None:
        raise ExprError(f"{type(node).__name__} is not allowed")  # _check refused it already
    return evaluate(node, scope)


def _eval_constant(node: ast.Constant, scope: Mapping[str, Value]) -> Value:
    return node.value


def _eval_name(node: ast.Name, scope: Mapping[str, Value]) -> Value:
    if node.id in scope:
        return scope[node.id]
    if node.id in CONSTANTS:
        return CONSTANTS[node.id]
    raise ExprError(f"unknown name {node.id!r}")


def _eval_binary(node: ast.BinOp, scope: Mapping[str, Value]) -> Value:
    return _BINARY[type(node.op)](_eval(node.left, scope), _eval(node.right, scope))


def _eval_unary(node: ast.UnaryOp, scope: Mapping[str, Value]) -> Value:
    operand = _eval(node.operand, scope)
    return not operand if isinstance(node.op, ast.Not) else -operand


def _eval_boolean(node: ast.BoolOp, scope: Mapping[str, Value]) -> Value:
    """``and`` stops at the first false value, ``or`` at the first true one; the last
    value read is the result."""
    stop = isinstance(node.op, ast.Or)
    result: Value = not stop
    for value in node.values:
        result = _eval(value, scope)
        if bool(result) == stop:
            return result
    return result


def _eval_compare(node: ast.Compare, scope: Mapping[str, Value]) -> Value:
    current = _eval(node.left, scope)
    for comparison, right in zip(node.ops, node.comparators, strict=True):
        other = _eval(right, scope)
        if not _COMPARE[type(comparison)](current, other):
            return False
        current = other
    return True


def _eval_conditional(node: ast.IfExp, scope: Mapping[str, Value]) -> Value:
    return _eval(node.body, scope) if _eval(node.test, scope) else _eval(node.orelse, scope)


def _eval_subscript(node: ast.Subscript, scope: Mapping[str, Value]) -> Value:
    return _eval(node.value, scope)[_eval(node.slice, scope)]


def _eval_list(node: ast.List | ast.Tuple, scope: Mapping[str, Value]) -> Value:
    return tuple(_eval(e, scope) for e in node.elts)


def _eval_call(node: ast.Call, scope: Mapping[str, Value]) -> Value:
    func = node.func.id if isinstance(node.func, ast.Name) else ""  # _check: always a name
    return FUNCTIONS[func](*(_eval(a, scope) for a in node.args))


def _eval_comprehension(node: ast.ListComp, scope: Mapping[str, Value]) -> Value:
    [gen] = node.generators  # _check: one ``for NAME in ...``
    var = gen.target.id if isinstance(gen.target, ast.Name) else ""
    out = []
    for item in _eval(gen.iter, scope):
        inner = {**scope, var: item}
        if all(_eval(cond, inner) for cond in gen.ifs):
            out.append(_eval(node.elt, inner))
    return tuple(out)


_EVALUATE: dict[type[ast.AST], Callable[[Any, Mapping[str, Value]], Value]] = {
    ast.Constant: _eval_constant,
    ast.Name: _eval_name,
    ast.BinOp: _eval_binary,
    ast.UnaryOp: _eval_unary,
    ast.BoolOp: _eval_boolean,
    ast.Compare: _eval_compare,
    ast.IfExp: _eval_conditional,
    ast.Subscript: _eval_subscript,
    ast.List: _eval_list,
    ast.Tuple: _eval_list,
    ast.Call: _eval_call,
    ast.ListComp: _eval_comprehension,
}


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
