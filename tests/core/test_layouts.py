"""4D layouts, scaling efficiency and the contracting-dimension split: hand-computed values and invariants.

Every expected value below is worked out in the comment beside it, from the formula, not read off the code.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import quizzer.core as core
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.layouts import (
    contracting_split_crossover,
    layout_activation_bytes_per_gpu,
    layout_cp_bytes_per_gpu,
    layout_dp_bytes_per_gpu,
    layout_gpus,
    layout_pp_bytes_per_gpu,
    layout_state_bytes_per_gpu,
    layout_tp_bytes_per_gpu,
    partial_sum_reduce_time,
    sharded_matmul_time,
    strong_scaling_efficiency,
    throughput_scaling_efficiency,
    weak_scaling_efficiency,
)
from quizzer.core.units import Unit

LLAMA3_70B = 70_553_706_496  # parameters, as counted from its config

# --- hand-computed values ---------------------------------------------------------------------------------


def test_llama3_405b_long_context_layout_is_16384_gpus() -> None:
    # Llama 3 paper, Table 4: TP 8, CP 16, PP 16, DP 8 for the 131,072-token stage.
    result = layout_gpus(8, 16, 16, 8)
    assert result.value == 16_384
    assert result.unit == Unit.COUNT


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        # Ψ = 70,553,706,496 / (8 × 4) = 2,204,803,328 (halved five times); the ZeRO group is 4 × 2 = 8.
        (0, 35_276_853_248),  # 16 Ψ
        (1, 12_126_418_304),  # 2Ψ + 2Ψ = 8,819,213,312; 12 × Ψ/8 = 12 × 275,600,416 = 3,307,204,992
        (2, 8_268_012_480),  # 2Ψ = 4,409,606,656; (2 + 12) × 275,600,416 = 3,858,405,824
        (3, 4_409_606_656),  # 16 × 275,600,416
    ],
)
def test_model_states_per_gpu_for_each_zero_stage(stage: int, expected: int) -> None:
    result = layout_state_bytes_per_gpu(LLAMA3_70B, 8, 4, 4, 2, stage)
    assert result.value == expected
    assert result.unit == Unit.BYTES


def test_zero_group_includes_the_cp_ranks() -> None:
    # ZeRO-3 over DP alone (4 ranks): 16 × 2,204,803,328 / 4 = 8,819,213,312, twice the DP × CP figure.
    assert layout_state_bytes_per_gpu(LLAMA3_70B, 8, 4, 4, 1, 3).value == 8_819_213_312


def test_an_uneven_shard_rounds_up() -> None:
    # 10 parameters over TP 3: ⌈10 / 3⌉ = 4 per GPU, 16 bytes each = 64.
    assert layout_state_bytes_per_gpu(10, 3, 1, 1).value == 64


def test_saved_activations_of_a_405b_shape_at_128k_tokens() -> None:
    # s = 131,072 over CP 16 = 8,192 tokens; h = 16,384; bf16; TP 8: 8,192 × 16,384 × 2 / 8 = 32 MiB a
    # layer; 128 layers over PP 16 = 8 per stage, × 16 micro-batches in flight = 128 layers' worth = 4 GiB.
    result = layout_activation_bytes_per_gpu(131_072, 1, 16_384, 128, 8, 16, 16)
    assert result.value == 4 * 2**30


def test_tp_bytes_match_narayanan_per_layer_count() -> None:
    # b = 1, s = 8,192 over CP 2 = 4,096 tokens, h = 8,192, TP 8. Narayanan et al.: 8·b·s·h·(t − 1)/t values
    # per layer and micro-batch = 8 × 4,096 × 8,192 × 7/8 = 234,881,024 values = 469,762,048 bf16 bytes.
    # 80 layers over PP 4 = 20 per stage, 8 micro-batches: 469,762,048 × 160 = 75,161,927,680.
    result = layout_tp_bytes_per_gpu(1, 8192, 8192, 80, 8, 2, 4, 8)
    assert result.value == 75_161_927_680
    assert result.steps[-2].value == 20  # layers per stage


def test_cp_ring_bytes() -> None:
    # 8,192 tokens per rank (131,072 / 16), 8 KV heads / TP 8 = 1 head of 128: K and V are
    # 2 × 8,192 × 128 × 2 = 4,194,304 bytes; 3 × 15 = 45 sends a layer; 8 layers a stage; 16 micro-batches.
    result = layout_cp_bytes_per_gpu(1, 131_072, 8, 128, 128, 8, 16, 16, 16)
    assert result.value == 4_194_304 * 45 * 8 * 16 == 24_159_191_040


def test_pp_bytes_of_a_middle_stage() -> None:
    # b = 2, s = 4,096, h = 4,096, bf16 = 67,108,864 bytes; 1/4 of it per TP rank = 16,777,216; sent twice
    # (activation forward, gradient backward) for each of 8 micro-batches: 268,435,456.
    assert layout_pp_bytes_per_gpu(2, 4096, 4096, 4, 1, 8).value == 268_435_456


def test_dp_bytes() -> None:
    # 8e9 parameters over TP 2 × PP 2 = 2e9 per GPU; bf16 gradients 4e9 bytes; ring of 4: 2 × 3/4 × 4e9.
    assert layout_dp_bytes_per_gpu(8_000_000_000, 2, 2, 4, 1, "bf16").value == 6_000_000_000
    # fp32 gradients over DP 4 × CP 2 = 8 ranks: 2 × 7/8 × 8e9 = 14e9.
    assert layout_dp_bytes_per_gpu(8_000_000_000, 2, 2, 4, 2, "fp32").value == 14_000_000_000


def test_scaling_efficiencies() -> None:
    # Strong, one-GPU base: 64 s on 1 GPU, 10 s on 8: 64 / 80 = 0.8.
    assert strong_scaling_efficiency(64.0, 1, 10.0, 8).value == pytest.approx(0.8)
    # Strong, 8-GPU base: 2,400 ms on 8, 1,600 ms on 16: speedup 1.5 over an ideal 2 = 0.75.
    assert strong_scaling_efficiency(2400.0, 8, 1600.0, 16).value == pytest.approx(0.75)
    # Weak: the same per-GPU work takes 1,000 ms alone and 1,250 ms at scale: 0.8.
    assert weak_scaling_efficiency(1000.0, 1250.0).value == pytest.approx(0.8)


def test_megatron_lm_76_percent() -> None:
    # Shoeybi et al. 2019: 15.1 PFLOP/s on 512 GPUs against 39 TFLOP/s on one: 15,100 / (512 × 39) = 15,100 /
    # 19,968 = 0.7562, the paper's "76%".
    result = throughput_scaling_efficiency(39e12, 1, 15.1e15, 512)
    assert result.value == pytest.approx(15_100 / 19_968)
    assert round(100 * result.value) == 76


def test_contracting_split_times_and_crossover() -> None:
    # X[4,096, 8,192] · W[8,192, 8,192] split 4 ways at 1e15 FLOP/s: 2 × 4,096 × 8,192² / 4 = 137,438,953,472
    # FLOPs, 1.374e-4 s.
    assert sharded_matmul_time(4096, 8192, 8192, 4, 1e15).value == pytest.approx(137_438_953_472 / 1e15)
    # Y[4,096, 8,192] in bf16 = 67,108,864 bytes; all-reduce over 4 at 4e11 B/s: 2 × 3/4 × that / 4e11.
    assert partial_sum_reduce_time(4096, 8192, 4, 4e11).value == pytest.approx(100_663_296 / 4e11)
    assert partial_sum_reduce_time(4096, 8192, 4, 4e11, "bf16", "reduce-scatter").value == pytest.approx(
        50_331_648 / 4e11
    )
    # D* = 2 (N − 1) C / W = 2 × 3 × 2,500 = 15,000; a reduce-scatter halves it.
    assert contracting_split_crossover(4, 1e15, 4e11).value == pytest.approx(15_000)
    assert contracting_split_crossover(4, 1e15, 4e11, "bf16", "reduce_scatter").value == pytest.approx(7_500)


def test_every_calculator_is_registered() -> None:
    for name in (
        "layout_gpus",
        "layout_state_bytes_per_gpu",
        "layout_activation_bytes_per_gpu",
        "layout_tp_bytes_per_gpu",
        "layout_cp_bytes_per_gpu",
        "layout_pp_bytes_per_gpu",
        "layout_dp_bytes_per_gpu",
        "strong_scaling_efficiency",
        "weak_scaling_efficiency",
        "throughput_scaling_efficiency",
        "sharded_matmul_time",
        "partial_sum_reduce_time",
        "contracting_split_crossover",
    ):
        assert core.CALCULATORS[name].__name__ == name


# --- what the calculators refuse ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: layout_activation_bytes_per_gpu(131_072, 1, 16_384, 126, 8, 16, 16), "n_layers"),
        (lambda: layout_activation_bytes_per_gpu(1000, 1, 4096, 32, 8, 3, 4), "seq_len"),
        (lambda: layout_cp_bytes_per_gpu(1, 8192, 4, 128, 32, 8, 2, 1, 4), "n_kv_heads"),
        (lambda: layout_cp_bytes_per_gpu(1, 8192, 8, 128, 32, 8, 1, 1, 4), "cp"),
        (lambda: layout_tp_bytes_per_gpu(1, 8192, 4096, 32, 1, 1, 1, 4), "tp"),
        (lambda: layout_dp_bytes_per_gpu(1e9, 8, 1, 1, 1), "dp × cp"),
        (lambda: layout_state_bytes_per_gpu(1e9, 8, 1, 4, 1, 4), "zero_stage"),
        (lambda: contracting_split_crossover(1, 1e15, 4e11), "n_shards"),
    ],
)
def test_invalid_layouts_are_spec_errors(call: object, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        call()  # type: ignore[operator]


def test_unknown_collective() -> None:
    with pytest.raises(UnknownNameError, match="all-gather"):
        partial_sum_reduce_time(4096, 8192, 4, 4e11, "bf16", "all-gather")


# --- invariants -------------------------------------------------------------------------------------------

degrees = st.integers(min_value=1, max_value=64)


@given(degrees, degrees, degrees, degrees)
def test_gpus_are_the_product_of_the_degrees(tp: int, cp: int, pp: int, dp: int) -> None:
    gpus = layout_gpus(tp, cp, pp, dp).value
    assert gpus == tp * cp * pp * dp
    assert gpus == layout_gpus(dp, pp, cp, tp).value  # the order of the dimensions does not matter


@given(
    st.floats(min_value=1e-3, max_value=1e4),
    st.integers(min_value=1, max_value=4096),
    st.floats(min_value=1.0, max_value=10.0),
)
def test_strong_efficiency_is_at_most_one_when_no_faster_than_linear(
    t1: float, n: int, slowdown: float
) -> None:
    # T_N ≥ T₁ / N (no superlinear speedup) ⇒ E = T₁ / (N · T_N) ≤ 1, with equality at exactly linear scaling.
    t_n = t1 / n * slowdown
    efficiency = strong_scaling_efficiency(t1, 1, t_n, n).value
    assert efficiency <= 1 + 1e-12
    assert efficiency == pytest.approx(1 / slowdown)


@given(
    st.floats(min_value=1e-3, max_value=1e4),
    st.integers(min_value=1, max_value=64),
    st.floats(min_value=1e-3, max_value=1e4),
    st.integers(min_value=1, max_value=64),
)
def test_strong_efficiency_is_the_throughput_efficiency_of_a_fixed_problem(
    t_base: float, n_base: int, t_n: float, n: int
) -> None:
    # A fixed problem's rate is 1 / T: (1/T_N / N) / (1/T₀ / N₀) = N₀ · T₀ / (N · T_N).
    strong = strong_scaling_efficiency(t_base, n_base, t_n, n).value
    assert strong == pytest.approx(throughput_scaling_efficiency(1 / t_base, n_base, 1 / t_n, n).value)


@given(
    st.integers(min_value=1, max_value=1 << 16),
    st.integers(min_value=1, max_value=1 << 16),
    st.integers(min_value=2, max_value=64),
    st.floats(min_value=1e13, max_value=1e16),
    st.floats(min_value=1e10, max_value=2e12),
    st.sampled_from(["all-reduce", "reduce-scatter"]),
)
def test_compute_equals_reduction_at_the_crossover(
    batch: int, d_out: int, n: int, peak: float, bandwidth: float, collective: str
) -> None:
    # At D*, 2·B·D*·F / (N·C) equals k (N − 1)/N · B·F·2 / W for every B and F: they cancel.
    d_star = contracting_split_crossover(n, peak, bandwidth, "bf16", collective).value
    math_t = 2 * batch * d_star * d_out / (n * peak)
    comm_t = partial_sum_reduce_time(batch, d_out, n, bandwidth, "bf16", collective).value
    assert math_t == pytest.approx(comm_t, rel=1e-9)
    # A wider D is compute-bound.
    wider = math.ceil(d_star) + 1
    assert sharded_matmul_time(batch, wider, d_out, n, peak).value > comm_t


@given(
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4, 8, 16]),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4, 5, 8, 10]),
)
def test_the_pipeline_degree_cancels_in_the_first_stage_activations(
    tp: int, cp: int, b: int, pp: int
) -> None:
    # L / PP layers × PP micro-batches in flight = L layers' worth, whatever PP divides L = 80.
    with_pp = layout_activation_bytes_per_gpu(32_768, b, 8192, 80, tp, cp, pp).value
    without = layout_activation_bytes_per_gpu(32_768, b, 8192, 80, tp, cp, 1).value
    assert with_pp == without == Fraction(b * 32_768 * 8192 * 2 * 80, tp * cp)


@given(
    st.integers(min_value=1, max_value=10**12),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4, 8, 16]),
    st.sampled_from([1, 2, 4, 8, 64]),
    st.sampled_from([1, 2, 4, 16]),
)
def test_zero3_spreads_all_sixteen_bytes(n_params: int, tp: int, pp: int, dp: int, cp: int) -> None:
    shard = -(-n_params // (tp * pp))
    stage3 = layout_state_bytes_per_gpu(n_params, tp, pp, dp, cp, 3).value
    assert stage3 == 16 * -(-shard // (dp * cp))
    # No stage holds more than the unsharded 16 bytes per parameter of the shard, and each stage at most
    # what the stage before it holds.
    by_stage = [layout_state_bytes_per_gpu(n_params, tp, pp, dp, cp, s).value for s in range(4)]
    assert by_stage[0] == 16 * shard
    assert by_stage == sorted(by_stage, reverse=True)


@given(st.sampled_from([2, 4, 8]), st.sampled_from([1, 2, 4]))
def test_doubling_cp_halves_tp_and_pp_bytes(tp: int, cp: int) -> None:
    # Both carry b × s/CP × h per micro-batch.
    tp1 = layout_tp_bytes_per_gpu(1, 65_536, 4096, 32, tp, cp, 4, 8).value
    tp2 = layout_tp_bytes_per_gpu(1, 65_536, 4096, 32, tp, 2 * cp, 4, 8).value
    pp1 = layout_pp_bytes_per_gpu(1, 65_536, 4096, tp, cp, 8).value
    pp2 = layout_pp_bytes_per_gpu(1, 65_536, 4096, tp, 2 * cp, 8).value
    assert tp1 == 2 * tp2
    assert pp1 == 2 * pp2
