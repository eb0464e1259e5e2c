"""Accelerator calculators (peak FLOP/s, memory, bandwidth, interconnect) over the table and own chips."""

from __future__ import annotations

from quizzer.core.accelerators import ACCELERATORS, GIB, RATE_OF_DTYPE, Accelerator
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit, check_dtype, unknown_name_message


def _given(acc: Accelerator, field: str) -> bool:
    """Whether ``field`` of ``acc`` is a number the user gave (a chip's own numbers), not the sheet's."""
    if "{" not in acc.name and acc.name != "custom":
        return False
    from quizzer.core.chips import split_chip

    return field in split_chip(acc.name)[1]


def accelerator(name: str) -> Accelerator:
    """The accelerator with table key ``name`` (case-insensitive).

    >>> accelerator("H100-SXM").dense_flops["bf16"]
    989400000000000.0
    """
    try:
        return ACCELERATORS[name.strip().lower()]
    except (KeyError, AttributeError):
        if isinstance(name, str) and ("{" in name or name.strip().lower() == "custom"):
            from quizzer.core.chips import own_chip

            found: Accelerator = own_chip(name)
            return found
        raise UnknownNameError(unknown_name_message("accelerator", name, ACCELERATORS)) from None


def peak_flops(hardware: str, dtype: str = "bf16") -> Result:
    """Dense peak FLOP/s (OP/s for int8) of one accelerator in ``dtype``, from its spec sheet.

    Vendors headline 2:4-sparse tensor figures (H100 "1,979 TFLOPS" bf16, B200 "18 PFLOPS" fp4); the table
    holds the dense peak, half of those. A dtype runs at its rate class: fp8_e4m3 and mxfp8 at the fp8 rate,
    nvfp4 and mxfp4 at the fp4 rate (B200 only here).

    Args:
        hardware: a key of ``ACCELERATORS``.
        dtype: fp32, tf32, bf16, fp16, fp8, fp6, int8 or fp4, or a format run at one of those rates (where the
            part has it: fp4 is B200 only).

    Returns:
        FLOP/s.

    >>> peak_flops("a100-80gb").value, peak_flops("tpu-v5e", "int8").value, peak_flops("b200", "nvfp4").value
    (312000000000000.0, 393000000000000.0, 9000000000000000.0)
    """
    acc = accelerator(hardware)
    rate = RATE_OF_DTYPE.get(check_dtype(dtype), dtype)
    if rate not in acc.dense_flops:
        if not acc.dense_flops:
            raise SpecError(f"{acc.full_name} has no {rate} matmul rate: give the chip its {rate} peak")
        raise SpecError(f"{acc.name} has no {rate} matmul rate; it has: {', '.join(acc.dense_flops)}")
    value = acc.dense_flops[rate]
    via = f" ({dtype} runs at the {rate} rate)" if rate != dtype else ""
    t = Trace()
    t.step(
        f"Dense {rate} peak of {acc.full_name}{via}",
        "given" if _given(acc, rate) else "spec sheet",
        f"{num(value)} FLOP/s",
        value,
        Unit.FLOP_PER_S,
    )
    return t.done(value, Unit.FLOP_PER_S, f"dense peak (not 2:4 sparse); {acc.source}")


def interconnect_bandwidth(hardware: str, per_link: bool = False) -> Result:
    """One-way scale-up bandwidth of one accelerator (NVLink, Infinity Fabric, ICI), per chip or per link.

    Vendors quote bidirectional figures (H100 NVLink "900 GB/s", TPU v5e ICI "400 GBps per chip"); one way is
    half: 450e9 B/s out of an H100 over 18 links of 25e9. The JAX scaling book's ICI tables give the per-link
    one-way figure (v5e 5e10 B/s), which ``per_link=True`` returns.

    Args:
        hardware: a key of ``ACCELERATORS`` with a scale-up link (not l4 or rtx-4090).
        per_link: divide by the chip's number of links.

    Returns:
        bytes/s.

    >>> interconnect_bandwidth("h100-sxm").value, interconnect_bandwidth("tpu-v5e", per_link=True).value
    (450000000000.0, 50000000000.0)
    """
    acc = accelerator(hardware)
    one_way = acc.interconnect_bandwidth
    if one_way is None:
        if acc.name.startswith("custom"):
            raise SpecError(f"{acc.full_name} has no interconnect: give the chip its interconnect_bandwidth")
        raise SpecError(f"{acc.name} has no scale-up interconnect (PCIe only)")
    t = Trace()
    if _given(acc, "interconnect_bandwidth"):
        t.step(
            f"One-way {acc.interconnect} bandwidth of {acc.full_name}",
            "given",
            f"{num(one_way)} bytes/s",
            one_way,
            Unit.BYTES_PER_S,
        )
    else:
        t.step(
            f"One-way {acc.interconnect} bandwidth of {acc.full_name}",
            "vendor's bidirectional figure / 2",
            f"{num(2 * one_way)} / 2",
            one_way,
            Unit.BYTES_PER_S,
        )
    value = one_way
    if per_link:
        value = t.step(
            f"Per link ({acc.interconnect_links} links)",
            "per chip / links",
            f"{num(one_way)} / {acc.interconnect_links}",
            one_way / acc.interconnect_links,
            Unit.BYTES_PER_S,
        )
    return t.done(value, Unit.BYTES_PER_S, f"one-way (half the bidirectional figure), decimal; {acc.note}")


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
    if not value:
        raise SpecError(f"{acc.full_name} has no memory bandwidth: give the chip its hbm_bandwidth")
    t = Trace()
    where = "given" if _given(acc, "hbm_bandwidth") else "spec sheet"
    t.step(f"Memory bandwidth of {acc.full_name}", where, f"{num(value)} bytes/s", value, Unit.BYTES_PER_S)
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
    if not acc.hbm_bytes:
        raise SpecError(f"{acc.full_name} has no memory size: give the chip its hbm_bytes")
    gib = acc.hbm_bytes // GIB
    t = Trace()
    if _given(acc, "hbm_bytes"):
        given = f"{num(acc.hbm_bytes)} bytes"
        t.step(f"Memory of {acc.full_name}", "given", given, acc.hbm_bytes, Unit.BYTES)
    else:
        sheet = f"{gib} × 1,073,741,824"
        t.step(f"Memory of {acc.full_name}", "sheet GB × 2^30", sheet, acc.hbm_bytes, Unit.BYTES)
    return t.done(acc.hbm_bytes, Unit.BYTES, f"sheet 'GB' is binary (GiB) here; {acc.note}")
