"""A verdict in words: how far off an answer is, its band, what an imprecise answer lacks, the reading."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quizzer.core.trace import Number, num
from quizzer.grading.display import format_in, unit_factor
from quizzer.grading.parse import format_plain

if TYPE_CHECKING:
    from quizzer.grading.bands import Mistake, Tolerance
    from quizzer.grading.parse import Parsed
    from quizzer.grading.slip_families import Slip


def off(value: Number, expected: Number, band: float | None = None) -> str:
    """How far ``value`` is from ``expected``: "6.2% off", "0.498× the expected value". ``band`` (a relative
    tolerance, for an answer outside it) gets as many figures as show the distance beyond it: "1.02% off"
    under a ±1% band, never "1% off", which would read as inside it."""
    if expected == 0:
        return "expected 0"
    ratio = value / expected
    if (value and ratio == 0) or not math.isfinite(ratio):  # the quotient under- or overflowed a float
        return f"about 10^{round(math.log10(abs(value)) - math.log10(abs(expected)))}× the expected value"
    if not 0.5 <= ratio <= 2:
        return f"{num(float(f'{ratio:.3g}'))}× the expected value"
    percent = abs(value - expected) / abs(expected) * 100
    if percent < 1e-4:
        return "< 0.0001% off"
    shown = f"{percent:.0f}" if percent >= 10 else f"{percent:.2g}"
    if band is not None:
        digits = 2
        while float(shown) <= band * 100 and digits < 6:  # reads as inside the band: one figure more
            digits += 1
            shown = f"{percent:.{digits}g}"
    return f"{shown}% off"


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
