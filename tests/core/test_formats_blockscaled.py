"""Block-scaled storage: MXFP4/NVFP4 bit formulas, FP8 blocks, and published checkpoints recomputed."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.blockscaled import (
    BLOCK_FORMATS,
    block_format,
    block_scaled_bits_per_value,
    block_scaled_bytes,
    block_scaled_tensor_bytes,
    fp8_block_scaled_bytes,
    mixed_weights_bytes,
)
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.memory import weights_bytes
from quizzer.core.units import dtype_bits, elements_bytes
from tests.golden import assert_sealed

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "formats.json").read_text(encoding="utf-8"))
PUBLISHED = {b["format"]: b for b in DATA["block_formats"]}
CHECKPOINTS: dict[str, dict[str, Any]] = DATA["checkpoints"]
GIB = 2**30


def bits_of(name: str) -> Fraction:
    """Published bits per value (block scales included, per-tensor scales not)."""
    return Fraction(PUBLISHED[name]["bits_per_value"])


def tensor_bytes(name: str) -> int:
    return PUBLISHED[name]["tensor_scale_bits"] // 8


# --- the formats against their specifications ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_format_matches_its_specification(name: str) -> None:
    published, f = PUBLISHED[name], block_format(name)
    assert published["source"] in DATA["sources"]
    assert (f.element_bits, f.scale_bits, f.block_size) == (
        published["element_bits"],
        published["scale_bits"],
        published["block"],
    )
    assert (f.element, f.scale, f.tensor_scale_bits) == (
        published["element"],
        published["scale"],
        published["tensor_scale_bits"],
    )
    assert Fraction(block_scaled_bits_per_value(name).value) == bits_of(name)
    assert dtype_bits(name) == bits_of(name)  # the dtype table says the same, exactly


def test_mxfp4_is_4_25_and_nvfp4_4_5_bits() -> None:
    # OCP MX v1.0: 4 + 8/32; NVIDIA: 4 + 8/16 (the fp32 per-tensor scale is per tensor, not per value).
    assert block_scaled_bits_per_value("mxfp4").value == 4.25
    assert block_scaled_bits_per_value("nvfp4").value == 4.5
    assert set(BLOCK_FORMATS) == set(PUBLISHED)


def test_small_tensors_by_hand() -> None:
    # 64 NVFP4 values: 32 bytes of nibbles, 4 E4M3 scales, 4 bytes of fp32 tensor scale.
    assert block_scaled_bytes(64, "nvfp4").value == 32 + 4 + 4
    # A 3 × 40 MXFP4 tensor: rows of 20 bytes, 2 scales each (the second block is short).
    assert block_scaled_tensor_bytes(3, 40, "mxfp4").value == 3 * (20 + 2)
    # DeepSeek-V3's activations: one token of 7,168 channels in 1 × 128 tiles, fp32 scales.
    assert fp8_block_scaled_bytes(1, 7168, 1, 128).value == 7168 + 56 * 4
    # Per-tensor fp8: one scale for the whole tensor.
    assert fp8_block_scaled_bytes(4096, 4096, 4096, 4096).value == 4096 * 4096 + 4


# --- published checkpoints recomputed --------------------------------------------------------------------


def gpt_oss_parts(c: dict[str, Any]) -> tuple[int, int]:
    """(all parameters, MXFP4 expert-weight values) of a gpt-oss config, from its shapes."""
    d, f, n_exp = c["hidden_size"], c["intermediate_size"], c["num_experts"]
    q, kv = c["num_heads"] * c["head_dim"], c["num_kv_heads"] * c["head_dim"]
    attention = (d * q + q) + 2 * (d * kv + kv) + (q * d + d) + c["num_heads"]  # biases, one sink per head
    experts = n_exp * (d * 2 * f + 2 * f + f * d + d)  # fused gate_up and down, with biases
    router = d * n_exp + n_exp
    layer = attention + experts + router + 2 * d
    total = c["num_layers"] * layer + 2 * c["vocab_size"] * d + d  # untied embedding and head, final norm
    return total, c["num_layers"] * n_exp * (d * 2 * f + f * d)


@pytest.mark.parametrize(
    ("name", "expected_bytes"),
    [
        # 19,110,297,600 × 17/32 + (20,914,757,184 − 19,110,297,600) × 2
        ("gpt-oss-20b", 10_152_345_600 + 3_608_919_168),
        # 114,661,785,600 × 17/32 + (116,829,156,672 − 114,661,785,600) × 2
        ("gpt-oss-120b", 60_914_073_600 + 4_334_742_144),
    ],
)
def test_gpt_oss_checkpoint_size(name: str, expected_bytes: int) -> None:
    c = CHECKPOINTS[name]
    total, mxfp4 = gpt_oss_parts(c)
    assert abs(total - float(c["published_total_params"])) <= float(c["published_total_precision"]) / 2
    assert mxfp4 / total > 0.9  # the card: "the MoE weights are responsible for 90+% of the total"
    result = mixed_weights_bytes(total, mxfp4, "mxfp4", "bf16")
    assert_sealed(result)
    assert result.value == expected_bytes
    assert round(result.value / GIB, 1) == float(c["published_checkpoint_gib"])  # 12.8 GiB, 60.8 GiB
    # The same bytes tensor by tensor: gate_up [E·2f, d] and down [E·d, f] per layer, blocked along d and f.
    d, f, n_exp = c["hidden_size"], c["intermediate_size"], c["num_experts"]
    per_layer = (
        block_scaled_tensor_bytes(n_exp * 2 * f, d, "mxfp4").value
        + block_scaled_tensor_bytes(n_exp * d, f, "mxfp4").value
    )
    assert c["num_layers"] * per_layer == mxfp4 * 17 // 32


def test_gpt_oss_20b_matches_the_measured_model(real_models_2025: dict[str, dict[str, Any]]) -> None:
    total, _ = gpt_oss_parts(CHECKPOINTS["gpt-oss-20b"])
    assert total == real_models_2025["gpt-oss-20b"]["params"]["total"]


def deepseek_tensors(cfg: dict[str, Any]) -> tuple[list[tuple[int, int]], int, int]:
    """(FP8 weight shapes [out, in], bf16 parameter count, fp32 bias count) of DeepSeek-V3's main model."""
    d, mla, moe = cfg["hidden_size"], cfg["mla"], cfg["moe"]
    heads, qk = cfg["num_heads"], mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
    attention = [
        (mla["q_lora_rank"], d),
        (heads * qk, mla["q_lora_rank"]),
        (mla["kv_lora_rank"] + mla["qk_rope_head_dim"], d),
        (heads * (mla["qk_nope_head_dim"] + mla["v_head_dim"]), mla["kv_lora_rank"]),
        (d, heads * mla["v_head_dim"]),
    ]
    n_dense, n_moe = moe["first_k_dense_replace"], cfg["num_layers"] - moe["first_k_dense_replace"]

    def mlp(width: int) -> list[tuple[int, int]]:
        return [(width, d), (width, d), (d, width)]

    experts = moe["num_experts"] + moe["num_shared_experts"]
    shapes = (
        attention * cfg["num_layers"]
        + mlp(moe["dense_intermediate_size"]) * n_dense
        + mlp(moe["expert_intermediate_size"]) * experts * n_moe
    )
    norms = cfg["num_layers"] * (2 * d + mla["q_lora_rank"] + mla["kv_lora_rank"]) + d
    bf16 = 2 * cfg["vocab_size"] * d + norms + n_moe * moe["num_experts"] * d  # embeddings, norms, router
    return shapes, bf16, n_moe * moe["num_experts"]


def test_deepseek_v3_fp8_checkpoint(real_models_2025: dict[str, dict[str, Any]]) -> None:
    record, c = real_models_2025["deepseek-v3"], CHECKPOINTS["deepseek-v3"]
    shapes, bf16, biases = deepseek_tensors(record["config"])
    assert sum(o * i for o, i in shapes) + bf16 == record["params"]["total"] == 671_026_404_352
    assert abs(record["params"]["total"] - float(c["published_main_params"])) <= float(
        c["published_main_precision"]
    )
    block_rows, block_cols = c["weight_block"]
    fp8 = sum(fp8_block_scaled_bytes(o, i, block_rows, block_cols, c["scale_bits"]).value for o, i in shapes)
    total = fp8 + elements_bytes(bf16, "bf16") + 4 * biases
    # By hand: 669,065,609,216 FP8 values + 163,352,928 bytes of fp32 scales (40,838,232 blocks),
    # 3,921,590,272 bytes of bf16, 59,392 of fp32 router biases.
    assert fp8 == 669_065_609_216 + 163_352_928
    assert total == 673_150_611_808
    assert total / weights_bytes(record["params"]["total"], "bf16").value == pytest.approx(0.5016, abs=1e-4)


def test_llama_70b_in_nvfp4() -> None:
    c = CHECKPOINTS["llama-3.1-70b"]
    d, f, hd = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    q, kv = c["num_heads"] * hd, c["num_kv_heads"] * hd
    linears = [(q, d), (kv, d), (kv, d), (d, q), (f, d), (f, d), (d, f)]  # q k v o gate up down [out, in]
    linear_params = c["num_layers"] * sum(o * i for o, i in linears)
    total = linear_params + 2 * c["vocab_size"] * d + (2 * c["num_layers"] + 1) * d
    assert total == 70_553_706_496
    assert abs(total - float(c["published_total_params"])) <= float(c["published_total_precision"]) / 2
    n_tensors = 7 * c["num_layers"]
    result = mixed_weights_bytes(total, linear_params, "nvfp4", "bf16", n_tensors)
    # By hand: 68,451,041,280 × 9/16 + 560 × 4 + 2,102,665,216 × 2
    assert result.value == 38_503_710_720 + 2_240 + 4_205_330_432
    per_tensor = sum(block_scaled_tensor_bytes(o, i, "nvfp4").value for o, i in linears) * c["num_layers"]
    assert per_tensor + 2 * (total - linear_params) == result.value
    assert result.value > 35e9 * 1.2  # "70B × 0.5 bytes" misses the scales and the bf16 embeddings


# --- properties ------------------------------------------------------------------------------------------

scaled = st.sampled_from(sorted(PUBLISHED))
four_bit = st.sampled_from(["mxfp4", "nvfp4"])
sizes = st.integers(min_value=1, max_value=10**12)
dims = st.integers(min_value=1, max_value=50_000)


@given(four_bit, st.integers(min_value=1, max_value=10**10), st.integers(min_value=1, max_value=1000))
def test_flat_sizes_equal_the_bit_formula(name: str, n_blocks: int, n_tensors: int) -> None:
    n = n_blocks * block_format(name).block_size
    tensors = min(n_tensors, n)
    expected = n * bits_of(name) / 8 + tensors * tensor_bytes(name)
    assert block_scaled_bytes(n, name, tensors).value == expected


@given(scaled, dims, st.integers(min_value=1, max_value=2000))
def test_tensor_sizes_equal_the_bit_formula(name: str, rows: int, blocks_per_row: int) -> None:
    cols = blocks_per_row * block_format(name).block_size
    assert block_scaled_tensor_bytes(rows, cols, name).value == rows * cols * bits_of(
        name
    ) / 8 + tensor_bytes(name)


@given(scaled, dims, dims)
def test_a_partial_block_costs_at_most_its_padding(name: str, rows: int, cols: int) -> None:
    stored = block_scaled_tensor_bytes(rows, cols, name).value
    block = block_format(name).block_size
    padded = rows * math.ceil(cols / block) * block
    assert rows * cols * bits_of(name) / 8 <= stored - tensor_bytes(name) <= padded * bits_of(name) / 8


@given(scaled, st.lists(st.tuples(dims, st.integers(1, 200)), min_size=1, max_size=8))
def test_tensors_add_up_to_their_flat_count(name: str, shapes: list[tuple[int, int]]) -> None:
    block = block_format(name).block_size
    full = [(rows, k * block) for rows, k in shapes]
    each = sum(block_scaled_tensor_bytes(rows, cols, name).value for rows, cols in full)
    assert each == block_scaled_bytes(sum(r * c for r, c in full), name, len(full)).value


@given(scaled, sizes)
def test_sizes_are_monotone_in_n(name: str, n: int) -> None:
    assert block_scaled_bytes(n, name).value <= block_scaled_bytes(n + 1, name).value


@given(scaled, dims, dims)
def test_tensor_sizes_are_monotone_in_both_dimensions(name: str, rows: int, cols: int) -> None:
    stored = block_scaled_tensor_bytes(rows, cols, name).value
    assert stored <= block_scaled_tensor_bytes(rows + 1, cols, name).value
    assert stored <= block_scaled_tensor_bytes(rows, cols + 1, name).value


@given(dims, dims, st.sampled_from([1, 32, 128]), st.sampled_from([32, 128, 512]))
def test_fp8_blocks_are_monotone_and_cost_one_byte_a_value(rows: int, cols: int, br: int, bc: int) -> None:
    stored = fp8_block_scaled_bytes(rows, cols, br, bc).value
    assert stored == rows * cols + math.ceil(rows / br) * math.ceil(cols / bc) * 4
    assert stored <= fp8_block_scaled_bytes(rows + 1, cols, br, bc).value
    assert stored <= fp8_block_scaled_bytes(rows, cols + 1, br, bc).value
    assert stored >= fp8_block_scaled_bytes(rows, cols, 2 * br, 2 * bc).value  # bigger blocks, fewer scales


@given(scaled, st.integers(min_value=1, max_value=10**10))
def test_the_dtype_table_counts_the_block_scales(name: str, n_blocks: int) -> None:
    # weights_bytes (memory.py) goes through elements_bytes: effective bits × n, rounded up, no tensor scale.
    n = n_blocks * block_format(name).block_size
    assert weights_bytes(n, name).value == elements_bytes(n, name) == math.ceil(n * bits_of(name) / 8)
    assert elements_bytes(n, name) == block_scaled_bytes(n, name).value - tensor_bytes(name)


@given(sizes, st.floats(min_value=0, max_value=1), st.sampled_from(["mxfp4", "nvfp4", "fp8", "int4", "bf16"]))
def test_mixed_checkpoints_are_their_two_parts(n: int, share: float, quant: str) -> None:
    nq = int(n * share)
    result = mixed_weights_bytes(n, nq, quant)
    assert_sealed(result)
    quantized = 0
    if nq:
        quantized = block_scaled_bytes(nq, quant).value if quant in PUBLISHED else elements_bytes(nq, quant)
    assert result.value == quantized + elements_bytes(n - nq, "bf16")
    assert mixed_weights_bytes(n, 0, quant).value == weights_bytes(n, "bf16").value


@given(scaled, sizes, dims, dims)
def test_every_calculator_ends_in_its_value(name: str, n: int, rows: int, cols: int) -> None:
    for result in (
        block_scaled_bits_per_value(name),
        block_scaled_bytes(n, name),
        block_scaled_tensor_bytes(rows, cols, name),
        fp8_block_scaled_bytes(rows, cols),
    ):
        assert_sealed(result)
        assert result.convention


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: block_scaled_bytes(0, "mxfp4"), SpecError, "n_values"),
        (lambda: block_scaled_bytes(10, "nvfp4", 11), SpecError, "n_tensors"),
        (lambda: block_scaled_bytes(10, "bf16"), UnknownNameError, "block-scaled format 'bf16'"),
        (lambda: block_scaled_bytes(10, "mxfp5"), UnknownNameError, "mxfp4"),
        (lambda: block_scaled_tensor_bytes(0, 32, "mxfp4"), SpecError, "rows"),
        (lambda: fp8_block_scaled_bytes(128, 128, 128, 128, 12), SpecError, "scale_bits"),
        (lambda: mixed_weights_bytes(10, 11, "mxfp4"), SpecError, "n_quantized"),
        (lambda: mixed_weights_bytes(10, 5, "fp3"), UnknownNameError, "dtype"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()
