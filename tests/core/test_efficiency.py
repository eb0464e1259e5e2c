"""Hand-computed and property tests for quizzer.core.efficiency.

Every expected value below is worked from the formula by hand (the arithmetic in the comments), not read
off the calculator.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.efficiency import (
    bandwidth_utilisation,
    compression_ratio,
    decode_compute_bound_batch,
    decode_compute_bound_context,
    flops_utilisation,
    matmul_roofline_utilisation,
    prefill_compute_bound_tokens,
)
from quizzer.core.errors import SpecError, UnknownNameError
from tests.golden import assert_sealed

H100_BF16, H100_BW = 989.4e12, 3.35e12  # NVIDIA's 1,979 TFLOP/s (2:4 sparse) halved; 3.35 TB/s
A100_BF16, A100_BW = 312e12, 2.039e12
V5E_BF16, V5E_BW_BOOK = 1.97e14, 8.2e11  # the scaling book's TPU v5e figures

# --- utilisation ------------------------------------------------------------------------------------------


def test_flops_utilisation_of_an_8k_cube_on_an_h100() -> None:
    # 2 × 8192³ = 1,099,511,627,776 FLOPs in 1.6 ms = 6.8719476736e14 FLOP/s; ÷ 9.894e14 = 0.694557
    result = flops_utilisation(2 * 8192**3, 0.0016, H100_BF16)
    assert result.value == pytest.approx(0.694557, rel=1e-6)
    assert result.unit == "ratio"
    assert result.factors
    assert result.factors[0].role == "flops_per_mac"
    assert_sealed(result)


def test_bandwidth_utilisation() -> None:
    # 2.68e9 bytes in 1 ms = 2.68e12 bytes/s, 80% of 3.35e12
    assert bandwidth_utilisation(2.68e9, 0.001, H100_BW).value == pytest.approx(0.8, rel=1e-12)


def test_compute_bound_matmul_is_measured_against_the_peak() -> None:
    # 4096³ in bf16: 137,438,953,472 FLOPs over 3 × 4096² × 2 = 100,663,296 bytes, intensity 1,365.3 against
    # the H100's ridge of 295.3, so compute-bound: 1.37438953472e11 / 2e-4 s / 9.894e14 = 0.694557
    result = matmul_roofline_utilisation(4096, 4096, 4096, "bf16", 2e-4, H100_BF16, H100_BW)
    assert result.value == pytest.approx(0.694557, rel=1e-6)
    labels = [step.label for step in result.steps]
    assert "Share of the compute roof" in labels
    assert "Share of the memory roof" not in labels
    assert result.steps[2].value == pytest.approx(4096 / 3, rel=1e-12)  # the intensity
    assert_sealed(result)


def test_memory_bound_decode_matmul_is_measured_against_the_bandwidth() -> None:
    # [1, 8192] × [8192, 8192] in bf16 on an A100 80GB: (8,192 + 67,108,864 + 8,192) × 2 = 134,250,496 bytes,
    # intensity 2 × 8192² / 134,250,496 ≈ 1, far below 312e12 / 2.039e12 = 153; in 80 µs that is
    # 1.6781312e12 bytes/s, 0.823017 of 2.039e12
    result = matmul_roofline_utilisation(1, 8192, 8192, "bf16", 80e-6, A100_BF16, A100_BW)
    assert result.value == pytest.approx(0.823017, rel=1e-5)
    assert result.steps[-1].label == "Share of the memory roof"
    assert result.factors[0].role == "bytes_per_value"
    assert result.factors[0].label == "bf16"


def test_fp8_matmul_moves_one_byte_per_element() -> None:
    # [16, 4096] × [4096, 4096] in fp8: 65,536 + 16,777,216 + 65,536 = 16,908,288 bytes; in 10 µs that is
    # 1.6908288e12 bytes/s, 0.504725 of 3.35e12
    result = matmul_roofline_utilisation(16, 4096, 4096, "fp8", 1e-5, 1978.9e12, H100_BW)
    assert result.steps[1].value == 16_908_288
    assert result.value == pytest.approx(1.6908288e12 / 3.35e12, rel=1e-12)


# --- compression ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("bf16", "mxfp4", 16 / 4.25),  # 4 + 8/32 = 4.25 bits: 3.7647
        ("bf16", "nvfp4", 16 / 4.5),  # 4 + 8/16 = 4.5 bits: 3.5556
        ("fp16", "nvfp4", 32 / 9),  # NVIDIA's "about 3.5x" against FP16
        ("fp8", "nvfp4", 8 / 4.5),  # and "1.8x" against FP8: 1.7778
        ("bf16", "mxfp6", 16 / 6.25),  # 2.56
        ("bf16", "mxfp8", 16 / 8.25),  # 1.9394
        ("fp32", "mxfp4", 32 / 4.25),  # 7.5294
    ],
)
def test_block_scaled_compression(source: str, target: str, expected: float) -> None:
    result = compression_ratio(source, target)
    assert result.value == pytest.approx(expected, rel=1e-12)
    assert_sealed(result)


def test_group_quantized_compression() -> None:
    # GPTQ/AWQ int4: an fp16 scale and a 4-bit zero point per 128: 4 + 20/128 = 4.15625 bits, 16 / 4.15625
    assert compression_ratio("bf16", "int4", 128, 16, 4).value == pytest.approx(3.849624, rel=1e-6)
    # symmetric int4 with an fp16 scale per 64 costs exactly MXFP4's 4.25 bits
    assert compression_ratio("bf16", "int4", 64).value == pytest.approx(16 / 4.25, rel=1e-12)
    # an fp16 scale and an fp16 zero point per 32: 4 + 32/32 = 5 bits
    assert compression_ratio("bf16", "int4", 32, 16, 16).value == pytest.approx(3.2, rel=1e-12)
    # per-tensor constants count as 0: fp32 → int8 is 4×
    assert compression_ratio("fp32", "int8").value == 4


def test_nvfp4_tensor_scale_counts_when_the_tensor_is_given() -> None:
    # a 16-value tensor: 4 + 8/16 + 32/16 = 6.5 bits, 16 / 6.5 = 2.4615
    assert compression_ratio("bf16", "nvfp4", tensor_values=16).value == pytest.approx(16 / 6.5, rel=1e-12)
    # Llama 3 8B's 4096 × 14336 up projection: 32 / 58,720,256 bits more per value, invisible at 6 figures
    big = compression_ratio("bf16", "nvfp4", tensor_values=4096 * 14336).value
    assert big == pytest.approx(16 / 4.5, rel=1e-6)
    assert big < 16 / 4.5
    # MXFP4 has no tensor scale: the size of the tensor changes nothing
    assert (
        compression_ratio("bf16", "mxfp4", tensor_values=16).value == compression_ratio("bf16", "mxfp4").value
    )


# --- crossovers -------------------------------------------------------------------------------------------


def test_prefill_crossover_is_the_ridge_for_bf16_dense() -> None:
    # the scaling book: 1.97e14 / 8.2e11 = 240.24 tokens on a TPU v5e, whatever the dense model
    for n in (8_000_000_000, 70_553_706_496):
        assert prefill_compute_bound_tokens(n, n, "bf16", V5E_BF16, V5E_BW_BOOK).value == pytest.approx(
            240.2439, rel=1e-6
        )


def test_prefill_crossover_with_int4_weights_and_a_mixture() -> None:
    # int4 weights, bf16 math on an H100: 295.3433 × 0.5 / 2 = 73.8358
    assert prefill_compute_bound_tokens(10**9, 10**9, "int4", H100_BF16, H100_BW).value == pytest.approx(
        73.8358, rel=1e-5
    )
    # Qwen3-30B-A3B in bf16: reads 30,532,122,624 weights, uses 3,353,032,704 per token: 295.3433 × 9.10584
    moe = prefill_compute_bound_tokens(30_532_122_624, 3_353_032_704, "bf16", H100_BF16, H100_BW).value
    assert moe == pytest.approx(2689.35, rel=1e-4)


def test_decode_context_limit_of_llama3_8b_on_an_h100() -> None:
    # KV per token 2 × 32 × 8 × 128 × 2 = 131,072 bytes; 2 × 8,030,261,248 / (295.3433 × 131,072) = 414.88
    result = decode_compute_bound_context(8_030_261_248, 131_072, H100_BF16, H100_BW)
    assert result.value == pytest.approx(414.88, rel=1e-4)
    # an fp8 cache (half the bytes) doubles it
    assert decode_compute_bound_context(8_030_261_248, 65_536, H100_BF16, H100_BW).value == pytest.approx(
        2 * result.value, rel=1e-12
    )


def test_decode_batch_grows_as_the_context_nears_its_limit() -> None:
    # no cache: the critical batch, 1.97e14 / 8.2e11 = 240.24; at half the limit twice that, 480.49
    assert decode_compute_bound_batch(8e9, 8e9, "bf16", 0, 400, V5E_BF16, V5E_BW_BOOK).value == pytest.approx(
        240.2439, rel=1e-6
    )
    assert decode_compute_bound_batch(
        8e9, 8e9, "bf16", 200, 400, V5E_BF16, V5E_BW_BOOK
    ).value == pytest.approx(480.4878, rel=1e-6)
    # at three quarters of it, 4 × 240.24 = 960.98
    assert decode_compute_bound_batch(
        8e9, 8e9, "bf16", 300, 400, V5E_BF16, V5E_BW_BOOK
    ).value == pytest.approx(960.9756, rel=1e-6)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: compression_ratio("bf16", "mxfp4", 32), SpecError),
        (lambda: compression_ratio("bf16", "int5"), UnknownNameError),
        (lambda: matmul_roofline_utilisation(0, 1, 1, "bf16", 1.0, 1e12, 1e9), SpecError),
        (lambda: flops_utilisation(1e9, 0, 1e12), SpecError),
        (lambda: prefill_compute_bound_tokens(10, 11, "bf16", 1e12, 1e9), SpecError),
        (lambda: decode_compute_bound_batch(10, 10, "bf16", 400, 400, 1e12, 1e9), SpecError),
        (lambda: decode_compute_bound_context(10, 0, 1e12, 1e9), SpecError),
    ],
)
def test_bad_inputs_raise(call: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        call()


# --- properties -------------------------------------------------------------------------------------------

dims = st.integers(min_value=1, max_value=1 << 15)
peaks = st.floats(min_value=1e12, max_value=1e16)
bandwidths = st.floats(min_value=1e10, max_value=1e14)
seconds = st.floats(min_value=1e-7, max_value=10.0)
params = st.integers(min_value=10**6, max_value=10**13)


@given(dims, dims, dims, st.sampled_from(["bf16", "fp8", "fp32"]), seconds, peaks, bandwidths)
def test_matmul_share_is_roofline_time_over_measured_time(
    m: int, k: int, n: int, dtype: str, t: float, peak: float, bw: float
) -> None:
    # whichever roof binds, its share is the roofline lower bound max(FLOPs ÷ peak, bytes ÷ bandwidth) ÷ time
    size = {"bf16": 2, "fp8": 1, "fp32": 4}[dtype]
    flops, moved = 2 * m * k * n, (m * k + k * n + m * n) * size
    bound = max(flops / peak, moved / bw)
    assert matmul_roofline_utilisation(m, k, n, dtype, t, peak, bw).value == pytest.approx(
        bound / t, rel=1e-9
    )


@given(
    params,
    st.integers(min_value=1, max_value=100),
    st.floats(min_value=1e3, max_value=1e7),
    peaks,
    bandwidths,
    st.floats(min_value=0.0, max_value=0.99),
    st.sampled_from(["bf16", "fp8", "int4"]),
)
def test_decode_batch_balances_math_and_traffic(
    n: int, sparsity: int, kv: float, peak: float, bw: float, share: float, dtype: str
) -> None:
    # at the batch returned, 2·N_active·B ÷ peak equals (weight bytes + B·S·KV) ÷ bandwidth exactly
    active = max(1, n // sparsity)
    limit = decode_compute_bound_context(active, kv, peak, bw).value
    context = share * limit
    batch = decode_compute_bound_batch(n, active, dtype, context, limit, peak, bw).value
    weights = {"bf16": 2 * n, "fp8": n, "int4": -(-n // 2)}[dtype]  # int4 packs two a byte, rounded up
    math = 2 * active * batch / peak
    traffic = (weights + batch * context * kv) / bw
    assert math == pytest.approx(traffic, rel=1e-9)


@given(
    st.sampled_from(["bf16", "fp16", "fp32", "fp8"]),
    st.sampled_from([16, 32, 64, 128, 256]),
    st.sampled_from([0, 4, 8, 16]),
)
def test_larger_groups_compress_more(source: str, group: int, zero: int) -> None:
    # the constants are spread over more values, so the ratio grows with the group and stays below the bare
    # element's bits ratio
    small = compression_ratio(source, "int4", group, 16, zero).value
    large = compression_ratio(source, "int4", 2 * group, 16, zero).value
    bare = {"bf16": 16, "fp16": 16, "fp32": 32, "fp8": 8}[source] / 4
    assert small < large < bare
