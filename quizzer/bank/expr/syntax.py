"""The expression language's grammar: the nodes and operators it allows, a bounded walk, and rendering."""

from __future__ import annotations

import _ast  # the C node classes; the `ast` module would cost ~14 ms of cold start
import math
from collections.abc import Callable, Mapping
from typing import Any, cast

from quizzer.bank.errors import ExprError
from quizzer.bank.limits import MAX_EXPR_DEPTH, MAX_INT_BITS
from quizzer.core.trace import Result, num

CONSTANTS = {"true": True, "false": False, "True": True, "False": False}

BINOPS: dict[type, str] = {
    _ast.Add: "+",
    _ast.Sub: "-",
    _ast.Mult: "*",
    _ast.Div: "/",
    _ast.FloorDiv: "//",
    _ast.Mod: "%",
    _ast.Pow: "**",
}
CMPOPS: dict[type, str] = {
    _ast.Eq: "==",
    _ast.NotEq: "!=",
    _ast.Lt: "<",
    _ast.LtE: "<=",
    _ast.Gt: ">",
    _ast.GtE: ">=",
}
REJECTED: dict[type, str] = {
    _ast.Attribute: "attribute access (x.y) is not allowed; preset fields are variables like model_d_model",
    _ast.Subscript: "subscripts (x[i]) are not allowed",
    _ast.Lambda: "lambdas are not allowed",
    _ast.ListComp: "comprehensions are not allowed",
    _ast.GeneratorExp: "comprehensions are not allowed",
    _ast.DictComp: "comprehensions are not allowed",
    _ast.SetComp: "comprehensions are not allowed",
    _ast.List: "lists are not allowed",
    _ast.Tuple: "tuples are not allowed",
    _ast.Dict: "dicts are not allowed",
    _ast.Set: "sets are not allowed",
    _ast.Starred: "star arguments are not allowed",
    _ast.NamedExpr: "assignment (:=) is not allowed",
    _ast.JoinedStr: "f-strings are not allowed",
    _ast.Await: "await is not allowed",
    _ast.Yield: "yield is not allowed",
}


#: The functions every expression may call besides the core's calculators, by name.
BUILTINS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "ceil": math.ceil,
    "floor": math.floor,
    "sqrt": math.sqrt,
    "log2": math.log2,
    "log10": math.log10,
}
BUILTIN_NAMES = frozenset(BUILTINS)


def walk(root: Any, source: str) -> list[Any]:
    """Every node, parents first, without recursion; raises ExprError past ``MAX_EXPR_DEPTH``.

    Depth counts expression nodes only (``1 + 1 + 1`` nests 3 deep): the checks after the walk, the
    compiler and the derivation renderer recurse, so the depth is bounded before any of them runs.
    """
    out: list[Any] = []
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPR_DEPTH:
            raise ExprError(
                f"{short(source)}: nests deeper than {MAX_EXPR_DEPTH} levels (split it into expr variables)"
            )
        out.append(node)
        children: list[Any] = []
        for field in node._fields:
            child = getattr(node, field, None)
            children.extend(child if isinstance(child, list) else [child])
        for child in reversed(children):
            if isinstance(child, _ast.AST):
                stack.append((child, depth + 1 if isinstance(child, _ast.expr) else depth))
    return out


def short(source: str, limit: int = 60) -> str:
    """The source quoted, cut to ``limit`` characters for a message."""
    return repr(source if len(source) <= limit else source[: limit - 1] + "…")


def check_node(node: Any, source: str) -> None:
    reason = REJECTED.get(type(node))
    if reason:
        raise ExprError(f"{source!r}: {reason}")
    if isinstance(node, _ast.Constant):
        value = node.value
        if not isinstance(value, int | float | str):
            raise ExprError(f"{source!r}: the constant {value!r} is not a number, string or boolean")
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise ExprError(f"{short(source)}: a constant has more than {MAX_INT_BITS:,} bits")
        if isinstance(value, float) and not math.isfinite(value):
            raise ExprError(f"{source!r}: the constant {value!r} is not a finite number")
    if isinstance(node, _ast.BinOp) and type(node.op) not in BINOPS:
        raise ExprError(f"{source!r}: the operator {type(node.op).__name__} is not allowed")
    if isinstance(node, _ast.UnaryOp) and not isinstance(node.op, _ast.USub | _ast.UAdd | _ast.Not):
        raise ExprError(f"{source!r}: the operator {type(node.op).__name__} is not allowed")
    if isinstance(node, _ast.Compare) and any(type(op) not in CMPOPS for op in node.ops):
        raise ExprError(f"{source!r}: only == != < <= > >= comparisons are allowed")
    if isinstance(node, _ast.Call) and not isinstance(node.func, _ast.Name):
        raise ExprError(f"{source!r}: only named functions can be called")
    if isinstance(node, _ast.keyword) and node.arg is None:
        raise ExprError(f"{source!r}: **kwargs is not allowed")
    allowed = (
        _ast.Expression,
        _ast.Constant,
        _ast.Name,
        _ast.Load,
        _ast.BinOp,
        _ast.UnaryOp,
        _ast.BoolOp,
        _ast.Compare,
        _ast.IfExp,
        _ast.Call,
        _ast.keyword,
        _ast.And,
        _ast.Or,
        _ast.operator,
        _ast.unaryop,
        _ast.cmpop,
    )
    if not isinstance(node, allowed):
        raise ExprError(f"{source!r}: {type(node).__name__} is not part of the expression language")


_PRECEDENCE = {
    "or": 1,
    "and": 2,
    "not": 3,
    "cmp": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "//": 6,
    "%": 6,
    "unary": 7,
    "**": 8,
}


def unparse(node: Any, env: Mapping[str, Any], parent: int = 0) -> str:
    """Render with values substituted; parentheses only where precedence needs them."""
    text, level = _render(node, env)
    return f"({text})" if level < parent else text


def _render(node: Any, env: Mapping[str, Any]) -> tuple[str, int]:
    if isinstance(node, _ast.Constant):
        return (
            num(node.value)
            if isinstance(node.value, int | float) and not isinstance(node.value, bool)
            else repr(node.value)
        ), 9
    if isinstance(node, _ast.Name):
        value = env.get(node.id, CONSTANTS.get(node.id, node.id))
        value = value.value if isinstance(value, Result) else value
        if isinstance(value, bool):
            return str(value).lower(), 9
        return (num(value) if isinstance(value, int | float) else str(value)), 9
    if isinstance(node, _ast.BinOp):
        symbol = BINOPS[type(node.op)]
        level = _PRECEDENCE[symbol]
        shown = {"*": "×", "/": "/", "**": "^"}.get(symbol, symbol)
        left = unparse(node.left, env, level + (1 if symbol == "**" else 0))
        right = unparse(node.right, env, level + (0 if symbol == "**" else 1))
        return f"{left} {shown} {right}", level
    if isinstance(node, _ast.UnaryOp):
        if isinstance(node.op, _ast.Not):
            return f"not {unparse(node.operand, env, 3)}", 3
        sign = "-" if isinstance(node.op, _ast.USub) else "+"
        return f"{sign}{unparse(node.operand, env, 7)}", 7
    if isinstance(node, _ast.BoolOp):
        word = "and" if isinstance(node.op, _ast.And) else "or"
        level = _PRECEDENCE[word]
        return f" {word} ".join(unparse(v, env, level + 1) for v in node.values), level
    if isinstance(node, _ast.Compare):
        parts = [unparse(node.left, env, 5)]
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            parts += [CMPOPS[type(op)], unparse(comparator, env, 5)]
        return " ".join(parts), 4
    if isinstance(node, _ast.IfExp):
        return (
            f"{unparse(node.body, env, 1)} if {unparse(node.test, env, 1)} "
            f"else {unparse(node.orelse, env, 1)}"
        ), 0
    if isinstance(node, _ast.Call):
        args = [unparse(a, env) for a in node.args] + [
            f"{k.arg}={unparse(k.value, env)}" for k in node.keywords
        ]
        name = cast("_ast.Name", node.func).id  # check_node admits calls of a plain name only
        return f"{name}({', '.join(args)})", 9
    return "?", 9


#: Functions whose result is one of their arguments, so it has the kinds of its arguments.
_PASS_THROUGH = frozenset({"min", "max"})


def value_kinds(node: Any, name_kinds: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """What an expression can give: some of "number", "text", "bool" (a static over-approximation).

    ``name_kinds`` gives the kinds of each variable (missing names are numbers). Arithmetic and the
    calculators always give numbers (text operands are refused when evaluated).
    """
    number, text, boolean = frozenset({"number"}), frozenset({"text"}), frozenset({"bool"})
    if isinstance(node, _ast.Constant):
        value = node.value
        return boolean if isinstance(value, bool) else text if isinstance(value, str) else number
    if isinstance(node, _ast.Name):
        if node.id in CONSTANTS:
            return boolean
        return name_kinds.get(node.id, number)
    if isinstance(node, _ast.Compare) or (isinstance(node, _ast.UnaryOp) and isinstance(node.op, _ast.Not)):
        return boolean
    if isinstance(node, _ast.IfExp):
        return value_kinds(node.body, name_kinds) | value_kinds(node.orelse, name_kinds)
    if isinstance(node, _ast.BoolOp):
        return frozenset().union(*(value_kinds(v, name_kinds) for v in node.values))
    # check_node admits calls of a plain name only
    if isinstance(node, _ast.Call) and cast("_ast.Name", node.func).id in _PASS_THROUGH:
        return frozenset().union(*(value_kinds(a, name_kinds) for a in node.args))
    return number
