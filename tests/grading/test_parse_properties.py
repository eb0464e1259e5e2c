"""Parser properties: what quizzer.core.units prints reads back within its rounding; no text crashes it."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import example, given
from hypothesis import strategies as st

from quizzer.core.units import (
    Unit,
    format_bytes,
    format_count,
    format_quantity,
    format_rate,
    format_sci,
    format_seconds,
    format_si,
)
from quizzer.grading import ParseError, parse_answer

positive = st.one_of(
    st.integers(1, 10**18),
    st.floats(1e-6, 1e22, allow_nan=False, allow_infinity=False),
)


def half_unit_in_last_place(digits: int) -> float:
    """The largest relative error of rounding to ``digits`` significant figures (mantissa >= 1)."""
    return 0.5 * 10 ** (1 - digits) * (1 + 1e-9)


def assert_reads_back(text: str, unit: str, value: float, digits: int) -> None:
    parsed = parse_answer(text, unit)
    assert abs(parsed.value - value) <= half_unit_in_last_place(digits) * abs(value), (text, parsed)


@given(st.integers(0, 10**15))
def test_format_count_of_an_int_reads_back_exactly(value: int) -> None:
    parsed = parse_answer(format_count(value), "params")
    assert parsed.value == value
    assert type(parsed.value) is int


@given(st.floats(1e-3, 1e15).filter(lambda v: not v.is_integer()))
def test_format_count_of_a_float_reads_back(value: float) -> None:
    assert_reads_back(format_count(value), "tokens", value, 6)


@given(positive)
def test_format_si_reads_back(value: float) -> None:
    assert_reads_back(format_si(value, 4), "params", value, 4)


@given(positive)
@example(16_384_000)
def test_format_sci_reads_back(value: float) -> None:
    assert_reads_back(format_sci(value), "FLOPs", value, 3)


@given(positive, st.booleans())
@example(16_777_216_000, True)
def test_format_bytes_reads_back(value: float, binary: bool) -> None:
    assert_reads_back(format_bytes(value, binary=binary), "bytes", value, 3)


@given(st.floats(1e-10, 1e10))
@example(3.8e6)
@example(0.0021)
def test_format_seconds_reads_back(value: float) -> None:
    assert_reads_back(format_seconds(value), "s", value, 3)


@given(positive, st.sampled_from(["FLOP/s", "bytes/s", "tokens/s"]))
def test_format_rate_reads_back(value: float, unit: str) -> None:
    assert_reads_back(format_rate(value, unit), unit, value, 3)


@given(positive, st.sampled_from(list(Unit)), st.booleans())
def test_format_quantity_reads_back_for_every_unit(value: float, unit: Unit, binary: bool) -> None:
    assert_reads_back(format_quantity(value, unit, binary=binary), unit, value, 3)


def never_raises_but_parse_error(call: Callable[[], object]) -> None:
    try:
        call()
    except ParseError:
        pass


@given(st.text(), st.sampled_from(list(Unit)))
def test_any_text_reads_or_raises_parse_error(text: str, unit: Unit) -> None:
    never_raises_but_parse_error(lambda: parse_answer(text, unit))


# Pieces of the grammar, so that random joins reach past the first character more often than text() does.
PIECES = (
    *"0123456789.,_ eE^*x×/+-$%~kMBGTbm",
    *("**", "10", "1e9", "e-", "²", "GiB", "GB", "Gb", "ms", "s", "h", "days", "FLOPs", "TFLOP/s", "MACs"),
    *("params", "tokens", "GPU hours", "about ", "million", "(", "µs"),
)
pieces = st.sampled_from(PIECES)


@given(st.lists(pieces, max_size=12).map("".join), st.sampled_from(list(Unit)))
def test_grammar_soup_reads_or_raises_parse_error(text: str, unit: Unit) -> None:
    never_raises_but_parse_error(lambda: parse_answer(text, unit))


@given(st.lists(pieces, max_size=8).map("".join), st.sampled_from(list(Unit)))
def test_what_reads_has_a_finite_value_and_a_reading(text: str, unit: Unit) -> None:
    try:
        parsed = parse_answer(text, unit)
    except ParseError:
        return
    assert parsed.unit == unit
    assert abs(parsed.value) < 1e301
    assert parsed.reading
