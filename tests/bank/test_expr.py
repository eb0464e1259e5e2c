"""The expression language: exact arithmetic, calculator calls, and everything unsafe rejected."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import quizzer.core as core
from quizzer.bank.expr.expression import Budget, BudgetError, Expr, ExprError, plain, shared
from quizzer.core.trace import Result


def ev(source: str, **env: object) -> object:
    return plain(Expr(source).evaluate(env, core.CALCULATORS))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("7 // 2", 3),
        ("7 % 4", 3),
        ("2 ** 10", 1024),
        ("8 / 2", 4),
        ("-3 + +1", -2),
        ("min(3, 1, 2) + max(4, 5)", 6),
        ("round(2.567, 1)", 2.6),
        ("abs(-4)", 4),
        ("ceil(2.1) + floor(2.9)", 5),
        ("sqrt(16)", 4.0),
        ("log2(1024)", 10.0),
        ("1 if 2 > 1 else 0", 1),
        ("not false and true", True),
        ("1 < 2 <= 2 != 3", True),
        ("'bf16'", "bf16"),
    ],
)
def test_arithmetic(source: str, expected: object) -> None:
    assert ev(source) == expected


def test_division_is_exact_for_integers() -> None:
    assert ev("7 / 2") == 3.5
    assert isinstance(ev("8 / 2"), int)
    assert Expr("1 / 3").evaluate({}, {}) == Fraction(1, 3)
    assert ev("(1 / 3) * 3") == 1


@given(st.integers(-(10**30), 10**30), st.integers(-(10**12), 10**12))
def test_a_quotient_of_whole_numbers_is_the_exact_fraction_in_lowest_terms(a: int, b: int) -> None:
    if b == 0:
        with pytest.raises(ExprError, match="division by zero"):
            Expr("a / b").evaluate({"a": a, "b": b}, {})
        return
    quotient = Expr("a / b").evaluate({"a": a, "b": b}, {})
    assert type(quotient) is Fraction
    assert quotient * b == a
    assert quotient.denominator > 0
    assert math.gcd(quotient.numerator, quotient.denominator) == 1


@given(st.integers(-(10**30), 10**30), st.integers(1, 10**12))
def test_integer_results_stay_exact(a: int, b: int) -> None:
    assert ev("a * b + a // b - a % b", a=a, b=b) == a * b + a // b - a % b
    assert ev("(a * b) / b", a=a, b=b) == a


def test_calculator_calls_return_results_and_compose() -> None:
    result = Expr("embedding_params(vocab_size, d_model)").evaluate(
        {"vocab_size": 32000, "d_model": 512}, core.CALCULATORS
    )
    assert isinstance(result, Result)
    assert result.value == 32000 * 512
    assert ev("2 * embedding_params(v, d)", v=32000, d=512) == 2 * 32000 * 512
    assert ev("kv_cache_bytes(32, 8, 128, 8192, 1, dtype='bf16')") == 2 * 32 * 8 * 128 * 8192 * 2


def test_names_and_calls_are_reported() -> None:
    expr = Expr("2 * embedding_params(vocab_size, d_model) + max(a, 1)")
    assert expr.names == {"vocab_size", "d_model", "a"}
    assert expr.calls == {"embedding_params", "max"}


def test_substitute_shows_the_numbers() -> None:
    expr = Expr("2 * n_layers * (a + b) / 4")
    assert expr.substitute({"n_layers": 32, "a": 1000, "b": 24}) == "2 × 32 × (1,000 + 24) / 4"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("x.y", "attribute access"),
        ("x.__class__", "attribute access"),
        ("x[0]", "subscripts"),
        ("lambda: 1", "lambdas"),
        ("(lambda: 1)()", "only named functions"),
        ("[i for i in x]", "comprehensions"),
        ("[1, 2]", "lists"),
        ("(1, 2)", "tuples"),
        ("{1: 2}", "dicts"),
        ("f'{x}'", "f-strings"),
        ("(y := 2)", "assignment"),
        ("max(*x)", "star arguments"),
        ("x and", "syntax error"),
        ("", "non-empty"),
        ("b'bytes'", "not a number, string or boolean"),
        ("1 << 4", "operator LShift"),
        ("x is None", "comparisons"),
    ],
)
def test_unsafe_or_invalid_expressions_are_rejected_at_parse(source: str, reason: str) -> None:
    with pytest.raises(ExprError, match=reason):
        Expr(source)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("__import__('os')", "unknown function '__import__'"),
        ("open('x')", "unknown function 'open'"),
        ("eval('1')", "unknown function 'eval'"),
        ("nope + 1", "unknown variable 'nope'"),
        ("2 ** 100000", "too large"),
        ("1 / 0", "division by zero"),
        ("'a' * 2", "text, not a number"),
        ("embedding_params(0, 1)", "vocab_size"),
        ("10.0 ** 400", "too large"),
    ],
)
def test_evaluation_errors_say_why(source: str, reason: str) -> None:
    with pytest.raises(ExprError, match=reason):
        ev(source)


@given(st.text(max_size=40))
def test_arbitrary_text_raises_only_expr_errors(source: str) -> None:
    try:
        expr = Expr(source)
        expr.evaluate({}, {})
    except ExprError:
        pass


@pytest.mark.parametrize(
    ("source", "value", "reason"),
    [
        ("x * x", 2**6000, "more than 10,000 bits"),
        ("x + x", 2**9999, "more than 10,000 bits"),
        ("-x - x", 2**9999, "more than 10,000 bits"),
        ("x / 3 * x", 2**6000, "more than 10,000 bits"),
        ("embedding_params(x, x)", 2**6000, "embedding_params(): the result has more than 10,000 bits"),
        ("round(x, -1000000000)", 1, "digits is beyond the limit of ±100"),
        ("round(x, ndigits=101)", 1, "digits is beyond the limit of ±100"),
        ("round(x, 2.5)", 1, "the digits must be a whole number"),
        ("x * 10.0", 1e308, "not a finite number"),
        ("x * 1.0", 2**6000, "too large"),
        ("(x + 1) / 3", 2**9000, "too large to be a decimal number"),
        ("log2(x / 3)", 2**9000, "too large"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_growing_operation_has_a_size_guard(source: str, value: object, reason: str) -> None:
    with pytest.raises(ExprError, match=re.escape(reason)):
        ev(source, x=value)


@pytest.mark.parametrize(
    ("source", "names", "reason"),
    [
        ("d * 2", {"d": "bf16"}, "'bf16' is text, not a number"),
        ("2 * d", {"d": "bf16"}, "'bf16' is text, not a number"),
        ("-d", {"d": "bf16"}, "'bf16' is text, not a number"),
        ("d < 2", {"d": "bf16"}, "cannot compare 'bf16' < 2"),
        ("2 >= d", {"d": "bf16"}, "cannot compare 2 >= 'bf16'"),
        ("1 < d < 3", {"d": "bf16"}, "cannot compare 1 < 'bf16'"),
        ("nope * 2", {}, "unknown variable 'nope'"),
        ("nope < 2", {}, "unknown variable 'nope'"),
    ],
)
def test_a_variable_read_as_an_operand_fails_as_any_operand(
    source: str, names: dict[str, object], reason: str
) -> None:
    """A variable operand is read in one step (no wrapper): text, or a name not there, fails as it does
    wherever else it stands."""
    with pytest.raises(ExprError, match=re.escape(reason)):
        ev(source, **names)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x * 2 + y", 2 * 7 + 3),
        ("(x + y) * (x - y)", (7 + 3) * (7 - 3)),
        ("x / y * y", 7),  # exact: a Fraction times y is whole again
        ("x / 2 < 4", True),
        ("x / 2 < 3", False),
        ("1 < x < 8", True),
        ("1 < x < 7", False),
        ("t * 2", 2),  # true is 1 in arithmetic, as in Python
        ("r * 2", 2 * 16_384_000),  # a calculator Result gives its value
        ("r > x", True),
        ("f * 2", 5.0),
    ],
)
def test_operands_of_every_form_give_their_values(source: str, expected: object) -> None:
    from quizzer.core.params import embedding_params

    names = {"x": 7, "y": 3, "t": True, "f": 2.5, "r": embedding_params(32_000, 512)}
    value = ev(source, **names)
    assert value == expected
    assert type(value) is type(expected)


def test_results_at_the_size_limit_are_exact() -> None:
    assert ev("x * x", x=2**4999) == 2**9998
    assert ev("round(x, -100)", x=10**150 + 7) == 10**150
    assert ev("x + x", x=2**9998) == 2**9999


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("1e999", "not a finite number"),
        ("+".join(["a"] * 101), "nests deeper than 100 levels"),
        ("-" * 101 + "a", "nests deeper than 100 levels"),
        ("2 ** " * 101 + "2", "nests deeper than 100 levels"),
        ("+".join(["1"] * 2000), "3,999 characters long; the limit is 2,000"),
        ("1" * 2001, "2,001 characters long"),
    ],
)
def test_expressions_beyond_the_parse_limits_are_rejected(source: str, reason: str) -> None:
    with pytest.raises(ExprError, match=reason):
        Expr(source)


def test_expressions_at_the_parse_limits_parse() -> None:
    assert ev("+".join(["a"] * 100), a=1) == 100
    assert ev("(" * 150 + "a" + ")" * 150, a=2) == 2  # parentheses add no depth
    assert Expr("max(" + ", ".join(["a"] * 664) + ")").size == 666


def test_a_budget_counts_nodes_and_stops_the_evaluation_past_it() -> None:
    expr = Expr("a + 1")
    assert expr.size == 3
    budget = Budget(7)
    assert expr.evaluate({"a": 1}, {}, budget) == 2
    assert expr.evaluate({"a": 1}, {}, budget) == 2
    assert budget.left == 1
    with pytest.raises(BudgetError, match="exceeds the evaluation budget of 7 steps"):
        expr.evaluate({"a": 1}, {}, budget)


@pytest.mark.parametrize(
    ("source", "kinds"),
    [
        ("a * 2", {"number"}),
        ("'x'", {"text"}),
        ("a > 1", {"bool"}),
        ("not a", {"bool"}),
        ("a if a > 1 else s", {"number", "text"}),
        ("a or s", {"number", "text"}),
        ("max(a, s)", {"number", "text"}),
        ("round(s)", {"number"}),  # refused when evaluated, never a text result
        ("s * 2", {"number"}),
    ],
)
def test_kinds_say_what_an_expression_can_give(source: str, kinds: set[str]) -> None:
    assert Expr(source).kinds({"s": frozenset({"text"})}) == kinds


def test_an_expression_is_compiled_and_its_tree_kept_only_once_needed() -> None:
    """A bank holds thousands of expressions and a session evaluates those of the templates it draws:
    the parsed tree and the compiled closures (~35 MiB of the built-in bank, half its load time) are made
    on first need, and what they give is what a fresh parse gives."""
    import ast

    expr = Expr("2 * n_layers * d_model if gqa else n_layers")
    assert expr._tree is None  # the point of the test: nothing made yet
    assert expr._run is None
    assert expr.names == {"n_layers", "d_model", "gqa"}
    assert expr.evaluate({"n_layers": 32, "d_model": 4096, "gqa": True}, {}) == 262144
    assert expr._run is not None  # compiled, the tree not kept
    assert expr._tree is None
    assert ast.dump(expr.tree) == ast.dump(ast.parse(expr.source, mode="eval").body)
    assert expr.substitute({"n_layers": 32, "d_model": 4096, "gqa": True}) == "2 × 32 × 4,096 if true else 32"


def test_shared_gives_one_expression_for_each_source() -> None:
    """The reader's expressions: one object for each source (a bank repeats many); sets of names shared."""
    a, b = shared("n_layers * d_model + 1"), shared("n_layers * d_model + 1")
    assert a is b
    assert a.evaluate({"n_layers": 2, "d_model": 3}, {}) == 7
    assert shared("n_layers * 2") is not a
    assert Expr("d_model * n_layers").names is Expr("n_layers + d_model").names
    assert Expr("d_model * n_layers").names == {"n_layers", "d_model"}
    with pytest.raises(ExprError):
        shared("n_layers *")
