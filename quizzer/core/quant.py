"""Weight quantization: effective bits per parameter with group scales, zero points, double quantization."""

from __future__ import annotations

import math
from fractions import Fraction

from quizzer.core.checks import count
from quizzer.core.errors import SpecError
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

#: What every figure here assumes.
QUANT_CONVENTION = (
    "one scale (+ zero point) per group of group_size weights; double quantization stores the scales in "
    "scale_bits and adds one second_scale_bits constant per double_quant_group groups (QLoRA); "
    "group_size 0 = per-tensor constants, counted as 0"
)

Part = tuple[str, str, str, Fraction]


def _parts(
    group_size: int, scale_bits: int, zero_point_bits: int, double_quant_group: int, second_scale_bits: int
) -> list[Part]:
    """Validated overhead components as (label, formula, substituted, bits per parameter)."""
    group_size = count("group_size", group_size, 0)
    scale_bits = count("scale_bits", scale_bits, 1)
    zero_point_bits = count("zero_point_bits", zero_point_bits, 0)
    double_quant_group = count("double_quant_group", double_quant_group, 0)
    second_scale_bits = count("second_scale_bits", second_scale_bits, 1)
    if group_size == 0:
        if zero_point_bits or double_quant_group:
            raise SpecError(
                "zero_point_bits and double_quant_group need group_size > 0 (per-group constants)"
            )
        return []
    parts: list[Part] = []
    if zero_point_bits:
        subst = f"({num(scale_bits)} + {num(zero_point_bits)}) / {num(group_size)}"
        value = Fraction(scale_bits + zero_point_bits, group_size)
        parts.append(
            ("Per-group scale and zero point", "(scale bits + zero-point bits) / group size", subst, value)
        )
    else:
        subst, value = f"{num(scale_bits)} / {num(group_size)}", Fraction(scale_bits, group_size)
        parts.append(("Per-group scale", "scale bits / group size", subst, value))
    if double_quant_group:
        formula = "second-level scale bits / (group size × groups per second-level group)"
        subst = f"{num(second_scale_bits)} / ({num(group_size)} × {num(double_quant_group)})"
        value = Fraction(second_scale_bits, group_size * double_quant_group)
        parts.append(("Second-level constant (double quantization)", formula, subst, value))
    return parts


def _record(t: Trace, parts: list[Part]) -> Fraction:
    for label, formula, subst, value in parts:
        t.step(label, formula, subst, float(value), Unit.BITS_PER_PARAM)
    return sum((p[3] for p in parts), Fraction(0))


def quant_overhead_bits_per_param(
    group_size: int,
    scale_bits: int = 16,
    zero_point_bits: int = 0,
    double_quant_group: int = 0,
    second_scale_bits: int = 32,
) -> Result:
    """Bits per parameter spent on quantization constants: (scale + zero) / group (+ second level).

    Source: Dettmers et al. 2023, QLoRA, arXiv 2305.14314, "Double Quantization": NF4 blocks of 64 with 8-bit
    absmax constants, themselves grouped by 256 under one fp32 constant: 8/64 + 32/(64·256) = 0.127 bits
    per parameter, against 32/64 = 0.5 without double quantization.

    Args:
        group_size: weights sharing one scale (64 in QLoRA, 128 in GPTQ/AWQ defaults).
        scale_bits: bits of each group scale (16 for fp16, 8 when double quantized, 32 for fp32).
        zero_point_bits: bits of each group zero point (0 for symmetric/absmax quantization).
        double_quant_group: scales per second-level constant (256 in QLoRA); 0 for none.
        second_scale_bits: bits of each second-level constant (fp32 in QLoRA).

    Returns:
        Bits per parameter (float, computed exactly).

    >>> quant_overhead_bits_per_param(64, 8, 0, 256, 32).value
    0.126953125
    """
    t = Trace()
    parts = _parts(
        count("group_size", group_size, 1), scale_bits, zero_point_bits, double_quant_group, second_scale_bits
    )
    overhead = _record(t, parts)
    if len(parts) > 1:
        formula = " + ".join(p[1] for p in parts)
        t.step(
            "Constants per parameter",
            formula,
            " + ".join(p[2] for p in parts),
            float(overhead),
            Unit.BITS_PER_PARAM,
        )
    return t.done(float(overhead), Unit.BITS_PER_PARAM, QUANT_CONVENTION)


def quant_bits_per_param(
    bits: int,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_point_bits: int = 0,
    double_quant_group: int = 0,
    second_scale_bits: int = 32,
) -> Result:
    """Effective storage bits per parameter: bits + (scale + zero) / group_size (+ second-level constants).

    Sources: sizing-notes 4.9 (an fp16 scale per 128 int4 weights adds 0.125 bit); QLoRA, arXiv 2305.14314
    (NF4 with double quantization: 4 + 8/64 + 32/(64·256) ≈ 4.127 bits).

    Args:
        bits: bits of each quantized weight (4 for int4/NF4, 8 for int8).
        group_size: weights sharing one scale; 0 = per-tensor constants (counted as 0).
        scale_bits: bits of each group scale.
        zero_point_bits: bits of each group zero point (0 for symmetric quantization).
        double_quant_group: scales per second-level constant; 0 for none.
        second_scale_bits: bits of each second-level constant.

    Returns:
        Bits per parameter (float, computed exactly).

    >>> quant_bits_per_param(4, 128).value, quant_bits_per_param(4, 64, 8, 0, 256, 32).value
    (4.125, 4.126953125)
    """
    bits = count("bits", bits, 1)
    t = Trace()
    parts = _parts(group_size, scale_bits, zero_point_bits, double_quant_group, second_scale_bits)
    overhead = _record(t, parts)
    formula = " + ".join(["bits", *(p[1] for p in parts)])
    subst = " + ".join([num(bits), *(p[2] for p in parts)])
    total = t.step(
        "Effective bits per parameter", formula, subst, float(bits + overhead), Unit.BITS_PER_PARAM
    )
    return t.done(total, Unit.BITS_PER_PARAM, QUANT_CONVENTION)


def quantized_weights_bytes(
    n_params: int, bits: int, group_size: int = 0, scale_bits: int = 16, zero_point_bits: int = 0
) -> Result:
    """Bytes of quantized weights with their group constants: ⌈n_params × effective bits / 8⌉.

    Source: sizing-notes 4.9 (bytes = P·bits/8 + scales); 7e9 int4 weights with an fp16 scale per 128 take
    7e9 × 4.125 / 8 = 3,609,375,000 bytes (3.5e9 for the weights, 109,375,000 for the scales).

    Args:
        n_params: number of quantized parameters.
        bits: bits of each quantized weight.
        group_size: weights sharing one scale; 0 = per-tensor constants (counted as 0).
        scale_bits: bits of each group scale.
        zero_point_bits: bits of each group zero point.

    Returns:
        Bytes (int, rounded up to a whole byte).

    >>> quantized_weights_bytes(7_000_000_000, 4, 128).value
    3609375000
    """
    n_params, bits = count("n_params", n_params, 1), count("bits", bits, 1)
    t = Trace()
    t.use(quant_bits_per_param(bits, group_size, scale_bits, zero_point_bits))
    effective = bits + sum(
        (p[3] for p in _parts(group_size, scale_bits, zero_point_bits, 0, 32)), Fraction(0)
    )
    total = t.step(
        "Quantized weight bytes",
        "⌈parameters × effective bits / 8⌉",
        f"⌈{num(n_params)} × {num(effective)} / 8⌉",
        math.ceil(n_params * effective / 8),
        Unit.BYTES,
    )
    return t.done(total, Unit.BYTES, QUANT_CONVENTION + "; rounded up to whole bytes")
