"""Units, dtype sizes and the formatting of quantities (SI vs binary prefixes)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING

from quizzer.core.errors import UnknownNameError
from quizzer.core.trace import Number

if TYPE_CHECKING:
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


#: Storage size in bits of one element of each dtype name quizzer accepts.
DTYPE_BITS: dict[str, int] = {
    "fp32": 32,
    "tf32": 32,  # stored as fp32; tf32 only changes the matmul precision
    "fp16": 16,
    "bf16": 16,
    "fp8": 8,
    "int8": 8,
    "int4": 4,
    "nf4": 4,
}


def dtype_bits(dtype: str) -> int:
    """Bits per element of ``dtype``.

    >>> dtype_bits("bf16"), dtype_bits("int4")
    (16, 4)
    """
    try:
        return DTYPE_BITS[dtype]
    except KeyError:
        raise UnknownNameError(unknown_name_message("dtype", dtype, DTYPE_BITS)) from None


def dtype_bytes(dtype: str) -> Fraction:
    """Bytes per element of ``dtype`` as an exact fraction (int4 is 1/2).

    >>> dtype_bytes("fp32"), dtype_bytes("int4")
    (Fraction(4, 1), Fraction(1, 2))
    """
    from fractions import Fraction  # not at import time: it costs ~4 ms of `quizzer count`'s cold start

    return Fraction(dtype_bits(dtype), 8)


def elements_bytes(n_elements: int, dtype: str) -> int:
    """Bytes to store ``n_elements`` of ``dtype``, sub-byte dtypes packed and rounded up to whole bytes.

    >>> elements_bytes(7, "int4"), elements_bytes(3, "bf16")
    (4, 6)
    """
    return -(-n_elements * dtype_bits(dtype) // 8)


def dtype_bytes_text(dtype: str) -> str:
    """Bytes per element for a derivation: "2", "0.5".

    >>> dtype_bytes_text("bf16"), dtype_bytes_text("int4")
    ('2', '0.5')
    """
    bits = dtype_bits(dtype)
    return str(bits // 8) if bits % 8 == 0 else f"{bits / 8:g}"


def unknown_name_message(kind: str, name: str, known: object) -> str:
    """The message for an unknown name: what it is, a close match if any, and every known name.

    >>> unknown_name_message("dtype", "bf61", ["bf16", "fp32"])
    "unknown dtype 'bf61' (did you mean 'bf16'?); known: bf16, fp32"
    """
    from quizzer.core.checks import did_you_mean

    names = sorted(known)  # type: ignore[call-overload]
    close = did_you_mean(str(name), names)
    return f"unknown {kind} {name!r}{close}; known: {', '.join(names)}"


_COUNT_SUFFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
_SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_BINARY = ((2**60, "EiB"), (2**50, "PiB"), (2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_DECIMAL_BYTES = ((1e18, "EB"), (1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))


def _sig(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant figures, without trailing zeros or exponent."""
    if value == 0:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_sig(value: Number, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, plain notation, trailing zeros dropped.

    >>> format_sig(44.2958), format_sig(0.0173456), format_sig(208.0)
    ('44.3', '0.0173', '208')
    """
    return _sig(float(value), digits)


def _scaled(value: float, table: tuple[tuple[float, str], ...], digits: int, sep: str) -> str | None:
    for factor, suffix in table:
        if abs(value) >= factor * 0.9995:
            return f"{_sig(value / factor, digits)}{sep}{suffix}"
    return None


def format_count(value: Number) -> str:
    """All digits with thousands separators.

    >>> format_count(16384000)
    '16,384,000'
    """
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.6g}"
    return f"{int(value):,}"


def format_si(value: Number, digits: int = 3) -> str:
    """A count with a k/M/B/T/P suffix at ``digits`` significant figures.

    >>> format_si(16384000), format_si(6738415616, 4), format_si(512)
    ('16.4M', '6.738B', '512')
    """
    return _scaled(float(value), _COUNT_SUFFIXES, digits, "") or _sig(float(value), digits)


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
