"""Low-precision float formats: limits and grids against the OCP and IEEE tables, rounding properties."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.formats import (
    FLOAT_FORMATS,
    float_format,
    float_magnitudes,
    float_max_normal,
    float_min_normal,
    float_min_subnormal,
    float_round,
    float_value_count,
)
from tests.golden import assert_sealed

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "formats.json").read_text(encoding="utf-8"))
ELEMENTS: list[dict[str, Any]] = DATA["element_formats"]
SMALL = ["fp4_e2m1", "fp6_e2m3", "fp6_e3m2", "fp8_e4m3", "fp8_e5m2"]


def exact(text: str) -> Fraction:
    """A published value: "448", "0.5", "2^-6"."""
    if "^" in text:
        base, power = text.split("^")
        return Fraction(int(base)) ** int(power)
    return Fraction(text)


def test_every_published_format_is_in_the_table() -> None:
    assert {e["format"] for e in ELEMENTS} <= set(FLOAT_FORMATS)
    for e in ELEMENTS:
        assert e["source"] in DATA["sources"]


@pytest.mark.parametrize("fmt", ELEMENTS, ids=lambda e: e["format"])
def test_limits_match_the_specifications(fmt: dict[str, Any]) -> None:
    name = fmt["format"]
    assert float_format(name).bits == fmt["bits"]
    assert float_format(name).bias == fmt["exponent_bias"]
    assert Fraction(float_max_normal(name).value) == exact(fmt["max_normal"])
    assert Fraction(float_min_normal(name).value) == exact(fmt["min_normal"])
    if "min_subnormal" in fmt:
        assert Fraction(float_min_subnormal(name).value) == exact(fmt["min_subnormal"])
    else:
        with pytest.raises(SpecError, match="no subnormals"):
            float_min_subnormal(name)


@pytest.mark.parametrize("fmt", ELEMENTS, ids=lambda e: e["format"])
def test_value_count_follows_from_the_special_codes(fmt: dict[str, Any]) -> None:
    # 2^bits codes, less NaN and inf codes, less one for -0 (E8M0 has neither sign nor zero).
    codes = 2 ** fmt["bits"] - fmt["nan_codes"] - fmt["inf_codes"]
    expected = codes if fmt.get("unsigned_no_zero") else codes - 1
    assert float_value_count(fmt["format"]).value == expected


def test_the_e2m1_grid_interviews_ask_for() -> None:
    # OCP MX v1.0: FP4 E2M1 represents ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}: 15 distinct values.
    published = [exact(v) for v in ELEMENTS[0]["magnitudes"]]
    assert list(float_magnitudes("fp4_e2m1")) == published
    assert float_value_count("fp4_e2m1").value == 2 * len(published) - 1


def test_fp8_maxima_are_448_and_57344() -> None:
    assert float_max_normal("fp8_e4m3").value == 448  # 1.75 × 2^8: only S.1111.111 is NaN
    assert float_max_normal("fp8_e5m2").value == 57344  # 1.75 × 2^15: exponent 31 is inf/NaN


@pytest.mark.parametrize("name", [*SMALL, "e8m0", "fp16", "bf16"])
def test_grid_is_increasing_and_spans_the_limits(name: str) -> None:
    grid = float_magnitudes(name)
    assert all(a < b for a, b in itertools.pairwise(grid))
    assert grid[-1] == Fraction(float_max_normal(name).value)
    assert len(grid) == (float_value_count(name).value + 1) // 2 or name == "e8m0"
    positive = [v for v in grid if v > 0]
    smallest = float_min_normal(name) if name == "e8m0" else float_min_subnormal(name)
    assert positive[0] == Fraction(smallest.value)


def test_rounding_examples() -> None:
    assert float_round(5, "fp4_e2m1").value == 4  # tie between 4 and 6: 4 has the even mantissa
    assert float_round(0.25, "fp4_e2m1").value == 0  # tie between 0 and 0.5
    assert float_round(0.75, "fp4_e2m1").value == 1  # tie between 0.5 and 1
    assert float_round(1000, "fp8_e4m3").value == 448  # saturates
    assert float_round(-1e6, "fp8_e5m2").value == -57344
    assert float_round(0.1, "fp8_e4m3").value == 13 / 128  # spacing 2^-7 in [2^-4, 2^-3)


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(UnknownNameError, match="fp8_e4m3"):
        float_max_normal("fp8_e4m2")
    with pytest.raises(SpecError, match="finite"):
        float_round(float("nan"), "fp4_e2m1")
    with pytest.raises(SpecError, match="finite"):
        float_round(True, "fp4_e2m1")
    with pytest.raises(SpecError, match="scale"):
        float_round(3.0, "e8m0")


# --- rounding properties ---------------------------------------------------------------------------------

formats = st.sampled_from(SMALL)
reals = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(reals, formats)
def test_rounding_lands_on_the_nearest_grid_value(x: float, name: str) -> None:
    grid = float_magnitudes(name)
    result = Fraction(float_round(x, name).value)
    assert abs(result) in grid
    top = grid[-1]
    target = min(abs(Fraction(x)), top)
    assert abs(abs(result) - target) == min(abs(g - target) for g in grid)
    assert result == 0 or (result < 0) == (x < 0)


@pytest.mark.parametrize("name", SMALL)
def test_every_tie_goes_to_the_even_mantissa(name: str) -> None:
    # Codes are in grid order, so a value's mantissa field has the parity of its index in the grid.
    grid = float_magnitudes(name)
    for index, (low, high) in enumerate(itertools.pairwise(grid)):
        even = low if index % 2 == 0 else high
        assert Fraction(float_round(float((low + high) / 2), name).value) == even, (low, high)


@given(reals, reals, formats)
def test_rounding_is_monotone(x: float, y: float, name: str) -> None:
    low, high = sorted((x, y))
    assert float_round(low, name).value <= float_round(high, name).value


@given(reals, formats)
def test_rounding_is_idempotent_and_odd(x: float, name: str) -> None:
    once = float_round(x, name)
    assert_sealed(once)
    assert float_round(once.value, name).value == once.value
    assert float_round(-x, name).value == -once.value


@given(st.sampled_from(sorted(FLOAT_FORMATS)))
def test_limit_calculators_end_in_their_value(name: str) -> None:
    for result in (float_max_normal(name), float_min_normal(name), float_value_count(name)):
        assert_sealed(result)
        assert result.convention
