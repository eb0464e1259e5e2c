"""The accelerator table against its published figures (tests/data/hardware.json), and its calculators."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.hardware import (
    ACCELERATORS,
    accelerator,
    hbm_bandwidth,
    hbm_bytes,
    interconnect_bandwidth,
    peak_flops,
)
from quizzer.core.inference import critical_batch_size
from tests.golden import assert_sealed

GIB = 2**30
DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "hardware.json").read_text(encoding="utf-8")
)
FIGURES: list[dict[str, Any]] = DATA["figures"]

#: What one printed unit is in quizzer's base units (FLOP/s, OP/s, bytes/s; memory is checked apart).
SCALE = {
    "TFLOPS": Decimal(10) ** 12,
    "PFLOPS": Decimal(10) ** 15,
    "TOPS": Decimal(10) ** 12,
    "POPS": Decimal(10) ** 15,
    "OP/s": Decimal(1),
    "GB/s": Decimal(10) ** 9,
    "TB/s": Decimal(10) ** 12,
    "B/s": Decimal(1),
}


def _printed(text: str) -> tuple[Decimal, Decimal]:
    """A printed figure and half a unit of its last digit: "1,979" -> (1979, 0.5); "4.5e10" -> 5e8."""
    value = Decimal(text.replace(",", ""))
    return value, Decimal(5).scaleb(value.as_tuple().exponent - 1)  # type: ignore[operator]


def _expected(fig: dict[str, Any]) -> tuple[Decimal, Decimal]:
    """The value quizzer's table must hold for a figure, and the tolerance its printing allows."""
    value, half_digit = _printed(fig["printed"])
    factor = SCALE[fig["unit"]]
    if fig.get("sparse"):
        factor /= 2  # 2:4 sparse headline: dense is half
    if fig.get("direction") == "bidirectional":
        factor /= 2  # quizzer stores one-way bandwidth
    if fig.get("per") == "link":
        factor *= fig["links"]
    return value * factor, half_digit * factor


def _table_value(fig: dict[str, Any]) -> float | int | None:
    acc = ACCELERATORS[fig["accelerator"]]
    kind, _, rate = fig["figure"].partition(".")
    if kind == "dense_flops":
        return acc.dense_flops.get(rate)
    return getattr(acc, kind)  # type: ignore[no-any-return]


def _label(fig: dict[str, Any]) -> str:
    return f"{fig['accelerator']}:{fig['figure']}:{fig['source']}"


def test_every_source_is_described_and_every_figure_names_one() -> None:
    for fig in FIGURES:
        assert fig["source"] in DATA["sources"], _label(fig)
        assert fig["accelerator"] in ACCELERATORS, _label(fig)


def test_table_has_the_expected_parts() -> None:
    # MI300X, TPU v4 and TPU v6e joined the 2024 table (issue #13).
    assert set(ACCELERATORS) == {
        "a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "mi300x",
        "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "l4", "rtx-4090",
    }  # fmt: skip


@pytest.mark.parametrize("fig", [f for f in FIGURES if f["figure"] != "hbm_bytes"], ids=_label)
def test_figure_matches_its_published_value(fig: dict[str, Any]) -> None:
    expected, tolerance = _expected(fig)
    held = _table_value(fig)
    assert held is not None, f"{_label(fig)}: the table has no such figure"
    assert abs(Decimal(held) - expected) <= tolerance, f"{_label(fig)}: {held} vs published {expected}"


@pytest.mark.parametrize("fig", [f for f in FIGURES if f["figure"] == "hbm_bytes"], ids=_label)
def test_memory_is_the_printed_size_in_gib(fig: dict[str, Any]) -> None:
    assert fig["unit"] in ("GB", "GiB")
    assert ACCELERATORS[fig["accelerator"]].hbm_bytes == int(fig["printed"]) * GIB
    assert hbm_bytes(fig["accelerator"]).value == int(fig["printed"]) * GIB


@pytest.mark.parametrize("fig", [f for f in FIGURES if f["figure"] == "interconnect_bandwidth"], ids=_label)
def test_link_counts_match_the_sources(fig: dict[str, Any]) -> None:
    assert ACCELERATORS[fig["accelerator"]].interconnect_links == fig["links"]


@pytest.mark.parametrize("name", sorted(ACCELERATORS))
def test_every_figure_of_the_table_has_a_published_source(name: str) -> None:
    acc = ACCELERATORS[name]
    covered = {f["figure"] for f in FIGURES if f["accelerator"] == name}
    wanted = {f"dense_flops.{rate}" for rate in acc.dense_flops} | {"hbm_bytes", "hbm_bandwidth"}
    if acc.interconnect_bandwidth is not None:
        wanted.add("interconnect_bandwidth")
    assert wanted <= covered, f"{name}: no published figure for {sorted(wanted - covered)}"


# --- the calculators -------------------------------------------------------------------------------------


def test_dense_not_sparse_peaks() -> None:
    # The headline 1,979 TFLOP/s (H100), 18 PFLOP/s fp4 (B200) and 5,229.8 fp8 (MI300X) are 2:4 sparse.
    assert peak_flops("h100-sxm").value == 989.4e12
    assert peak_flops("b200", "fp4").value == 9e15
    assert peak_flops("mi300x", "fp8").value == 2614.9e12
    assert "not 2:4 sparse" in peak_flops("h200").convention


def test_formats_run_at_their_rate_class() -> None:
    assert peak_flops("b200", "nvfp4").value == peak_flops("b200", "mxfp4").value == 9e15
    assert peak_flops("h100-sxm", "fp8_e4m3").value == peak_flops("h100-sxm", "fp8_e5m2").value == 1978.9e12
    assert peak_flops("b200", "mxfp6").value == 4.5e15
    assert "runs at the fp4 rate" in peak_flops("b200", "nvfp4").steps[0].label


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


def test_interconnect_is_one_way() -> None:
    # NVIDIA quotes bidirectional NVLink (600 / 900 / 1,800 GB/s); kipply and the scaling book use one-way.
    assert interconnect_bandwidth("a100-80gb").value == 300e9
    assert interconnect_bandwidth("h100-sxm").value == 450e9
    assert interconnect_bandwidth("h100-sxm", per_link=True).value == 25e9
    assert interconnect_bandwidth("b200").value == 900e9
    assert interconnect_bandwidth("mi300x", per_link=True).value == 64e9
    assert interconnect_bandwidth("tpu-v6e", per_link=True).value == 1e11
    with pytest.raises(SpecError, match="PCIe"):
        interconnect_bandwidth("l4")


def test_lookup_is_case_insensitive() -> None:
    assert accelerator(" H100-SXM ") is ACCELERATORS["h100-sxm"]


def test_unknown_name_suggests_close_match() -> None:
    with pytest.raises(UnknownNameError, match="h100-sxm"):
        accelerator("h100-sxn")
    with pytest.raises(UnknownNameError, match="tpu-v6e"):
        peak_flops("tpu-v6")


def test_unsupported_dtype_is_an_error() -> None:
    with pytest.raises(SpecError, match="fp8"):
        peak_flops("a100-40gb", "fp8")  # Ampere has no fp8 tensor cores
    with pytest.raises(SpecError, match="no fp4"):
        peak_flops("h100-sxm", "nvfp4")  # Hopper has no fp4 tensor cores
    with pytest.raises(UnknownNameError):
        peak_flops("h100-sxm", "bf8")


def test_entries_are_frozen_and_sourced() -> None:
    for acc in ACCELERATORS.values():
        assert acc.source
        assert acc.note
        assert acc.hbm_bytes % GIB == 0
        assert (
            (acc.interconnect_bandwidth is None) == (acc.interconnect_links == 0) == (acc.interconnect == "")
        )
        with pytest.raises(AttributeError, match="immutable"):
            acc.hbm_bandwidth = 0.0  # type: ignore[misc]
        with pytest.raises(TypeError):
            acc.dense_flops["bf16"] = 0.0  # type: ignore[index]


@given(st.sampled_from(sorted(ACCELERATORS)))
def test_lower_precision_is_never_slower(name: str) -> None:
    rates = accelerator(name).dense_flops
    for order in (["fp32", "tf32", "bf16", "fp8", "int8"], ["bf16", "fp8", "fp6", "fp4"]):
        held = [rates[d] for d in order if d in rates]
        assert held == sorted(held)
    assert "bf16" in rates
    assert rates.get("fp16", rates["bf16"]) == rates["bf16"]


@given(
    st.sampled_from(sorted(ACCELERATORS)),
    st.sampled_from(["fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "int8", "fp4", "nvfp4", "fp8_e4m3"]),
    st.booleans(),
)
def test_every_calculator_ends_in_its_value(name: str, dtype: str, per_link: bool) -> None:
    results = [hbm_bandwidth(name), hbm_bytes(name)]
    if accelerator(name).interconnect_bandwidth is not None:
        results.append(interconnect_bandwidth(name, per_link))
    try:
        results.append(peak_flops(name, dtype))
    except SpecError:
        assert dtype not in accelerator(name).dense_flops
    for result in results:
        assert_sealed(result)
        assert result.convention
