"""Training time, GPU-hours, cost and MFU: golden problems, sizing-notes anchors and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.core.flops import recompute_training_flops, training_flops
from quizzer.core.training import (
    gpu_hours,
    mfu_from_gpu_hours,
    mfu_from_throughput,
    training_cost,
    training_time,
    training_time_from_flops,
)
from quizzer.core.units import Unit
from tests.golden import assert_golden

SECONDS_PER_DAY = 86_400


# --- golden problems -------------------------------------------------------------------------------------


def test_tr01_tpu_v5p_pod_days(problems: dict[str, dict[str, Any]]) -> None:
    result = training_time_from_flops(6.3e24, 8_960, 4.59e14, 0.4)
    assert result.unit == Unit.SECONDS
    assert_golden(problems["TR-01"], result.value / SECONDS_PER_DAY)


def test_tr04_deepseek_v3_cost(problems: dict[str, dict[str, Any]]) -> None:
    result = training_cost(2.788e6, 2)
    assert result.unit == Unit.USD
    assert_golden(problems["TR-04"], result.value)


def test_tr06_megatron_utilization(problems: dict[str, dict[str, Any]]) -> None:
    result = mfu_from_throughput(502e15, 3_072, 312e12)
    assert result.unit == Unit.RATIO
    assert_golden(problems["TR-06"], result.value)


def test_fl06_gpt3_training_compute(problems: dict[str, dict[str, Any]]) -> None:
    result = training_flops(175_000_000_000, 300_000_000_000)
    assert result.unit == Unit.FLOPS
    assert_golden(problems["FL-06"], result.value)


def test_fl09_block_remat_is_8nd(problems: dict[str, dict[str, Any]]) -> None:
    n_params, n_tokens = 7_000_000_000, 1_000_000_000_000
    multiple = recompute_training_flops(n_params, n_tokens).value / (n_params * n_tokens)
    assert_golden(problems["FL-09"], multiple)
    # and the recompute adds exactly one forward pass (2ND) to 6ND
    extra = recompute_training_flops(n_params, n_tokens).value - training_flops(n_params, n_tokens).value
    assert extra == 2 * n_params * n_tokens


# --- sizing-notes anchors --------------------------------------------------------------------------------


def test_llama2_7b_mfu_from_a100_hours(real_models: dict[str, dict[str, Any]]) -> None:
    # sizing-notes 4.6: Llama-2-7B, 184,320 A100-hours for 2T tokens at 312 TFLOP/s => about 39% MFU.
    n_params = real_models["llama-2-7b"]["params"]["total"]
    result = mfu_from_gpu_hours(n_params, 2_000_000_000_000, 184_320, 312e12)
    assert result.value == pytest.approx(0.39, abs=0.005)
    # with the marketing "7B" the same run reads as 40.6%
    assert mfu_from_gpu_hours(7e9, 2e12, 184_320, 312e12).value == pytest.approx(0.406, abs=0.001)


def test_deepseek_v3_cost_is_gpu_hours_times_price() -> None:
    # sizing-notes 4.6: 2.788M H800-hours at $2/h is $5.576M.
    assert training_cost(2_788_000, 2).value == 5_576_000


def test_gpu_hours_hand_computed() -> None:
    # 6 × 7e9 × 1e12 = 4.2e22 FLOPs at 312e12 × 0.5 = 1.56e14 FLOP/s per GPU: 2.6923e8 s = 74,786 GPU-hours
    result = gpu_hours(7e9, 1e12, 312e12, 0.5)
    assert result.unit == Unit.GPU_HOURS
    assert result.value == pytest.approx(4.2e22 / 1.56e14 / 3600)
    assert result.value == pytest.approx(74_786.3, abs=0.1)


def test_training_time_includes_the_6nd_step() -> None:
    result = training_time(1_000_000_000, 10_000_000_000, 10, 1e14, 0.5)
    assert result.steps[0].value == 6 * 10**19
    assert result.steps[0].unit == Unit.FLOPS
    assert result.value == pytest.approx(120_000)


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mfu", [0, -0.1, 1.01, 40])
def test_mfu_outside_unit_interval_is_rejected(mfu: float) -> None:
    with pytest.raises(SpecError, match=r"mfu .* must be in \(0, 1\]"):
        training_time(1e9, 1e10, 8, 1e14, mfu)


@pytest.mark.parametrize("n_gpus", [0, -8, 2.5, True])
def test_bad_gpu_count_is_rejected(n_gpus: Any) -> None:
    with pytest.raises(SpecError, match="n_gpus"):
        training_time_from_flops(1e21, n_gpus, 1e14, 0.5)


def test_impossible_mfu_is_reported() -> None:
    with pytest.raises(SpecError, match="exceeds 1"):
        mfu_from_gpu_hours(7e9, 2e12, 1_000, 312e12)
    with pytest.raises(SpecError, match="exceeds 1"):
        mfu_from_throughput(1e18, 8, 1e15)


def test_nonpositive_cost_inputs_are_rejected() -> None:
    with pytest.raises(SpecError, match="usd_per_gpu_hour"):
        training_cost(100, 0)


# --- properties ------------------------------------------------------------------------------------------

params = st.integers(min_value=1_000_000, max_value=10**12)
tokens = st.integers(min_value=1_000_000, max_value=10**14)
gpus = st.integers(min_value=1, max_value=100_000)
peaks = st.floats(min_value=1e12, max_value=1e16)
mfus = st.floats(min_value=0.01, max_value=1.0)


@given(params, tokens, gpus, st.integers(min_value=2, max_value=64), peaks, mfus)
def test_time_inversely_proportional_to_gpus(n: int, d: int, g: int, k: int, peak: float, mfu: float) -> None:
    base = training_time(n, d, g, peak, mfu).value
    assert training_time(n, d, g * k, peak, mfu).value * k == pytest.approx(base, rel=1e-12)


@given(
    params,
    tokens,
    gpus,
    peaks,
    st.floats(min_value=0.01, max_value=0.5),
    st.floats(min_value=1.0, max_value=2.0),
)
def test_time_inversely_proportional_to_mfu(
    n: int, d: int, g: int, peak: float, mfu: float, k: float
) -> None:
    base = training_time(n, d, g, peak, mfu).value
    assert training_time(n, d, g, peak, mfu * k).value * k == pytest.approx(base, rel=1e-12)


@given(params, tokens, gpus, peaks, mfus)
def test_gpu_hours_equal_wall_clock_times_gpus(n: int, d: int, g: int, peak: float, mfu: float) -> None:
    wall = training_time(n, d, g, peak, mfu).value
    assert gpu_hours(n, d, peak, mfu).value == pytest.approx(wall * g / 3600, rel=1e-12)


@given(params, tokens, peaks, mfus)
def test_mfu_round_trips_through_gpu_hours(n: int, d: int, peak: float, mfu: float) -> None:
    hours = gpu_hours(n, d, peak, mfu).value
    assert mfu_from_gpu_hours(n, d, hours, peak).value == pytest.approx(mfu, rel=1e-9)


@given(gpus, peaks, mfus)
def test_mfu_round_trips_through_throughput(g: int, peak: float, mfu: float) -> None:
    assert mfu_from_throughput(g * peak * mfu, g, peak).value == pytest.approx(mfu, rel=1e-12)


@given(st.floats(min_value=1, max_value=1e8), st.floats(min_value=0.01, max_value=100), st.integers(2, 10))
def test_cost_linear_in_hours(hours: float, price: float, k: int) -> None:
    assert training_cost(hours * k, price).value == pytest.approx(k * training_cost(hours, price).value)


@given(params, tokens, gpus, peaks, mfus)
def test_last_step_carries_the_value(n: int, d: int, g: int, peak: float, mfu: float) -> None:
    hours = gpu_hours(n, d, peak, 1.0).value  # at MFU 1, so the implied MFU below stays within (0, 1]
    results = [
        training_time(n, d, g, peak, mfu),
        training_time_from_flops(6.0 * n * d, g, peak, mfu),
        gpu_hours(n, d, peak, mfu),
        training_cost(hours, 2.0),
        mfu_from_gpu_hours(n, d, hours * 2, peak),
        mfu_from_throughput(g * peak * mfu, g, peak),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
