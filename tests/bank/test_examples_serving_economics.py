"""Serving economics and the other training-memory conventions (issue 15), pinned by hand.

Every expected value is worked out from the instance's inputs (parameters, layers, heads, bytes, bandwidth),
never read back from the template's own answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.session.chain import part_of
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

GIB = 2**30
LLAMA3_70B = 70_553_706_496  # parameters of meta-llama/Meta-Llama-3-70B
VIT_L16 = 304_326_632  # torchvision vit_l_16


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


def test_decode_tokens_per_chip_of_the_scaling_book_case() -> None:
    instance = pose(
        "serving-decode-tokens-per-gpu",
        model="llama-3-70b",
        dtype="int8",
        kv_dtype="int8",
        gpu="tpu-v5e",
        n_gpus=8,
        batch=32,
        context=8192,
    )
    kv_per_token = 2 * 80 * 8 * 128 * 1  # K and V, 80 layers, 8 KV heads of 128, int8
    bytes_per_step = LLAMA3_70B * 1 + 32 * 8192 * kv_per_token
    step = bytes_per_step / (8 * 8.19e11)
    assert instance.value == pytest.approx(32 / (8 * step), rel=1e-9)
    assert instance.value == pytest.approx(230.9, abs=0.05)
    # twice the chips: the step halves, the tokens per chip stay
    assert part_of(instance, 3).value == pytest.approx(instance.value, rel=1e-12)
    # the KV ceiling per chip: bandwidth over one token's cache read
    assert part_of(instance, 4).value == pytest.approx(8.19e11 / (8192 * kv_per_token), rel=1e-9)


def test_decode_throughput_slips_are_named() -> None:
    instance = pose(
        "serving-decode-tokens-per-gpu",
        model="llama-3-70b",
        dtype="int8",
        kv_dtype="int8",
        gpu="tpu-v5e",
        n_gpus=8,
        batch=32,
        context=8192,
    )
    weights_only = 32 * 8.19e11 / LLAMA3_70B  # per chip, no cache read
    assert grade_instance(instance, f"{weights_only:.4g}").mistake == "kv-ignored"
    deployment = 8 * instance.value
    assert grade_instance(instance, f"{deployment:.4g}").mistake == "whole-deployment"


def test_mbu_counts_only_the_active_experts_at_batch_one() -> None:
    instance = pose(
        "serving-mbu-from-latency",
        model="qwen3-30b-a3b",
        dtype="bf16",
        kv_dtype="bf16",
        gpu="h100-sxm",
        n_gpus=1,
        batch=1,
        context=8192,
        measured_tpot_ms=5,
    )
    kv = 8192 * 2 * 48 * 4 * 128 * 2  # 48 layers, 4 KV heads of 128, bf16
    every_expert = (2 * 30_532_122_624 + kv) / (0.005 * 3.35e12)
    assert every_expert > 3  # over 300%: the tell-tale of counting idle experts
    verdict = grade_instance(instance, f"{100 * every_expert:.4g}%")
    assert verdict.mistake == "total-experts-read"
    assert instance.value < 1


def test_databricks_mbu_example_as_posed() -> None:
    instance = pose(
        "serving-mbu-from-latency",
        model="llama-2-7b",
        dtype="fp16",
        kv_dtype="fp16",
        gpu="a100-80gb",
        n_gpus=1,
        batch=1,
        context=512,
        measured_tpot_ms=14,
    )
    weights = 6_738_415_616 * 2
    kv = 512 * 2 * 32 * 32 * 128 * 2
    assert instance.value == pytest.approx((weights + kv) / (0.014 * 2.039e12), rel=1e-9)
    # the better kernel: TPOT scales with 1 / MBU
    target = part_of(instance, 2)
    assert target.value < 0.014


def test_cost_per_million_tokens_and_the_minutes_slip() -> None:
    instance = pose(
        "serving-cost-per-million-tokens",
        model="deepseek-v3",
        gpu="h100-sxm",
        n_gpus=8,
        price=2,
        tok_s=22300,
    )
    assert instance.value == pytest.approx(8 * 2 / 3600 / 22300 * 1e6, rel=1e-12)
    assert instance.value == pytest.approx(0.1993, abs=5e-5)
    per_minute = 8 * 2 / 60 / 22300 * 1e6
    assert grade_instance(instance, f"${per_minute:.4g}").mistake == "minutes-for-hours"


def test_deepseek_fleet_day_and_flops_per_dollar() -> None:
    instance = pose("serving-cost-per-million-tokens", fleet_gpus=1814, price=2)
    assert part_of(instance, 3).value == 226.75 * 8 * 24 * 2 == 87072
    h100 = pose("serving-cost-per-million-tokens", gpu="h100-sxm", price=10.8)
    assert part_of(h100, 5).value == pytest.approx(989.4e12 * 3600 / 10.8, rel=1e-12)


def test_prefill_decode_ratio_and_the_distserve_allocation() -> None:
    instance = pose(
        "serving-prefill-decode-ratio",
        model="llama-3-70b",
        dtype="bf16",
        gpu="tpu-v5e",
        n_gpus=16,
        mfu_pct=40,
        prompt_len=8192,
        output_len=512,
        batch=32,
        p_rps=5.6,
        d_rps=10,
    )
    prefill = 2 * LLAMA3_70B * 8192 / (16 * 1.97e14 * 0.4)
    kv = 32 * (8192 + 256) * (2 * 80 * 8 * 128 * 2)
    step = (2 * LLAMA3_70B + kv) / (16 * 8.19e11)
    assert instance.value == pytest.approx(32 * prefill / (512 * step), rel=1e-9)
    assert instance.value == pytest.approx(3.27, abs=0.005)
    inverted = 512 * step / (32 * prefill)
    assert grade_instance(instance, f"{inverted:.3g}").mistake == "ratio-inverted"
    assert part_of(instance, 2).value == 2  # ceil(10 / 5.6): DistServe's 2P1D
    assert part_of(instance, 3).value == pytest.approx(10 / 3, rel=1e-12)


def test_continuous_batching_capacity_of_the_scaling_book_case() -> None:
    instance = pose(
        "serving-continuous-batching-capacity",
        model="llama-3-70b",
        dtype="bf16",
        kv_dtype="bf16",
        gpu="tpu-v5e",
        n_gpus=16,
        util=1,
        reserve_gib=0,
        avg_ctx=8192,
    )
    pool = 16 * 16 * GIB - 2 * LLAMA3_70B
    per_sequence = 8192 * 2 * 80 * 8 * 128 * 2
    assert instance.value == pool // per_sequence == 49


def test_capacity_reserve_slip_is_named() -> None:
    instance = pose(
        "serving-continuous-batching-capacity",
        model="llama-3.1-8b",
        dtype="bf16",
        kv_dtype="bf16",
        gpu="h100-sxm",
        n_gpus=1,
        util=0.9,
        reserve_gib=4,
        avg_ctx=4096,
        max_len=8192,
    )
    per_sequence = 4096 * 2 * 32 * 8 * 128 * 2
    budget = 0.9 * 80 * GIB
    weights = 8_030_261_248 * 2
    assert instance.value == int((budget - weights - 4 * GIB) // per_sequence)
    no_reserve = int((budget - weights) // per_sequence)
    assert grade_instance(instance, str(no_reserve)).mistake == "reserve-ignored"


def test_hugging_face_eighteen_bytes_against_zero_sixteen() -> None:
    instance = pose("training-memory-hf-18-bytes", n_params=8_030_261_248)
    assert instance.value == 18 * 8_030_261_248
    assert grade_instance(instance, f"{16 * 8_030_261_248 / 1e9:.4g} GB").mistake == "zero-16-bytes"


def test_fp32_adam_sixteen_bytes_or_twelve_fused() -> None:
    held = pose("training-memory-fp32-adam", n_params=VIT_L16, fused="false")
    fused = pose("training-memory-fp32-adam", n_params=VIT_L16, fused="true")
    assert held.value == 16 * VIT_L16  # weights, gradients, m, v: four fp32 tensors
    assert fused.value == 12 * VIT_L16  # the gradient buffer is never held
    double_master = f"{20 * VIT_L16 / 1e9:.4g} GB"
    assert grade_instance(held, double_master).mistake == "master-copy-double-counted"
    assert part_of(held, 2).value == 16 * VIT_L16  # mixed precision: the same 16 bytes
    assert part_of(fused, 3).value == 4 * VIT_L16


def test_eight_bit_adam_with_and_without_a_master_copy() -> None:
    bare = pose("training-memory-8bit-adam", n_params=8_030_261_248, master="false")
    kept = pose("training-memory-8bit-adam", n_params=8_030_261_248, master="true")
    assert bare.value == (2 + 2 + 2) * 8_030_261_248
    assert kept.value == (2 + 2 + 4 + 2) * 8_030_261_248
    assert grade_instance(bare, f"{12 * 8.030261248:.4g} GB").mistake == "32-bit-moments"
    assert part_of(bare, 2).value == 8 * 8_030_261_248  # Kaitchup: 'roughly 64 GB'
    assert part_of(bare, 3).value == pytest.approx(0.75)
    assert "factor of 1.15" in bare.conventions[-1]
