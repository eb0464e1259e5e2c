"""The factor reader and two slips at once: pinned instances of the bank, and hand-made derivations."""

from __future__ import annotations

import pytest

from quizzer.bank.generate.render import generate
from quizzer.core.trace import Step, tags
from quizzer.grading.bands import Mistake, Tolerance
from quizzer.grading.context import GradeContext
from quizzer.grading.factor_sheet import Term, factor_sheet
from quizzer.grading.grade import grade
from quizzer.grading.pairs import pair_clashes, slip_pairs
from quizzer.grading.parse import parse_answer
from quizzer.grading.slip_families import Slip
from quizzer.grading.working import read_working, working_notes
from quizzer.session.chain import grade_question
from tests.builtin_bank import builtin_bank

#: A bf16 KV cache per token as the issue writes it: 2 × layers × KV heads × head_dim × bytes.
KV = (
    Term(2, 1, "", "kv"),
    Term(32, 1, "n_layers", "layers"),
    Term(8, 1, "n_kv_heads", "kv_heads", 32),
    Term(128, 1, "head_dim", "head_dim"),
    Term(2, 1, "bytes per value", "bytes_per_value", label="bf16"),
)


def notes(
    answer: str, sheet: tuple[Term, ...] = KV, unit: str = "bytes"
) -> list[tuple[str, tuple[int, ...]]]:
    return [(n.kind, n.sheet) for n in working_notes(parse_answer(answer, unit), sheet)]


# --- pinned on the bank (the three) ---


def test_fp32_bytes_on_a_bf16_cache_names_the_bytes_factor() -> None:
    """`2*32*8*128*4` on a bf16 KV instance (Llama 3 8B: 32 layers, 8 KV heads of 128) names the bytes."""
    template = builtin_bank().get("preset-kv-bytes-per-token")
    instance = generate(template, 1, {"model": "llama-3-8b", "dtype": "bf16"})
    assert instance.value == 2 * 32 * 8 * 128 * 2  # recomputed by hand: 131,072 bytes = 128 KiB
    verdict = grade_question(instance.main, "2*32*8*128*4 bytes")
    assert verdict.kind == "wrong"
    assert verdict.diagnosis[-1] == "Your 4 is the bytes per value: bf16 takes 2."
    assert "Your 4 is the bytes per value" in verdict.message


def test_thirty_layers_for_thirty_two_names_the_layers() -> None:
    """The issue's example: kv-cache-bytes#1 has 32 layers; a product with 30 names them."""
    instance = generate(builtin_bank().get("kv-cache-bytes"), 1)
    assert instance.variables["n_layers"] == 32
    verdict = grade_question(instance.main, "2*30*16*256*4*8192*8 bytes")
    assert verdict.kind == "wrong"
    assert verdict.diagnosis == ("Your 30 is n_layers: here it is 32.",)


def test_two_slips_on_a_gb_question_in_fp32_are_both_named() -> None:
    """weights-bytes#2: 494,032,768 fp32 weights in GB is 1.976 GB. bf16's 2 bytes and the GiB figure
    typed as GB give 494,032,768 × 2 / 2^30 = 0.9202: neither slip alone, both together."""
    instance = generate(builtin_bank().get("weights-bytes"), 2)
    assert instance.value == 494_032_768 * 4
    assert instance.main.display_unit == "GB"
    verdict = grade_question(instance.main, "0.92")
    assert verdict.kind == "wrong"
    assert verdict.mistake is not None
    assert "+" in verdict.mistake
    assert verdict.diagnosis
    assert verdict.diagnosis[0].startswith("Two slips at once:")
    assert "GiB read as GB" in verdict.diagnosis[0]
    assert "bytes per value" in verdict.diagnosis[0].lower()
    assert "(÷2)" in verdict.diagnosis[0]
    assert "(÷1.074)" in verdict.diagnosis[0]


# --- the reader on hand-made derivations ---


def test_a_right_product_in_any_order_or_grouping_says_nothing() -> None:
    for answer in (
        "2*32*8*128*2",
        "128*2*8*32*2",
        "64*8*128*2",
        "2*32*1024*2",
        "4*32*8*128",
        "2*32*8*64*2*2",
    ):
        assert notes(answer) == [], answer


def test_query_heads_for_kv_heads_are_named_as_such() -> None:
    text = read_working(parse_answer("2*32*32*128*2", "bytes"), KV)
    assert text == ("Your product has 32 heads, the query heads, where the cache uses 8 KV heads.",)


def test_a_missing_factor_is_named_and_the_kv_pair_in_words() -> None:
    assert read_working(parse_answer("32*8*128*2", "bytes"), (*KV[1:], Term(7, 1, "batch"))) == (
        "Your product leaves out batch (7).",
    )
    sheet = (KV[0], *KV[1:4], Term(2, 1, "bytes per value", "bytes_per_value", label="bf16"))
    assert notes("32*8*128*2", sheet) in (
        [("missing", (0,))],
        [("missing", (0, 4))],
    )  # which 2 is gone cannot be told from a bf16 product: the sure reading is the kv pair's only
    # when the order says so; the sentence then says it cannot tell


def test_the_order_typed_tells_twins_apart() -> None:
    """The derivation's order typed, a 1 in the bytes' place is the bytes (fp8); out of order it cannot
    be told from a forgotten K and V."""
    assert notes("2*32*8*128*1") == [("substituted", (4,))]
    assert notes("1*32*8*128*2") == [("substituted", (0,))]
    assert notes("128*1*8*32*2") == [("substituted", (0, 4))]
    assert "which one is not clear" in read_working(parse_answer("128*1*8*32*2", "bytes"), KV)[0]


def test_the_value_typed_tells_twins_apart_where_the_order_does_not() -> None:
    """4 in place of a 2 is a dtype's bytes (fp32), never K and V: named whatever the order."""
    for answer in ("4*2*32*8*128", "32*4*8*128*2", "2*32*8*128*4"):
        assert notes(answer) == [("substituted", (4,))], answer


def test_a_group_that_explains_more_wins_over_a_coincidental_pair() -> None:
    """80 × 2,048 × 2 × 2 against 80 × 2 × 8 × 128 × 2: the 2,048 is K and V's 2 × 8 × 128, and one 2 is
    added (K and V counted twice), not "your 2,048 is the KV heads"."""
    sheet = (Term(80, 1, "layers"), *KV[0:1], *KV[2:])
    assert notes("80*2048*2*2", sheet) == [("extra", ())]


def test_quotients_and_units_typed_out() -> None:
    """part 1 / (seq × batch), typed with the unit on part 1 or as a power of 1024 in the product."""
    sheet = (Term(68_719_476_736, 1, "part 1"), Term(8192, -1, "seq_len"), Term(8, -1, "batch"))
    assert notes("64 GiB / 8192 / 8", sheet) == []
    assert notes("64*2^30/8192/8", sheet) == []
    assert notes("64 GiB / 8192", sheet) == [("missing", (2,))]
    assert read_working(parse_answer("64 GiB / 4096 / 8", "bytes"), sheet) == (
        "You divide by 4,096 where the derivation divides by seq_len: here it is 8,192.",
    )
    assert notes("64 GiB / 8192 / 8 / 2", sheet) == [("extra", ())]


def test_one_number_or_no_product_is_not_read() -> None:
    assert notes("131072") == []
    assert read_working(parse_answer("2*3", "bytes"), (Term(6, 1),)) == ()


def test_too_many_differences_get_one_sentence() -> None:
    found = working_notes(parse_answer("3*5*7*11*13", "bytes"), KV)
    assert [n.kind for n in found] == ["too-far"]
    assert "compare your product" in found[0].text


def test_a_step_read_as_factors_with_names_and_roles() -> None:
    """A step whose tagged factors multiply to its value is read from them (roles, the query heads)."""
    step = Step(
        "KV per token",
        "layers × elements per token per layer × bytes(dtype)",
        "80 × 2,048 × 2",
        327_680,
        "bytes",
        tags(layers=80, kv=2, kv_heads=(8, 64), head_dim=128, bytes_per_value=2),
    )
    sheet = factor_sheet((step,))
    assert [(t.value, t.role) for t in sheet] == [
        (80, "layers"), (2, "kv"), (8, "kv_heads"), (128, "head_dim"), (2, "bytes_per_value")
    ]  # fmt: skip
    assert sheet[0].name == "layers"
    assert sheet[2].instead == 64


def test_a_step_with_a_sum_has_its_sum_as_one_factor() -> None:
    step = Step("A", "(replicated + routed / ep) × bytes", "(10 + 64 / 16) × 2", 28, "bytes")
    assert [(t.value, t.name) for t in factor_sheet((step,))] == [(14, ""), (2, "bytes")]
    assert factor_sheet((Step("A", "a + b", "1 + 2", 3, "count"),)) == ()


def test_a_step_whose_factors_do_not_multiply_to_it_is_not_read() -> None:
    """⌈bytes⌉ rounding inside a step: 3 × 0.5 shown, 2 stored: the factors would mislead."""
    assert factor_sheet((Step("A", "n × bytes", "3 × 0.5", 2, "bytes"),)) == ()


def test_an_earlier_step_named_as_a_factor_is_read_out() -> None:
    steps = (
        Step("Per token", "2 × L × bytes", "2 × 32 × 2", 128, "bytes"),
        Step("Answer", "Per token × seq_len", "128 × 1,024", 131_072, "bytes"),
    )
    assert [t.value for t in factor_sheet(steps)] == [2, 32, 2, 1024]


def test_grade_reads_the_working_of_a_wrong_product_only() -> None:
    context = GradeContext(derivation=(Step("Answer", "2 × L × h", "2 × 32 × 4,096", 262_144, "params"),))
    right = grade("2*4096*32", 262_144, "params", Tolerance("rel", 0), context=context)
    assert right.kind == "exact"
    assert right.diagnosis == ()
    wrong = grade("2*30*4096", 262_144, "params", Tolerance("rel", 0), context=context)
    assert wrong.diagnosis == ("Your 30 is L: here it is 32.",)
    assert wrong.feedback is not None
    assert wrong.feedback.endswith("Your 30 is L: here it is 32.")


# --- two slips at once ---


def test_pairs_of_one_family_or_two_written_and_inseparable_pairs_are_not_tried() -> None:
    e, tol = 100, Tolerance("rel", 0.01)
    up = Slip("up", 200, "Up", "Twice.", "dtype")
    down = Slip("down", 50, "Down", "Half.", "dtype")
    assert slip_pairs(e, tol, [up, down]) == []  # one family
    half = Mistake("half-kv", 50, "Half.", "K and V forgotten", "kv-pair")
    assert slip_pairs(e, tol, [up, half]) == []  # ×2 and ÷2 land on the answer
    assert [c[3] for c in pair_clashes(e, tol, [up, half])] == ["the answer"]
    thrice = Mistake("thrice", 300, "Three times.", "Three", "own")
    six = Mistake("six", 600, "Six times.", "Six", "own")
    # up and thrice give 600, which is the single slip "six": not separable, flagged
    assert [(a.name, b.name, c) for a, b, _, c in pair_clashes(e, tol, [up, thrice, six])] == [
        ("up", "thrice", "Six")
    ]
    assert all(p.name != "up+thrice" for p in slip_pairs(e, tol, [up, thrice, six]))
    seven = Mistake("seven", 700, "Seven times.", "Seven", "own")
    assert slip_pairs(e, tol, [thrice, seven]) == []  # two written: how they combine is theirs to say
    (pair,) = slip_pairs(e, tol, [up, seven])
    assert (pair.name, pair.value, pair.title) == ("up+seven", 1400, "Up + Seven")


@pytest.mark.parametrize("answer", ["0.92", "0.920 GB", "494032768*2/2^30"])
def test_a_pair_is_named_however_typed(answer: str) -> None:
    instance = generate(builtin_bank().get("weights-bytes"), 2)
    verdict = grade_question(instance.main, answer)
    assert verdict.diagnosis[0].startswith("Two slips at once:")


def test_a_pair_with_the_templates_own_slip_wins_a_tie_with_two_built_in_ones() -> None:
    """efficiency-matmul-utilisation#911: a 2:4-sparse headline peak (the template's slip, ÷2) and MACs for
    FLOPs (built in, ÷2) land on the same number with the fraction read as a percent (÷100); as for one
    slip, the template's own is named first (the float nearer by 1e-17 named the built-in pair)."""
    instance = generate(builtin_bank().get("efficiency-matmul-utilisation"), 911)
    verdict = grade_question(instance.main, "0.26015323390497824")
    assert verdict.mistake == "sparse-headline+percent-vs-fraction"
    assert "2:4-sparse headline" in verdict.diagnosis[0]
