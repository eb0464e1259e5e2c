"""Units, dtype sizes and the formatting of quantities (SI vs binary prefixes)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING

from quizzer.core.errors import UnknownNameError
from quizzer.core.trace import Number

if TYPE_CHECKING:
    from collections.abc import Iterable
    from fractions import Fraction


class Unit(StrEnum):
    """Base units of every calculator result. Values are always in these, never pre-scaled."""

    PARAMS = "params"
    TOKENS = "tokens"
    FLOPS = "FLOPs"
    MACS = "MACs"
    BYTES = "bytes"
    BITS = "bits"
    SECONDS = "s"
    FLOP_PER_S = "FLOP/s"
    BYTES_PER_S = "bytes/s"
    RATIO = "ratio"
    USD = "USD"
    GPU_HOURS = "GPU-hours"
    PATCHES = "patches"
    COUNT = "count"
    BITS_PER_PARAM = "bits/param"
    TOKENS_PER_S = "tokens/s"


#: Storage size in bits of one element of each plain dtype name quizzer accepts. Scales are not counted:
#: "fp8", "int4" and "nf4" are the elements alone (a per-tensor constant is counted as 0); the block-scaled
#: formats, whose scales are part of the format, are in ``BLOCK_SCALED``.
DTYPE_BITS: dict[str, int] = {
    "fp32": 32,
    "tf32": 32,  # stored as fp32; tf32 only changes the matmul precision
    "fp16": 16,
    "bf16": 16,
    "fp8": 8,  # either fp8 encoding (E4M3 or E5M2)
    "fp8_e4m3": 8,  # OCP OFP8 E4M3 (torch.float8_e4m3fn): max 448
    "fp8_e5m2": 8,  # OCP OFP8 E5M2 (torch.float8_e5m2): max 57344
    "int8": 8,
    "fp6": 6,  # either fp6 encoding (E2M3 or E3M2), packed 4 values per 3 bytes
    "fp6_e2m3": 6,
    "fp6_e3m2": 6,
    "int4": 4,
    "nf4": 4,
    "fp4": 4,  # bare E2M1 values, no scales: mxfp4 and nvfp4 are the scaled formats
    "fp4_e2m1": 4,
}

#: Block-scaled formats: (element bits, scale bits, values per scale). One value costs element + scale / block
#: bits, exactly: mxfp4 4 + 8/32 = 4.25 and nvfp4 4 + 8/16 = 4.5 (OCP Microscaling Formats v1.0 spec; NVIDIA,
#: "Introducing NVFP4", 2025). NVFP4's one fp32 scale per tensor is per tensor, not per value: it is not in
#: these bits (``quizzer.core.blockscaled.block_scaled_bytes`` adds it given a tensor count).
BLOCK_SCALED: dict[str, tuple[int, int, int]] = {
    "mxfp4": (4, 8, 32),  # E2M1 values, one E8M0 (power-of-two) scale per 32
    "mxfp6": (6, 8, 32),  # E2M3 or E3M2 values, one E8M0 scale per 32
    "mxfp8": (8, 8, 32),  # E4M3 or E5M2 values, one E8M0 scale per 32
    "mxint8": (8, 8, 32),  # 8-bit integers, one E8M0 scale per 32
    "nvfp4": (4, 8, 16),  # E2M1 values, one FP8 E4M3 scale per 16 (+ one fp32 per tensor)
}


def dtype_names() -> list[str]:
    """Every dtype name quizzer accepts, plain and block-scaled, sorted.

    >>> "bf16" in dtype_names(), "mxfp4" in dtype_names()
    (True, True)
    """
    return sorted([*DTYPE_BITS, *BLOCK_SCALED])


def check_dtype(dtype: str) -> str:
    """``dtype`` if quizzer knows it, else an ``UnknownNameError`` with a close match (cheap: no imports).

    >>> check_dtype("nvfp4")
    'nvfp4'
    """
    if dtype in DTYPE_BITS or dtype in BLOCK_SCALED:
        return dtype
    raise UnknownNameError(unknown_name_message("dtype", dtype, dtype_names()))


def dtype_bits_ratio(dtype: str) -> tuple[int, int]:
    """Bits per element of ``dtype`` as an exact (numerator, denominator) pair of ints.

    Plain dtypes give (bits, 1); a block-scaled format gives (element × block + scale) / block in lowest
    terms, so that integer arithmetic stays exact without importing ``fractions``.

    >>> dtype_bits_ratio("bf16"), dtype_bits_ratio("mxfp4"), dtype_bits_ratio("nvfp4")
    ((16, 1), (17, 4), (9, 2))
    """
    bits = DTYPE_BITS.get(dtype)
    if bits is not None:
        return bits, 1
    block = BLOCK_SCALED.get(check_dtype(dtype))
    assert block is not None  # check_dtype raised otherwise
    element_bits, scale_bits, block_size = block
    numerator = element_bits * block_size + scale_bits
    common = math.gcd(numerator, block_size)
    return numerator // common, block_size // common


def dtype_bits(dtype: str) -> int | Fraction:
    """Bits per element of ``dtype``: an ``int`` for plain dtypes, an exact ``Fraction`` for block-scaled.

    >>> dtype_bits("bf16"), dtype_bits("int4"), dtype_bits("mxfp4"), dtype_bits("nvfp4")
    (16, 4, Fraction(17, 4), Fraction(9, 2))
    """
    numerator, denominator = dtype_bits_ratio(dtype)
    if denominator == 1:
        return numerator
    from fractions import Fraction  # only for block-scaled formats: `quizzer count` at bf16 never pays for it

    return Fraction(numerator, denominator)


def dtype_bytes(dtype: str) -> Fraction:
    """Bytes per element of ``dtype`` as an exact fraction (int4 is 1/2, mxfp4 17/32).

    >>> dtype_bytes("fp32"), dtype_bytes("int4"), dtype_bytes("mxfp4")
    (Fraction(4, 1), Fraction(1, 2), Fraction(17, 32))
    """
    from fractions import Fraction  # not at import time: it costs ~4 ms of `quizzer count`'s cold start

    numerator, denominator = dtype_bits_ratio(dtype)
    return Fraction(numerator, 8 * denominator)


def elements_bytes(n_elements: int, dtype: str) -> int:
    """Bytes to store ``n_elements`` of ``dtype``: ⌈n × bits / 8⌉, sub-byte and block-scaled dtypes packed.

    Block-scaled formats count their block scales at element + scale / block bits per value (exact when the
    tensors' rows are whole blocks, as in released checkpoints); NVFP4's fp32 per-tensor scale is left out.

    >>> [elements_bytes(n, dtype) for n, dtype in ((7, "int4"), (3, "bf16"), (64, "mxfp4"), (32, "nvfp4"))]
    [4, 6, 34, 18]
    """
    numerator, denominator = dtype_bits_ratio(dtype)
    return -(-n_elements * numerator // (8 * denominator))


def dtype_bytes_text(dtype: str) -> str:
    """Bytes per element for a derivation: "2", "0.5", "0.53125".

    >>> dtype_bytes_text("bf16"), dtype_bytes_text("int4"), dtype_bytes_text("mxfp4"), dtype_bytes_text("fp6")
    ('2', '0.5', '0.53125', '0.75')
    """
    numerator, denominator = dtype_bits_ratio(dtype)
    if numerator % (8 * denominator) == 0:
        return str(numerator // (8 * denominator))
    return f"{numerator / (8 * denominator):g}"


def unknown_name_message(kind: str, name: str, known: Iterable[str]) -> str:
    """The message for an unknown name: what it is, a close match if any, and every known name.

    >>> unknown_name_message("dtype", "bf61", ["bf16", "fp32"])
    "unknown dtype 'bf61' (did you mean 'bf16'?); known: bf16, fp32"
    """
    from quizzer.core.checks import did_you_mean

    names = sorted(known)
    close = did_you_mean(str(name), names)
    return f"unknown {kind} {name!r}{close}; known: {', '.join(names)}"


_COUNT_SUFFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
_SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_BINARY = ((2**60, "EiB"), (2**50, "PiB"), (2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_DECIMAL_BYTES = ((1e18, "EB"), (1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))


def _sig(value: float, digits: int, keep_zeros: bool = False) -> str:
    """``value`` to ``digits`` significant figures, without exponent, and without trailing zeros unless
    ``keep_zeros`` (then "19.00" stays four figures)."""
    if value == 0:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:.{decimals}f}"
    if keep_zeros:
        return text
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_sig(value: Number, digits: int = 3, *, keep_zeros: bool = False) -> str:
    """``value`` to ``digits`` significant figures, plain notation, trailing zeros dropped (unless
    ``keep_zeros``: the figures a precise answer needs).

    >>> format_sig(44.2958), format_sig(0.0173456), format_sig(208.0), format_sig(18.954, 4, keep_zeros=True)
    ('44.3', '0.0173', '208', '18.95')
    >>> format_sig(19.0001, 4, keep_zeros=True)
    '19.00'
    """
    return _sig(float(value), digits, keep_zeros)


def _scaled(
    value: float, table: tuple[tuple[float, str], ...], digits: int, sep: str, keep_zeros: bool = False
) -> str | None:
    for factor, suffix in table:
        if abs(value) >= factor * 0.9995:
            return f"{_sig(value / factor, digits, keep_zeros)}{sep}{suffix}"
    return None


def format_count(value: Number) -> str:
    """All digits with thousands separators.

    >>> format_count(16384000)
    '16,384,000'
    """
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.6g}"
    return f"{int(value):,}"


def format_si(value: Number, digits: int = 3, *, keep_zeros: bool = False) -> str:
    """A count with a k/M/B/T/P suffix at ``digits`` significant figures (zeros kept with ``keep_zeros``).

    >>> format_si(16384000), format_si(6738415616, 4), format_si(512)
    ('16.4M', '6.738B', '512')
    >>> format_si(7_000_123_456, 4, keep_zeros=True)
    '7.000B'
    """
    return _scaled(float(value), _COUNT_SUFFIXES, digits, "", keep_zeros) or _sig(
        float(value), digits, keep_zeros
    )


def format_sci(value: Number, digits: int = 3) -> str:
    """Scientific notation, as people type it.

    >>> format_sci(16384000), format_sci(3.15e23)
    ('1.64e7', '3.15e23')
    """
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    mantissa = float(value) / 10**exponent
    if round(mantissa, digits - 1) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{_sig(mantissa, digits)}e{exponent}"


def format_bytes(value: Number, *, binary: bool = True, digits: int = 3) -> str:
    """Bytes with binary (GiB = 2**30) or decimal (GB = 1e9) prefixes.

    >>> format_bytes(16_777_216_000), format_bytes(16_777_216_000, binary=False)
    ('15.6 GiB', '16.8 GB')
    """
    table = _BINARY if binary else _DECIMAL_BYTES
    return _scaled(float(value), table, digits, " ") or f"{_sig(float(value), digits)} bytes"


def format_seconds(value: Number, digits: int = 3) -> str:
    """A duration in the most readable unit.

    >>> format_seconds(0.0021), format_seconds(3.5e-6), format_seconds(3.8e6)
    ('2.1 ms', '3.5 µs', '44 days')
    """
    seconds = float(value)
    if seconds >= 2 * 86400:
        return f"{_sig(seconds / 86400, digits)} days"
    if seconds >= 2 * 3600:
        return f"{_sig(seconds / 3600, digits)} h"
    if seconds >= 120:
        return f"{_sig(seconds / 60, digits)} min"
    for factor, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= factor * 0.9995:
            return f"{_sig(seconds / factor, digits)} {suffix}"
    return f"{_sig(seconds / 1e-9, digits)} ns"


def format_rate(value: Number, unit: str, digits: int = 3) -> str:
    """A rate such as FLOP/s or bytes/s with an SI prefix.

    >>> format_rate(312e12, "FLOP/s"), format_rate(2.039e12, "bytes/s")
    ('312 TFLOP/s', '2.04 TB/s')
    """
    base = "B/s" if unit == Unit.BYTES_PER_S else unit
    scaled = _scaled(float(value), _SI_PREFIXES, digits, " ")
    return f"{scaled}{base}" if scaled else f"{_sig(float(value), digits)} {base}"


def format_quantity(value: Number, unit: str, *, binary: bool = True, digits: int = 3) -> str:
    """The readable form of a value in a base unit.

    >>> format_quantity(16384000, "params"), format_quantity(2**31, "bytes")
    ('16.4M params', '2 GiB')
    >>> format_quantity(3.15e23, "FLOPs"), format_quantity(15.0e9, "FLOPs"), format_quantity(0.25, "ratio")
    ('3.15e23 FLOPs', '15 GFLOPs', '0.25')
    """
    if unit == Unit.BYTES:
        return format_bytes(value, binary=binary, digits=digits)
    if unit == Unit.SECONDS:
        return format_seconds(value, digits)
    if unit in (Unit.FLOP_PER_S, Unit.BYTES_PER_S):
        return format_rate(value, unit, digits)
    if unit == Unit.RATIO:
        return _sig(float(value), digits)
    if unit == Unit.USD:
        return f"${format_si(value, digits)}"
    if unit in (Unit.FLOPS, Unit.MACS):
        if abs(float(value)) >= 1e21:
            return f"{format_sci(value, digits)} {unit}"
        scaled = _scaled(float(value), _SI_PREFIXES, digits, " ")
        return f"{scaled}{unit}" if scaled else f"{_sig(float(value), digits)} {unit}"
    return f"{format_si(value, digits)} {unit}"
