"""The accelerator table (peak FLOP/s, memory, bandwidth, interconnect) with the source of every number."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from quizzer.core.record import Record

GIB = 2**30


class Accelerator(Record):
    """One accelerator's spec-sheet numbers, per chip."""

    name: str
    """Table key, kebab-case ("h100-sxm")."""
    full_name: str
    """Vendor name of the part ("NVIDIA H100 SXM5 80GB")."""
    dense_flops: Mapping[str, float]
    """Dense peak FLOP/s (OP/s for int8) per matmul rate (fp32, tf32, bf16, fp16, fp8, fp6, int8, fp4); never
    the 2:4-sparse figure vendors headline (halved here); only the rates the part runs."""
    hbm_bytes: int
    """Device memory in bytes (HBM, or GDDR for L4 and RTX 4090): the sheet's "GB" read as GiB (see note)."""
    hbm_bandwidth: float
    """Peak device-memory bandwidth, bytes/s (decimal, as vendors quote it)."""
    interconnect_bandwidth: float | None
    """One-way scale-up bandwidth out of one chip over all its links (NVLink, Infinity Fabric, ICI), bytes/s:
    half the vendors' bidirectional figure; None for PCIe-only cards."""
    source: str
    """Where the numbers come from."""
    note: str
    """Traps: sparse vs dense, GB vs GiB, variants."""
    interconnect: str = ""
    """The scale-up link ("NVLink 4", "ICI, 2D torus"); "" for none."""
    interconnect_links: int = 0
    """Links per chip the interconnect bandwidth is spread over (NVLink 4: 18; TPU v5e: 4)."""


def _make(
    name: str,
    full_name: str,
    flops: dict[str, float],
    gib: int,
    bandwidth: float,
    *,
    source: str,
    note: str,
    link: tuple[str, int, float] | None = None,
) -> Accelerator:
    """An ``Accelerator``: read-only FLOP/s, ``gib`` GiB of memory, ``link`` = (kind, links, one-way B/s)."""
    kind, links, one_way = link if link else ("", 0, None)
    return Accelerator(
        name, full_name, MappingProxyType(flops), gib * GIB, bandwidth, one_way, source, note, kind, links
    )


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
_NVLINK = "NVIDIA quotes NVLink bidirectional ({} GB/s); one-way is half, {} links of {} GB/s each way"
_GOOGLE = "Google Cloud TPU {} docs (system architecture table)"
_ICI = (
    "ICI: Google quotes {} GB/s bidirectional per chip over {} links; one-way {} B/s per link (scaling book)"
)

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
            link=("NVLink 3", 12, 300e9),
            source=_A100_SHEET,
            note="40GB = 40 GiB (nvidia-smi: 40,960 MiB); kipply rounds the bandwidth to 1.5e12; "
            + _NVLINK.format(600, 12, 25)
            + "; no fp8; "
            + _SPARSE,
        ),
        _make(
            "a100-80gb",
            "NVIDIA A100 80GB SXM",
            _AMPERE,
            80,
            2.039e12,
            link=("NVLink 3", 12, 300e9),
            source=_A100_SHEET,
            note="80GB = 80 GiB (nvidia-smi: 81,920 MiB); the PCIe card has 1.935e12 B/s; no fp8; " + _SPARSE,
        ),
        _make(
            "h100-sxm",
            "NVIDIA H100 SXM5 80GB",
            _HOPPER,
            80,
            3.35e12,
            link=("NVLink 4", 18, 450e9),
            source="NVIDIA H100 Tensor Core GPU Architecture whitepaper (SXM5, dense); H100 datasheet for "
            "bandwidth and NVLink",
            note="bf16 dense is 989.4e12, not the datasheet's 1,979 (2:4 sparse); 80 GiB of HBM3 "
            "(nvidia-smi: 81,559 MiB usable); LLM-Viewer uses 3.072e12 B/s; " + _NVLINK.format(900, 18, 25),
        ),
        _make(
            "h200",
            "NVIDIA H200 SXM 141GB",
            _HOPPER,
            141,
            4.8e12,
            link=("NVLink 4", 18, 450e9),
            source="NVIDIA H200 datasheet (141 GB, 4.8 TB/s, NVLink 900 GB/s); compute as the H100 SXM "
            "whitepaper (same GH100 chip)",
            note="141GB read as 141 GiB (nvidia-smi: 143,771 MiB); datasheet tensor numbers are 2:4 sparse",
        ),
        _make(
            "b200",
            "NVIDIA B200 (HGX/DGX B200, 1000 W)",
            {
                "fp32": 75e12,
                "tf32": 1.1e15,
                "bf16": 2.25e15,
                "fp16": 2.25e15,
                "fp8": 4.5e15,
                "fp6": 4.5e15,
                "int8": 4.5e15,
                "fp4": 9e15,
            },
            180,
            7.7e12,
            link=("NVLink 5", 18, 900e9),
            source="NVIDIA HGX B200 specifications (per GPU; its tensor figures are 2:4 sparse, halved here)",
            note="fp4 (NVFP4 or MXFP4) 9e15 dense, the headline 18 PFLOPS is sparse; announced with 192 GB, "
            "HGX/DGX B200 ship 180 GB per GPU (nvidia-smi: 183,359 MiB); bandwidth: the DGX B200 datasheet "
            "and launch material say 8 TB/s (64 TB/s per 8), NVIDIA's HGX table now 7.7 TB/s, and the "
            "driver reports a 7,680-bit bus (7.67e12 B/s, pytorch/ao #4002); GB200 at 1200 W is faster "
            "(2.5e15 bf16); " + _NVLINK.format(1800, 18, 50),
        ),
        _make(
            "mi300x",
            "AMD Instinct MI300X (OAM, 750 W)",
            {
                "fp32": 163.4e12,
                "tf32": 653.7e12,
                "bf16": 1307.4e12,
                "fp16": 1307.4e12,
                "fp8": 2614.9e12,
                "int8": 2614.9e12,
            },
            192,
            5.3e12,
            link=("Infinity Fabric (xGMI)", 7, 448e9),
            source="AMD ROCm docs, MI300 microarchitecture (peak table, dense) and GPU hardware "
            "specifications (VRAM 192 GiB); AMD Instinct MI300X datasheet (sparse figures 2× these; 7 "
            "Infinity Fabric links)",
            note="the datasheet headlines 2,614.9 TFLOPS fp16 and 5,229.8 fp8 'with structured sparsity', 2× "
            "dense; no fp4 (that is MI355X); Infinity Fabric: 7 links of 16 lanes at 32 Gb/s, 128 GB/s "
            "bidirectional, 64 GB/s one-way each, 448 GB/s one-way per GPU (896 aggregate bidirectional)",
        ),
        _make(
            "tpu-v4",
            "Google Cloud TPU v4",
            {"bf16": 2.75e14, "int8": 2.75e14},
            32,
            1.2e12,
            link=("ICI, 3D torus", 6, 2.7e11),
            source=_GOOGLE.format("v4") + "; ICI per link from the JAX scaling book",
            note="Google: 275 TFLOP/s bf16 or int8 (int8 is not faster), 32 GiB HBM2 at 1,200 GBps; the "
            "docs give no per-chip ICI figure: 6 links of 4.5e10 B/s one-way (scaling book)",
        ),
        _make(
            "tpu-v5e",
            "Google Cloud TPU v5e",
            {"bf16": 1.97e14, "int8": 3.93e14},
            16,
            8.19e11,
            link=("ICI, 2D torus", 4, 2e11),
            source=_GOOGLE.format("v5e"),
            note="Google: 197 TFLOP/s bf16, 393 TOP/s int8, 16 GB HBM2 at 819 GB/s (a newer table prints "
            "'800 GiBps', the same 819.2e9 in mixed units); the scaling book uses 8.1e11 (and 8.2e11 for "
            "its critical batch 240) and 3.94e14 int8; 16 GB stored as 16 GiB; "
            + _ICI.format(400, 4, "5e10"),
        ),
        _make(
            "tpu-v5p",
            "Google Cloud TPU v5p",
            {"bf16": 4.59e14, "fp8": 4.59e14, "int8": 9.18e14},
            95,
            2.765e12,
            link=("ICI, 3D torus", 6, 6e11),
            source=_GOOGLE.format("v5p") + " (459 TFLOP/s bf16 and fp8, 95 GiB HBM2e at 2,765 GBps); int8 "
            "from the JAX scaling book",
            note="fp8 runs at the bf16 rate (Google lists both as 459); the scaling book rounds to 96GB and "
            "2.8e12 B/s; " + _ICI.format(1200, 6, "1e11"),
        ),
        _make(
            "tpu-v6e",
            "Google Cloud TPU v6e (Trillium)",
            {"bf16": 9.18e14, "int8": 1.836e15},
            32,
            1.638e12,
            link=("ICI, 2D torus", 4, 4e11),
            source=_GOOGLE.format("v6e"),
            note="Google: 918 TFLOP/s bf16, 1,836 TOP/s int8, 32 GB HBM at 1,638 GBps (an earlier version "
            "said 1,640); the scaling book uses 9.2e14 and 1.6e12; 32 GB stored as 32 GiB; no fp8 figure; "
            + _ICI.format(800, 4, "1e11"),
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

#: Which matmul rate each dtype runs at, where its name is not itself a rate.
RATE_OF_DTYPE: dict[str, str] = {
    "fp8_e4m3": "fp8",
    "fp8_e5m2": "fp8",
    "mxfp8": "fp8",
    "fp6_e2m3": "fp6",
    "fp6_e3m2": "fp6",
    "mxfp6": "fp6",
    "fp4_e2m1": "fp4",
    "mxfp4": "fp4",
    "nvfp4": "fp4",
    "mxint8": "int8",
}

__all__ = ["ACCELERATORS", "GIB", "RATE_OF_DTYPE", "Accelerator"]
