"""The verdict line in the question's unit: format_in and Verdict.summary."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.grading import GradeContext, Tolerance, format_in, grade, parse_answer

REL_1 = Tolerance("rel", 0.01)


@pytest.mark.parametrize(
    ("value", "unit", "display", "figures", "text"),
    [
        (2_441_406, "s", "days", None, "28.26 days"),
        (41.4e9, "bytes", "GB", None, "41.4 GB"),
        (0.476008, "ratio", "%", None, "47.6%"),
        (15.625 * 2**30, "bytes", "GiB", None, "15.63 GiB"),
        (0.0021, "s", "ms", None, "2.1 ms"),
        (312e12, "FLOP/s", "TFLOP/s", None, "312 TFLOP/s"),
        (1_315_723_264, "params", "B", None, "1.316B"),
        (124_439_808, "params", "M", 9, "124.439808M"),
        (16.384, "s", "ms", None, "16,384 ms"),  # a whole number keeps its digits
        (3e15, "bytes", "GB", None, "3e6 GB"),
        (16_384_000, "params", None, None, "16,384,000 params"),  # no display unit: today's base-unit text
        (0.25, "ratio", None, None, "0.25"),
    ],
)
def test_format_in(value: float, unit: str, display: str | None, figures: int | None, text: str) -> None:
    assert format_in(value, unit, display, figures) == text


PAIRS = [("bytes", "GB"), ("bytes", "GiB"), ("bytes", "KiB"), ("s", "days"), ("s", "ms"), ("s", "µs")]
PAIRS += [("ratio", "%"), ("params", "B"), ("params", "M"), ("FLOP/s", "TFLOP/s"), ("FLOPs", "GFLOPs")]


@given(
    st.sampled_from(PAIRS),
    st.floats(1e-3, 1e18),
    st.integers(1, 8),
)
def test_format_in_reads_back(unit_display: tuple[str, str], value: float, figures: int) -> None:
    unit, display = unit_display
    text = format_in(value, unit, display, figures)
    assert parse_answer(text, unit).value == pytest.approx(value, rel=0.5 * 10 ** (1 - figures))


def test_the_verdict_line_speaks_in_days() -> None:
    verdict = grade("28", 2_441_406, "s", REL_1, context=GradeContext("days"))
    assert verdict.summary == "read as 28 days; expected 28.26 days (0.91% off)"


def test_the_verdict_line_speaks_in_gb_and_percent() -> None:
    assert grade("41", 41.4e9, "bytes", REL_1, context=GradeContext("GB")).summary == (
        "read as 41 GB; expected 41.4 GB (0.97% off)"
    )
    assert grade("47.6", 0.476008, "ratio", REL_1, context=GradeContext("%")).summary == (
        "read as 47.6%; expected 47.6% (0.0017% off)"
    )


def test_another_unit_is_shown_in_the_display_unit_too() -> None:
    verdict = grade("15.6 GiB", 15.6e9, "bytes", REL_1, context=GradeContext("GB"))
    assert verdict.summary == "read as 15.6 GiB = 16.75 GB; expected 15.6 GB (7.4% off)"
    verdict = grade("32*512", 16.384, "s", REL_1, context=GradeContext("ms"))
    assert verdict.summary == "read as 32*512 ms = 16,384 ms; expected 16,384 ms"


def test_the_reading_notes_stay() -> None:
    verdict = grade("5 gb", 5e9, "bytes", REL_1, context=GradeContext("GB"))
    assert verdict.summary == "read as 5 gb ('gb' read as GB); expected 5 GB"


def test_an_exact_count_shows_every_figure_it_needs() -> None:
    verdict = grade("124.4", 124_439_808, "params", Tolerance("rel", 0), context=GradeContext("M"))
    assert verdict.summary.startswith("read as 124.4M; expected 124.439808M (")


def test_without_a_display_unit_the_line_is_in_the_base_unit() -> None:
    verdict = grade("16.4M", 16_384_000, "params", REL_1)
    assert verdict.summary == "read as 16,400,000 params; expected 16,384,000 params (0.098% off)"
