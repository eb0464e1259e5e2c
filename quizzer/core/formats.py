"""Low-precision float formats (E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, fp16, bf16): grids, limits, rounding."""

from __future__ import annotations

import math
from fractions import Fraction

from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Number, Result, Trace, num
from quizzer.core.units import Unit, unknown_name_message

_OCP_MX = (
    "OCP Microscaling Formats (MX) Specification v1.0 (2023), section 5.3 (FP6/FP4 elements), 5.4 (E8M0)"
)
_OCP_FP8 = (
    "OCP 8-bit Floating Point Specification (OFP8) rev. 1.0 (2023); Micikevicius et al. 2022, "
    "FP8 Formats for Deep Learning, arXiv 2209.05433"
)

#: Largest grid ``float_magnitudes`` builds (fp16 has 31,744 non-negative finite values, bf16 32,640).
MAX_GRID = 2**16


class FloatFormat(Record):
    """A sign/exponent/mantissa format and what its special codes mean."""

    name: str
    """Table key, a dtype name where there is one ("fp8_e4m3")."""
    exponent_bits: int
    mantissa_bits: int
    bias: int
    special: str
    """"ieee": the top exponent is inf/NaN; "fn": only the all-ones code is NaN (E4M3, no inf); "none": every
    code is a number (FP6/FP4, no inf or NaN); "e8m0": unsigned powers of two 2^(e − 127), 0xFF is NaN."""
    source: str

    @property
    def bits(self) -> int:
        """Storage bits (sign included)."""
        return self.exponent_bits + self.mantissa_bits + (0 if self.special == "e8m0" else 1)


#: Every float format quizzer describes, by name.
FLOAT_FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("fp4_e2m1", 2, 1, 1, "none", _OCP_MX + ": magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6"),
        FloatFormat("fp6_e2m3", 2, 3, 1, "none", _OCP_MX + ": max 7.5"),
        FloatFormat("fp6_e3m2", 3, 2, 3, "none", _OCP_MX + ": max 28"),
        FloatFormat("fp8_e4m3", 4, 3, 7, "fn", _OCP_FP8 + ": max 448, no inf, S.1111.111 is NaN"),
        FloatFormat("fp8_e5m2", 5, 2, 15, "ieee", _OCP_FP8 + ": max 57344, IEEE-style inf and NaN"),
        FloatFormat(
            "e8m0", 8, 0, 127, "e8m0", _OCP_MX + ": the MX scale, 2^-127 to 2^127, no zero, 0xFF NaN"
        ),
        FloatFormat("fp16", 5, 10, 15, "ieee", "IEEE 754-2008 binary16: max 65504"),
        FloatFormat("bf16", 8, 7, 127, "ieee", "bfloat16: the top 16 bits of IEEE binary32 (max ≈ 3.39e38)"),
    )
}


def float_format(name: str) -> FloatFormat:
    """The format called ``name`` (a close match is suggested for a typo).

    >>> float_format("fp8_e4m3").bias
    7
    """
    try:
        return FLOAT_FORMATS[name.strip().lower()]
    except (KeyError, AttributeError):
        raise UnknownNameError(unknown_name_message("float format", name, FLOAT_FORMATS)) from None


def _top_code(f: FloatFormat) -> tuple[int, int]:
    """(exponent field, mantissa field) of the largest finite value."""
    e_all, m_all = 2**f.exponent_bits - 1, 2**f.mantissa_bits - 1
    if f.special == "ieee":
        return e_all - 1, m_all
    if f.special == "fn":
        return e_all, m_all - 1
    if f.special == "e8m0":
        return e_all - 1, 0
    return e_all, m_all


def _value(f: FloatFormat, e: int, m: int) -> Fraction:
    """The magnitude of the code with exponent field ``e`` and mantissa field ``m``."""
    if f.special == "e8m0":
        return Fraction(2) ** (e - f.bias)
    scale = Fraction(2) ** ((e or 1) - f.bias)
    return (Fraction(e > 0) + Fraction(m, 2**f.mantissa_bits)) * scale


def _codes_text(f: FloatFormat, e: int, m: int) -> str:
    if f.special == "e8m0":
        return f"2^({e} − {f.bias})"
    lead = "1" if e else "0"
    return f"{lead}.{m:0{f.mantissa_bits}b}₂ × 2^({e or 1} − {f.bias})"


def _nonnegative_count(f: FloatFormat) -> int:
    """Finite non-negative codes (zero included, for the formats that have one)."""
    # int ** int is typed Any (a negative power would be a float); these powers are ints.
    total: int = 2 ** (f.exponent_bits + f.mantissa_bits)
    if f.special == "ieee":
        top_exponent_codes: int = 2**f.mantissa_bits  # inf and the NaNs
        return total - top_exponent_codes
    if f.special in ("fn", "e8m0"):
        return total - 1
    return total


def float_magnitudes(name: str) -> tuple[Fraction, ...]:
    """Every non-negative finite value of a format, ascending, as exact fractions.

    Args:
        name: a key of ``FLOAT_FORMATS``.

    Returns:
        The grid (fp4_e2m1: the 8 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6).

    >>> [str(v) for v in float_magnitudes("fp4_e2m1")]
    ['0', '1/2', '1', '3/2', '2', '3', '4', '6']
    """
    f = float_format(name)
    if _nonnegative_count(f) > MAX_GRID:
        raise SpecError(f"{f.name} has more than {MAX_GRID:,} values; no grid is built")
    top_e, top_m = _top_code(f)
    values = [
        _value(f, e, m)
        for e in range(top_e + 1)
        for m in range(2**f.mantissa_bits)
        if (e, m) <= (top_e, top_m)
    ]
    return tuple(values)


def _limit(name: str, label: str, e: int, m: int, why: str) -> Result:
    f = float_format(name)
    value = _value(f, e, m)
    t = Trace()
    t.step(
        f"{label} of {f.name} (E{f.exponent_bits}M{f.mantissa_bits}, bias {f.bias})",
        why,
        _codes_text(f, e, m),
        value,
        Unit.RATIO,
    )
    return t.done(value, Unit.RATIO, f"exact value; {f.source}")


def float_max_normal(name: str) -> Result:
    """Largest finite value of a format: (2 − 2^−M) × 2^(e_max − bias), less where the top codes are special.

    E4M3 keeps its top exponent for numbers and only S.1111.111 is NaN, so its max is 1.75 × 2^8 = 448; E5M2
    reserves the top exponent for inf/NaN (IEEE-style), so its max is 1.75 × 2^15 = 57344; E2M1 has no special
    codes: 1.5 × 2^2 = 6. Sources: OCP OFP8 spec (E4M3, E5M2), OCP MX v1.0 spec (FP4, FP6, E8M0).

    Args:
        name: a key of ``FLOAT_FORMATS`` (fp4_e2m1, fp6_e2m3, fp6_e3m2, fp8_e4m3, fp8_e5m2, e8m0, fp16, bf16).

    Returns:
        The value (``ratio``: a plain number).

    >>> [float_max_normal(f).value for f in ("fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "fp16")]
    [448, 57344, 6, 65504]
    """
    f = float_format(name)
    e, m = _top_code(f)
    why = {
        "ieee": "top exponent is inf/NaN: (2 − 2^−M) × 2^(2^E − 2 − bias)",
        "fn": "only the all-ones code is NaN: (2 − 2^(1−M)) × 2^(2^E − 1 − bias)",
        "none": "no special codes: (2 − 2^−M) × 2^(2^E − 1 − bias)",
        "e8m0": "0xFF is NaN: 2^(254 − 127)",
    }[f.special]
    return _limit(name, "Largest finite value", e, m, why)


def float_min_normal(name: str) -> Result:
    """Smallest normal value: 2^(1 − bias) (E8M0: 2^−127, its smallest value).

    Args:
        name: a key of ``FLOAT_FORMATS``.

    Returns:
        The value (``ratio``).

    >>> float_min_normal("fp8_e4m3").value, float_min_normal("fp4_e2m1").value
    (0.015625, 1)
    """
    f = float_format(name)
    e = 0 if f.special == "e8m0" else 1
    return _limit(name, "Smallest normal value", e, 0, "2^(1 − bias)" if e else "2^(0 − bias)")


def float_min_subnormal(name: str) -> Result:
    """Smallest positive value: 2^(1 − bias − M), the subnormal with mantissa field 1.

    Args:
        name: a key of ``FLOAT_FORMATS`` with a mantissa (not e8m0).

    Returns:
        The value (``ratio``).

    >>> float_min_subnormal("fp8_e4m3").value, float_min_subnormal("fp4_e2m1").value
    (0.001953125, 0.5)
    """
    f = float_format(name)
    if f.mantissa_bits == 0:
        raise SpecError(
            f"{f.name} has no mantissa, hence no subnormals; its smallest value is float_min_normal"
        )
    return _limit(name, "Smallest subnormal value", 0, 1, "2^(1 − bias − M)")


def float_value_count(name: str) -> Result:
    """Distinct finite values of a format: 2 × (non-negative finite codes) − 1 (±0 are one value).

    E2M1 has 16 codes and 15 values; E4M3 256 codes, 2 NaN and ±0: 253; E5M2 loses 8 codes to inf/NaN: 247.

    Args:
        name: a key of ``FLOAT_FORMATS``.

    Returns:
        A count.

    >>> [float_value_count(f).value for f in ("fp4_e2m1", "fp8_e4m3", "fp8_e5m2")]
    [15, 253, 247]
    """
    f = float_format(name)
    n = _nonnegative_count(f)
    t = Trace()
    codes = 2 ** (f.exponent_bits + f.mantissa_bits)
    special = codes - n
    t.step(
        f"Non-negative finite codes of {f.name}",
        "2^(E+M) − special codes",
        f"{num(codes)} − {special}",
        n,
        Unit.COUNT,
    )
    if f.special == "e8m0":
        return t.done(n, Unit.COUNT, f"unsigned, no zero; {f.source}")
    total = t.step(
        "Distinct finite values",
        "2 × codes − 1 (+0 and −0 are one value)",
        f"2 × {n} − 1",
        2 * n - 1,
        Unit.COUNT,
    )
    return t.done(total, Unit.COUNT, f"±0 counted once, NaN and inf left out; {f.source}")


def _finite(value: object) -> int | float:
    """``value`` if it is a finite int or float (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SpecError(f"value ({value!r}) must be a finite number")
    return value


def _floor_log2(a: Fraction) -> int:
    """⌊log2 a⌋ of a positive fraction, exactly."""
    k = a.numerator.bit_length() - a.denominator.bit_length()  # the floor, or one above it
    return k - 1 if Fraction(2) ** k > a else k


def _half_even(x: Fraction) -> int:
    """``x`` rounded to the nearest integer, ties to even."""
    floor = x.numerator // x.denominator
    rest = x - floor
    return floor + (rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1))


def float_round(value: Number, name: str) -> Result:
    """``value`` rounded to the nearest value of a format (ties to even), saturating at the largest one.

    The grid spacing at |x| is 2^(⌊log2 |x|⌋ − M) for normals and 2^(1 − bias − M) below the smallest normal;
    |x| / spacing is rounded to the nearest integer, ties to the even one (IEEE 754 round-to-nearest-even).
    Beyond the largest finite value the result is that value (saturating conversion, as OCP MX and OFP8
    allow; an IEEE cast to E5M2, fp16 or bf16 would give inf instead). E2M1: 5 is a tie between 4 and 6 and
    goes to 4, the even mantissa.

    Args:
        value: the number to round.
        name: a key of ``FLOAT_FORMATS`` other than e8m0 (a scale, set from a block's max, not rounded).

    Returns:
        The rounded value (``ratio``).

    >>> [float_round(x, "fp4_e2m1").value for x in (5, 2.6, -0.3, 7)], float_round(500, "fp8_e4m3").value
    ([4, 3, -0.5, 6], 448)
    """
    f = float_format(name)
    if f.special == "e8m0":
        raise SpecError("e8m0 holds scales 2^k, chosen as 2^(⌊log2 amax⌋ − emax of the element), not rounded")
    x = Fraction(_finite(value))
    sign, a = (-1 if x < 0 else 1), abs(x)
    top = _value(f, *_top_code(f))
    convention = f"round to nearest, ties to even, saturating; {f.source}"
    t = Trace()
    if a >= top:
        result = sign * top
        t.step(
            f"Saturate to the largest {f.name} value",
            "min(|x|, max) with the sign of x",
            f"min({num(a)}, {num(top)})",
            result,
            Unit.RATIO,
        )
        return t.done(result, Unit.RATIO, convention)
    exponent = max(_floor_log2(a), 1 - f.bias) if a else 1 - f.bias
    spacing = Fraction(2) ** (exponent - f.mantissa_bits)
    t.step(
        f"Spacing of the {f.name} grid at |x|",
        "2^(max(⌊log2 |x|⌋, 1 − bias) − M)",
        f"2^({exponent} − {f.mantissa_bits})",
        spacing,
        Unit.RATIO,
    )
    result = sign * _half_even(a / spacing) * spacing
    t.step(
        "Nearest grid value (ties to even)",
        "round(|x| / spacing) × spacing, with the sign of x",
        f"round({num(a)} / {num(spacing)}) × {num(spacing)}",
        result,
        Unit.RATIO,
    )
    return t.done(result, Unit.RATIO, f"round to nearest, ties to even, saturating; {f.source}")
