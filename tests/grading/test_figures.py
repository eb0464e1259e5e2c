"""Significant figures: round_figures, the figures a typed number has (Parsed.figures), needed_figures."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.grading import Mistake, Tolerance, needed_figures, parse_answer, round_figures
from quizzer.grading.figures import right_to, write_figures

# --- round_figures ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "figures", "expected"),
    [
        (1_315_723_264, 4, 1_316_000_000),
        (1_315_723_264, 2, 1_300_000_000),
        (124_439_808, 3, 124_000_000),
        (124_439_808, 4, 124_400_000),
        (125, 2, 130),  # half away from zero
        (-125, 2, -130),
        (99_999, 2, 100_000),
        (7, 3, 7),
        (0, 1, 0),
        (0.476008, 3, 0.476),
        (0.125, 2, 0.13),  # as written, not as the binary float (0.125 is exact anyway)
        (2.675, 3, 2.68),  # the float is 2.67499999...; its decimal form rounds up
        (0.00210, 2, 0.0021),
        (9.96, 2, 10.0),
        (1.5e-7, 1, 2e-7),
        (6.02214076e23, 3, 6.02e23),
    ],
)
def test_round_figures(value: float, figures: int, expected: float) -> None:
    rounded = round_figures(value, figures)
    assert rounded == expected
    assert type(rounded) is type(value)  # an int stays an int, a float a float


@pytest.mark.parametrize("figures", [0, -1, 1.5, True])
def test_round_figures_needs_a_positive_count(figures: object) -> None:
    with pytest.raises(SpecError):
        round_figures(1.5, figures)  # type: ignore[arg-type]


def _decimal_round(value: int | float, figures: int) -> Decimal:
    """The oracle: Decimal rounding of the value as written (its repr), half up on the magnitude."""
    exact = Decimal(repr(value))
    if exact == 0:
        return exact
    place = exact.adjusted() - figures + 1
    return exact.quantize(Decimal(1).scaleb(place), rounding=ROUND_HALF_UP)


@given(st.integers(-(10**30), 10**30), st.integers(1, 17))
def test_round_figures_of_ints_matches_decimal(value: int, figures: int) -> None:
    assert round_figures(value, figures) == int(_decimal_round(value, figures))


@given(st.floats(1e-300, 1e300) | st.floats(-1e300, -1e-300), st.integers(1, 17))
def test_round_figures_of_floats_matches_decimal(value: float, figures: int) -> None:
    assert round_figures(value, figures) == float(_decimal_round(value, figures))


def test_write_figures_keeps_the_figures() -> None:
    assert write_figures(1.316, 4) == "1.316"
    assert write_figures(1.3, 4) == "1.300"
    assert write_figures(124.4, 4) == "124.4"
    assert write_figures(16_380_000, 4, ",") == "16,380,000"
    assert write_figures(0.0021, 3) == "0.00210"
    assert write_figures(9.96, 2) == "10"


# --- the figures a typed number has -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "figures"),
    [
        ("1.3B", "params", 2),
        ("124M", "params", 3),
        ("175.0B", "params", 4),
        ("1.6384e7", "params", 5),
        ("16,384,000", "params", 5),
        ("16400000", "params", 3),  # trailing zeros of a whole number are not significant
        ("0.00210", "s", 3),
        ("47.6%", "ratio", 3),
        ("~16.4 million", "params", 3),
        ("$1.20M", "USD", 3),
        ("15.6 GiB", "bytes", 3),
        ("1.6 x 10^7", "params", 2),  # scientific notation written out
        ("500.", "count", 3),  # a decimal point makes the zeros count
        (".5", "ratio", 1),
        ("16 384 000", "params", 5),
    ],
)
def test_figures_of_a_typed_number(text: str, unit: str, figures: int) -> None:
    assert parse_answer(text, unit).figures == figures


@pytest.mark.parametrize(
    ("text", "unit"), [("32000*512", "params"), ("2^24", "count"), ("10^7", "count"), ("100/8 GB", "bytes")]
)
def test_no_figures_for_products_quotients_and_powers(text: str, unit: str) -> None:
    parsed = parse_answer(text, unit)
    assert parsed.figures is None
    assert parsed.factor == 1


def test_zero_has_no_figures() -> None:
    assert parse_answer("0", "count").figures is None


@pytest.mark.parametrize(
    ("text", "unit", "default_unit", "factor"),
    [
        ("1.3B", "params", None, 10**9),
        ("15.6 GiB", "bytes", None, 2**30),
        ("28", "s", "days", 86_400),
        ("1.6384e7", "params", None, 10**7),
        ("47.6%", "ratio", None, 0.01),
        ("52", "ratio", "%", 0.01),
        ("8 Gb", "bytes", None, 10**9 // 8),
    ],
)
def test_factor_is_what_one_of_the_typed_number_stands_for(
    text: str, unit: str, default_unit: str | None, factor: float
) -> None:
    assert parse_answer(text, unit, default_unit).factor == factor


@pytest.mark.parametrize(
    ("text", "unit", "default_unit", "value", "figures", "written"),
    [
        ("1.3B", "params", None, 1_315_723_264, 4, "1.316B"),
        ("124M", "params", None, 124_439_808, 4, "124.4M"),
        ("$1.2M", "USD", None, 1_234_567, 3, "$1.23M"),
        ("15.6 GiB", "bytes", None, 15.625 * 2**30, 4, "15.63 GiB"),
        ("1.6384e7", "params", None, 16_777_216, 6, "1.67772e7"),
        ("28", "s", "days", 2_441_406, 4, "28.26 days"),
        ("52", "ratio", "%", 0.52371, 3, "52.4%"),
        ("16,384,000", "params", None, 16_777_216, 4, "16,780,000"),
    ],
)
def test_written_in_the_way_the_answer_was(
    text: str, unit: str, default_unit: str | None, value: float, figures: int, written: str
) -> None:
    assert parse_answer(text, unit, default_unit).written(value, figures) == written


# --- right to its figures -----------------------------------------------------------------------------------


def test_right_to_compares_in_the_unit_typed() -> None:
    assert right_to(1_300_000_000, 1_315_723_264, 2)
    assert not right_to(1_300_000_000, 1_315_723_264, 3)
    # 15.625 GiB: "15.6 GiB" is it to 3 figures in GiB; in bytes (1.68e10) it is not.
    assert right_to(15.6 * 2**30, 15.625 * 2**30, 3, per_unit=2**30)
    assert not right_to(15.6 * 2**30, 15.625 * 2**30, 3)


def test_right_to_accepts_either_side_of_a_tie() -> None:
    assert right_to(1.3, 1.25, 2)
    assert right_to(1.2, 1.25, 2)  # 1.25 may be a binary 1.2499999...: both roundings count
    assert not right_to(1.1, 1.25, 2)


# --- needed_figures -----------------------------------------------------------------------------------------

GPT3_XL, GPT2 = 1_315_723_264, 124_439_808


def test_needed_figures_from_the_band() -> None:
    assert needed_figures(GPT3_XL, Tolerance("rel", 0.0005)) == 4
    assert needed_figures(GPT2, Tolerance("rel", 0.0005)) == 4
    assert needed_figures(GPT3_XL, Tolerance("rel", 0.05)) == 2
    assert needed_figures(GPT3_XL, Tolerance("rel", 0)) == 10  # every digit of an exact count
    assert needed_figures(0.476008, Tolerance("abs", 0.001)) == 3
    assert needed_figures(1_300_000_000, Tolerance("rel", 0)) == 2  # its own figures suffice


def test_needed_figures_of_an_estimate_is_none() -> None:
    assert needed_figures(GPT3_XL, Tolerance("factor", 1.5)) is None


def test_a_mistake_near_the_rounding_needs_another_figure() -> None:
    # 1.3B is inside ±5% but nearer to 1.29B (a slip) than to 1.316B: a third figure tells them apart.
    slip = Mistake("untied-head-left-out", 1.29e9, "The untied head is left out.")
    assert needed_figures(GPT3_XL, Tolerance("rel", 0.05), [slip]) == 3
    far = Mistake("far", 2.0e9, "Far away.")
    assert needed_figures(GPT3_XL, Tolerance("rel", 0.05), [far]) == 2


def test_needed_figures_per_unit() -> None:
    # 15.625 GiB within 0.05%: 15.6 GiB is 0.16% off, 15.63 GiB 0.032%: four figures, counted in GiB.
    assert needed_figures(15.625 * 2**30, Tolerance("rel", 0.0005), per_unit=2**30) == 4


def _brute_needed(expected: int | float, tolerance: Tolerance) -> int | None:
    """The oracle: the fewest figures whose Decimal rounding lies within the band (no mistakes)."""
    for figures in range(1, 18):
        rounded = _decimal_round(expected, figures)
        error = abs(rounded - Decimal(repr(expected)))
        allowed = Decimal(repr(tolerance.value)) * (
            abs(Decimal(repr(expected))) if tolerance.kind == "rel" else 1
        )
        if error <= allowed + abs(Decimal(repr(expected))) * Decimal("1e-12"):
            return figures
    return None


@given(
    st.integers(1, 10**18) | st.floats(1e-9, 1e20),
    st.sampled_from([Tolerance("rel", r) for r in (0, 0.0005, 0.001, 0.01, 0.05, 0.2)]),
)
def test_needed_figures_matches_a_decimal_oracle(expected: int | float, tolerance: Tolerance) -> None:
    assert needed_figures(expected, tolerance) == _brute_needed(expected, tolerance)


@pytest.mark.parametrize(
    ("text", "bare"), [("52", True), ("32*512", True), ("52%", False), ("1.3B", False), ("$5", False)]
)
def test_bare_is_no_unit_and_no_scale(text: str, bare: bool) -> None:
    unit = "USD" if text.startswith("$") else "ratio" if "%" in text or text == "52" else "count"
    assert parse_answer(text, unit).bare is bare
