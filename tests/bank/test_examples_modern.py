"""The modern-architectures templates (MLA, q/k norms, sinks, shared experts, FP4 and FP8 formats,
interleaved attention, MoE layouts), pinned against counts worked out by hand from the configs.

Every expected value is written from the model's config numbers (layers, heads, widths, block sizes),
never read back from the template's own answer.
"""

from __future__ import annotations

from functools import cache
from math import ceil
from typing import Any

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.session.chain import part_of
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

GIB = 2**30


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, **overrides: Any) -> Instance:
    return bank().generate(
        f"modern-architectures-{template_id}", 1, {k: str(v) for k, v in overrides.items()}
    )


# --- MLA: five projections and two latent norms ------------------------------------------------------


@pytest.mark.parametrize(("model", "heads"), [("deepseek-v3", 128), ("kimi-k2", 64)])
def test_an_mla_layer_is_its_five_projections_and_two_norms(model: str, heads: int) -> None:
    d, q_rank, kv_rank, nope, rope, v = 7168, 1536, 512, 128, 64, 128
    by_hand = (
        d * q_rank  # q_a_proj
        + q_rank * heads * (nope + rope)  # q_b_proj
        + d * (kv_rank + rope)  # kv_a_proj_with_mqa: latent and the shared rotary key
        + kv_rank * heads * (nope + v)  # kv_b_proj
        + heads * v * d  # o_proj
        + q_rank
        + kv_rank  # q_a_layernorm, kv_a_layernorm
    )
    instance = pose("mla-layer-params", model=model)
    assert instance.value == by_hand
    assert part_of(instance, 2).value == kv_rank + rope
    assert part_of(instance, 3).value == pytest.approx(2 * heads * nope / (kv_rank + rope))


def test_the_rotary_key_left_out_is_named() -> None:
    instance = pose("mla-layer-params", model="deepseek-v3")
    verdict = grade_instance(instance, str(instance.value - 7168 * 64))
    assert verdict.mistake == "rope-key-left-out"


# --- q/k norms: per head against the whole projection -------------------------------------------------


def test_per_head_and_whole_projection_norms() -> None:
    assert pose("qk-norm-params", model="qwen3-8b").value == 36 * 2 * 128
    assert pose("qk-norm-params", model="gemma-3-4b").value == 34 * 2 * 256
    olmo = pose("qk-norm-params", model="olmo-2-7b")
    assert olmo.value == 32 * (32 + 32) * 128
    assert part_of(olmo, 2).value == 32 * (32 + 32) * 128 + (2 * 32 + 1) * 4096


def test_one_weight_vector_per_head_is_named() -> None:
    instance = pose("qk-norm-params", model="qwen3-8b")
    verdict = grade_instance(instance, str(36 * (32 + 8) * 128))
    assert verdict.mistake == "weights-per-head"


# --- attention sinks -------------------------------------------------------------------------------------


def test_sinks_are_one_logit_per_query_head_per_layer() -> None:
    instance = pose("attention-sinks", model="gpt-oss-120b")
    assert instance.value == 36 * 64
    assert grade_instance(instance, str(36 * 8)).mistake == "kv-heads"


def test_the_sink_share_of_attention() -> None:
    instance = pose("attention-sinks", model="gpt-oss-20b")
    gap = part_of(instance, 2).variables["gap"]
    e_gap = round(2.718281828459045**gap, 4)
    assert part_of(instance, 2).value == pytest.approx(e_gap / (128 + e_gap))
    batch = part_of(instance, 3).variables["batch"]
    assert part_of(instance, 3).value == 4 * 12 * (2 * 8 * 64 * 2) * batch  # 12 sliding layers keep 4 tokens


# --- shared experts --------------------------------------------------------------------------------------


def test_a_deepseek_moe_layer_token_uses_router_top8_and_the_shared_expert() -> None:
    expert = 3 * 7168 * 2048
    instance = pose("shared-expert-layer", model="deepseek-v3")
    assert instance.value == 7168 * 256 + (8 + 1) * expert
    assert part_of(instance, 2).value == 7168 * 256 + (256 + 1) * expert
    assert part_of(instance, 3).value == 18432  # (8 + 1) x 2,048: DeepSeek's dense intermediate_size
    assert grade_instance(instance, str(7168 * 256 + 8 * expert)).mistake == "shared-left-out"


def test_gpt_oss_experts_carry_biases_and_a_router_bias() -> None:
    expert = 3 * 2880 * 2880 + 2 * 2880 + 2880
    assert pose("shared-expert-layer", model="gpt-oss-20b").value == 2880 * 32 + 32 + 4 * expert


# --- MXFP4 / NVFP4 experts -------------------------------------------------------------------------------


def test_mxfp4_experts_and_the_gpt_oss_checkpoint() -> None:
    values = 24 * 32 * 3 * 2880 * 2880
    instance = pose("fp4-expert-checkpoint", model="gpt-oss-20b", fmt="mxfp4")
    assert instance.value == values // 2 + values // 32  # codes packed two per byte, one byte per 32
    assert part_of(instance, 2).value == 4.25
    total = 20_914_757_184
    assert part_of(instance, 3).value == values // 2 + values // 32 + 2 * (total - values)
    assert part_of(instance, 3).value / GIB == pytest.approx(12.8, abs=0.05)  # the model card's 12.8 GiB


def test_nvfp4_adds_a_scale_per_16_and_fp32_per_tensor() -> None:
    values = 58 * 3 * 7168 * (256 * 2048 + 1 * 2048)
    tensors = 58 * 257 * 3
    instance = pose("fp4-expert-checkpoint", model="deepseek-v3", fmt="nvfp4")
    assert instance.value == values // 2 + values // 16 + 4 * tensors
    assert grade_instance(instance, f"{values / 2 / GIB:.5g} GiB").mistake == "scales-left-out"


# --- interleaved local/global attention -----------------------------------------------------------------


def test_gemma3_and_llama4_interleaved_caches() -> None:
    gemma = pose("interleaved-kv-cache", model="gemma-3-4b", ctx=32768, batch=1, kv_dtype="bf16")
    per_token_layer = 2 * 4 * 256 * 2
    assert gemma.value == (5 * 32768 + 29 * 1024) * per_token_layer
    weights = 2 * 3_880_263_168
    assert part_of(gemma, 3).value == pytest.approx(34 * 32768 * per_token_layer / weights)  # ~59%
    assert part_of(gemma, 4).value == pytest.approx(gemma.value / weights)  # ~10%: the report's "<15%"
    scout = pose("interleaved-kv-cache", model="llama-4-scout", ctx=131072, batch=2, kv_dtype="fp8")
    per_token_layer = 2 * 8 * 128 * 1
    assert scout.value == (12 * 131072 + 36 * 8192) * per_token_layer * 2


def test_nope_layers_still_cache_and_windowed_layers_still_count() -> None:
    scout = pose("interleaved-kv-cache", model="llama-4-scout", ctx=16384, batch=1, kv_dtype="bf16")
    assert grade_instance(scout, f"{36 * 8192 * 4096} bytes").mistake == "nope-layers-no-cache"
    gemma = pose("interleaved-kv-cache", model="gemma-3-4b", ctx=16384, batch=1, kv_dtype="bf16")
    assert grade_instance(gemma, f"{5 * 16384 * 4096} bytes").mistake == "windowed-layers-left-out"


# --- MoE layouts: dense first layers, experts on every k-th layer ----------------------------------------


def test_llama4_maverick_from_scouts_layers() -> None:
    d, vocab = 5120, 202048
    attention = d * (40 + 8 + 8) * 128 + 40 * 128 * d
    norms = 2 * d
    dense = 3 * d * 16384
    expert = 3 * d * 8192
    moe = d * 128 + (128 + 1) * expert
    by_hand = 2 * vocab * d + 48 * (attention + norms) + 24 * dense + 24 * moe + d
    instance = pose("moe-layout-params", model="llama-4-scout", layout="interleaved")
    assert instance.value == by_hand
    assert part_of(instance, 2).value == by_hand - 24 * 127 * expert
    assert "Llama 4 Maverick" in instance.prompt


def test_deepseek_v3_three_dense_layers_then_58_moe() -> None:
    d = 7168
    attention = d * 1536 + 1536 * 128 * 192 + d * 576 + 512 * 128 * 256 + 128 * 128 * d
    norms = 2 * d + 1536 + 512
    dense = 3 * d * 18432
    expert = 3 * d * 2048
    moe = d * 256 + 257 * expert
    by_hand = 2 * 129280 * d + 61 * (attention + norms) + 3 * dense + 58 * moe + d
    instance = pose("moe-layout-params", model="deepseek-v3", layout="released")
    assert instance.value == by_hand
    assert part_of(instance, 2).value == by_hand - 58 * 248 * expert
    every_layer_moe = by_hand + 3 * (moe - dense)
    assert grade_instance(instance, str(every_layer_moe)).mistake == "every-layer-moe"
    assert grade_instance(instance, str(by_hand - 129280 * d)).mistake == "head-left-out"


# --- FP8 with 128 x 128 block scales ---------------------------------------------------------------------


def test_fp8_block_scales_round_the_edge_block_up() -> None:
    instance = pose("fp8-block-scales", model="deepseek-v3", which="kv_down")  # 576 x 7,168
    assert instance.value == ceil(576 / 128) * ceil(7168 / 128) * 4
    assert grade_instance(instance, str(4 * 56 * 4)).mistake == "partial-block-dropped"
    assert part_of(instance, 2).value == pytest.approx(instance.value / (576 * 7168))
    assert part_of(instance, 3).value == pytest.approx(576 * (7168 // 32) / instance.value)


def test_a_whole_block_tensor_pays_one_scale_per_16384_values() -> None:
    instance = pose("fp8-block-scales", model="qwen3-8b", which="mlp_down")  # 4,096 x 12,288
    assert instance.value == 32 * 96 * 4
    assert part_of(instance, 3).value == pytest.approx(128)
