"""A verdict in words: how far off an answer is, its band, what an imprecise answer lacks, the reading."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quizzer.core.trace import Number, num
from quizzer.grading.bands import Tolerance, is_within
from quizzer.grading.display import format_in, unit_factor
from quizzer.grading.parse import format_plain

if TYPE_CHECKING:
    from quizzer.grading.bands import Mistake
    from quizzer.grading.parse import Parsed
    from quizzer.grading.slip_families import Slip


def off(value: Number, expected: Number, outside: Tolerance | None = None) -> str:
    """How far ``value`` is from ``expected``: "6.2% off", "0.498× the expected value". For an answer
    ``outside`` a band, the distance gets the figures that put it outside: "1.02% off" under ±1%, never
    "1% off", and "0.499×" under a factor of 2, never "0.5×", which would read as inside it.

    >>> off(1.0102, 1), off(1.0102, 1, Tolerance("rel", 0.01)), off(0.4996, 1, Tolerance("factor", 2))
    ('1% off', '1.02% off', '0.4996× the expected value')
    """
    if expected == 0:
        return "expected 0"
    ratio = value / expected
    if (value and ratio == 0) or not math.isfinite(ratio):  # the quotient under- or overflowed a float
        return f"about 10^{round(math.log10(abs(value)) - math.log10(abs(expected)))}× the expected value"
    percent = abs(value - expected) / abs(expected) * 100
    as_ratio = not 0.5 <= ratio <= 2
    if not as_ratio and percent < 1e-4:
        return "< 0.0001% off"
    digits = 3 if as_ratio else 2 if percent < 10 else 0
    while True:
        if as_ratio:
            shown = num(float(f"{ratio:.{digits}g}"))
            read = float(shown.replace(",", "")) * expected
        else:
            shown = f"{percent:.{digits}g}" if digits else f"{percent:.0f}"
            read = expected * (1 + math.copysign(float(shown) / 100, value - expected))
        if outside is None or digits >= 6 or not is_within(read, expected, outside):
            break
        digits = max(digits, 2) + 1  # reads as inside the band: one figure more
    return f"{shown}× the expected value" if as_ratio else f"{shown}% off"


def band(tolerance: Tolerance, unit: str, display_unit: str | None) -> str:
    if tolerance.kind == "abs":
        return f"the band is ±{format_in(tolerance.value, unit, display_unit)}"
    if tolerance.value == 0:
        return "it asks for the exact value"
    band = f"the band is ±{num(float(f'{tolerance.value * 100:.3g}'))}%"
    return f"{band} of the value" if display_unit == "%" else band  # not ± percentage points


def imprecise(
    given: Parsed,
    expected: Number,
    needed: int,
    named: Mistake | Slip | None,
    tolerance: Tolerance,
    display: str | None,
) -> str:
    """ "1.3B is right to 2 significant figures; this question needs 4 (1.316B) to tell it from ..." """
    figures = given.figures or 1
    plural = "figure" if figures == 1 else "figures"
    head = f"{given.written(given.value, figures)} is right to {figures} significant {plural}"
    head += f"; this question needs {needed} ({given.written(expected, needed)})"
    if named is not None:
        return f"{head} to tell it from “{named.label}”."
    return f"{head}: {band(tolerance, given.unit, display)}."


def summary(given: Parsed, expected: Number, display: str | None, figures: int) -> str:
    """ "read as ...; expected ..." in the display unit (the base unit without one)."""
    if display is None:
        return f"read as {given.reading}; expected {format_plain(expected, given.unit)}"
    unit, reading = given.unit, given.reading
    notes = reading[reading.rindex(" (") :] if reading.endswith(")") and " (" in reading else ""
    if given.figures is not None:
        read = given.written(given.value, given.figures)
        in_display = given.bare or given.typed_unit == display or given.factor == unit_factor(unit, display)
        if not in_display:
            read += f" = {format_in(given.value, unit, display, max(4, given.figures))}"
    else:
        typed = reading[: len(reading) - len(notes)].partition(" = ")[0]
        read = f"{typed} = {format_in(given.value, unit, display)}"
    return f"read as {read}{notes}; expected {format_in(expected, unit, display, figures)}"


__all__ = ["band", "imprecise", "off", "summary"]
