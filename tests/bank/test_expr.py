"""The expression language: exact arithmetic, calculator calls, and everything unsafe rejected."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import quizzer.core as core
from quizzer.bank.expr import Expr, ExprError, plain
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
