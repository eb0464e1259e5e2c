"""Chinchilla compute-optimal sizes: golden problem, sizing-notes anchors and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.core.scaling import (
    chinchilla_compute,
    chinchilla_params_for_compute,
    chinchilla_tokens,
    chinchilla_tokens_for_compute,
)
from quizzer.core.units import Unit
from tests.golden import assert_golden


def test_ch01_chinchilla_tokens_for_70b(problems: dict[str, dict[str, Any]]) -> None:
    result = chinchilla_tokens(70_000_000_000)
    assert result.unit == Unit.TOKENS
    assert_golden(problems["CH-01"], result.value)
    assert result.value == 1_400_000_000_000  # exact with integer inputs


def test_chinchilla_budget_is_5_88e23() -> None:
    # sizing-notes §6: 6ND for Chinchilla (70B, 1.4T) gives 5.88e23 FLOPs (the paper quotes ~5.76e23).
    assert chinchilla_compute(70_000_000_000).value == 588 * 10**21


def test_chinchilla_inverse_from_budget() -> None:
    # sizing-notes 4.7: N = √(C/120), D = √(C·20/6); the 5.88e23 budget gives back 70B and 1.4T.
    assert chinchilla_params_for_compute(5.88e23).value == pytest.approx(70e9, rel=1e-12)
    assert chinchilla_tokens_for_compute(5.88e23).value == pytest.approx(1.4e12, rel=1e-12)


def test_other_tokens_per_param() -> None:
    # Llama-3-8B saw ~15T tokens, about 1,900 per parameter (sizing-notes §5): the rule only scales D.
    assert chinchilla_tokens(8_000_000_000, 1_875).value == 15_000_000_000_000
    # With k tokens/param, C = 6·k·N²: k = 30 and N = 1e9 => 1.8e20.
    assert chinchilla_params_for_compute(1.8e20, 30).value == pytest.approx(1e9, rel=1e-12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: chinchilla_tokens(0), "n_params"),
        (lambda: chinchilla_tokens(7e9, 0), "tokens_per_param"),
        (lambda: chinchilla_params_for_compute(-1.0), "compute_flops"),
        (lambda: chinchilla_tokens_for_compute(1e23, -20), "tokens_per_param"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, name: str) -> None:
    with pytest.raises(SpecError, match=name):
        call()


budgets = st.floats(min_value=1e15, max_value=1e28)
ratios = st.floats(min_value=1.0, max_value=2_000.0)


@given(budgets, ratios)
def test_params_times_6_times_tokens_is_the_budget(compute: float, k: float) -> None:
    n = chinchilla_params_for_compute(compute, k).value
    d = chinchilla_tokens_for_compute(compute, k).value
    assert 6 * n * d == pytest.approx(compute, rel=1e-12)
    assert d == pytest.approx(k * n, rel=1e-12)


@given(st.integers(min_value=10**6, max_value=10**13))
def test_compute_round_trips_to_params(n_params: int) -> None:
    compute = chinchilla_compute(n_params).value
    assert compute == 120 * n_params**2
    assert chinchilla_params_for_compute(compute).value == pytest.approx(n_params, rel=1e-12)


@given(budgets)
def test_four_times_the_compute_doubles_params_and_tokens(compute: float) -> None:
    assert chinchilla_params_for_compute(4 * compute).value == pytest.approx(
        2 * chinchilla_params_for_compute(compute).value, rel=1e-12
    )
    assert chinchilla_tokens_for_compute(4 * compute).value == pytest.approx(
        2 * chinchilla_tokens_for_compute(compute).value, rel=1e-12
    )


@given(st.integers(min_value=1, max_value=10**13), budgets, ratios)
def test_last_step_carries_the_value(n_params: int, compute: float, k: float) -> None:
    results = [
        chinchilla_tokens(n_params, k),
        chinchilla_compute(n_params, k),
        chinchilla_params_for_compute(compute, k),
        chinchilla_tokens_for_compute(compute, k),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
