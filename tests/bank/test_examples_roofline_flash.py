"""The roofline and FlashAttention templates (issue 15), pinned on instances worked out by hand.

Every expected value here is computed in the test from the instance's inputs and the vendors' spec
figures (written out below), never read back from the template's own answer.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.session.chain import grade_question, part_of
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank
from tests.test_question_bank import written

ROOFLINE = [
    "roofline-matmul-intensity",
    "roofline-elementwise-time",
    "roofline-attention-prefill-decode",
    "roofline-host-link-offload",
    "roofline-decode-matmul-crossover",
]
FLASH = ["flash-attention-score-memory", "flash-attention-hbm-traffic", "flash-attention-speedup-bound"]

# Spec-sheet figures (dense), as the vendors print them.
H100_BF16, H100_BW = 989.4e12, 3.35e12
A100_80_BF16, A100_80_BW = 312e12, 2.039e12
V5E_INT8, V5E_BW = 393e12, 819e9
L4_BF16, L4_BW = 121e12, 300e9


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


def mistake_named(instance: Instance, value: float, part: int = 1) -> str | None:
    """The mistake the grader names for ``value`` typed precisely (ten figures) into ``part``."""
    question = part_of(instance, part)
    text = written(question, value)  # with its base unit (or as a percentage), never a bare number
    verdict = grade_question(question, text) if part > 1 else grade_instance(instance, text)
    assert verdict.kind not in ("exact", "correct"), verdict.message
    return verdict.mistake


def test_the_topics_have_their_shape() -> None:
    templates = {t.id: t for t in bank().templates()}
    for ids, topic in ((ROOFLINE, "roofline"), (FLASH, "flash-attention")):
        chosen = [templates[i] for i in ids]
        assert {t.topic for t in chosen} == {topic}
        assert all(t.later_parts for t in chosen), "every template has a graded part"
        assert all(len(t.main.mistakes) >= 3 for t in chosen)
    assert sum(templates[i].difficulty == "hard" for i in ROOFLINE) >= 2
    assert sum(templates[i].kind == "estimate" for i in ROOFLINE) >= 1
    assert sum(templates[i].difficulty == "hard" for i in FLASH) >= 1


def test_a_finite_matmul_counts_all_three_arrays() -> None:
    m, k, n = 4096, 4096, 14336  # a 4,096-token prefill through Llama 3.1 8B's up projection
    instance = pose("roofline-matmul-intensity", m_tokens=m, k_in=k, n_out=n, dtype="bf16", gpu="h100-sxm")
    assert instance.value == pytest.approx(2 * m * k * n / (2 * (m * k + k * n + m * n)))
    assert instance.value == pytest.approx(1792)
    assert part_of(instance, 2).value == pytest.approx(H100_BF16 / H100_BW)  # the ridge, 295
    # compute-bound: the time is the math at the dense peak
    assert part_of(instance, 3).value == pytest.approx(2 * m * k * n / H100_BF16)


def test_leaving_out_the_weight_read_is_named() -> None:
    instance = pose("roofline-matmul-intensity", m_tokens=16384, k_in=4096, n_out=4096, dtype="bf16")
    flops, x, w, y = 2 * 16384 * 4096 * 4096, 16384 * 4096, 4096 * 4096, 16384 * 4096
    assert mistake_named(instance, flops / (2 * (x + y))) == "weights-not-read"
    assert mistake_named(instance, flops / (2 * (x + w + y)) * 2) == "elements-not-bytes"


def test_a_sparse_headline_is_named_for_the_ridge() -> None:
    instance = pose("roofline-matmul-intensity", dtype="bf16", gpu="h100-sxm")
    assert "1,978.8 TFLOP/s" in part_of(instance, 2).prompt  # the sheet's figure, with sparsity
    assert mistake_named(instance, 2 * H100_BF16 / H100_BW, part=2) == "sparse-headline"


def test_an_elementwise_add_is_its_bytes_over_the_bandwidth() -> None:
    instance = pose(
        "roofline-elementwise-time",
        model="llama-3.1-8b",
        op="residual add",
        dtype="bf16",
        batch=8,
        seq_len=4096,
        gpu="h100-sxm",
    )
    elements = 8 * 4096 * 4096
    assert instance.value == pytest.approx(elements * 3 * 2 / H100_BW)  # 240 µs: two reads, one write
    assert mistake_named(instance, elements * 2 * 2 / H100_BW) == "write-left-out"


def test_decode_attention_intensity_is_twice_the_group_over_the_bytes() -> None:
    # Llama 3.1 8B: 32 query heads, 8 KV heads: each cached element serves a group of 4
    bf16 = pose(
        "roofline-attention-prefill-decode", model="llama-3.1-8b", phase="decode", ctx=8192, kv_dtype="bf16"
    )
    fp8 = pose(
        "roofline-attention-prefill-decode", model="llama-3.1-8b", phase="decode", ctx=8192, kv_dtype="fp8"
    )
    assert bf16.value == pytest.approx(2 * 4 / 2)
    assert fp8.value == pytest.approx(2 * 4 / 1)
    assert mistake_named(bf16, 1.0) == "cache-per-query-head"  # the multi-head rule, 1 FLOP per byte


def test_prefill_attention_grows_with_the_prompt() -> None:
    s, heads, kv, d = 4096, 32, 8, 128
    instance = pose(
        "roofline-attention-prefill-decode", model="qwen3-8b", phase="prefill", ctx=s, kv_dtype="bf16"
    )
    flops = 4 * heads * s * s * d
    assert instance.value == pytest.approx(flops / (4 * heads * s * d + 2 * kv * s * d * 2))
    assert mistake_named(instance, flops / (4 * heads * s * d + kv * s * d * 2)) == "k-or-v-only"
    assert mistake_named(instance, flops / (4 * heads * s * d + 2 * s * d * 2)) == "one-kv-head"


def test_a_host_copy_uses_one_direction_of_the_link() -> None:
    instance = pose(
        "roofline-host-link-offload", model="llama-3.1-8b", dtype="bf16", gpu="h100-sxm", link_gbs=64
    )
    params = 8_030_261_248  # Llama 3.1 8B
    assert instance.value == pytest.approx(2 * params / 64e9)  # about 0.25 s
    assert mistake_named(instance, 2 * params / 128e9) == "bidirectional-figure"
    assert part_of(instance, 2).value == pytest.approx(H100_BW / 64e9)
    assert part_of(instance, 3).value == pytest.approx(H100_BF16 / 64e9)  # bf16 weights: 2 bytes ÷ 2


def test_the_decode_crossover_counts_the_activations() -> None:
    # the scaling book's int8[16384, 4096] exercise on a TPU v5e, with Google's spec figures
    instance = pose(
        "roofline-decode-matmul-crossover",
        d_in=4096,
        d_out=16384,
        gpu="tpu-v5e",
        weight_dtype="int8",
        act_dtype="int8",
    )
    ridge = V5E_INT8 / V5E_BW
    exact = 4096 * 16384 / (2 * 4096 * 16384 / ridge - (4096 + 16384))
    assert instance.value == pytest.approx(exact)
    assert 258 < instance.value < 260  # the book prints 271 (a rounding slip: 262.7 with its own inputs)
    assert mistake_named(instance, ridge / 2) == "activations-ignored"
    assert part_of(instance, 2).value == pytest.approx(2 * exact * 4096 * 16384 / V5E_INT8)


def test_activations_counted_in_elements_are_named() -> None:
    instance = pose(
        "roofline-decode-matmul-crossover",
        d_in=8192,
        d_out=1024,
        gpu="rtx-4090",
        weight_dtype="bf16",
        act_dtype="bf16",
    )
    ridge = 165.2e12 / 1.008e12
    assert instance.value == pytest.approx(8192 * 1024 * 2 / (2 * 8192 * 1024 / ridge - 2 * (8192 + 1024)))
    assert mistake_named(instance, 8192 * 1024 * 2 / (2 * 8192 * 1024 / ridge - (8192 + 1024))) == (
        "activation-elements"
    )


def test_the_score_matrix_is_per_query_head() -> None:
    instance = pose("flash-attention-score-memory", n_heads=32, n_kv_heads=8, batch=2, seq=8192, dtype="bf16")
    assert instance.value == 2 * 32 * 8192 * 8192 * 2  # 8 GiB
    assert mistake_named(instance, 2 * 8 * 8192 * 8192 * 2) == "kv-heads"
    # the longest sequence whose scores fill an 80 GiB H100 alone grows as the square root of the memory
    longest = pose("flash-attention-score-memory", n_heads=32, n_kv_heads=8, batch=2, seq=8192, dtype="bf16")
    second = part_of(longest, 2)
    hbm = {"h100-sxm": 80, "a100-80gb": 80, "h200": 141, "b200": 180, "mi300x": 192}
    gib = next(v for k, v in hbm.items() if f"{v} GiB" in second.prompt or f"{v}GB" in second.prompt)
    assert second.value == math.floor(8192 * math.sqrt(gib * 2**30 / instance.value))
    assert part_of(instance, 3).value == 2 * 32 * 8192 * 4  # one fp32 log-sum-exp per row


def test_leaving_the_sequence_unchanged_is_named() -> None:
    for seed in range(40):
        instance = pose("flash-attention-score-memory", seed, n_heads=64, n_kv_heads=8, batch=1, seq=32768)
        second = part_of(instance, 2)
        if not 0.98 < second.value / 32768 < 1.02:
            assert mistake_named(instance, 32768, part=2) == "same-length"
            return
    pytest.fail("no seed drew a GPU whose memory differs from the scores")


def test_standard_and_flash_traffic_follow_algorithms_0_and_1() -> None:
    n, d, batch, heads = 1024, 64, 64, 16  # GPT-2 medium, Dao et al.'s Figure 2
    instance = pose(
        "flash-attention-hbm-traffic", seq=n, head_dim=d, batch=batch, n_heads=heads, sram_kib=192
    )
    assert instance.value == (4 * n * d + 4 * n * n) * 2 * batch * heads  # 9.13 GB
    m = 192 * 1024 // 2  # elements of 16 bits
    t_c = math.ceil(n / math.ceil(m / (4 * d)))  # B_c = 384, T_c = 3
    assert t_c == 3
    assert part_of(instance, 2).value == n * d * (2 + 3 * t_c) * 2 * batch * heads
    assert part_of(instance, 3).value == pytest.approx((4 * d + 4 * n) / (d * (2 + 3 * t_c)))
    assert mistake_named(instance, (n * d + 4 * n * n) * 2 * batch * heads) == "one-nd-matrix"
    # M read as bytes doubles B_c: 768 rows, 2 passes
    assert mistake_named(instance, n * d * (2 + 3 * 2) * 2 * batch * heads, part=2) == "sram-in-bytes"


def test_flash_can_move_more_bytes_when_the_head_is_wide_and_the_sram_small() -> None:
    instance = pose("flash-attention-hbm-traffic", seq=512, head_dim=256, batch=1, n_heads=8, sram_kib=100)
    t_c = math.ceil(512 / math.ceil(100 * 1024 // 2 / (4 * 256)))  # B_c = 50: 11 passes
    assert part_of(instance, 3).value == pytest.approx((4 * 256 + 4 * 512) / (256 * (2 + 3 * t_c)))
    assert part_of(instance, 3).value < 1
    assert "MORE bytes" in part_of(instance, 3).explanation


def test_the_speedup_bound_is_the_ridge_over_standard_intensity() -> None:
    n, d = 1024, 64  # GPT-2 medium on an A100 80GB
    instance = pose("flash-attention-speedup-bound", model="gpt2-medium", seq=n, gpu="a100-80gb")
    ridge = A100_80_BF16 / A100_80_BW
    assert instance.value == pytest.approx(ridge * (4 * n * d + 4 * n * n) * 2 / (4 * n * n * d))
    assert mistake_named(instance, (4 * n * d + 4 * n * n) / (4 * n * d)) == "byte-ratio"
    assert part_of(instance, 2).value == pytest.approx(4 * n * n * d / ((4 * n * d + 4 * n * n) * 2) / ridge)


def test_the_speedup_is_the_byte_ratio_while_flash_stays_memory_bound() -> None:
    # a TPU v6e's ridge (560) is above FlashAttention's N/2 = 512 at N = 1,024: the bytes set both times
    instance = pose("flash-attention-speedup-bound", model="llama-3.1-8b", seq=1024, gpu="tpu-v6e")
    assert instance.value == pytest.approx((4 * 1024 * 128 + 4 * 1024 * 1024) / (4 * 1024 * 128))
    assert "whole byte ratio" in instance.explanation


@pytest.mark.parametrize("template_id", ROOFLINE + FLASH)
def test_no_hint_gives_the_answer_away(template_id: str) -> None:
    from quizzer.bank.generate.hints import hint_steps

    for seed in (3, 41, 977):
        instance = pose(template_id, seed)
        hints = [str(h) for h in hint_steps(instance)]
        assert hints, template_id
        assert instance.display not in hints[-1]
