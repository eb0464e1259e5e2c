"""The template expression language: a small, safe subset of Python arithmetic, parsed once, never eval'd.

Allowed: numbers, strings (for dtype or preset names), true/false, variables, ``+ - * / // % **``, unary
``-``/``+``, comparisons, ``and``/``or``/``not``, ``a if cond else b``, and calls of ``min max round abs ceil
floor sqrt log2 log10`` and the core's calculators (positional or keyword arguments). Everything else
(attribute access, subscripts, lambdas, comprehensions, other names) is rejected with the reason.

Integers stay exact: ``/`` of integers is exact (a whole quotient stays an ``int``). Every result is bounded
(``quizzer.bank.limits``): an exact number beyond ``MAX_INT_BITS`` bits or a float that is not finite is an
error, ``**`` and ``round`` refuse before computing one, an expression longer than ``MAX_EXPR_CHARS`` or
nested deeper than ``MAX_EXPR_DEPTH`` is rejected at parse, and a ``Budget`` caps the nodes one instance
evaluates. A calculator call yields its ``Result``; arithmetic uses its value.
"""

from __future__ import annotations

import _ast  # the C node classes; the `ast` module would cost ~14 ms of cold start
import math
import operator
from collections.abc import Callable, Mapping
from fractions import Fraction
from operator import itemgetter
from typing import Any, cast

from quizzer.bank.errors import ExprError
from quizzer.bank.expr.formula import Formula
from quizzer.bank.expr.syntax import (
    BINOPS,
    BUILTINS,
    CMPOPS,
    CONSTANTS,
    check_node,
    short,
    unparse,
    value_kinds,
    walk,
)
from quizzer.bank.limits import MAX_EVAL_STEPS, MAX_EXPR_CHARS, MAX_EXPR_DEPTH, MAX_INT_BITS, MAX_ROUND_DIGITS
from quizzer.core.errors import QuizzerError
from quizzer.core.trace import Result, exact, num

_PyCF_ONLY_AST = 1024  # ast.PyCF_ONLY_AST
MAX_POWER_BITS = MAX_INT_BITS  # the name this limit had when only ``**`` was bounded

Value = Any  # int | float | Fraction | bool | str | Result


class BudgetError(ExprError):
    """An instance asked for more evaluation than its ``Budget`` allows."""


class Budget:
    """The evaluation steps left for one instance: each evaluation charges its expression's node count.

    The language has no loops, so an evaluation never visits more nodes than its expression has (a
    calculator call counts as one node); the budget therefore bounds the work of an instance, every draw
    and mistake included, without counting inside the evaluator.
    """

    __slots__ = ("left", "limit")

    def __init__(self, steps: int = MAX_EVAL_STEPS) -> None:
        self.limit = self.left = steps

    def charge(self, steps: int) -> None:
        """Spend ``steps``; raises BudgetError once the budget is exhausted."""
        self.left -= steps
        if self.left < 0:
            raise BudgetError(f"exceeds the evaluation budget of {self.limit:,} steps for one instance")


_MISSING = object()
#: The sets of names and calls of the expressions made: each made once and shared.
_SETS: dict[frozenset[str], frozenset[str]] = {}
#: ``shared``'s expressions, by source.
_SHARED: dict[str, Expr] = {}
#: The expressions compiled so far in this process (``compiled_count``).
_COMPILED = [0]


def compiled_count() -> int:
    """How many expressions this process has compiled: each keeps its closures for as long as it lives
    (``quizzer.bank.heap.settle_compiled`` freezes them out of the collector's scans)."""
    return _COMPILED[0]


class Expr:
    """A parsed, validated expression. ``names`` are the variables and functions it mentions."""

    __slots__ = ("_memo", "_run", "_tree", "calls", "names", "order", "size", "source")

    def __init__(self, source: str) -> None:
        if not isinstance(source, str) or not source.strip():
            raise ExprError("an expression must be a non-empty string")
        self.source = source.strip()
        if len(self.source) > MAX_EXPR_CHARS:
            raise ExprError(
                f"the expression is {len(self.source):,} characters long; the limit is {MAX_EXPR_CHARS:,} "
                "(split it into expr variables)"
            )
        try:
            tree = compile(self.source, "<expr>", "eval", _PyCF_ONLY_AST)
        except SyntaxError as exc:
            raise ExprError(f"syntax error in {self.source!r}: {exc.msg} (column {exc.offset})") from None
        except (RecursionError, MemoryError):  # the C parser's own depth limits
            raise ExprError(f"the expression nests deeper than {MAX_EXPR_DEPTH} levels") from None
        names: set[str] = set()
        calls: set[str] = set()
        nodes = walk(tree.body, self.source)
        self.size = sum(isinstance(node, _ast.expr) for node in nodes)
        for node in nodes:
            check_node(node, self.source)
            if isinstance(node, _ast.Name) and node.id not in CONSTANTS:
                names.add(node.id)
            if isinstance(node, _ast.Call):
                calls.add(cast("_ast.Name", node.func).id)  # check_node admits calls of a plain name only
        # One set object for each set of names or calls (a bank holds thousands; most call nothing).
        self.names = _SETS.setdefault(found := frozenset(names - calls), found)
        self.calls = _SETS.setdefault(found := frozenset(calls), found)
        self.order = tuple(sorted(self.names))
        # Made on the first ``remembered``: one C call giving the values of its names, and the values kept
        # by them (most expressions of a loaded bank are never evaluated).
        self._memo: tuple[Callable[[Mapping[str, Value]], tuple[Any, ...]], dict[Any, Value]] | None = None
        # Parsed again and compiled on first need: a bank holds thousands of expressions and a session
        # evaluates those of the few templates it draws (the trees and closures were ~35 MiB of a bank).
        self._tree: Any = None
        self._run: Compiled | None = None

    def remembered(
        self,
        env: Mapping[str, Value],
        functions: Mapping[str, Callable[..., Any]],
        budget: Budget | None = None,
    ) -> Value:
        """``plain(evaluate(...))``, from memory when the names it reads have had these values before (with
        the same types). Only for pure ``functions`` (the core's calculators, memoized themselves): the
        caller says so. The budget is charged as for an evaluation; a value is never kept for names it
        cannot key (a list) or lacks, and at most 2,048 are kept."""
        memo = self._memo
        if memo is None:
            memo = self._memo = (_key_of(self.order), {})
        key_of, kept = memo
        try:
            key = key_of(env)
            found = kept.get(key, _MISSING)
        except (KeyError, TypeError):
            return plain(self.evaluate(env, functions, budget))
        if found is not _MISSING:
            if budget is not None:
                budget.charge(self.size)
            return found
        value = plain(self.evaluate(env, functions, budget))
        if len(kept) >= 2048:
            kept.clear()
        kept[key] = value
        return value

    def memo_key(self, env: Mapping[str, Value]) -> tuple[Any, ...]:
        """The key ``remembered`` keeps a value by: the values of the names the expression reads and their
        types. KeyError when a name lacks, TypeError when a value cannot be a key (a list)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = (_key_of(self.order), {})
        key = memo[0](env)
        hash(key)
        return key

    def __repr__(self) -> str:
        return f"Expr({self.source!r})"

    @property
    def tree(self) -> Any:
        """The parsed tree (C AST nodes; positions count UTF-8 bytes of ``source``), parsed again on first
        need and kept."""
        if self._tree is None:
            self._tree = self._parsed()
        return self._tree

    def _parsed(self) -> Any:
        """The tree kept, else ``source`` parsed afresh and not kept (it parsed when the expression was
        made: validation reads it once, and need not hold it)."""
        return (
            self._tree
            if self._tree is not None
            else compile(self.source, "<expr>", "eval", _PyCF_ONLY_AST).body
        )

    def evaluate(
        self,
        env: Mapping[str, Value],
        functions: Mapping[str, Callable[..., Any]],
        budget: Budget | None = None,
    ) -> Value:
        """The value, exact where the inputs are; calculator calls return ``Result``s.

        With a ``budget``, the expression's node count is charged to it first (BudgetError when spent).
        """
        if budget is not None:
            budget.charge(self.size)
        run = self._run
        if run is None:
            run = self._run = _Compiler(self.source).compile(self._parsed())
            _COMPILED[0] += 1
        return run(env, functions)

    def kinds(self, name_kinds: Mapping[str, frozenset[str]]) -> frozenset[str]:
        """What the expression can give ("number", "text", "bool"), from the kinds of its variables."""
        return value_kinds(self._parsed(), name_kinds)

    def substitute(self, env: Mapping[str, Value]) -> str:
        """The expression with variables replaced by their values, for a derivation line."""
        return unparse(self.tree, env)

    def describe(
        self,
        env: Mapping[str, Value],
        functions: Mapping[str, Callable[..., Any]],
        labels: Mapping[str, str],
        results: Mapping[tuple[int, int, int, int], Result],
    ) -> tuple[str, str]:
        """(formula in words, the same with the numbers) for a derivation's last row.

        A calculator call shows as its result's last step label and value (``results``, noted by a Tracing
        mapping during evaluation), a variable as its label in ``labels`` or its name, ``*`` as ×, ``**`` as
        ^, and ``a if cond else b`` as the branch taken.
        """

        def test(node: Any) -> bool:
            return bool(plain(_Compiler(self.source).compile(node)(env, functions)))

        return Formula(env, labels, results, test).render(self.tree)


def shared(source: str) -> Expr:
    """``Expr(source)``, one object for each source: a bank writes the same expression in many places
    (5,147 distinct of 6,798), and an expression is a function of its source alone (what it keeps, its
    tree, closures and remembered values, follows from the source). Raises ExprError as ``Expr`` does."""
    found = _SHARED.get(source)
    if found is None:
        found = _SHARED[source] = Expr(source)
    return found


def _key_of(order: tuple[str, ...]) -> Callable[[Mapping[str, Value]], tuple[Any, ...]]:
    """A function giving the memo key of an env for an expression of the names ``order``: their values, then
    each value's type (2 and 2.0 read differently in a derivation), in one flat tuple (a memo is read from
    memory the caches no longer hold: one object to reach, not three); KeyError if one lacks."""
    if len(order) > 1:
        get = itemgetter(*order)

        def key(env: Mapping[str, Value]) -> tuple[Any, ...]:
            values: tuple[Any, ...] = get(env)
            return values + tuple(map(type, values))

        return key
    if order:
        (name,) = order

        def key_one(env: Mapping[str, Value]) -> tuple[Any, ...]:
            value = env[name]
            return value, type(value)

        return key_one
    return lambda env: ()


def plain(value: Value) -> Value:
    """A number from a value: a calculator Result gives its value; a Fraction becomes int or float.

    Raises ExprError for a fraction too large to be a float.
    """
    kind = type(value)
    if kind is int or kind is float or kind is str:  # most values: no isinstance (Fraction's is an ABC's)
        return value
    if isinstance(value, Result):
        return value.value
    if isinstance(value, Fraction):
        try:
            return exact(value)
        except OverflowError:
            raise ExprError(f"the fraction {short(str(value))} is too large to be a decimal number") from None
    return value


def bounded(value: Value) -> str | None:
    """Why ``value`` breaks the size limits (None if it does not): exact numbers within ``MAX_INT_BITS``
    bits, floats finite."""
    kind = type(value)
    if kind is float:
        return None if math.isfinite(value) else f"the result {value!r} is not a finite number"
    if kind is int:
        bits = value.bit_length()
    elif kind is Fraction:
        bits = max(abs(value.numerator).bit_length(), value.denominator.bit_length())
    else:
        return None
    return None if bits <= MAX_INT_BITS else f"the result has more than {MAX_INT_BITS:,} bits"


Compiled = Callable[[Mapping[str, Value], Mapping[str, Callable[..., Any]]], Value]

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_FLOAT_ONLY = frozenset({"sqrt", "log2", "log10"})
#: The kinds of value ``plain`` gives back as they are.
_PLAIN = frozenset({int, float, str, bool})
isfinite = math.isfinite


class _Compiler:
    """Turns a validated tree into nested closures once, so evaluation is a few calls per node."""

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> ExprError:
        return ExprError(f"{self.source!r}: {message}")

    def compile(self, node: Any) -> Compiled:
        method: Callable[[Any], Compiled] = getattr(self, "_" + type(node).__name__)  # _Constant, _Name...
        return method(node)

    def number(self, node: Any) -> Compiled:
        """A compiled operand that must be a number (a Result gives its value)."""
        if isinstance(node, _ast.BinOp):  # arithmetic of numbers gives a number: nothing to check
            return self.compile(node)
        if isinstance(node, _ast.Constant) and type(node.value) in (int, float):
            return self.compile(node)
        if isinstance(node, _ast.Name) and node.id not in CONSTANTS:
            return self._number_name(node.id)
        inner, fail = self.compile(node), self.fail

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            value = inner(env, fns)
            kind = type(value)
            if kind is int or kind is float:  # most operands
                return value
            return _as_number(value, fail)

        return run

    def _number_name(self, name: str) -> Compiled:
        """``number`` of a variable in one call: its value, which must be a number."""
        fail = self.fail

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            try:
                value = env[name]
            except KeyError:
                raise fail(f"unknown variable {name!r}") from None
            kind = type(value)
            if kind is int or kind is float:  # most operands
                return value
            return _as_number(value, fail)

        return run

    def _Constant(self, node: Any) -> Compiled:
        value = node.value
        return lambda env, fns: value

    def _Name(self, node: Any) -> Compiled:
        name, fail = node.id, self.fail
        if name in CONSTANTS:
            constant = CONSTANTS[name]
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
            (CMPOPS[type(op)], self.compile(c)) for op, c in zip(node.ops, node.comparators, strict=True)
        ]
        fail = self.fail
        if len(pairs) == 1:  # most comparisons: a < b
            ((symbol, right),) = pairs
            compare = _COMPARE[symbol]

            def run_one(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
                a = left(env, fns)
                if type(a) not in _PLAIN:
                    a = plain(a)
                b = right(env, fns)
                if type(b) not in _PLAIN:
                    b = plain(b)
                try:
                    return bool(compare(a, b))
                except TypeError:
                    raise fail(f"cannot compare {a!r} {symbol} {b!r}") from None

            return run_one

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
        symbol = BINOPS[type(node.op)]
        fail, power = self.fail, self._power
        op = _ARITH.get(symbol)

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            a, b = left(env, fns), right(env, fns)
            try:
                if op is not None:
                    result = op(a, b)
                elif symbol == "/":
                    if type(a) is float or type(b) is float:  # no exact quotient to keep
                        result = a / b
                    elif type(a) is int and type(b) is int:  # Fraction(a) / Fraction(b), made at once
                        result = Fraction(a, b)
                    elif isinstance(a, int | Fraction) and isinstance(b, int | Fraction):
                        result = Fraction(a) / Fraction(b)
                    else:
                        result = a / b
                else:
                    result = power(a, b)
            except ZeroDivisionError:
                raise fail("division by zero") from None
            except OverflowError:
                raise fail("the result is too large") from None
            except TypeError:
                raise fail(f"cannot compute {num_or_repr(a)} {symbol} {num_or_repr(b)}") from None
            kind = type(result)  # most results: an int or a float plainly within bounds, told at once
            if (kind is int and result.bit_length() <= MAX_INT_BITS) or (kind is float and isfinite(result)):
                return result
            problem = bounded(result)
            if problem:
                raise fail(problem)
            return result

        return run

    def _power(self, base: Value, exponent: Value) -> Value:
        if isinstance(exponent, int | Fraction) and isinstance(base, int | Fraction):
            if Fraction(exponent).denominator != 1:
                return float(base) ** float(exponent)
            bits = max(
                abs(Fraction(base).numerator).bit_length(), abs(Fraction(base).denominator).bit_length()
            )
            if bits * abs(int(exponent)) > MAX_INT_BITS:
                raise self.fail(f"{num_or_repr(base)} ** {num_or_repr(exponent)} would be too large")
            return Fraction(base) ** int(exponent)
        result = float(base) ** float(exponent)
        if isinstance(result, complex) or not math.isfinite(result):
            raise self.fail(f"{base!r} ** {exponent!r} is not a finite real number")
        return result

    def _Call(self, node: Any) -> Compiled:
        name, fail = node.func.id, self.fail
        key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        args = [self.compile(a) for a in node.args]
        kwargs = [(k.arg, self.compile(k.value)) for k in node.keywords]
        builtin = BUILTINS.get(name)
        is_round, float_only = name == "round", name in _FLOAT_ONLY

        def run(env: Mapping[str, Value], fns: Mapping[str, Callable[..., Any]]) -> Value:
            fn = builtin or fns.get(name)
            if fn is None:
                raise fail(f"unknown function {name!r}")
            values = [plain(a(env, fns)) for a in args]
            named = {key: plain(value(env, fns)) for key, value in kwargs} if kwargs else None
            if is_round:
                _check_round_digits(values, named or {}, fail)
            try:
                if float_only:
                    values = [float(v) if isinstance(v, Fraction) else v for v in values]
                result = fn(*values) if named is None else fn(*values, **named)
            except QuizzerError as exc:
                raise fail(f"{name}(): {exc}") from None
            # A calculator is core code run on a pack's numbers: what it raises is this expression's fault.
            except (TypeError, ValueError, ArithmeticError, LookupError, RecursionError) as exc:
                raise fail(f"{name}(): {exc}") from None
            value: Value
            if type(result) is Result or isinstance(result, Result):
                value = result.value
                note = getattr(fns, "note", None)
                if note is not None:  # a Tracing mapping: the derivation's formula names this call's result
                    note(key, result)
            else:
                value = result
            problem = bounded(value)
            if problem:
                raise fail(f"{name}(): {problem}")
            return result

        return run


def _as_number(value: Value, fail: Callable[[str], ExprError]) -> Value:
    """An operand that is not an int or a float, as a number: a Result's value; text is refused."""
    if isinstance(value, Result):
        value = value.value
    if isinstance(value, str):
        raise fail(f"{value!r} is text, not a number")
    return value


def _check_round_digits(
    values: list[Value], named: dict[str, Value], fail: Callable[[str], ExprError]
) -> None:
    """``round(x, n)`` computes 10**|n| for exact numbers: refuse |n| beyond ``MAX_ROUND_DIGITS``."""
    digits = values[1] if len(values) > 1 else named.get("ndigits")
    if digits is None:
        return
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise fail(f"round(): the digits must be a whole number, not {num_or_repr(digits)}")
    if abs(digits) > MAX_ROUND_DIGITS:
        raise fail(f"round(): {num_or_repr(digits)} digits is beyond the limit of ±{MAX_ROUND_DIGITS}")


def num_or_repr(value: Value, limit: int = 40) -> str:
    """A value for a message, cut to ``limit`` characters: numbers as in a derivation, text quoted."""
    try:
        text = num(value) if isinstance(value, int | float | Fraction) else repr(value)
    except (OverflowError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
