"""Accelerator table (dense peak FLOP/s, memory size and bandwidth) with the source of every number."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit, dtype_bits, unknown_name_message

GIB = 2**30


class Accelerator(Record):
    """One accelerator's spec-sheet numbers, per chip."""

    name: str
    """Table key, kebab-case ("h100-sxm")."""
    full_name: str
    """Vendor name of the part ("NVIDIA H100 SXM5 80GB")."""
    dense_flops: Mapping[str, float]
    """Dense peak FLOP/s (OP/s for int8) per dtype; never the 2:4-sparse figure; only dtypes the part runs."""
    hbm_bytes: int
    """Device memory in bytes (HBM, or GDDR for L4 and RTX 4090): the sheet's "GB" read as GiB (see note)."""
    hbm_bandwidth: float
    """Peak device-memory bandwidth, bytes/s (decimal, as vendors quote it)."""
    interconnect_bandwidth: float | None
    """One-way NVLink bandwidth per GPU, bytes/s; None for TPUs (ICI is per link, see note) and PCIe cards."""
    source: str
    """Where the numbers come from."""
    note: str
    """Traps: sparse vs dense, GB vs GiB, variants."""


def _make(
    name: str,
    full_name: str,
    flops: dict[str, float],
    gib: int,
    bandwidth: float,
    *,
    source: str,
    note: str,
    link: float | None = None,
) -> Accelerator:
    """An ``Accelerator`` with a read-only FLOP/s table and ``gib`` GiB of memory."""
    return Accelerator(name, full_name, MappingProxyType(flops), gib * GIB, bandwidth, link, source, note)


_AMPERE = {"fp32": 19.5e12, "tf32": 156e12, "bf16": 312e12, "fp16": 312e12, "int8": 624e12}
_HOPPER = {
    "fp32": 66.9e12,
    "tf32": 494.7e12,
    "bf16": 989.4e12,
    "fp16": 989.4e12,
    "fp8": 1978.9e12,
    "int8": 1978.9e12,
}
_A100_SHEET = "NVIDIA A100 Tensor Core GPU datasheet (values without the sparsity asterisk)"
_SPARSE = "the sheet's starred tensor numbers are 2:4 sparse, 2× these dense values"
_ICI = "ICI is per link, not per chip: one-way {} B/s depending on the book's version, {} links"

#: Every accelerator quizzer knows, by table key.
ACCELERATORS: dict[str, Accelerator] = {
    a.name: a
    for a in (
        _make(
            "a100-40gb",
            "NVIDIA A100 40GB SXM",
            _AMPERE,
            40,
            1.555e12,
            link=300e9,
            source=_A100_SHEET,
            note="40GB = 40 GiB (nvidia-smi: 40,960 MiB); kipply rounds the bandwidth to 1.5e12; NVLink 3 is "
            "600 GB/s bidirectional = 300 GB/s one-way; no fp8; " + _SPARSE,
        ),
        _make(
            "a100-80gb",
            "NVIDIA A100 80GB SXM",
            _AMPERE,
            80,
            2.039e12,
            link=300e9,
            source=_A100_SHEET,
            note="80GB = 80 GiB (nvidia-smi: 81,920 MiB); the PCIe card has 1.935e12 B/s; no fp8; " + _SPARSE,
        ),
        _make(
            "h100-sxm",
            "NVIDIA H100 SXM5 80GB",
            _HOPPER,
            80,
            3.35e12,
            link=450e9,
            source="NVIDIA H100 Tensor Core GPU Architecture whitepaper (SXM5, dense); H100 datasheet for "
            "bandwidth and NVLink",
            note="bf16 dense is 989.4e12, not the datasheet's 1,979 (2:4 sparse); 80 GiB of HBM3 "
            "(nvidia-smi: 81,559 MiB usable); LLM-Viewer uses 3.072e12 B/s; NVLink 4: 900 GB/s "
            "bidirectional, 450 one-way",
        ),
        _make(
            "h200",
            "NVIDIA H200 SXM 141GB",
            _HOPPER,
            141,
            4.8e12,
            link=450e9,
            source="NVIDIA H200 datasheet (141 GB, 4.8 TB/s, NVLink 900 GB/s); compute as the H100 SXM "
            "whitepaper (same GH100 chip)",
            note="141GB read as 141 GiB (nvidia-smi: 143,771 MiB); datasheet tensor numbers are 2:4 sparse",
        ),
        _make(
            "b200",
            "NVIDIA B200 (HGX/DGX B200, 1000 W)",
            {"bf16": 2.25e15, "fp16": 2.25e15, "fp8": 4.5e15, "int8": 4.5e15},
            180,
            8e12,
            link=900e9,
            source="NVIDIA DGX/HGX B200 datasheets (per GPU, sparse figures halved)",
            note="announced with 192 GB; HGX/DGX B200 ship 180 GB per GPU (DGX: 1,440 GB for 8; nvidia-smi: "
            "183,359 MiB); GB200 at 1200 W is faster (2.5e15 bf16); fp4 (9e15), tf32 and fp32 left out "
            "(sources differ); NVLink 5: 1.8 TB/s bidirectional, 900 GB/s one-way",
        ),
        _make(
            "tpu-v5e",
            "Google Cloud TPU v5e",
            {"bf16": 1.97e14, "int8": 3.94e14},
            16,
            8.1e11,
            source="JAX scaling book, 'How to Think About TPUs' spec table; Google Cloud TPU v5e docs",
            note="Google: 197 TFLOP/s bf16, 393 TOP/s int8, 16 GB HBM2 at 819 GB/s; the book also uses "
            "8.2e11 (critical batch 1.97e14 / 8.2e11 = 240); 16 GB stored as 16 GiB; "
            + _ICI.format("4.5e10 or 5e10", 4),
        ),
        _make(
            "tpu-v5p",
            "Google Cloud TPU v5p",
            {"bf16": 4.59e14, "int8": 9.18e14},
            95,
            2.765e12,
            source="Google Cloud TPU v5p docs (459 TFLOP/s bf16, 95 GB HBM2e at 2,765 GB/s); int8 from the "
            "scaling book",
            note="the scaling book rounds to 96GB and 2.8e12 B/s; 95 GB stored as 95 GiB (not checked "
            "against a device); " + _ICI.format("9e10 or 1e11", 6),
        ),
        _make(
            "l4",
            "NVIDIA L4 24GB",
            {
                "fp32": 30.3e12,
                "tf32": 60e12,
                "bf16": 121e12,
                "fp16": 121e12,
                "fp8": 242.5e12,
                "int8": 242.5e12,
            },
            24,
            3e11,
            source="NVIDIA L4 datasheet (its tensor figures are 2:4 sparse; halved here)",
            note="GDDR6, not HBM: 24 GiB (nvidia-smi: 23,034 MiB usable); PCIe Gen4 only, no NVLink",
        ),
        _make(
            "rtx-4090",
            "NVIDIA GeForce RTX 4090",
            {
                "fp32": 82.6e12,
                "tf32": 82.6e12,
                "bf16": 165.2e12,
                "fp16": 165.2e12,
                "fp8": 330.3e12,
                "int8": 660.6e12,
            },
            24,
            1.008e12,
            source="NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090 column (dense)",
            note="GDDR6X, 24 GiB; fp16/bf16/fp8 with FP32 accumulate (half rate on GeForce); with fp16 "
            "accumulate fp16 is 330.3e12 and fp8 660.6e12; no NVLink",
        ),
    )
}


def accelerator(name: str) -> Accelerator:
    """The accelerator with table key ``name`` (case-insensitive).

    >>> accelerator("H100-SXM").dense_flops["bf16"]
    989400000000000.0
    """
    try:
        return ACCELERATORS[name.strip().lower()]
    except (KeyError, AttributeError):
        raise UnknownNameError(unknown_name_message("accelerator", name, ACCELERATORS)) from None


def peak_flops(hardware: str, dtype: str = "bf16") -> Result:
    """Dense peak FLOP/s (OP/s for int8) of one accelerator in ``dtype``, from its spec sheet.

    Args:
        hardware: a key of ``ACCELERATORS``.
        dtype: fp32, tf32, bf16, fp16, fp8 or int8 (where the part supports it).

    Returns:
        FLOP/s.

    >>> peak_flops("a100-80gb").value, peak_flops("tpu-v5e", "int8").value
    (312000000000000.0, 394000000000000.0)
    """
    acc = accelerator(hardware)
    dtype_bits(dtype)  # unknown dtype names get a close-match hint
    if dtype not in acc.dense_flops:
        raise SpecError(f"{acc.name} has no {dtype} matmul rate; it has: {', '.join(acc.dense_flops)}")
    value = acc.dense_flops[dtype]
    t = Trace()
    t.step(
        f"Dense {dtype} peak of {acc.full_name}", "spec sheet", f"{num(value)} FLOP/s", value, Unit.FLOP_PER_S
    )
    return t.done(value, Unit.FLOP_PER_S, f"dense peak (not 2:4 sparse); {acc.source}")


def hbm_bandwidth(hardware: str) -> Result:
    """Peak device-memory (HBM/GDDR) bandwidth of one accelerator, from its spec sheet.

    Args:
        hardware: a key of ``ACCELERATORS``.

    Returns:
        bytes/s.

    >>> hbm_bandwidth("h100-sxm").value
    3350000000000.0
    """
    acc = accelerator(hardware)
    value = acc.hbm_bandwidth
    t = Trace()
    t.step(
        f"Memory bandwidth of {acc.full_name}", "spec sheet", f"{num(value)} bytes/s", value, Unit.BYTES_PER_S
    )
    return t.done(value, Unit.BYTES_PER_S, f"decimal bytes/s (TB/s = 1e12); {acc.source}")


def hbm_bytes(hardware: str) -> Result:
    """Device memory (HBM or GDDR) of one accelerator in bytes: the sheet's "GB" taken as GiB.

    Args:
        hardware: a key of ``ACCELERATORS``.

    Returns:
        bytes.

    >>> hbm_bytes("a100-40gb").value
    42949672960
    """
    acc = accelerator(hardware)
    gib = acc.hbm_bytes // GIB
    t = Trace()
    t.step(
        f"Memory of {acc.full_name}", "sheet GB × 2^30", f"{gib} × 1,073,741,824", acc.hbm_bytes, Unit.BYTES
    )
    return t.done(acc.hbm_bytes, Unit.BYTES, f"sheet 'GB' is binary (GiB) here; {acc.note}")
