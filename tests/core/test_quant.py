"""Quantization bits and bytes: QLoRA double quantization, group scales, properties."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.blockscaled import block_scaled_bits_per_value, block_scaled_bytes
from quizzer.core.errors import SpecError
from quizzer.core.quant import quant_bits_per_param, quant_overhead_bits_per_param, quantized_weights_bytes
from quizzer.core.units import Unit
from tests.golden import assert_golden

# --- golden problem and anchors --------------------------------------------------------------------------


def test_q01_qlora_double_quant_overhead(problems: dict[str, dict[str, Any]]) -> None:
    # NF4 blocks of 64 with 8-bit absmax; absmaxes in blocks of 256 under one fp32 constant.
    result = quant_overhead_bits_per_param(64, 8, 0, 256, 32)
    assert result.unit == Unit.BITS_PER_PARAM
    assert_golden(problems["Q-01"], result.value)
    assert result.value == 8 / 64 + 32 / (64 * 256)  # 0.126953125, exact in binary


def test_qlora_without_double_quant_is_half_a_bit() -> None:
    # QLoRA: an fp32 absmax per 64 weights costs 32/64 = 0.5 bit per parameter.
    assert quant_overhead_bits_per_param(64, 32).value == 0.5


def test_qlora_effective_bits() -> None:
    # sizing-notes 4.9 / Q-01 notes: NF4 + double quantization is about 4.127 bits per parameter.
    assert quant_bits_per_param(4, 64, 8, 0, 256, 32).value == pytest.approx(4.127, abs=5e-4)


def test_int4_with_fp16_scale_per_128_adds_an_eighth_bit() -> None:
    # sizing-notes 4.9: group quant adds bits_scale / group (fp16 per 128 => +0.125 bit).
    assert quant_bits_per_param(4, 128, 16).value == 4.125
    assert quant_overhead_bits_per_param(128, 16).value == 0.125


def test_zero_points_add_to_the_scale() -> None:
    # asymmetric int4 with an fp16 scale and a 4-bit zero point per 128: 4 + 20/128 = 4.15625
    assert quant_bits_per_param(4, 128, 16, 4).value == 4.15625


def test_weight_bytes_of_a_7b_int4_model() -> None:
    # 7e9 × 4 / 8 = 3.5e9 bytes of weights, plus 7e9 / 128 × 2 = 109,375,000 bytes of fp16 scales.
    assert quantized_weights_bytes(7_000_000_000, 4, 128).value == 3_500_000_000 + 109_375_000
    assert quantized_weights_bytes(7_000_000_000, 4).value == 3_500_000_000


def test_sub_byte_totals_round_up() -> None:
    assert quantized_weights_bytes(3, 4).value == 2  # 1.5 bytes stored in 2


def test_mx_formats_are_group_quantization_with_an_8_bit_scale() -> None:
    # OCP MX v1.0: MXFP4 is 4-bit values sharing an 8-bit scale per 32; NVFP4 the same per 16.
    assert quant_bits_per_param(4, 32, 8).value == block_scaled_bits_per_value("mxfp4").value == 4.25
    assert quant_bits_per_param(4, 16, 8).value == block_scaled_bits_per_value("nvfp4").value == 4.5
    assert quant_overhead_bits_per_param(32, 8).value == 0.25


def test_per_tensor_has_no_overhead() -> None:
    result = quant_bits_per_param(8)
    assert result.value == 8
    assert len(result.steps) == 1


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: quant_bits_per_param(0), "bits"),
        (lambda: quant_bits_per_param(4, -1), "group_size"),
        (lambda: quant_bits_per_param(4, 0, 16, 4), "need group_size > 0"),
        (lambda: quant_bits_per_param(4, 0, 8, 0, 256), "need group_size > 0"),
        (lambda: quant_bits_per_param(4, 64, 0), "scale_bits"),
        (lambda: quant_overhead_bits_per_param(0), "group_size"),
        (lambda: quantized_weights_bytes(0, 4), "n_params"),
        (lambda: quantized_weights_bytes(10, 4.5), "bits"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        call()


# --- properties ------------------------------------------------------------------------------------------

bits = st.sampled_from([1, 2, 3, 4, 5, 6, 8, 16])
groups = st.sampled_from([16, 32, 64, 128, 256, 1024])
scales = st.sampled_from([8, 16, 32])
n_params = st.integers(min_value=1, max_value=10**12)


@given(bits, groups, scales, st.sampled_from([0, 4, 8]), st.sampled_from([0, 64, 256]), scales)
def test_effective_bits_are_bits_plus_overhead(b: int, g: int, s: int, z: int, dq: int, s2: int) -> None:
    total = quant_bits_per_param(b, g, s, z, dq, s2).value
    overhead = quant_overhead_bits_per_param(g, s, z, dq, s2).value
    assert total == pytest.approx(b + overhead, rel=1e-15)
    assert overhead > 0


@given(bits, groups, scales)
def test_larger_groups_cost_less(b: int, g: int, s: int) -> None:
    assert quant_bits_per_param(b, 2 * g, s).value < quant_bits_per_param(b, g, s).value


@given(groups)
def test_double_quant_is_cheaper_than_fp32_scales(g: int) -> None:
    assert quant_overhead_bits_per_param(g, 8, 0, 256, 32).value < quant_overhead_bits_per_param(g, 32).value


@given(st.integers(min_value=1, max_value=10**11), groups)
def test_8_bit_weights_take_twice_the_4_bit_bytes(n: int, g: int) -> None:
    n_even = 2 * n
    assert quantized_weights_bytes(n_even, 8).value == 2 * quantized_weights_bytes(n_even, 4).value
    assert quantized_weights_bytes(n_even, 8, g).value > quantized_weights_bytes(n_even, 8).value


@given(n_params, bits, groups, scales)
def test_bytes_bound_the_exact_size(n: int, b: int, g: int, s: int) -> None:
    exact_bits = n * b + Fraction(n * s, g)
    stored = quantized_weights_bytes(n, b, g, s).value
    assert isinstance(stored, int)
    assert (stored - 1) * 8 < exact_bits <= stored * 8


@given(st.integers(min_value=1, max_value=10**10))
def test_group_quant_bytes_equal_mxfp4_bytes_for_whole_blocks(n_blocks: int) -> None:
    n = 32 * n_blocks
    assert quantized_weights_bytes(n, 4, 32, 8).value == block_scaled_bytes(n, "mxfp4").value


@given(n_params, bits, groups, scales, st.sampled_from([0, 4]), st.sampled_from([0, 256]))
def test_last_step_carries_the_value(n: int, b: int, g: int, s: int, z: int, dq: int) -> None:
    results = [
        quant_bits_per_param(b, g, s, z, dq),
        quant_overhead_bits_per_param(g, s, z, dq),
        quantized_weights_bytes(n, b, g, s, z),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
