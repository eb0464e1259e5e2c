"""Golden and property tests for quizzer.core.memory and quizzer.core.activations."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.activations import (
    activation_bytes,
    activation_bytes_full_recompute,
    activation_checkpoint_bytes,
)
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.memory import (
    RECIPES,
    inference_memory_bytes,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    training_recipe,
    training_state_bytes,
    weights_bytes,
    zero_bytes_per_gpu,
)
from tests.golden import assert_golden, assert_sealed

GB = 1e9


# --- golden values -----------------------------------------------------------------------------------------


def test_mem_01_zero_paper_16_bytes_per_param(problems: dict[str, dict[str, Any]]) -> None:
    # sources_disagree (16 / 18 / 10 / 8 bytes per param): the problem states ZeRO's 2 + 2 + 12, so 16.
    result = training_state_bytes(7_500_000_000, "mixed-adam")
    assert result.value == 120_000_000_000
    assert_golden(problems["MEM-01"], result.value / GB)


def test_mem_02_zero_stage_1(problems: dict[str, dict[str, Any]]) -> None:
    result = zero_bytes_per_gpu(7_500_000_000, 64, 1)
    assert result.value == 4 * 7_500_000_000 + 12 * 117_187_500  # 2Ψ + 2Ψ + 12Ψ/64, Ψ/64 exact
    assert_golden(problems["MEM-02"], result.value / GB)


def test_zero_ladder_from_sizing_notes() -> None:
    # sizing-notes 4.3, 7.5B on 64 GPUs: 120 -> 31.4 -> 16.6 -> 1.9 GB (16Ψ, 4Ψ+12Ψ/N, 2Ψ+14Ψ/N, 16Ψ/N).
    exact = [120_000_000_000, 31_406_250_000, 16_640_625_000, 1_875_000_000]
    rounded = [120, 31.4, 16.6, 1.9]
    for stage, (want, shown) in enumerate(zip(exact, rounded, strict=True)):
        value = zero_bytes_per_gpu(7_500_000_000, 64, stage).value
        assert value == want
        assert abs(value / GB - shown) <= 0.05


def test_zero_pads_partitions_to_equal_size() -> None:
    # 10 params on 4 GPUs: each partition holds ⌈10/4⌉ = 3 elements; stage 3 with 16 B/param: 3 × 16 = 48.
    assert zero_bytes_per_gpu(10, 4, 3).value == 48
    # stage 1: 10 × 2 + 10 × 2 + 3 × 12 = 76
    assert zero_bytes_per_gpu(10, 4, 1).value == 76


def test_mem_09_full_recompute(problems: dict[str, dict[str, Any]]) -> None:
    # MEM-08 (the shapes) is not in problems.json; s=2048, b=1, h=4096, L=32 gives 2·s·b·h·L = 2**29.
    value = activation_bytes_full_recompute(2048, 1, 4096, 32).value
    assert_golden(problems["MEM-09"], value)
    assert activation_bytes(2048, 1, 4096, 32, 32, "full").value == value


def test_korthikanti_per_layer_by_hand() -> None:
    # s=2048, b=1, h=4096, a=32, t=1: 34·sbh + 5·a·s²·b = 34·8,388,608 + 5·32·2048²
    no_recompute = 34 * 8_388_608 + 5 * 32 * 2048 * 2048
    assert activation_bytes(2048, 1, 4096, 1, 32).value == no_recompute == 956_301_312
    assert activation_bytes(2048, 1, 4096, 1, 32, "selective").value == 34 * 8_388_608
    # t=8: sbh·(10 + 3) + 5·a·s²·b/8
    assert (
        activation_bytes(2048, 1, 4096, 1, 32, "none", 8).value == 13 * 8_388_608 + 5 * 32 * 2048 * 2048 // 8
    )


def test_mem_11_inference_rule_of_thumb(problems: dict[str, dict[str, Any]]) -> None:
    result = inference_memory_bytes(70_000_000_000, "bf16")
    assert result.value == 168_000_000_000
    assert_golden(problems["MEM-11"], result.value / GB)


def test_kv_01_llama2_7b(problems: dict[str, dict[str, Any]]) -> None:
    assert kv_cache_bytes_per_token(32, 32, 128).value == 524_288
    assert_golden(problems["KV-01"], kv_cache_bytes(32, 32, 128, 4096, 1).value)


def test_kv_05_kipply_52b(problems: dict[str, dict[str, Any]]) -> None:
    # n_heads·d_head = 8,192; the split does not matter, only the product.
    per_token = kv_cache_bytes_per_token(64, 64, 128, "fp16").value
    assert per_token == kv_cache_bytes_per_token(64, 1, 8192, "fp16").value
    assert_golden(problems["KV-05"], per_token)
    assert 16 * 10**9 // per_token == 7629  # problem notes: 16e9 / 2,097,152


def test_kv_07_scaling_book_int8(problems: dict[str, dict[str, Any]]) -> None:
    assert_golden(problems["KV-07"], kv_cache_bytes(64, 64, 128, 8192, 1, "int8").value)


def test_kv_per_token_matches_measured_caches(real_models: dict[str, dict[str, Any]]) -> None:
    checked = 0
    for model in real_models.values():
        kv = model["kv_cache"]
        if not kv["applicable"]:
            continue
        config = model["config"]
        value = kv_cache_bytes_per_token(
            config["num_layers"], config["num_kv_heads"], config["head_dim"]
        ).value
        assert value == kv["measured"]["bytes_per_token_scaled_to_full_depth"], model["name"]
        checked += 1
    assert checked >= 5


def test_kv_uses_kv_heads_not_query_heads() -> None:
    # Llama-3-8B: 8 KV heads of 32 query heads; using 32 would be the classic 4× error.
    assert kv_cache_bytes_per_token(32, 8, 128).value == 131_072
    assert kv_cache_bytes_per_token(32, 32, 128).value == 4 * 131_072


def test_weights_bytes_by_dtype() -> None:
    n = 7_000_000_001
    assert weights_bytes(n, "fp32").value == 28_000_000_004
    assert weights_bytes(n, "bf16").value == 14_000_000_002
    assert weights_bytes(n, "int8").value == n
    assert weights_bytes(n, "int4").value == 3_500_000_001  # 3,500,000,000.5 rounded up
    assert weights_bytes(7.5e9, "bf16").value == 15_000_000_000  # a whole float from TOML is accepted


def test_recipes_bytes_per_param() -> None:
    totals = {name: r.total_bytes for name, r in RECIPES.items()}
    assert totals["mixed-adam"] == 16
    assert totals["mixed-adam-fp32-grads"] == 18
    assert totals["fp32-adam"] == 16
    assert totals["bf16-adam"] == 8
    assert totals["sgd-momentum"] == 12
    assert all(r.source for r in RECIPES.values())
    assert training_state_bytes(1000, "mixed-adam-fp32-grads").value == 18_000


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: weights_bytes(0, "bf16"), SpecError),
        (lambda: weights_bytes(1.5, "bf16"), SpecError),
        (lambda: weights_bytes(True, "bf16"), SpecError),
        (lambda: weights_bytes(10, "bf61"), UnknownNameError),
        (lambda: training_state_bytes(10, "adam"), UnknownNameError),
        (lambda: zero_bytes_per_gpu(10, 4, 4), SpecError),
        (lambda: zero_bytes_per_gpu(10, 0, 1), SpecError),
        (lambda: activation_bytes(1, 1, 1, 1, 3, "none", 2), SpecError),
        (lambda: activation_bytes(1, 1, 1, 1, 1, "partial"), UnknownNameError),
        (lambda: kv_cache_bytes(32, 0, 128, 10, 1), SpecError),
        (lambda: inference_memory_bytes(10, "bf16", 0.9), SpecError),
    ],
)
def test_bad_inputs_raise(call: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        call()


def test_unknown_recipe_suggests_close_match() -> None:
    with pytest.raises(UnknownNameError, match="mixed-adam"):
        training_recipe("mixed_adam")


# --- properties ---------------------------------------------------------------------------------------

small = st.integers(min_value=1, max_value=4096)
params = st.integers(min_value=1, max_value=10**13)
dtypes = st.sampled_from(["fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", "nf4"])


@given(small, small, small, small, small, st.integers(min_value=1, max_value=64), dtypes)
def test_kv_cache_linear_in_batch_and_seq_len(
    layers: int, kv_heads: int, head_dim: int, seq_len: int, batch: int, k: int, dtype: str
) -> None:
    base = kv_cache_bytes(layers, kv_heads, head_dim, seq_len, batch, dtype).value
    assert kv_cache_bytes(layers, kv_heads, head_dim, seq_len, batch * k, dtype).value == k * base
    assert kv_cache_bytes(layers, kv_heads, head_dim, seq_len * k, batch, dtype).value == k * base
    assert kv_cache_bytes(layers * k, kv_heads, head_dim, seq_len, batch, dtype).value == k * base
    assert kv_cache_bytes(layers, kv_heads * k, head_dim, seq_len, batch, dtype).value == k * base


@given(small, small, small, dtypes)
def test_kv_per_token_has_k_and_v(layers: int, kv_heads: int, head_dim: int, dtype: str) -> None:
    bytes_each = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}
    value = kv_cache_bytes_per_token(layers, kv_heads, head_dim, dtype).value
    if dtype in bytes_each:
        assert value == 2 * layers * kv_heads * head_dim * bytes_each[dtype]
    else:  # 4-bit: two values per byte, and K plus V make it whole
        assert value == layers * kv_heads * head_dim


@given(params)
def test_fp32_weights_twice_bf16(n: int) -> None:
    assert weights_bytes(n, "fp32").value == 2 * weights_bytes(n, "bf16").value
    assert weights_bytes(n, "bf16").value == 2 * weights_bytes(n, "int8").value
    assert weights_bytes(n, "int4").value == -(-n // 2)


@given(params, st.integers(min_value=1, max_value=4096), st.sampled_from(sorted(RECIPES)))
def test_zero_stages_never_increase_memory(n: int, gpus: int, recipe: str) -> None:
    per_stage = [zero_bytes_per_gpu(n, gpus, stage, recipe).value for stage in range(4)]
    assert per_stage == sorted(per_stage, reverse=True)
    assert per_stage[0] == training_state_bytes(n, recipe).value
    # stage 3 shards everything: N_d partitions cover N, with less than one element of padding each
    total = RECIPES[recipe].total_bytes
    assert n * total <= per_stage[3] * gpus < (n + gpus) * total


@given(params, st.integers(min_value=1, max_value=4096), st.integers(min_value=0, max_value=3))
def test_more_gpus_never_increase_memory(n: int, gpus: int, stage: int) -> None:
    assert zero_bytes_per_gpu(n, gpus + 1, stage).value <= zero_bytes_per_gpu(n, gpus, stage).value


_MODES = ("none", "selective", "full")
heads_and_tp = st.tuples(st.integers(1, 16), st.sampled_from([1, 2, 4, 8])).map(lambda p: (p[0] * p[1], p[1]))


@given(small, st.integers(1, 64), small, st.integers(1, 96), heads_and_tp)
def test_recompute_none_ge_selective_ge_full(
    seq_len: int, batch: int, d_model: int, layers: int, heads_tp: tuple[int, int]
) -> None:
    heads, tp = heads_tp
    values = [activation_bytes(seq_len, batch, d_model, layers, heads, mode, tp).value for mode in _MODES]
    assert values[0] >= values[1] >= values[2] > 0
    assert values[2] == activation_bytes_full_recompute(seq_len, batch, d_model, layers).value
    assert values[1] == seq_len * batch * d_model * layers * (10 + 24 / tp)


@given(small, st.integers(1, 64), small, st.integers(1, 96), st.integers(1, 64), st.sampled_from(_MODES))
def test_activations_linear_in_layers_and_batch(
    seq_len: int, batch: int, d_model: int, layers: int, heads: int, mode: str
) -> None:
    one = activation_bytes(seq_len, batch, d_model, 1, heads, mode).value
    assert activation_bytes(seq_len, batch, d_model, layers, heads, mode).value == pytest.approx(layers * one)
    assert activation_bytes(seq_len, 2 * batch, d_model, 1, heads, mode).value == pytest.approx(2 * one)


@given(params, dtypes, st.sampled_from([1, 1.2, 1.25, 1.5, 2]))
def test_inference_memory_at_least_weights(n: int, dtype: str, overhead: float) -> None:
    weights = weights_bytes(n, dtype).value
    value = inference_memory_bytes(n, dtype, overhead).value
    assert value - 1 < Fraction(str(overhead)) * weights <= value  # rounded up to a whole byte


@given(params, st.integers(1, 512), st.integers(0, 3), st.sampled_from(sorted(RECIPES)), dtypes, small, small)
def test_every_calculator_ends_in_its_value(
    n: int, gpus: int, stage: int, recipe: str, dtype: str, a: int, b: int
) -> None:
    for result in (
        weights_bytes(n, dtype),
        training_state_bytes(n, recipe),
        zero_bytes_per_gpu(n, gpus, stage, recipe),
        activation_bytes(a, b, a, b, 1),
        activation_bytes(a, b, b, a, 1, "selective"),
        activation_bytes_full_recompute(a, b, a, b),
        kv_cache_bytes_per_token(a, b, a, dtype),
        kv_cache_bytes(a, b, a, b, a, dtype),
        inference_memory_bytes(n, dtype),
    ):
        assert_sealed(result)
        assert isinstance(result.value, int)  # byte counts stay exact


def test_mem_06_checkpoints_after_the_three_mlp_matmuls(problems: dict[str, dict[str, Any]]) -> None:
    """Scaling book: LLaMA-2-13B, 16M tokens, bf16 checkpoints of widths F, F and D (F = 2.7·D = 13,824)."""
    d_model = 5120
    d_ff = 13824
    assert d_ff == 27 * d_model // 10
    result = activation_checkpoint_bytes(16_000_000, 40, d_model + 2 * d_ff)
    assert_golden(problems["MEM-06"], result.value)
    assert_sealed(result)


def test_mem_07_three_checkpoints_of_width_d(problems: dict[str, dict[str, Any]]) -> None:
    """Sources disagree (two versions of the page); the stored answer is the 3-checkpoint version's."""
    result = activation_checkpoint_bytes(4_000_000, 80, 3 * 8192)
    assert_golden(problems["MEM-07"], result.value)


def test_mem_10_accelerate_prints_mib_as_mb(problems: dict[str, dict[str, Any]]) -> None:
    """accelerate divides by 1024² and labels the result "MB": 108,310,272 fp32 parameters."""
    size = weights_bytes(108_310_272, "fp32").value
    assert_golden(problems["MEM-10"], size / 2**20)
    assert size / 1e6 == pytest.approx(433.2, rel=1e-3)  # the same bytes in decimal MB


@given(st.integers(1, 10**7), st.integers(1, 128), st.integers(1, 65536))
def test_checkpoints_linear_and_fp32_twice_bf16(n_tokens: int, n_layers: int, width: int) -> None:
    bf16 = activation_checkpoint_bytes(n_tokens, n_layers, width).value
    assert activation_checkpoint_bytes(n_tokens, n_layers, width, "fp32").value == 2 * bf16
    assert activation_checkpoint_bytes(2 * n_tokens, n_layers, width).value == 2 * bf16
