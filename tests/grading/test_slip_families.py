"""Slip families (#25 class 9): every mistake has one; the answer's named factors make their slips.

Worked by hand: a bf16 KV cache of 2 GiB = 2,147,483,648 bytes; without the ×2 for K and V it is 1 GiB,
at fp8's 1 byte per value 1 GiB too (the grader names both), with 32 query heads for 8 KV heads 8 GiB.
32,000 × 512 = 16,384,000 parameters, "16.4" bare; GPT-2 XL-like 1,188,721,600 parameters, "1.19" bare.
"""

from __future__ import annotations

import pytest

from quizzer.core.trace import Factor, tags
from quizzer.grading.grade import GradeContext, Mistake, Tolerance, grade
from quizzer.grading.slip_families import FAMILIES, family_of
from quizzer.grading.slips import builtin_mistakes, slips

GIB = 2**30
REL_1 = Tolerance("rel", 0.01)
#: The factors of a bf16 KV cache's last step (kv_cache_bytes: 2 × 32 × 8 × 128 × 2 × 4,096 × 2 = 2 GiB).
KV = (*tags(kv=2, layers=32, kv_heads=8, head_dim=128), Factor("bytes_per_value", 2, None, "bf16"))
KV_CONTEXT = GradeContext("GiB", "bf16", 32, None, False, (*KV, *tags(tokens=4096, batch=2)))


def test_every_built_in_slip_has_a_family_its_name_tells() -> None:
    context = GradeContext("GiB", "bf16", 32, None, False, KV_CONTEXT.factors)
    found = slips(2 * GIB, "bytes", context, tolerance=REL_1) + slips(1e15, "FLOPs", tolerance=REL_1)
    found += slips(16_384_000, "params", tolerance=REL_1) + slips(0.4, "ratio", GradeContext("%"))
    found += slips(GIB, "bytes", GradeContext(factors=tags(kv_heads=(8, 32))), tolerance=REL_1)
    assert {s.family for s in found} == set(FAMILIES) - {"own"}
    for slip in found:
        assert family_of(slip.name) == slip.family, slip.name
        assert slip.mistake().family == slip.family
    assert family_of("untied-head-left-out") is None
    assert family_of("bf16-for-fp8") == "dtype"
    assert family_of("cats-for-dogs") is None


def test_k_and_v_forgotten_comes_first_and_names_the_dtype_that_gives_the_same() -> None:
    verdict = grade("1 GiB", 2 * GIB, "bytes", REL_1, context=KV_CONTEXT)
    assert (verdict.mistake, verdict.mistake_title, verdict.mistake_family) == (
        "kv-pair-forgotten",
        "K and V ×2 forgotten",
        "kv-pair",
    )
    assert "×2 for K and V is missing" in str(verdict.feedback)
    assert "another slip: fp8 bytes for bf16" in str(verdict.feedback)
    twice = grade("4 GiB", 2 * GIB, "bytes", REL_1, context=KV_CONTEXT)
    assert (twice.mistake_title, twice.mistake_family) == ("fp32 bytes for bf16", "dtype")
    assert "K and V counted twice" in str(twice.feedback)


def test_without_the_factor_there_is_no_k_and_v_slip() -> None:
    plain = GradeContext("GiB", "bf16", 32)
    assert grade("1 GiB", 2 * GIB, "bytes", REL_1, context=plain).mistake_family == "dtype"
    assert "kv-pair" not in {m.family for m in builtin_mistakes(2 * GIB, "bytes", plain, tolerance=REL_1)}


def test_query_heads_for_kv_heads_needs_the_query_heads() -> None:
    known = GradeContext("GiB", None, None, None, False, tags(kv=2, kv_heads=(8, 32), head_dim=128))
    verdict = grade("8 GiB", 2 * GIB, "bytes", REL_1, context=known)
    assert (verdict.mistake_title, verdict.mistake_family) == ("Query heads for the KV heads", "kv-heads")
    assert verdict.feedback == (
        "4× the answer: that uses the 32 query heads, but keys and values have 8 heads here (grouped-query "
        "attention shares each among query heads)."
    )
    unknown = GradeContext("GiB", None, None, None, False, tags(kv=2, kv_heads=8))
    assert grade("8 GiB", 2 * GIB, "bytes", REL_1, context=unknown).mistake_family is None
    mha = GradeContext("GiB", None, None, None, False, tags(kv_heads=(32, 32)))
    assert "kv-heads" not in {m.family for m in builtin_mistakes(2 * GIB, "bytes", mha)}


def test_one_layer_for_all_from_a_layers_factor() -> None:
    context = GradeContext(None, None, None, None, False, tags(layers=61))
    verdict = grade("1152 bytes", 70_272, "bytes", REL_1, context=context)
    assert (verdict.mistake_title, verdict.mistake_family) == ("One layer for all", "per-layer")
    assert verdict.feedback == "That is one layer's worth: multiply by the 61 layers."


def test_a_dtype_factor_on_a_time_names_the_dtype() -> None:
    context = GradeContext("ms", None, None, None, False, (Factor("bytes_per_value", 1, None, "fp8"),))
    verdict = grade("14 ms", 0.007, "s", REL_1, context=context)
    assert (verdict.mistake_title, verdict.mistake_family) == ("bf16 bytes for fp8", "dtype")
    assert grade("14 ms", 0.007, "s", REL_1, context=GradeContext("ms")).mistake_family is None


def test_macs_for_flops_on_a_time_only_with_the_factor() -> None:
    context = GradeContext("h", None, None, None, False, tags(flops_per_mac=2, passes=3))
    verdict = grade("50", 100 * 3600, "s", REL_1, context=context)
    assert (verdict.mistake_title, verdict.mistake_family) == ("MACs for FLOPs", "macs-flops")
    assert grade("50", 100 * 3600, "s", REL_1, context=GradeContext("h")).mistake_family is None


@pytest.mark.parametrize(
    ("answer", "expected", "tolerance", "shown"),
    [
        ("16.4", 16_384_000, REL_1, "16.38M"),
        ("1.19", 1_188_721_600, Tolerance("rel", 0.0005), "1.189B"),  # matched at the 3 figures typed
        ("1189", 1_188_721_600, Tolerance("rel", 0.0005), "1,189M"),
        ("3.12", 3.12e14, REL_1, "312T"),
    ],
)
def test_a_bare_number_without_its_scale_word(
    answer: str, expected: float, tolerance: Tolerance, shown: str
) -> None:
    unit = "FLOP/s" if expected == 3.12e14 else "params"
    verdict = grade(answer, expected, unit, tolerance)
    if answer == "3.12":  # 312 T is the answer; 3.12 is neither 312 nor 0.312 T: no scale word names it
        assert verdict.mistake_family != "scale-word"
        return
    assert (verdict.mistake_title, verdict.mistake_family) == ("Scale word left off", "scale-word")
    assert f"write {shown}" in str(verdict.feedback)


def test_the_scale_word_slip_is_for_bare_numbers_of_a_count() -> None:
    assert grade("16.4M", 16_384_000, "params", REL_1).kind == "correct"
    assert grade("1", 1_188_721_600, "params", REL_1).mistake_family is None  # one figure: no reading
    assert "scale-word" not in {m.family for m in builtin_mistakes(2 * GIB, "bytes", GradeContext("GiB"))}
    in_billions = GradeContext("B")  # a bare number is billions already
    assert "scale-word" not in {m.family for m in builtin_mistakes(7e9, "params", in_billions)}


def test_a_template_mistake_keeps_its_family() -> None:
    written = [Mistake("halved", GIB, "Half.", "Cache halved", "kv-pair"), Mistake("mine", 3 * GIB, "Mine.")]
    assert grade("1 GiB", 2 * GIB, "bytes", REL_1, written).mistake_family == "kv-pair"
    assert grade("3 GiB", 2 * GIB, "bytes", REL_1, written).mistake_family == "own"
    assert grade("2 GiB", 2 * GIB, "bytes", REL_1, written).mistake_family is None


# --- the verdict's words ---------------------------------------------------------------------------------


def test_an_answer_outside_a_1_percent_band_never_reads_1_percent_off() -> None:
    expected = 3_145_728_000  # 2.93 GiB
    imprecise = grade("2.9", expected, "bytes", REL_1, context=GradeContext("GiB"))
    assert imprecise.kind == "imprecise"
    assert "(1.01% off): imprecise" in imprecise.message
    close = grade("2.96", expected, "bytes", REL_1, context=GradeContext("GiB"))
    assert close.kind == "close"
    assert "(1.03% off): close" in close.message  # 2.96 / 2.9297 GiB
    inside = grade("99.05", 100, "params", REL_1)
    assert inside.kind == "correct"
    assert "(0.95% off): correct" in inside.message


def test_a_distance_just_past_a_5_percent_band_shows_its_figures() -> None:
    verdict = grade("105.04", 100, "params", Tolerance("rel", 0.05))
    assert verdict.kind == "close"
    assert "(5.04% off)" in verdict.message
    assert "(5.5% off)" in grade("105.5", 100, "params", Tolerance("rel", 0.05)).message


def test_an_estimate_just_outside_its_factor_never_reads_on_the_edge() -> None:
    verdict = grade("499.6", 1000, "params", Tolerance("factor", 2))
    assert verdict.kind == "close"
    assert "(0.4996× the expected value): close" in verdict.message
    assert "(0.499× the expected value)" in grade("499", 1000, "params", Tolerance("factor", 2)).message
