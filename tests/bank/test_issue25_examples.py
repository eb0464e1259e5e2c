"""Issue 25's examples on the built-in bank, each worked by hand here, never read from the code under test.

(The giveaway examples, and the `--no-answer` view of vit-forward-flops#281, are pinned in
test_lint_giveaway_examples.py; sliding-window-kv-cache#310570's K-and-V slip in test_lint_slips.py.)
"""

from __future__ import annotations

import re

from quizzer.bank.check.degenerate import same_answer
from quizzer.session.chain import grade_question
from tests.builtin_bank import builtin_instance

RIGHT = ("exact", "correct")


def test_scout_solved_from_its_printed_numbers_grades_right() -> None:
    """expert-parallel-memory-per-gpu#9041 printed Scout as "108B" (107.77B inside): solved from 108B it
    came out 1.3% off under a 1% band. Now the count is printed in full. By hand: routed experts are
    48 layers × 16 × 3 × 5,120 × 8,192 = 96,636,764,160; the rest 107,769,861,120 − that = 11,133,096,960;
    per GPU the rest + a 16th of the experts (6,039,797,760) = 17,172,894,720 weights × 2 bytes
    = 34,345,789,440 bytes = 31.99 GiB."""
    instance = builtin_instance("expert-parallel-memory-per-gpu", 9041)
    assert "107,769,861,120 parameters" in instance.prompt
    assert "48 MoE layers of 16 routed experts" in instance.prompt
    assert "5,120 × 8,192" in instance.prompt
    per_gpu = 107_769_861_120 - 48 * 16 * 3 * 5120 * 8192 + 48 * 3 * 5120 * 8192
    assert per_gpu == 17_172_894_720
    assert grade_question(instance.main, f"{2 * per_gpu / 2**30:.4g} GiB").kind in RIGHT
    assert grade_question(instance.main, f"{2 * per_gpu / 2**30:.3g} GiB").kind in RIGHT


def test_speculative_rate_is_printed_as_the_derivation_uses_it() -> None:
    """speculative-tokens-from-speedup#6179 printed 110 tokens/s and derived with 110.2."""
    instance = builtin_instance("speculative-tokens-from-speedup", 6179)
    assert "110.2" in instance.prompt
    assert not re.search(r"\b110 tokens/s", instance.prompt)


def test_a_listed_mistake_wins_over_imprecise_on_the_fitted_exponent() -> None:
    """scaling-chinchilla-fitted-optimum#4309 part 3: the fit's exponent is β/(α + β) = 0.2849 / 0.6241
    = 0.4565; "0.5" (equal scaling) is a listed mistake, once graded "imprecise (right to 1 s.f.)"."""
    instance = builtin_instance("scaling-chinchilla-fitted-optimum", 4309)
    part = instance.parts[2]
    assert abs(part.value - 0.2849 / (0.3392 + 0.2849)) < 1e-3
    verdict = grade_question(part, "0.5")
    assert verdict.kind == "wrong"
    assert verdict.mistake is not None
    assert "0.5 is the equal-scaling answer" in str(verdict.feedback)


def test_the_gqa_walkthroughs_convention_and_answer_agree() -> None:
    """walkthrough-dense-gqa#8178 part 4 says the token table is a lookup (read as 0) and the head read
    whole. Phi-4 in fp8: 14,659,507,200 weights − the 100,352 × 5,120 = 513,802,240 table = 14,145,704,960
    bytes; the cache 4 × 32,768 tokens × 102,400 bytes (2 × 40 layers × 10 KV heads × 128 × 1 byte)
    = 13,421,772,800; at 3.35 TB/s: 27,567,477,760 / 3.35e12 = 8.229 ms (8.38 ms counted the table)."""
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    lookup = "the input token table is a lookup that reads one row per sequence, counted as 0"
    assert any(lookup in c for c in instance.conventions)
    for other in ("walkthrough-gpt-oss", "walkthrough-moe-active"):  # the walkthroughs agree
        assert any(lookup in c for c in builtin_instance(other, 0).conventions), other
    step_s = (14_659_507_200 - 100_352 * 5_120 + 4 * 32_768 * 2 * 40 * 10 * 128) / 3.35e12
    assert abs(instance.parts[3].value - step_s) < 1e-9
    assert grade_question(instance.parts[3], "8.23 ms").kind in RIGHT
    assert grade_question(instance.parts[3], "8.38 ms").kind not in RIGHT


def test_the_critical_batch_follow_up_has_its_halving() -> None:
    """The follow-up gave FLOP/s ÷ (bandwidth ÷ bytes per weight), 2× too large. bf16 on an H100 SXM:
    989.4e12 × 2 bytes ÷ (2 × 3.35e12) = 295.3 sequences."""
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    question, answer = instance.follow_ups[1]
    assert "critical" in question.lower() or "batch" in question.lower()
    assert "295 sequences" in answer
    assert "÷ (2 × bandwidth)" in answer


def test_the_trainable_share_against_the_base_differs_from_the_printed_one() -> None:
    """lora-peft-trainable-percent#3275 showed both parts as 0.0368%. Now Llama 2 13B, rank 256 on q and v:
    40 layers × 2 × 256 × (5,120 + 5,120) = 209,715,200 adapters; printed 209,715,200 / 13,225,579,520
    = 1.586%, against the base 209,715,200 / 13,015,864,320 = 1.611%: outside each other's band."""
    instance = builtin_instance("lora-peft-trainable-percent", 3275)
    adapters, base = 40 * 2 * 256 * (5120 + 5120), 13_015_864_320
    assert grade_question(instance.parts[0], f"{100 * adapters / (base + adapters):.4g}").kind in RIGHT
    assert grade_question(instance.parts[1], f"{100 * adapters / base:.4g}").kind in RIGHT
    assert not same_answer(instance.parts[0], instance.parts[1])


def test_the_sliding_window_binds_in_part_one() -> None:
    """sliding-window-kv-cache#3316: the window never bound. Now 6,000 + 500 tokens > W = 4,096, so each of
    the 32 sequences keeps 4,096: 131,072 bytes a token × 4,096 × 32 = 16 GiB (all 6,500 would be 25.4)."""
    instance = builtin_instance("sliding-window-kv-cache", 3316)
    assert "6,000-token prompt" in instance.prompt
    assert "500 tokens" in instance.prompt
    assert grade_question(instance.main, "16 GiB").kind in RIGHT
    assert grade_question(instance.main, f"{131_072 * 6_500 * 32 / 2**30:.3g} GiB").kind not in RIGHT
