"""Significant figures: a value rounded to k of them, and how many a question needs to tell slips apart."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quizzer.core.errors import SpecError
from quizzer.core.trace import Number
from quizzer.grading.bands import SLACK, Mistake, Tolerance, is_within, nearest_value

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quizzer.grading.bands import M

#: The most figures considered: a float holds 17.
MAX_FIGURES = 17
_TIE_SLACK = 1e-9  # a value this close (relative) to a rounding tie may be rounded either way


def _decimal(value: float) -> tuple[int, int]:
    """(digits, exponent) with |value| == digits × 10**exponent, from the shortest repr of ``value``."""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, decimals = mantissa.partition(".")
    return int(whole + decimals), (int(exponent) if exponent else 0) - len(decimals)


def round_figures(value: Number, figures: int) -> Number:
    """``value`` rounded to ``figures`` significant figures, in decimal, half away from zero.

    An int is rounded exactly and stays an int; a float is rounded as its shortest decimal form (its repr)
    reads, so 0.125 and 2.675 round up as written, and the result is a float.

    Args:
        value: a finite int or float.
        figures: the significant figures to keep (>= 1).

    Returns:
        The rounded value, of the type of ``value``.

    >>> round_figures(1_315_723_264, 4), round_figures(124_439_808, 3), round_figures(0.002104, 3)
    (1316000000, 124000000, 0.0021)
    >>> round_figures(2.675, 3), round_figures(-1250, 2), round_figures(9.96, 2), round_figures(0.5, 3)
    (2.68, -1300, 10.0, 0.5)
    """
    if isinstance(figures, bool) or not isinstance(figures, int) or figures < 1:
        raise SpecError(f"figures ({figures!r}) must be a positive integer")
    return _rounding(value)(figures)


def _rounding(value: Number) -> Callable[[int], Number]:
    """``round_figures(value, k)`` as a function of k (k >= 1), the decimal form of ``value`` read once
    (``figures_needed`` tries one figure after another)."""
    if isinstance(value, int):
        size = len(str(abs(value)))

        def whole(figures: int) -> Number:
            if size <= figures:
                return value
            unit: int = 10 ** (size - figures)  # int ** int is typed Any (a negative power is a float)
            rounded: Number = (abs(value) + unit // 2) // unit * unit
            return rounded if value >= 0 else -rounded

        return whole
    if value == 0 or not math.isfinite(value):
        return lambda figures: value
    digits, exponent = _decimal(value)
    size = len(str(digits))

    def decimal(figures: int) -> Number:
        if size <= figures:
            return value
        unit = 10 ** (size - figures)
        kept = (digits + unit // 2) // unit
        rounded = float(f"{kept}e{exponent + size - figures}")
        return rounded if value > 0 else -rounded

    return decimal


def figures_of(number: str) -> int:
    """The significant figures of a decimal number as typed (no sign, no exponent): leading zeros never count,
    trailing zeros count after a decimal point and not in a whole number.

    >>> figures_of("1.3"), figures_of("16,384,000"), figures_of("175.0"), figures_of("0.00210"), figures_of("5.")
    (2, 5, 4, 3, 1)
    """  # noqa: E501
    digits = number.replace(",", "").replace("_", "").replace(" ", "")
    if "." in digits:
        whole, _, decimals = digits.partition(".")
        return max(len((whole + decimals).lstrip("0")), 1)
    return max(len(digits.strip("0")), 1)


def write_figures(value: Number, figures: int, grouping: str = "") -> str:
    """``value`` written with ``figures`` significant figures, no exponent: zeros after the decimal point are
    kept (they are figures), a whole number's last digits are zeros; ``grouping`` separates thousands.

    >>> write_figures(1.316, 4), write_figures(1.3, 4), write_figures(16_380_000, 4, ","), write_figures(0.0021, 3)
    ('1.316', '1.300', '16,380,000', '0.00210')
    """  # noqa: E501
    rounded = round_figures(value, figures)
    if rounded == 0:
        return "0"
    top = math.floor(math.log10(abs(rounded)))
    if 10 ** (top + 1) <= abs(rounded):  # log10 rounded down at a power of ten
        top += 1
    decimals = max(figures - 1 - top, 0)
    if decimals == 0 and isinstance(rounded, float) and abs(rounded) < 2**53:
        rounded = int(rounded)
    text = f"{rounded:,.{decimals}f}" if decimals else f"{rounded:,}"
    return text.replace(",", grouping) if grouping != "," else text


def _scaled(value: Number, per_unit: Number) -> Number:
    """``value`` in units of ``per_unit`` (exactly, for ints that divide)."""
    if per_unit == 1:
        return value
    if isinstance(value, int) and isinstance(per_unit, int) and value % per_unit == 0:
        return value // per_unit
    return value / per_unit


def right_to(value: Number, expected: Number, figures: int, per_unit: Number = 1) -> bool:
    """Whether ``value`` is ``expected`` rounded to ``figures`` significant figures, both read in units of
    ``per_unit`` (what one of the typed number stands for: 2**30 for a number typed in GiB).

    A float slack of 1e-9 (relative) is allowed, and near a tie either rounding counts.

    >>> right_to(1_300_000_000, 1_315_723_264, 2), right_to(1_310_000_000, 1_315_723_264, 3)
    (True, False)
    >>> right_to(15.6 * 2**30, 16_750_372_454, 3, per_unit=2**30), right_to(15.6e9, 16_750_372_454, 3)
    (True, False)
    """
    typed, target = _scaled(value, per_unit), _scaled(expected, per_unit)
    for near in (target, target * (1 - _TIE_SLACK), target * (1 + _TIE_SLACK)):
        rounded = round_figures(near, figures)
        if abs(rounded - typed) <= _TIE_SLACK * max(abs(rounded), abs(typed)):
            return True
    return False


def _near(values: Sequence[Number], expected: Number, tolerance: Tolerance) -> list[int]:
    """The indexes of the values a value inside the band could match: within two bands of ``expected``."""
    t, e, rel = tolerance.value, abs(expected), tolerance.kind == "rel"
    near = []
    for i, v in enumerate(values):
        reach = 2 * t * max(e, abs(v)) if rel else 2 * t
        if abs(v - expected) <= reach + SLACK * max(e, abs(v)):
            near.append(i)
    return near


def figures_needed(
    expected: Number, tolerance: Tolerance, mistakes: Sequence[M] = (), *, per_unit: Number = 1
) -> tuple[int | None, M | None]:
    """``needed_figures`` and the mistake that made the last figure needed (None when the band alone did)."""
    figures, at = figures_of_values(expected, tolerance, [m.value for m in mistakes], per_unit=per_unit)
    return figures, (mistakes[at] if at is not None else None)


def figures_of_values(
    expected: Number, tolerance: Tolerance, values: Sequence[Number] = (), *, per_unit: Number = 1
) -> tuple[int | None, int | None]:
    """``figures_needed`` of mistakes given by their values: the figures, and the index of the value that
    made the last figure needed (None when the band alone did).

    >>> gpt3_xl = 1_315_723_264  # 1.3B at two figures is within 5%, and nearer the untied count, 1.29e9
    >>> figures_of_values(gpt3_xl, Tolerance("rel", 0.05)), figures_of_values(gpt3_xl, Tolerance("rel", 0.05), [3e9, 1.29e9])
    ((2, None), (3, 1))
    """  # noqa: E501
    if tolerance.kind == "factor":
        return None, None
    near = _near(values, expected, tolerance)
    near_values = [values[i] for i in near]
    blocker = None
    rounding = _rounding(_scaled(expected, per_unit))
    for figures in range(1, MAX_FIGURES + 1):
        rounded = rounding(figures)
        value = rounded if per_unit == 1 else rounded * per_unit
        if is_within(value, expected, tolerance):
            hit = nearest_value(value, expected, tolerance, near_values) if near else None
            if hit is None:
                return figures, blocker
            blocker = near[hit]
        else:
            blocker = None
    return None, None


def needed_figures(
    expected: Number, tolerance: Tolerance, mistakes: Sequence[Mistake] = (), *, per_unit: Number = 1
) -> int | None:
    """The fewest significant figures (1 to 17) that tell the expected value from everything else.

    The expected value rounded to that many figures lies inside the tolerance band and matches none of
    ``mistakes`` the way the grader matches them (within tolerance of the mistake and nearer to it than to
    the expected value). An estimate (a factor tolerance) needs no figures: None.

    Args:
        expected: the expected value, in the answer's base unit.
        tolerance: the question's tolerance.
        mistakes: the mistakes the grader will try (the template's and the built-in ones).
        per_unit: the figures are counted in units of this many base units (2**30 for an answer in GiB;
            powers of ten do not change the figures).

    Returns:
        The figures, or None for a factor tolerance (or when even 17 figures do not fit the band).

    >>> gpt3_xl = 1_315_723_264
    >>> needed_figures(gpt3_xl, Tolerance("rel", 0.0005)), needed_figures(gpt3_xl, Tolerance("rel", 0.05))
    (4, 2)
    >>> needed_figures(gpt3_xl, Tolerance("rel", 0.05), [Mistake("untied", 1.29e9, "Untied.")])
    3
    >>> needed_figures(gpt3_xl, Tolerance("rel", 0)), needed_figures(gpt3_xl, Tolerance("factor", 2))
    (10, None)
    """
    return figures_needed(expected, tolerance, mistakes, per_unit=per_unit)[0]
