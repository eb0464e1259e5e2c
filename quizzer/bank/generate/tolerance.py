"""The sentence that states a question's tolerance, and the lint for tolerances written by hand."""

from __future__ import annotations

import re

from quizzer.core.units import Unit, format_quantity, format_sig
from quizzer.grading.grade import Tolerance

#: Units whose answers are whole counts: a tight band on one is called an exact count.
COUNT_UNITS = frozenset(
    {Unit.PARAMS, Unit.TOKENS, Unit.PATCHES, Unit.COUNT, Unit.FLOPS, Unit.MACS, Unit.BYTES}
)
_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}

#: What a prompt or convention must not say about the tolerance: the generated sentence says it (only the
#: authoring check reads texts for it: compiled on its first use, not by every command that renders one).
_HAND_WRITTEN = (
    r"within\s+(?:a\s+|±\s*)?\d[\d.,]*\s*(?:%|percent|percentage point)"
    r"|within\s+±"
    r"|within\s+(?:a\s+)?factor"
    r"|factor\s+of\s+\d[\d.]*\s+(?:is|are)\s+(?:correct|accepted)"
    r"|graded\s+as\s+an\s+estimate"
    r"|\b(?:\d+|one|two|three|four|five|six)\s+significant\s+figures"
    r"|\bexact\s+count\s*;"
)


def hand_written_tolerance(text: str) -> str | None:
    """The phrase of ``text`` that states a tolerance by hand ("within 1%", "factor of 2 is correct").

    >>> hand_written_tolerance("GiB = 2^30 bytes. Answers within 1% are accepted.")
    'within 1%'
    >>> hand_written_tolerance("The cache grows within the step.") is None
    True
    """
    match = re.search(_HAND_WRITTEN, text, re.IGNORECASE)  # re keeps it compiled after the first
    return match.group(0) if match else None


def _percent(fraction: float) -> str:
    return f"{format_sig(100 * fraction, 3)}%"


def _figures(figures: int) -> str:
    return f"{_WORDS.get(figures, str(figures))} significant figure{'s' if figures != 1 else ''}"


def tolerance_text(
    tolerance: Tolerance,
    *,
    kind: str,
    unit: str,
    value: int | float,
    figures: int | None,
    display_unit: str | None = None,
    per_unit: int | float = 1,
) -> str:
    """One sentence for the student: how close a correct answer must be, and the figures it needs.

    ``figures`` is the needed figures (None for a factor tolerance); ``per_unit`` the size of one
    ``display_unit`` in the base unit.

    >>> tolerance_text(Tolerance("rel", 0.01), kind="exact", unit="bytes", value=1.5e9, figures=3)
    'Answers within 1% are correct (give at least three significant figures).'
    >>> tolerance_text(Tolerance("rel", 0.0005), kind="exact", unit="params", value=1_315_723_264, figures=4)
    'The count is exact, but answers within 0.05% are correct: give at least four significant figures.'
    >>> tolerance_text(Tolerance("factor", 1.5), kind="estimate", unit="bytes", value=3e9, figures=None)
    'An estimate: within a factor of 1.5 is correct.'
    >>> tolerance_text(Tolerance("abs", 0.01), kind="exact", unit="ratio", value=0.41, figures=2)
    'Answers within ±0.01 (one percentage point) are correct (give at least two significant figures).'
    >>> tolerance_text(Tolerance("abs", 0.5), kind="exact", unit="count", value=9, figures=1)
    'Only the exact whole number is correct.'
    """
    if tolerance.kind == "factor":
        factor = format_sig(tolerance.value, 3)
        if kind == "estimate":
            return f"An estimate: within a factor of {factor} is correct."
        return f"Answers within a factor of {factor} are correct."
    need = f" (give at least {_figures(figures)})" if figures and figures > 1 else ""  # "one figure": said
    whole = isinstance(value, int) or float(value).is_integer()
    if tolerance.kind == "abs" and unit in COUNT_UNITS and whole and not display_unit and tolerance.value < 1:
        return "Only the exact whole number is correct."  # ±0.5 of a count: no other whole number
    if tolerance.kind == "abs":
        return f"Answers within ±{_amount(tolerance.value, unit, display_unit, per_unit)} are correct{need}."
    if tolerance.value == 0:
        return "Only the exact value is correct."
    band = _percent(tolerance.value)
    if unit in COUNT_UNITS and whole and tolerance.value < 0.01 and figures:
        at_least = _figures(figures)
        return f"The count is exact, but answers within {band} are correct: give at least {at_least}."
    return f"Answers within {band} are correct{need}."


def _amount(amount: float, unit: str, display_unit: str | None, per_unit: int | float) -> str:
    """An absolute tolerance as people read it: in the display unit, or percentage points for a ratio."""
    if unit == Unit.RATIO:
        points = format_sig(100 * amount, 3)
        words = _WORDS.get(int(points), points) if points.isdigit() else points
        shown = f"{words} percentage point{'' if points == '1' else 's'}"
        return shown if display_unit == "%" else f"{format_sig(amount, 3)} ({shown})"
    if display_unit:
        return f"{format_sig(amount / per_unit, 3)} {display_unit}"
    return format_quantity(amount, unit)


__all__ = ["hand_written_tolerance", "tolerance_text"]
