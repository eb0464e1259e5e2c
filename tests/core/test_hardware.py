"""Tests for the accelerator table in quizzer.core.hardware."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.hardware import ACCELERATORS, accelerator, hbm_bandwidth, hbm_bytes, peak_flops
from quizzer.core.inference import critical_batch_size

GIB = 2**30

# Spec-sheet values from the brief and sizing-notes §2.4 / §7, typed in by hand.
BANDWIDTH = {
    "a100-40gb": 1.555e12,
    "a100-80gb": 2.039e12,
    "h100-sxm": 3.35e12,
    "h200": 4.8e12,
    "b200": 8e12,
    "tpu-v5e": 8.1e11,
    "tpu-v5p": 2.765e12,
    "l4": 3e11,
    "rtx-4090": 1.008e12,
}


def test_table_has_the_expected_parts() -> None:
    assert set(ACCELERATORS) == set(BANDWIDTH)


@pytest.mark.parametrize(("name", "bandwidth"), sorted(BANDWIDTH.items()))
def test_bandwidth(name: str, bandwidth: float) -> None:
    assert hbm_bandwidth(name).value == bandwidth


def test_dense_not_sparse_peaks() -> None:
    # The headline 1,979 TFLOP/s (H100) and 624 (A100) are 2:4 sparse; dense is half.
    assert peak_flops("h100-sxm").value == 989.4e12
    assert peak_flops("h100-sxm", "fp8").value == 1978.9e12
    assert peak_flops("a100-40gb").value == 312e12
    assert peak_flops("a100-80gb", "tf32").value == 156e12
    assert peak_flops("tpu-v5e").value == 1.97e14
    assert peak_flops("tpu-v5p").value == 4.59e14
    assert peak_flops("b200").value == 2.25e15
    assert "not 2:4 sparse" in peak_flops("h200").convention


def test_memory_sizes_are_binary() -> None:
    assert hbm_bytes("a100-40gb").value == 40 * GIB
    assert hbm_bytes("a100-80gb").value == 80 * GIB
    assert hbm_bytes("h100-sxm").value == 80 * GIB
    assert hbm_bytes("tpu-v5e").value == 16 * GIB
    assert isinstance(hbm_bytes("h200").value, int)


def test_critical_batch_from_the_table() -> None:
    # sizing-notes §4.5: H100 ≈ 298 (989e12 / 3.35e12 = 295); A100-40GB 312e12 / 1.555e12 = 200.6
    h100 = accelerator("h100-sxm")
    assert critical_batch_size(h100.dense_flops["bf16"], h100.hbm_bandwidth).value == pytest.approx(
        298, rel=0.02
    )
    a100 = accelerator("a100-40gb")
    assert critical_batch_size(a100.dense_flops["bf16"], a100.hbm_bandwidth).value == pytest.approx(
        200.6, rel=1e-3
    )


def test_nvlink_is_one_way() -> None:
    # NVIDIA quotes bidirectional NVLink (600 / 900 / 1,800 GB/s); kipply and the scaling book use one-way.
    assert accelerator("a100-80gb").interconnect_bandwidth == 300e9
    assert accelerator("h100-sxm").interconnect_bandwidth == 450e9
    assert accelerator("b200").interconnect_bandwidth == 900e9
    assert accelerator("l4").interconnect_bandwidth is None


def test_lookup_is_case_insensitive() -> None:
    assert accelerator(" H100-SXM ") is ACCELERATORS["h100-sxm"]


def test_unknown_name_suggests_close_match() -> None:
    with pytest.raises(UnknownNameError, match="h100-sxm"):
        accelerator("h100-sxn")
    with pytest.raises(UnknownNameError):
        peak_flops("tpu-v6")


def test_unsupported_dtype_is_an_error() -> None:
    with pytest.raises(SpecError, match="fp8"):
        peak_flops("a100-40gb", "fp8")  # Ampere has no fp8 tensor cores
    with pytest.raises(UnknownNameError):
        peak_flops("h100-sxm", "bf8")


def test_entries_are_frozen_and_sourced() -> None:
    for acc in ACCELERATORS.values():
        assert acc.source
        assert acc.note
        assert acc.hbm_bytes % GIB == 0
        with pytest.raises(AttributeError, match="immutable"):
            acc.hbm_bandwidth = 0.0  # type: ignore[misc]
        with pytest.raises(TypeError):
            acc.dense_flops["bf16"] = 0.0  # type: ignore[index]


@given(st.sampled_from(sorted(ACCELERATORS)))
def test_lower_precision_is_never_slower(name: str) -> None:
    order = ["fp32", "tf32", "bf16", "fp8", "int8"]
    rates = [accelerator(name).dense_flops[d] for d in order if d in accelerator(name).dense_flops]
    assert rates == sorted(rates)
    assert "bf16" in accelerator(name).dense_flops


@given(
    st.sampled_from(sorted(ACCELERATORS)), st.sampled_from(["fp32", "tf32", "bf16", "fp16", "fp8", "int8"])
)
def test_every_calculator_ends_in_its_value(name: str, dtype: str) -> None:
    results = [hbm_bandwidth(name), hbm_bytes(name)]
    if dtype in accelerator(name).dense_flops:
        results.append(peak_flops(name, dtype))
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
        assert result.convention
