"""grade(): verdict bands, built-in and template mistakes, messages, and ordering properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.grading import (
    VERDICTS,
    GradeContext,
    Mistake,
    ParseError,
    Tolerance,
    builtin_mistakes,
    grade,
    is_within,
    parse_answer,
    tolerance_band,
)

REL_1 = Tolerance("rel", 0.01)
EXACT = Tolerance("rel", 0)

# --- tolerances ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value"), [("relative", 0.1), ("rel", -0.1), ("abs", math.nan), ("factor", 1), ("factor", 0.5)]
)
def test_bad_tolerances_are_spec_errors(kind: str, value: float) -> None:
    with pytest.raises(SpecError):
        Tolerance(kind, value)


def test_tolerance_band() -> None:
    assert tolerance_band(200, Tolerance("rel", 0.1)) == pytest.approx((180, 220))
    assert tolerance_band(200, Tolerance("abs", 5)) == (195, 205)
    assert tolerance_band(200, Tolerance("factor", 4)) == (50, 800)
    assert tolerance_band(-200, Tolerance("factor", 4)) == (-800, -50)


def test_is_within_includes_the_edges_despite_binary_rounding() -> None:
    assert is_within(0.33, 0.3, Tolerance("rel", 0.1))  # 0.33 - 0.3 is 0.030000000000000027 in floats
    assert is_within(0.27, 0.3, Tolerance("rel", 0.1))
    assert not is_within(0.331, 0.3, Tolerance("rel", 0.1))
    assert is_within(2.5, 10, Tolerance("factor", 4))
    assert not is_within(2.4, 10, Tolerance("factor", 4))
    assert is_within(105, 100, Tolerance("abs", 5))
    assert not is_within(105.1, 100, Tolerance("abs", 5))


# --- verdict kinds ------------------------------------------------------------------------------------------


def test_exact() -> None:
    verdict = grade("16,384,000", 16_384_000, "params", EXACT)
    assert verdict.kind == "exact"
    assert verdict.rel_error == 0
    assert verdict.message == "read as 16,384,000 params; expected 16,384,000 params: exact"


def test_correct_message() -> None:
    verdict = grade("16.4M", 16_384_000, "params", REL_1)
    assert verdict.kind == "correct"
    assert verdict.rel_error == pytest.approx(16_000 / 16_384_000)
    assert verdict.message == "read as 16,400,000 params; expected 16,384,000 params (0.098% off): correct"
    assert verdict.given == parse_answer("16.4M", "params")


def test_close_is_five_tolerances_for_rel() -> None:
    assert grade("104", 100, "count", REL_1).kind == "close"  # 4% with a 1% tolerance
    assert grade("95.5", 100, "count", REL_1).kind == "close"
    assert grade("106", 100, "count", REL_1).kind == "wrong"


def test_close_has_a_one_percent_floor_for_exact_counts() -> None:
    assert grade("124,439,000", 124_439_808, "params", EXACT).kind == "close"
    assert grade("124.5M", 124_439_808, "params", EXACT).kind == "close"  # "124.4M" is imprecise
    assert grade("119M", 124_439_808, "params", EXACT).kind == "wrong"  # "120M" is imprecise


def test_close_is_the_square_of_a_factor() -> None:
    tolerance = Tolerance("factor", 3)
    assert grade("2.9e9", 1e9, "FLOPs", tolerance).kind == "correct"
    assert grade("8.9e9", 1e9, "FLOPs", tolerance).kind == "close"
    assert grade("1.2e8", 1e9, "FLOPs", tolerance).kind == "close"
    assert grade("9.1e9", 1e9, "FLOPs", tolerance).kind == "wrong"


def test_close_for_abs() -> None:
    tolerance = Tolerance("abs", 0.01)
    assert grade("0.41", 0.4, "ratio", tolerance).kind == "correct"
    assert grade("0.44", 0.4, "ratio", tolerance).kind == "close"
    assert grade("0.46", 0.4, "ratio", tolerance).kind == "wrong"


def test_float_expected_is_exact_to_1e_12() -> None:
    assert grade("0.3", 0.1 + 0.2, "ratio", EXACT).kind == "exact"
    assert grade("0.3000001", 0.3, "ratio", Tolerance("rel", 0.01)).kind == "correct"


def test_int_expected_is_exact_only_when_equal() -> None:
    assert grade("1000000000000001", 10**15, "params", REL_1).kind == "correct"


def test_unparsed_carries_the_parse_message() -> None:
    with pytest.raises(ParseError) as info:
        parse_answer("16 GB", "params")
    verdict = grade("16 GB", 7e9, "params", REL_1)
    assert verdict.kind == "unparsed"
    assert verdict.message == info.value.message
    assert (verdict.given, verdict.rel_error, verdict.mistake, verdict.feedback) == (None, None, None, None)


def test_approximate_answers_are_graded_by_value() -> None:
    assert grade("~7B", 7e9, "params", REL_1).kind == "exact"


def test_default_unit_reaches_the_parser() -> None:
    verdict = grade("3", 259_200, "s", REL_1, default_unit="days")
    assert verdict.kind == "exact"
    assert verdict.given is not None
    assert verdict.given.reading == "3 days = 259,200 s"
    assert verdict.message == "read as 3 days; expected 3 days: exact"  # the line speaks in days


def test_far_answers_show_a_ratio() -> None:
    assert "(1,000× the expected value)" in grade("7T", 7e9, "params", REL_1).message


# --- built-in mistakes --------------------------------------------------------------------------------------

GIB_16_000 = 16_777_216_000  # 16,000 MiB: 16.78 GB or 15.625 GiB


@pytest.mark.parametrize("answer", ["15.6 GB", "15.625 GB", "16.78 GiB", "16.777 GiB"])
def test_gb_vs_gib(answer: str) -> None:
    verdict = grade(answer, GIB_16_000, "bytes", REL_1)
    assert verdict.kind == "wrong"
    assert verdict.mistake == "gb-vs-gib"
    assert verdict.feedback
    assert verdict.feedback in verdict.message


def test_gb_vs_gib_directions_have_their_own_feedback() -> None:
    labelled_gb = grade("15.6 GB", GIB_16_000, "bytes", REL_1).feedback
    labelled_gib = grade("16.78 GiB", GIB_16_000, "bytes", REL_1).feedback
    assert labelled_gb != labelled_gib
    assert "GiB figure labelled GB" in str(labelled_gb)


def test_gb_vs_gib_uses_the_typed_prefix() -> None:
    # 2 TB expected; 2.0 TiB is 2.2e12 bytes (10% off): the TB/TiB gap, not the GB/GiB one.
    # ("2 TiB" itself is 1.82 TiB rounded to one figure: imprecise, see test_grade_figures.py.)
    assert grade("2.0 TiB", 2 * 10**12, "bytes", REL_1).mistake == "gb-vs-gib"
    assert grade("1.82 TB", 2 * 10**12, "bytes", REL_1).mistake == "gb-vs-gib"


def test_gb_vs_gib_on_bandwidth() -> None:
    # 2 TiB/s expected; "2.0 TB/s" is the TiB figure labelled TB (1.82 TiB/s, 9% low). ("2 TB/s" is
    # 2.2 TB/s rounded to one figure: imprecise.)
    assert grade("2.0 TB/s", 2 * 2**40, "bytes/s", REL_1).mistake == "gb-vs-gib"


def test_dtype_slips_need_the_instance_dtype() -> None:
    bf16 = GradeContext(dtype="bf16")
    assert grade("28 GB", 14e9, "bytes", REL_1, context=bf16).mistake == "fp32-for-bf16"
    assert grade("7 GB", 14e9, "bytes", REL_1, context=bf16).mistake == "fp8-for-bf16"
    assert grade("3.5 GB", 14e9, "bytes", REL_1, context=bf16).mistake is None  # ×0.25 is not a known slip
    assert grade("28 GB", 14e9, "bytes", REL_1).mistake is None  # no dtype: no dtype slip


@pytest.mark.parametrize(
    ("answer", "unit", "name"),
    [
        ("7T", "params", "factor-1000"),
        ("7M", "params", "factor-1000"),
        ("2.1 s", "s", "time-unit"),
        ("2.1 µs", "s", "time-unit"),
    ],
)
def test_factor_1000(answer: str, unit: str, name: str) -> None:
    # On a time, 1000× is a slip of one unit to the next (the ms figure labelled s): named as such.
    expected = 7e9 if unit == "params" else 0.0021
    assert grade(answer, expected, unit, REL_1).mistake == name


def test_mac_vs_flop() -> None:
    assert grade("7e9", 14e9, "FLOPs", REL_1).mistake == "mac-vs-flop"
    assert grade("28e9", 14e9, "FLOPs", REL_1).mistake == "mac-vs-flop"
    assert grade("14e9", 7e9, "MACs", REL_1).mistake == "mac-vs-flop"
    assert grade("14e9", 7e9, "params", REL_1).mistake is None  # no factor-2 slip for counts


def test_per_layer() -> None:
    whole, layers = 85_054_464, 12
    one_layer = grade("7,087,872", whole, "params", EXACT, n_layers=layers)
    assert one_layer.mistake == "per-layer"
    assert "12 layers" in str(one_layer.feedback)
    per_layer = GradeContext(layers=layers, per_layer_question=True)
    assert grade("85,054,464", 7_087_872, "params", EXACT, context=per_layer).mistake == "per-layer"
    # The whole stack is no slip on a whole-model question, one layer none on a per-layer question.
    assert grade("85,054,464", 7_087_872, "params", EXACT, n_layers=layers).mistake is None
    assert grade("7,087,872", whole, "params", EXACT, context=per_layer).mistake is None
    assert grade("7,087,872", whole, "params", EXACT).mistake is None


def test_no_mistake_for_a_correct_answer() -> None:
    # 2× is inside a factor-4 tolerance: correct, so no mac-vs-flop mistake is reported.
    verdict = grade("2e9", 1e9, "FLOPs", Tolerance("factor", 4))
    assert (verdict.kind, verdict.mistake) == ("correct", None)


def test_factor_tolerance_matches_a_mistake_only_when_nearer_to_it() -> None:
    tolerance = Tolerance("factor", 3)
    assert grade("8e11", 1e9, "params", tolerance).mistake == "factor-1000"  # 1.25× from 1e12
    assert grade("3e10", 1e9, "params", tolerance).mistake is None  # 33× from 1e12: not within ×3
    # 5e8 is within ×3 of the fp32-vs-bf16 value 5e8... but the answer is correct (2× off, factor 3).
    assert grade("5e8", 1e9, "bytes", tolerance).mistake is None


def test_builtin_mistake_values() -> None:
    context = GradeContext(dtype="bf16", layers=4)
    names = {(m.name, m.value) for m in builtin_mistakes(1000, "bytes", context, typed_unit="KiB")}
    assert ("gb-vs-gib", 1000 * 1024 / 1000) in names  # the kB figure labelled KiB
    assert ("fp32-for-bf16", 2000) in names
    assert ("per-layer", 250.0) in names
    names = {(m.name, m.value) for m in builtin_mistakes(1000, "bytes", context, typed_unit="kB")}
    assert ("gb-vs-gib", 1000 * 1000 / 1024) in names  # the KiB figure labelled kB
    assert not any(m.name == "mac-vs-flop" for m in builtin_mistakes(1000, "bytes"))


# --- template mistakes --------------------------------------------------------------------------------------


def test_template_mistakes_come_before_builtin_ones() -> None:
    kv_bytes = 1_073_741_824
    forgot_k_and_v = Mistake("no-kv-doubling", kv_bytes / 2, "K and V are both cached: multiply by 2")
    verdict = grade("0.5 GiB", kv_bytes, "bytes", REL_1, [forgot_k_and_v])
    assert verdict.mistake == "no-kv-doubling"  # also ×0.5, which fp32-vs-bf16 would claim
    assert verdict.feedback == "K and V are both cached: multiply by 2"
    assert verdict.message.endswith("; K and V are both cached: multiply by 2")


def test_the_nearest_template_mistake_wins() -> None:
    mistakes = [Mistake("far", 105, "far"), Mistake("near", 103, "near")]
    assert grade("103.5", 100, "count", Tolerance("rel", 0.03), mistakes).mistake == "near"


def test_a_template_mistake_needs_the_answer_within_tolerance() -> None:
    mistakes = [Mistake("heads-not-kv-heads", 8e9, "use n_kv_heads")]
    assert grade("8.5e9", 1e9, "bytes", REL_1, mistakes).mistake is None
    assert grade("8.05e9", 1e9, "bytes", REL_1, mistakes).mistake == "heads-not-kv-heads"


def test_a_mistake_must_be_nearer_than_the_expected_value() -> None:
    # rel 0.5 around 300 reaches down to 150, but 160 is 60 from 100 and 140 from 300: not that mistake.
    mistakes = [Mistake("tripled", 300, "counted three times")]
    verdict = grade("160", 100, "count", Tolerance("rel", 0.5), mistakes)
    assert (verdict.kind, verdict.mistake) == ("close", None)
    assert grade("260", 100, "count", Tolerance("rel", 0.5), mistakes).mistake == "tripled"


def test_bad_mistakes_are_spec_errors() -> None:
    with pytest.raises(SpecError):
        Mistake("", 1, "x")
    with pytest.raises(SpecError):
        Mistake("nan", math.inf, "x")


# --- properties ---------------------------------------------------------------------------------------------

units = st.sampled_from(["params", "bytes", "s", "FLOPs", "ratio", "USD", "count", "FLOP/s"])
expected_values = st.one_of(st.integers(1, 10**15), st.floats(1e-6, 1e20))
tolerances = st.one_of(
    st.builds(Tolerance, st.just("rel"), st.sampled_from([0.0, 0.001, 0.01, 0.05, 0.2])),
    st.builds(Tolerance, st.just("factor"), st.sampled_from([1.5, 2.0, 3.0, 10.0])),
)
RANK = {kind: i for i, kind in enumerate(VERDICTS)}


@given(expected_values, units, tolerances)
def test_an_answer_equal_to_the_expected_value_is_exact(
    expected: float, unit: str, tolerance: Tolerance
) -> None:
    assert grade(repr(expected), expected, unit, tolerance).kind == "exact"


def _error(value: float, expected: float, tolerance: Tolerance) -> float:
    if tolerance.kind == "factor":
        return abs(math.log(value / expected))
    return abs(value - expected)


@given(
    expected_values,
    units,
    tolerances,
    st.floats(-0.99, 5),
    st.floats(-0.99, 5),
)
def test_a_larger_error_never_earns_a_better_verdict(
    expected: float, unit: str, tolerance: Tolerance, a: float, b: float
) -> None:
    first, second = expected * (1 + a), expected * (1 + b)
    assume(first > 0 and second > 0)
    kind_first = grade(repr(first), expected, unit, tolerance).kind
    kind_second = grade(repr(second), expected, unit, tolerance).kind
    # An imprecise answer is the expected value rounded: right at its figures however far off, so it is not
    # ordered by the error (1B for 1.316B is imprecise, 1.2B wrong).
    assume("imprecise" not in (kind_first, kind_second))
    if _error(first, expected, tolerance) < _error(second, expected, tolerance):
        assert RANK[kind_first] <= RANK[kind_second]


@given(expected_values, units, st.sampled_from([0.001, 0.01, 0.05, 0.2]), st.floats(-0.99, 0.99))
def test_inside_a_rel_band_is_correct_and_outside_three_bands_is_not(
    expected: float, unit: str, rel: float, u: float
) -> None:
    tolerance = Tolerance("rel", rel)
    assert grade(repr(expected * (1 + u * rel)), expected, unit, tolerance).kind in ("exact", "correct")
    for far in (expected * (1 + 3 * rel * (1 + abs(u))), expected * (1 - 3 * rel * (1 + abs(u)))):
        if far > 0:  # typed answers are positive
            assert grade(repr(far), expected, unit, tolerance).kind in ("imprecise", "close", "wrong")


@given(expected_values, units, st.sampled_from([1.5, 2.0, 3.0, 10.0]), st.floats(-0.99, 0.99))
def test_inside_a_factor_band_is_correct_and_outside_three_bands_is_not(
    expected: float, unit: str, factor: float, u: float
) -> None:
    tolerance = Tolerance("factor", factor)
    inside = expected * factor**u
    assert grade(repr(inside), expected, unit, tolerance).kind in ("exact", "correct")
    for far in (expected * factor ** (3 + abs(u)), expected / factor ** (3 + abs(u))):
        assert grade(repr(far), expected, unit, tolerance).kind == "wrong"  # beyond f² (close)


@given(expected_values, st.sampled_from([0.01, 0.1]), st.floats(0, 0.99))
def test_inside_an_abs_band_is_correct(expected: float, fraction: float, u: float) -> None:
    tolerance = Tolerance("abs", fraction * expected)
    assert grade(repr(expected + u * tolerance.value), expected, "s", tolerance).kind in ("exact", "correct")
    far = grade(repr(expected + 3 * tolerance.value), expected, "s", tolerance)
    assert far.kind in ("imprecise", "close", "wrong")


@given(expected_values, units, tolerances, st.text(max_size=20))
def test_any_text_gets_a_verdict(expected: float, unit: str, tolerance: Tolerance, answer: str) -> None:
    verdict = grade(answer, expected, unit, tolerance, n_layers=4)
    assert verdict.kind in VERDICTS
    assert verdict.message
