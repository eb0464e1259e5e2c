"""The imprecise verdict: right to the figures typed, short of the figures the question needs."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from quizzer.grading import (
    VERDICTS,
    GradeContext,
    Mistake,
    Tolerance,
    builtin_mistakes,
    grade,
    is_within,
    needed_figures,
    round_figures,
)

GPT3_XL, GPT2 = 1_315_723_264, 124_439_808
COUNT_BAND = Tolerance("rel", 0.0005)


def test_imprecise_sits_between_correct_and_close() -> None:
    assert VERDICTS == ("exact", "correct", "imprecise", "close", "wrong", "unparsed")


def test_gpt3_xl_to_two_figures_is_imprecise() -> None:
    verdict = grade("1.3B", GPT3_XL, "params", COUNT_BAND)
    assert verdict.kind == "imprecise"
    assert (verdict.figures, verdict.needed_figures) == (2, 4)
    assert verdict.mistake is None
    assert verdict.feedback == (
        "1.3B is right to 2 significant figures; this question needs 4 (1.316B): the band is ±0.05%."
    )
    assert verdict.message.endswith(f": imprecise; {verdict.feedback}")


def test_gpt2_to_three_figures_is_imprecise() -> None:
    verdict = grade("124M", GPT2, "params", COUNT_BAND)
    assert verdict.kind == "imprecise"
    assert "right to 3 significant figures" in str(verdict.feedback)
    assert "needs 4 (124.4M)" in str(verdict.feedback)


def test_enough_figures_are_correct_and_a_wrong_rounding_is_not_imprecise() -> None:
    assert grade("1.316B", GPT3_XL, "params", COUNT_BAND).kind == "correct"
    assert grade("1.4B", GPT3_XL, "params", COUNT_BAND).kind == "wrong"  # 1.3B to 2 figures, not 1.4B
    assert grade("1.3161B", GPT3_XL, "params", COUNT_BAND).kind == "correct"  # more figures than needed
    assert grade("1.317B", GPT3_XL, "params", COUNT_BAND).kind == "close"  # 4 figures, the last one wrong


def test_three_figures_of_gpt3_xl_are_imprecise_too() -> None:
    verdict = grade("1.32B", GPT3_XL, "params", COUNT_BAND)
    assert verdict.kind == "imprecise"
    assert "needs 4 (1.316B)" in str(verdict.feedback)


def test_one_figure_is_singular() -> None:
    verdict = grade("1B", GPT3_XL, "params", COUNT_BAND)
    assert verdict.kind == "imprecise"
    assert str(verdict.feedback).startswith("1B is right to 1 significant figure;")


def test_the_needed_value_is_written_the_way_the_answer_was() -> None:
    assert "(1.316 billion)" in str(grade("1.3 billion", GPT3_XL, "params", COUNT_BAND).feedback)
    assert "(1,316,000,000)" in str(grade("1,300,000,000", GPT3_XL, "params", COUNT_BAND).feedback)
    assert "(1.316e9)" in str(grade("1.3e9", GPT3_XL, "params", COUNT_BAND).feedback)
    # In GiB, counted in GiB: 15.625 GiB needs 15.63 GiB at ±0.05%.
    verdict = grade("15.6 GiB", 15.625 * 2**30, "bytes", COUNT_BAND, context=GradeContext("GB"))
    assert verdict.kind == "imprecise"
    assert "needs 4 (15.63 GiB)" in str(verdict.feedback)
    # A bare number in the display unit.
    verdict = grade("28", 28.26 * 86400, "s", Tolerance("rel", 0.001), context=GradeContext("days"))
    assert verdict.kind == "imprecise"
    assert "28 days is right to 2 significant figures; this question needs 4 (28.26 days)" in str(
        verdict.feedback
    )


def test_the_mistake_that_needs_the_figure_is_named() -> None:
    # ±0.5%: 1.32B is inside the band, but nearer to the slip at 1.322B: a fourth figure is needed.
    slip = Mistake("embeddings-twice", 1.322e9, "The embeddings are counted twice.", "Embeddings twice")
    verdict = grade("1.3B", GPT3_XL, "params", Tolerance("rel", 0.005), [slip])
    assert verdict.kind == "imprecise"
    assert verdict.feedback == (
        "1.3B is right to 2 significant figures; this question needs 4 (1.316B) to tell it from "
        "“Embeddings twice”."
    )
    assert grade("1.3B", GPT3_XL, "params", Tolerance("rel", 0.005)).needed_figures == 3  # without it


def test_the_mistake_the_answer_matches_is_named() -> None:
    slip = Mistake("untied-head-left-out", 1.2995e9, "The untied head is left out.")  # no title
    verdict = grade("1.3B", GPT3_XL, "params", Tolerance("rel", 0.005), [slip])
    assert verdict.kind == "imprecise"
    assert str(verdict.feedback).endswith("needs 3 (1.32B) to tell it from “Untied head left out”.")


def test_an_exact_band_says_so() -> None:
    verdict = grade("124.4M", GPT2, "params", Tolerance("rel", 0))
    assert verdict.kind == "imprecise"
    assert str(verdict.feedback).endswith("needs 9 (124.439808M): it asks for the exact value.")


def test_an_abs_band_is_stated_in_the_display_unit() -> None:
    verdict = grade("48", 0.476008, "ratio", Tolerance("abs", 0.001), context=GradeContext("%"))
    assert verdict.kind == "imprecise"
    assert str(verdict.feedback).endswith("needs 3 (47.6%): the band is ±0.1%.")


def test_estimates_are_never_imprecise() -> None:
    # 1e9 is 1.3B to one figure, and outside ×1.2: wrong (or close), never imprecise.
    verdict = grade("1B", GPT3_XL, "params", Tolerance("factor", 1.2))
    assert verdict.kind == "close"
    assert verdict.needed_figures is None


def test_a_one_figure_slip_is_imprecise_and_names_the_slip() -> None:
    # 2 TB expected: "2 TiB" is 1.82 TiB to one figure, and the TB figure labelled TiB as well.
    verdict = grade("2 TiB", 2 * 10**12, "bytes", Tolerance("rel", 0.01))
    assert verdict.kind == "imprecise"
    assert "(1.82 TiB) to tell it from “TB read as TiB”" in str(verdict.feedback)


# --- properties ---------------------------------------------------------------------------------------------

expected_values = st.one_of(st.integers(1, 10**15), st.floats(1e-6, 1e20))
units = st.sampled_from(["params", "count", "FLOPs", "s", "bytes", "ratio", "USD"])
bands = st.one_of(
    st.sampled_from([Tolerance("rel", r) for r in (0.0, 0.0005, 0.001, 0.01, 0.05)]),
    st.builds(lambda f: f, st.sampled_from([0.0005, 0.01, 0.05])),  # an abs band: a fraction of expected
)


def _typed(value: int | float, figures: int) -> str:
    """``value`` (already rounded) typed with exactly ``figures`` significant figures: "1.30e+9"."""
    return format(Decimal(repr(value)), f".{figures - 1}e")


def _tolerance(band: Tolerance | float, expected: int | float) -> Tolerance:
    return band if isinstance(band, Tolerance) else Tolerance("abs", band * expected)


@given(expected_values, units, bands)
def test_rounded_to_the_needed_figures_is_correct(
    expected: int | float, unit: str, band: Tolerance | float
) -> None:
    tolerance = _tolerance(band, expected)
    needed = needed_figures(expected, tolerance, builtin_mistakes(expected, unit, tolerance=tolerance))
    assert needed is not None
    rounded = round_figures(expected, needed)
    assert grade(_typed(rounded, needed), expected, unit, tolerance).kind in ("exact", "correct")


@given(expected_values, units, bands, st.data())
def test_rounded_to_fewer_figures_is_imprecise_never_wrong(
    expected: int | float, unit: str, band: Tolerance | float, data: st.DataObject
) -> None:
    tolerance = _tolerance(band, expected)
    needed = needed_figures(expected, tolerance, builtin_mistakes(expected, unit, tolerance=tolerance))
    assert needed is not None
    assume(needed > 1)  # one figure needed: there is nothing fewer to type
    figures = data.draw(st.integers(1, needed - 1), label="figures")  # drawn below the need, not filtered
    rounded = round_figures(expected, figures)
    verdict = grade(_typed(rounded, figures), expected, unit, tolerance)
    if is_within(rounded, expected, tolerance):  # a slip nearby needs the figure: inside the band is correct
        assert verdict.kind == "correct"
    else:
        assert verdict.kind == "imprecise"
        assert verdict.needed_figures == needed
        assert f"needs {needed} (" in str(verdict.feedback)


@given(expected_values, units, st.sampled_from([1.2, 1.5, 2.0, 3.0]), st.integers(1, 3))
def test_factor_tolerances_never_give_imprecise(
    expected: int | float, unit: str, factor: float, figures: int
) -> None:
    rounded = round_figures(expected, figures)
    for answer in (_typed(rounded, figures), _typed(round_figures(rounded * factor**2, figures), figures)):
        verdict = grade(answer, expected, unit, Tolerance("factor", factor))
        assert verdict.kind != "imprecise"
        assert verdict.needed_figures is None


@pytest.mark.parametrize(("answer", "kind"), [("1.3B", "imprecise"), ("1.31B", "close"), ("2B", "wrong")])
def test_imprecise_needs_the_right_rounding(answer: str, kind: str) -> None:
    assert grade(answer, GPT3_XL, "params", COUNT_BAND).kind == kind


def test_a_relative_band_on_a_percent_question_is_not_percentage_points() -> None:
    verdict = grade("48", 0.476008, "ratio", Tolerance("rel", 0.001), context=GradeContext("%"))
    assert str(verdict.feedback).endswith("needs 3 (47.6%): the band is ±0.1% of the value.")


def test_a_listed_mistake_at_the_figures_typed_wins_over_imprecise() -> None:
    """``scaling-chinchilla-fitted-optimum`` part 3: "0.5" is a listed mistake (the rounded exponent), yet
    it was graded "imprecise (right to 1 s.f.)" and its feedback withheld."""
    from quizzer.grading.grade import Mistake, Tolerance, grade

    half = Mistake(
        "rounded-exponent", 0.5, "You took the exponent as 0.5: the fit gives 0.4565.", "Exponent 0.5"
    )
    band = Tolerance("rel", 0.001)
    verdict = grade("0.5", 0.4565, "ratio", band, [half])
    assert (verdict.kind, verdict.mistake) == ("wrong", "rounded-exponent")
    assert verdict.feedback == half.feedback
    assert grade("0.46", 0.4565, "ratio", band, [half]).kind == "imprecise"  # a rounding of the answer
    assert grade("0.5", 0.4565, "ratio", band).kind == "imprecise"  # no mistake lists it: a rounding
