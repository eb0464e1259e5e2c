"""Collectives, ZeRO traffic, pipeline bubbles, DP rooflines and sharding: golden problems and properties."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.parallel import (
    COLLECTIVES,
    allgather_bytes_per_gpu,
    allreduce_bytes_per_gpu,
    collective_time,
    dp_critical_batch_per_gpu,
    pipeline_bubble_fraction,
    pipeline_bubble_share,
    reduce_scatter_bytes_per_gpu,
    ring_collective_time,
    sharded_bytes_per_device,
    zero_comm_bytes_per_gpu,
)
from quizzer.core.units import DTYPE_BITS, Unit, dtype_bytes
from tests.golden import assert_golden

# --- golden problems -------------------------------------------------------------------------------------


def test_par01_allgather_on_an_h100_node(problems: dict[str, dict[str, Any]]) -> None:
    buffer_bytes = 1024 * 16384 * 2  # bf16[1024, 16384]
    sent = allgather_bytes_per_gpu(buffer_bytes, 8)
    assert sent.value == 29_360_128  # 7/8 of 33,554,432, exact
    seconds = collective_time(sent.value, 450e9)
    assert_golden(problems["PAR-01"], seconds.value)
    assert ring_collective_time("all-gather", buffer_bytes, 8, 450e9).value == seconds.value


def test_par02_tpu_allgather_over_two_axes(problems: dict[str, dict[str, Any]]) -> None:
    # The scaling book's convention for this problem: AllGather ≈ V / W with no (n-1)/n factor, and two mesh
    # axes' bandwidth usable, so W = 2 × 9e10. V is the gathered bf16[1024, 4096] array: 2·B·D bytes.
    gathered_bytes = 2 * 1024 * 4096
    assert_golden(problems["PAR-02"], collective_time(gathered_bytes, 2 * 9e10).value)


def test_par04_zero3_moves_1_5x_data_parallel(problems: dict[str, dict[str, Any]]) -> None:
    dp = zero_comm_bytes_per_gpu(1_000_000_000, "fp16", 64, 0).value
    zero3 = zero_comm_bytes_per_gpu(1_000_000_000, "fp16", 64, 3).value
    assert isinstance(dp, int)
    assert isinstance(zero3, int)
    assert_golden(problems["PAR-04"], Fraction(zero3, dp))


def test_par07_b200_critical_batch(problems: dict[str, dict[str, Any]]) -> None:
    result = dp_critical_batch_per_gpu(2.25e15, 400e9)
    assert result.unit == Unit.TOKENS
    assert_golden(problems["PAR-07"], result.value)


def test_sh01_sharded_int8_array(problems: dict[str, dict[str, Any]]) -> None:
    total_bytes = 128 * 2048 * 1  # int8[128, 2048]
    per_device = sharded_bytes_per_device(total_bytes, 2 * 8)  # I over X and Y; replicated over Z
    assert_golden(problems["SH-01"], per_device.value)
    assert per_device.value * 32 == 524_288  # the total the problem gives across all 32 devices


# --- sizing-notes anchors --------------------------------------------------------------------------------


def test_h100_critical_batch() -> None:
    # sizing-notes 4.8: H100 (990e12) over 400 GB/s node egress => about 2,475 tokens per GPU.
    assert dp_critical_batch_per_gpu(990e12, 400e9).value == pytest.approx(2_475)


def test_dp_allreduce_is_2_n_minus_1_over_n_grad_bytes() -> None:
    # sizing-notes 4.8: DP gradient all-reduce moves 2(N-1)/N × grad bytes per GPU. 7e9 bf16 over 64 GPUs:
    # 2 × 63/64 × 14e9 = 27.5625e9 bytes.
    assert allreduce_bytes_per_gpu(7_000_000_000, "bf16", 64).value == 27_562_500_000


def test_pipeline_bubble_conventions() -> None:
    # sizing-notes §6: (p-1)/m relative to ideal vs (p-1)/(m+p-1) share of the step. p = 8, m = 32:
    assert pipeline_bubble_fraction(8, 32).value == pytest.approx(7 / 32)
    assert pipeline_bubble_share(8, 32).value == pytest.approx(7 / 39)
    # interleaving with v = 4 chunks divides the bubble by 4 (Narayanan et al. 2021)
    assert pipeline_bubble_fraction(8, 32, 4).value == pytest.approx(7 / 128)


def test_single_gpu_sends_nothing() -> None:
    assert allreduce_bytes_per_gpu(1_000, "fp32", 1).value == 0
    assert pipeline_bubble_fraction(1, 4).value == 0


def test_uneven_shards_round_up() -> None:
    assert sharded_bytes_per_device(10, 3).value == 4


def test_sub_byte_gradients_round_up() -> None:
    # 3 int4 elements are 1.5 bytes, stored in 2; the all-reduce over 2 GPUs sends 2 × 1/2 × 2 = 2 bytes.
    assert allreduce_bytes_per_gpu(3, "int4", 2).value == 2


# --- validation ------------------------------------------------------------------------------------------


def test_unknown_collective_suggests_a_name() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'all-gather'"):
        ring_collective_time("allgater", 1_000, 8, 1e9)


def test_collective_name_spellings() -> None:
    assert ring_collective_time("ALL_REDUCE", 8_000, 8, 1e9).value == pytest.approx(2 * 7_000 / 1e9)


def test_unknown_dtype() -> None:
    with pytest.raises(UnknownNameError, match="dtype"):
        allreduce_bytes_per_gpu(1_000, "fp12", 8)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: zero_comm_bytes_per_gpu(1_000, "fp16", 8, 4), "zero_stage"),
        (lambda: ring_collective_time("all-reduce", 1_000, 1, 1e9), "at least 2"),
        (lambda: pipeline_bubble_fraction(4, 0), "n_microbatches"),
        (lambda: pipeline_bubble_share(4, 8, 0), "n_virtual_stages"),
        (lambda: allgather_bytes_per_gpu(1.5, 8), "total_bytes"),
        (lambda: collective_time(1_000, 0), "bandwidth"),
        (lambda: dp_critical_batch_per_gpu(1e15, -1.0), "network_bandwidth"),
        (lambda: sharded_bytes_per_device(1_000, 0), "n_shards"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        call()


# --- properties ------------------------------------------------------------------------------------------

counts = st.integers(min_value=1, max_value=10**12)
gpus = st.integers(min_value=1, max_value=4_096)
dtypes = st.sampled_from(sorted(DTYPE_BITS))


@given(counts, dtypes, gpus)
def test_allreduce_is_twice_allgather_of_the_same_buffer(n: int, dtype: str, g: int) -> None:
    buffer_bytes = -(-n * dtype_bytes(dtype).numerator // dtype_bytes(dtype).denominator)  # ceil
    assert allreduce_bytes_per_gpu(n, dtype, g).value == 2 * allgather_bytes_per_gpu(buffer_bytes, g).value


@given(counts, gpus)
def test_reduce_scatter_costs_the_same_as_allgather(total: int, g: int) -> None:
    assert reduce_scatter_bytes_per_gpu(total, g).value == allgather_bytes_per_gpu(total, g).value


@given(counts, st.integers(min_value=2, max_value=4_096))
def test_allgather_below_the_buffer_and_rising_with_gpus(total: int, g: int) -> None:
    sent = allgather_bytes_per_gpu(total, g).value
    assert total / 2 <= sent < total
    assert allgather_bytes_per_gpu(total, g + 1).value >= sent


@given(counts, dtypes, st.integers(min_value=2, max_value=4_096))
def test_zero_stages_1_2_match_dp_and_stage_3_is_1_5x(n: int, dtype: str, g: int) -> None:
    dp = zero_comm_bytes_per_gpu(n, dtype, g, 0).value
    assert zero_comm_bytes_per_gpu(n, dtype, g, 1).value == dp
    assert zero_comm_bytes_per_gpu(n, dtype, g, 2).value == dp
    assert zero_comm_bytes_per_gpu(n, dtype, g, 3).value == pytest.approx(1.5 * dp, rel=1e-12)


@given(st.integers(2, 128), st.integers(1, 10_000), st.integers(1, 8))
def test_bubble_fraction_decreases_in_microbatches(p: int, m: int, v: int) -> None:
    assert pipeline_bubble_fraction(p, m + 1, v).value < pipeline_bubble_fraction(p, m, v).value
    assert pipeline_bubble_share(p, m + 1, v).value < pipeline_bubble_share(p, m, v).value
    assert pipeline_bubble_fraction(p, m, v + 1).value < pipeline_bubble_fraction(p, m, v).value


@given(st.integers(1, 128), st.integers(1, 10_000), st.integers(1, 8))
def test_share_is_fraction_over_one_plus_fraction(p: int, m: int, v: int) -> None:
    f = pipeline_bubble_fraction(p, m, v).value
    share = pipeline_bubble_share(p, m, v).value
    assert 0 <= share < 1
    assert share == pytest.approx(f / (1 + f), rel=1e-12, abs=1e-15)


@given(st.floats(min_value=1.0, max_value=1e12), st.floats(min_value=1e6, max_value=1e13), st.integers(2, 10))
def test_time_linear_in_bytes(n_bytes: float, bandwidth: float, k: int) -> None:
    once = collective_time(n_bytes, bandwidth).value
    assert collective_time(n_bytes * k, bandwidth).value == pytest.approx(k * once, rel=1e-12)


@given(counts, st.integers(min_value=1, max_value=4_096))
def test_shards_cover_the_array(total: int, shards: int) -> None:
    per_device = sharded_bytes_per_device(total, shards).value
    assert per_device * shards >= total > (per_device - 1) * shards


@given(
    counts, dtypes, st.integers(2, 4_096), st.sampled_from([0, 1, 2, 3]), st.sampled_from(sorted(COLLECTIVES))
)
def test_last_step_carries_the_value(n: int, dtype: str, g: int, stage: int, collective: str) -> None:
    results = [
        allreduce_bytes_per_gpu(n, dtype, g),
        allgather_bytes_per_gpu(n, g),
        reduce_scatter_bytes_per_gpu(n, g),
        collective_time(n, 1e11),
        ring_collective_time(collective, n, g, 1e11),
        zero_comm_bytes_per_gpu(n, dtype, g, stage),
        pipeline_bubble_fraction(g, 8, 2),
        pipeline_bubble_share(g, 8),
        dp_critical_batch_per_gpu(1e15, 1e11),
        sharded_bytes_per_device(n, g),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
