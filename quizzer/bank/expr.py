"""The template expression language: a small, safe subset of Python arithmetic, parsed once, never eval'd.

Allowed: numbers, strings (for dtype or preset names), true/false, variables, ``+ - * / // % **``, unary
``-``/``+``, comparisons, ``and``/``or``/``not``, ``a if cond else b``, and calls of ``min max round abs ceil
floor sqrt log2 log10`` and the core's calculators (positional or keyword arguments). Everything else
(attribute access, subscripts, lambdas, comprehensions, other names) is rejected with the reason.

Integers stay exact: ``/`` of integers is exact (a whole quotient stays an ``int``), ``**`` refuses results
beyond 10,000 bits. A calculator call yields its ``Result``; arithmetic uses its value.
"""

from __future__ import annotations

import _ast  # the C node classes; the `ast` module would cost ~14 ms of cold start
import math
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import Any

from quizzer.core.errors import QuizzerError
from quizzer.core.trace import Result, exact, num

_PyCF_ONLY_AST = 1024  # ast.PyCF_ONLY_AST
MAX_POWER_BITS = 10_000

Value = Any  # int | float | Fraction | bool | str | Result


class ExprError(QuizzerError, ValueError):
    """An expression that is not part of the language, or fails to evaluate; the message says why."""


_BUILTINS: dict[str, Callable[..., Any]] = {
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
BUILTIN_NAMES = frozenset(_BUILTINS)
_CONSTANTS = {"true": True, "false": False, "True": True, "False": False}

_BINOPS: dict[type, str] = {
    _ast.Add: "+",
    _ast.Sub: "-",
    _ast.Mult: "*",
    _ast.Div: "/",
    _ast.FloorDiv: "//",
    _ast.Mod: "%",
    _ast.Pow: "**",
}
_CMPOPS: dict[type, str] = {
    _ast.Eq: "==",
    _ast.NotEq: "!=",
    _ast.Lt: "<",
    _ast.LtE: "<=",
    _ast.Gt: ">",
    _ast.GtE: ">=",
}
_REJECTED: dict[type, str] = {
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


class Expr:
    """A parsed, validated expression. ``names`` are the variables and functions it mentions."""

    __slots__ = ("_run", "_tree", "calls", "names", "source")

    def __init__(self, source: str) -> None:
        if not isinstance(source, str) or not source.strip():
            raise ExprError("an expression must be a non-empty string")
        self.source = source.strip()
        try:
            tree = compile(self.source, "<expr>", "eval", _PyCF_ONLY_AST)
        except SyntaxError as exc:
            raise ExprError(f"syntax error in {self.source!r}: {exc.msg} (column {exc.offset})") from None
        self._tree = tree.body
        names: set[str] = set()
        calls: set[str] = set()
        for node in _walk(self._tree):
            _check_node(node, self.source)
            if isinstance(node, _ast.Name) and node.id not in _CONSTANTS:
                names.add(node.id)
            if isinstance(node, _ast.Call):
                calls.add(node.func.id)  # type: ignore[attr-defined]
        self.names = frozenset(names - calls)
        self.calls = frozenset(calls)
        self._run = _Compiler(self.source).compile(self._tree)

    def __repr__(self) -> str:
        return f"Expr({self.source!r})"

    def evaluate(self, env: Mapping[str, Value], functions: Mapping[str, Callable[..., Any]]) -> Value:
        """The value, exact where the inputs are; calculator calls return ``Result``s."""
        return self._run(env, functions)

    def substitute(self, env: Mapping[str, Value]) -> str:
        """The expression with variables replaced by their values, for a derivation line."""
        return _unparse(self._tree, env)


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for field in node._fields:
        child = getattr(node, field, None)
        if isinstance(child, list):
            for item in child:
                if isinstance(item, _ast.AST):
                    yield from _walk(item)
        elif isinstance(child, _ast.AST):
            yield from _walk(child)


def _check_node(node: Any, source: str) -> None:
    reason = _REJECTED.get(type(node))
    if reason:
        raise ExprError(f"{source!r}: {reason}")
    if isinstance(node, _ast.Constant) and not isinstance(node.value, int | float | str):
        raise ExprError(f"{source!r}: the constant {node.value!r} is not a number, string or boolean")
    if isinstance(node, _ast.BinOp) and type(node.op) not in _BINOPS:
        raise ExprError(f"{source!r}: the operator {type(node.op).__name__} is not allowed")
    if isinstance(node, _ast.UnaryOp) and not isinstance(node.op, _ast.USub | _ast.UAdd | _ast.Not):
        raise ExprError(f"{source!r}: the operator {type(node.op).__name__} is not allowed")
    if isinstance(node, _ast.Compare) and any(type(op) not in _CMPOPS for op in node.ops):
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


def plain(value: Value) -> Value:
    """A number from a value: a calculator Result gives its value; a Fraction becomes int or float."""
    if isinstance(value, Result):
        return value.value
    if isinstance(value, Fraction):
        return exact(value)
    return value


Compiled = Callable[[Mapping[str, Value], Mapping[str, Callable[..., Any]]], Value]

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_FLOAT_ONLY = frozenset({"sqrt", "log2", "log10"})


class _Compiler:
    """Turns a validated tree into nested closures once, so evaluation is a few calls per node."""

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> ExprError:
        return ExprError(f"{self.source!r}: {message}")

    def compile(self, node: Any) -> Compiled:
        return getattr(self, "_" + type(node).__name__)(node)  # type: ignore[no-any-return]

    def number(self, node: Any) -> Compiled:
        """A compiled operand that must be a number (a Result gives its value)."""
        inner, fail = self.compile(node), self.fail

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            value = inner(env, fns)
            if isinstance(value, Result):
                value = value.value
            if isinstance(value, str):
                raise fail(f"{value!r} is text, not a number")
            return value

        return run

    def _Constant(self, node: Any) -> Compiled:
        value = node.value
        return lambda env, fns: value

    def _Name(self, node: Any) -> Compiled:
        name, fail = node.id, self.fail
        if name in _CONSTANTS:
            constant = _CONSTANTS[name]
            return lambda env, fns: constant

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            try:
                return env[name]
            except KeyError:
                raise fail(f"unknown variable {name!r}") from None

        return run

    def _UnaryOp(self, node: Any) -> Compiled:
        if isinstance(node.op, _ast.Not):
            operand = self.compile(node.operand)
            return lambda env, fns: not operand(env, fns)
        operand = self.number(node.operand)
        if isinstance(node.op, _ast.USub):
            return lambda env, fns: -operand(env, fns)
        return lambda env, fns: +operand(env, fns)

    def _BoolOp(self, node: Any) -> Compiled:
        items = [self.compile(v) for v in node.values]
        is_and = isinstance(node.op, _ast.And)

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            result: Value = is_and
            for item in items:
                result = item(env, fns)
                if bool(result) != is_and:
                    return result
            return result

        return run

    def _Compare(self, node: Any) -> Compiled:
        left = self.compile(node.left)
        pairs = [
            (_CMPOPS[type(op)], self.compile(c)) for op, c in zip(node.ops, node.comparators, strict=True)
        ]
        fail = self.fail

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            a = plain(left(env, fns))
            for symbol, right in pairs:
                b = plain(right(env, fns))
                try:
                    ok = _COMPARE[symbol](a, b)
                except TypeError:
                    raise fail(f"cannot compare {a!r} {symbol} {b!r}") from None
                if not ok:
                    return False
                a = b
            return True

        return run

    def _IfExp(self, node: Any) -> Compiled:
        test, body, orelse = self.compile(node.test), self.compile(node.body), self.compile(node.orelse)
        return lambda env, fns: body(env, fns) if test(env, fns) else orelse(env, fns)

    def _BinOp(self, node: Any) -> Compiled:
        left, right = self.number(node.left), self.number(node.right)
        symbol = _BINOPS[type(node.op)]
        fail, power = self.fail, self._power
        op = _ARITH.get(symbol)

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            a, b = left(env, fns), right(env, fns)
            try:
                if op is not None:
                    return op(a, b)
                if symbol == "/":
                    if isinstance(a, int | Fraction) and isinstance(b, int | Fraction):
                        return Fraction(a) / Fraction(b)
                    return a / b
                return power(a, b)
            except ZeroDivisionError:
                raise fail("division by zero") from None
            except OverflowError:
                raise fail("the result is too large") from None

        return run

    def _power(self, base: Value, exponent: Value) -> Value:
        if isinstance(exponent, int | Fraction) and isinstance(base, int | Fraction):
            if Fraction(exponent).denominator != 1:
                return float(base) ** float(exponent)
            bits = max(
                abs(Fraction(base).numerator).bit_length(), abs(Fraction(base).denominator).bit_length()
            )
            if bits * abs(int(exponent)) > MAX_POWER_BITS:
                raise self.fail(f"{num(plain(base))} ** {num(plain(exponent))} would be too large")
            return Fraction(base) ** int(exponent)
        result = float(base) ** float(exponent)
        if isinstance(result, complex) or not math.isfinite(result):
            raise self.fail(f"{base!r} ** {exponent!r} is not a finite real number")
        return result

    def _Call(self, node: Any) -> Compiled:
        name, fail = node.func.id, self.fail
        args = [self.compile(a) for a in node.args]
        kwargs = [(k.arg, self.compile(k.value)) for k in node.keywords]
        builtin = _BUILTINS.get(name)

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            fn = builtin or fns.get(name)
            if fn is None:
                raise fail(f"unknown function {name!r}")
            values = [plain(a(env, fns)) for a in args]
            if name in _FLOAT_ONLY:
                values = [float(v) if isinstance(v, Fraction) else v for v in values]
            named = {key: plain(value(env, fns)) for key, value in kwargs}
            try:
                return fn(*values, **named)
            except QuizzerError as exc:
                raise fail(f"{name}(): {exc}") from None
            except (TypeError, ValueError, ArithmeticError) as exc:
                raise fail(f"{name}(): {exc}") from None

        return run


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


def _unparse(node: Any, env: Mapping[str, Value], parent: int = 0) -> str:
    """Render with values substituted; parentheses only where precedence needs them."""
    text, level = _render(node, env)
    return f"({text})" if level < parent else text


def _render(node: Any, env: Mapping[str, Value]) -> tuple[str, int]:
    if isinstance(node, _ast.Constant):
        return (
            num(node.value)
            if isinstance(node.value, int | float) and not isinstance(node.value, bool)
            else repr(node.value)
        ), 9
    if isinstance(node, _ast.Name):
        value = env.get(node.id, _CONSTANTS.get(node.id, node.id))
        value = plain(value)
        if isinstance(value, bool):
            return str(value).lower(), 9
        return (num(value) if isinstance(value, int | float) else str(value)), 9
    if isinstance(node, _ast.BinOp):
        symbol = _BINOPS[type(node.op)]
        level = _PRECEDENCE[symbol]
        shown = {"*": "×", "/": "/", "**": "^"}.get(symbol, symbol)
        left = _unparse(node.left, env, level + (1 if symbol == "**" else 0))
        right = _unparse(node.right, env, level + (0 if symbol == "**" else 1))
        return f"{left} {shown} {right}", level
    if isinstance(node, _ast.UnaryOp):
        if isinstance(node.op, _ast.Not):
            return f"not {_unparse(node.operand, env, 3)}", 3
        sign = "-" if isinstance(node.op, _ast.USub) else "+"
        return f"{sign}{_unparse(node.operand, env, 7)}", 7
    if isinstance(node, _ast.BoolOp):
        word = "and" if isinstance(node.op, _ast.And) else "or"
        level = _PRECEDENCE[word]
        return f" {word} ".join(_unparse(v, env, level + 1) for v in node.values), level
    if isinstance(node, _ast.Compare):
        parts = [_unparse(node.left, env, 5)]
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            parts += [_CMPOPS[type(op)], _unparse(comparator, env, 5)]
        return " ".join(parts), 4
    if isinstance(node, _ast.IfExp):
        return (
            f"{_unparse(node.body, env, 1)} if {_unparse(node.test, env, 1)} "
            f"else {_unparse(node.orelse, env, 1)}"
        ), 0
    if isinstance(node, _ast.Call):
        args = [_unparse(a, env) for a in node.args] + [
            f"{k.arg}={_unparse(k.value, env)}" for k in node.keywords
        ]
        return f"{node.func.id}({', '.join(args)})", 9
    return "?", 9
