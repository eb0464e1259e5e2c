"""The true constants a teaching text may write out by hand: no draw of any template can change them."""

from __future__ import annotations

from fractions import Fraction

from quizzer.core.record import Record

#: A constant written with any unit (zero of anything, one of anything).
ANY = frozenset({"*"})
_BYTES = "byte bytes B bytes/param bytes/parameter B/param"
_BITS, _FLOPS = "bit bits bits/param bits/parameter bits/weight", "FLOP FLOPs"
_RATES = f"{_BYTES} {_FLOPS} bytes/s B/s FLOP/s"
_SECONDS = "s sec second seconds"


class Constant(Record):
    """A number every template shares, the unit words it may be written with ("2 bytes" but not "2 GiB"),
    and why it is a constant."""

    value: Fraction
    units: frozenset[str]
    why: str


def _c(value: int | str, units: str, why: str) -> Constant:
    words = ANY if units == "*" else frozenset(units.split())
    return Constant(Fraction(value), words, why)


#: Every allowed constant, by value. A constant is allowed next to an operator (× ÷ / + − = ^ ...) with no
#: unit, or written with one of its unit words ("2 FLOPs", "16 bytes", not "2 GiB"); never with a scale
#: word ("2B" is a size). A number not here is a placeholder, a computed variable, or a `numbers_ok`
#: entry with its reason.
CONSTANTS: dict[Fraction, Constant] = {
    c.value: c
    for c in (
        # 0 and 1: nothing, one of anything; "1 GiB = 2^30 bytes", "1 − p", "1 byte per int8 value".
        _c(0, "*", "zero"),
        _c(1, "*", "one: a unit's definition (1 GiB = 2^30 bytes), 1 byte per int8 value, 1 − p"),
        _c("1/2", _BYTES, "half a byte per 4-bit value; a half"),
        # Counting FLOPs, K and V, and the bytes and bits of the common dtypes.
        _c(2, f"{_FLOPS} {_BYTES}", "2 FLOPs per multiply-add; K and V; 2 bytes per bf16/fp16 value"),
        _c(3, "", "forward + backward = 3 forward passes; Q, K and V; a gated MLP's 3 matrices"),
        _c(4, f"{_FLOPS} {_BYTES} {_BITS}", "4 bytes per fp32 value; the backward pass's 4 FLOPs per weight"),
        _c(6, _FLOPS, "6 FLOPs per parameter per training token (forward 2, backward 4)"),
        _c(8, f"{_BITS} {_BYTES}", "8 bits per byte; an 8-bit dtype; Adam's two fp32 moments, 8 bytes"),
        _c(12, _BYTES, "Adam's fp32 master copy, m and v: 12 bytes per parameter"),
        _c(
            16, f"{_BYTES} {_BITS}", "16 bytes per parameter for mixed-precision Adam; 16 bits per bf16 value"
        ),
        _c(32, _BITS, "32 bits per fp32 value"),
        # Binary and decimal prefixes: a unit's size, never a quantity of its own.
        _c(2**10, _BYTES, "2^10: KiB"),
        _c(2**20, _BYTES, "2^20: MiB"),
        _c(2**30, _BYTES, "2^30: GiB"),
        _c(2**40, _BYTES, "2^40: TiB"),
        _c(10**3, f"{_BYTES} ms", "10^3: kilo (kB, ms per s)"),
        _c(10**6, _RATES, "10^6: mega"),
        _c(10**9, _RATES, "10^9: giga (GB, GFLOP/s)"),
        _c(10**12, _RATES, "10^12: tera (TB/s, TFLOP/s)"),
        _c(10**15, _RATES, "10^15: peta (PFLOP/s)"),
        # Percent and time.
        _c(100, "%", "100: a whole in percent"),
        _c("2.4", "%", "a KiB is 2.4% more than a kB (1,024 / 1,000)"),
        _c("4.9", "%", "a MiB is 4.9% more than an MB (2^20 / 10^6)"),
        _c("7.4", "%", "a GiB is 7.4% more than a GB (2^30 / 10^9)"),
        _c(24, "h hour hours GPU-hours", "24 hours per day"),
        _c(60, f"{_SECONDS} min minute minutes", "60 seconds per minute, 60 minutes per hour"),
        _c(365, "d day days", "365 days per year"),
        _c(3600, _SECONDS, "3,600 seconds per hour"),
        _c(86400, _SECONDS, "86,400 seconds per day"),
    )
}


def allowed(value: Fraction, unit: str | None) -> bool:
    """Whether ``value`` is a true constant as written: alone (``unit`` None: next to an operator) or with
    the unit word ``unit``.

    >>> allowed(Fraction(2), None), allowed(Fraction(2), "FLOPs"), allowed(Fraction(2), "GiB")
    (True, True, False)
    >>> allowed(Fraction(1), "ms"), allowed(Fraction(107, 100), None)
    (True, False)
    """
    constant = CONSTANTS.get(value)
    if constant is None:
        return False
    return unit is None or constant.units is ANY or unit in constant.units


__all__ = ["ANY", "CONSTANTS", "Constant", "allowed"]
