"""Grades a typed answer against the expected value: exact, correct, imprecise, close, wrong or unparsed.

Verdicts, best first:

- exact: the value read equals the expected value (an int), or is within 1e-12 of it relative (a float).
- correct: inside the tolerance (rel: |v-e| <= rel·|e|; abs: |v-e| <= abs; factor f: e/f <= v <= e·f).
- imprecise: outside the tolerance, but the expected value rounded to the significant figures the answer
  was typed with ("1.3B" for 1,315,723,264), where the question needs more (``needed_figures``: the fewest
  whose rounding lies in the band and matches no mistake). It is neither right nor wrong. Never for a
  factor tolerance: an estimate is not graded on its rounding. (An answer inside the band is correct,
  however few its figures: the band is what the prompt promises.)
- close: outside the tolerance but inside the close band: max(5 × rel, 1 %) relative for rel tolerances,
  max(5 × abs, 1 % of |e|) for abs tolerances, factor f² for factor tolerances. The 1 % floor gives exact
  counts (rel 0) a "close" neighbourhood too.
- wrong: anything else; unparsed: the parser failed and nothing was graded.

A close or wrong answer is then compared with the template's mistakes, then with the built-in slips made
for the instance (``quizzer.grading.slips``: sibling units for the unit the number was read in, the slips
of the answer's named factors (K and V's ×2, the KV heads, the layers, a dtype's bytes, 2 FLOPs per MAC),
the dtype's neighbours, the layers in scope, MACs for FLOPs, a scale word left off, 1000×); the verdict
names the matched mistake's family. A mistake matches when the answer is within the
question's tolerance of the mistake's value and nearer to it than to the expected value (in log ratio for
factor tolerances); the nearest wins. Comparisons allow a 1e-12 relative slack so decimal edges ("0.33"
against 0.3 ± 10 %) are not lost to binary rounding.

With a display unit, the verdict line speaks in it ("read as 28 days; expected 28.26 days (1% off)").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quizzer.core.record import Record
from quizzer.core.trace import Number
from quizzer.grading.bands import (
    SLACK,
    Mistake,
    Tolerance,
    close_band,
    finite,
    is_within,
    match_mistake,
    title_from_name,
    tolerance_band,
)
from quizzer.grading.context import GradeContext
from quizzer.grading.display import format_in, unit_factor
from quizzer.grading.factor_sheet import factor_sheet
from quizzer.grading.figures import figures_needed, needed_figures, right_to, round_figures
from quizzer.grading.pairs import PairSlip, slip_pairs
from quizzer.grading.parse import Parsed, ParseError, parse_answer
from quizzer.grading.slip_families import Slip
from quizzer.grading.slips import builtin_mistakes, slips
from quizzer.grading.wording import imprecise, off
from quizzer.grading.wording import summary as written
from quizzer.grading.working import read_working

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Verdict kinds, best first (imprecise is neither right nor wrong).
VERDICTS = ("exact", "correct", "imprecise", "close", "wrong", "unparsed")


class Verdict(Record):
    """The grade of one answer.

    Attributes:
        kind: one of ``VERDICTS``.
        given: the answer as read (None when unparsed).
        expected: the expected value, in ``unit``.
        unit: the base unit of the answer.
        rel_error: |given - expected| / |expected| (None when unparsed).
        mistake: the name (id) of the mistake the answer matches, if any.
        feedback: what to tell the student: the mistake's feedback, or for an imprecise answer the figures
            it has and the figures the question needs.
        message: one line for people: what was read, what was expected, how far off, the verdict.
        summary: the message without the verdict and the feedback ("read as ...; expected ... (6.6% off)").
        mistake_title: the matched mistake's title for people ("GiB read as GB"), if any.
        figures: the significant figures the answer was typed with (``Parsed.figures``).
        needed_figures: the figures this question needs (``needed_figures`` over the template's and the
            built-in mistakes), counted in the unit the answer was typed in; worked out for an answer outside
            the band (imprecise, close, wrong), None otherwise and for a factor tolerance.
        mistake_family: the matched mistake's slip family ("kv-pair", "gb-gib", ...; "own" for a template's
            mistake that names none: ``quizzer.grading.slip_families.FAMILIES``), if any.
        diagnosis: what a close or wrong answer's working says, one sentence each: the factors of a typed
            product that differ from the derivation's ("your 30 is n_layers: here it is 32"), or the two
            slips it combines; () when there is nothing to say.
    """

    kind: str
    given: Parsed | None
    expected: Number
    unit: str
    rel_error: float | None
    mistake: str | None
    feedback: str | None
    message: str
    summary: str = ""
    mistake_title: str | None = None
    figures: int | None = None
    needed_figures: int | None = None
    mistake_family: str | None = None
    diagnosis: tuple[str, ...] = ()


def _is_exact(value: Number, expected: Number) -> bool:
    if isinstance(expected, int):  # an exact count: only the same number is exact
        return value == expected
    return abs(value - expected) <= SLACK * abs(expected)


_NO_CONTEXT = GradeContext()


def _context(context: GradeContext | None, default_unit: str | None, n_layers: int | None) -> GradeContext:
    """The context, with the old keywords (``default_unit``, ``n_layers``) filled in where given."""
    if context is None:
        return (
            _NO_CONTEXT
            if default_unit is None and n_layers is None
            else GradeContext(default_unit, None, n_layers)
        )
    if default_unit is not None or n_layers is not None:
        changes = {"display_unit": default_unit, "layers": n_layers}
        return context.replace(**{k: v for k, v in changes.items() if v is not None})
    return context


def grade(
    answer: str,
    expected: Number,
    unit: str,
    tolerance: Tolerance,
    mistakes: Sequence[Mistake] = (),
    *,
    context: GradeContext | None = None,
    default_unit: str | None = None,
    n_layers: int | None = None,
) -> Verdict:
    """Grade a typed answer.

    Args:
        answer: what the user typed (read by ``parse_answer``).
        expected: the expected value, in ``unit`` (a base unit such as "params" or "bytes").
        unit: the answer's base unit.
        tolerance: how far a correct answer may be.
        mistakes: the template's known mistakes, tried before the built-in ones.
        context: what the instance tells of its slips: display unit, dtype, layers (see ``GradeContext``).
        default_unit: what a bare number means; fills ``context.display_unit`` (kept for old callers).
        n_layers: the layers in scope; fills ``context.layers`` (kept for old callers).

    Returns:
        The ``Verdict``.

    >>> v = grade("16.4M", 16_384_000, "params", Tolerance("rel", 0.01))
    >>> v.kind, v.message
    ('correct', 'read as 16,400,000 params; expected 16,384,000 params (0.098% off): correct')
    >>> grade("15.6 GB", 16_777_216_000, "bytes", Tolerance("rel", 0.01)).mistake_title
    'GiB read as GB'
    >>> v = grade("1.3B", 1_315_723_264, "params", Tolerance("rel", 0.0005))
    >>> v.kind, v.feedback
    ('imprecise', '1.3B is right to 2 significant figures; this question needs 4 (1.316B): the band is ±0.05%.')
    >>> grade("28", 2_441_406, "s", Tolerance("rel", 0.01), context=GradeContext("days")).summary
    'read as 28 days; expected 28.26 days (0.91% off)'
    """  # noqa: E501
    finite("expected", expected)
    context = _context(context, default_unit, n_layers)
    display = context.display_unit
    try:
        given = parse_answer(answer, unit, display)
    except ParseError as error:
        return Verdict("unparsed", None, expected, str(unit), None, None, None, error.message, error.message)
    value, figures = given.value, given.figures
    kind = _placed(value, expected, tolerance)
    if expected:
        rel_error = float(abs(value - expected) / abs(expected))
    else:
        rel_error = 0.0 if value == 0 else math.inf
    found: Mistake | Slip | None = None
    feedback = needed = None
    diagnosis: tuple[str, ...] = ()
    if kind in ("close", "wrong"):
        kind, found, feedback, needed = _diagnose(given, expected, unit, tolerance, mistakes, context, kind)
    if feedback is None and found is not None:
        feedback = found.feedback
    if isinstance(found, PairSlip):  # two slips at once: the sentence that names both
        diagnosis += (found.note,)
    if kind in ("close", "wrong") and given.terms and context.derivation:
        notes = read_working(given, factor_sheet(context.derivation))
        diagnosis += notes
        feedback = " ".join([feedback, *notes]) if feedback else " ".join(notes) or None
    shown = needed or 0
    if display is not None and needed is None and tolerance.kind != "factor":
        shown = needed_figures(expected, tolerance, mistakes, per_unit=unit_factor(unit, display)) or 0
    summary = written(given, expected, display, max(shown, 4))
    if kind != "exact":
        summary += f" ({off(value, expected, None if kind == 'correct' else tolerance)})"
    message = f"{summary}: {kind}" + (f"; {feedback}" if feedback else "")
    return Verdict(
        kind,
        given,
        expected,
        given.unit,
        rel_error,
        found.name if found else None,
        feedback,
        message,
        summary,
        found.label if found else None,
        figures,
        needed,
        found.family if found else None,
        diagnosis,
    )


def _placed(value: Number, expected: Number, tolerance: Tolerance) -> str:
    """Where ``value`` falls: "exact", "correct" (inside the band), "close" (inside the close band) or
    "wrong"."""
    if _is_exact(value, expected):
        return "exact"
    if is_within(value, expected, tolerance):
        return "correct"
    if is_within(value, expected, close_band(expected, tolerance)):
        return "close"
    return "wrong"


def _diagnose(
    given: Parsed,
    expected: Number,
    unit: str,
    tolerance: Tolerance,
    mistakes: Sequence[Mistake],
    context: GradeContext,
    kind: str,
) -> tuple[str, Mistake | Slip | None, str | None, int | None]:
    """What a close or wrong answer is: (kind, the mistake it matches, feedback, the figures the question
    needs). The template's mistakes are tried before the built-in slips; an answer right to the figures
    typed, short of those the question needs, is "imprecise" (and matches no mistake), unless it is one of
    the template's mistakes typed in full (0.5 for an exponent of 0.4565 that a mistake lists as 0.5): a
    listed mistake wins over a rounding. A mistake the typed figures only round to (1.3B for 1.2995B) stays
    ambiguous: imprecise, naming it. A bare number that is the answer without its scale word, to the figures
    typed (1.19 for 1,188,721,600 params), is that slip whatever the band."""
    value, figures, display = given.value, given.figures, context.display_unit
    builtin = slips(expected, given.unit, context, tolerance=tolerance, typed_unit=given.typed_unit)
    found = match_mistake(value, expected, tolerance, mistakes) or match_mistake(
        value, expected, tolerance, builtin
    )
    if found is None and expected:  # no single slip: two at once, a pair with one of the template's first
        pairs = slip_pairs(expected, tolerance, [*mistakes, *builtin])
        found = match_mistake(value, expected, tolerance, [p for p in pairs if p.own]) or match_mistake(
            value, expected, tolerance, [p for p in pairs if not p.own]
        )
    if found is None and given.bare and figures is not None and figures >= 2:  # 1.19 for 1.189B: its figures
        found = next(
            (m for m in builtin if m.family == "scale-word" and right_to(value, m.value, figures)), None
        )
    if tolerance.kind == "factor":
        return kind, found, None, None
    per_unit = given.factor if figures is not None else unit_factor(unit, display) if display else 1
    candidates: list[Mistake | Slip] = [*mistakes, *builtin]
    needed, blocker = figures_needed(expected, tolerance, candidates, per_unit=per_unit)
    if figures is None or needed is None or figures >= needed:
        return kind, found, None, needed
    if not right_to(value, expected, figures, given.factor):
        return kind, found, None, needed
    if found is not None and found in mistakes and _typed_exactly(found.value, value, figures, given.factor):
        return kind, found, None, needed  # the template lists this very value: its mistake, not a rounding
    feedback = imprecise(given, expected, needed, found or blocker, tolerance, display)
    return "imprecise", None, feedback, needed


def _typed_exactly(mistake: Number, value: Number, figures: int, per_unit: Number) -> bool:
    """Whether ``value``, typed to ``figures``, is the mistake's value itself (which needs no more figures).

    >>> _typed_exactly(0.5, 0.5, 1, 1), _typed_exactly(1.2995e9, 1.3e9, 2, 1)
    (True, False)
    """
    return right_to(value, mistake, figures, per_unit) and right_to(mistake, mistake, figures, per_unit)


__all__ = [
    "VERDICTS",
    "GradeContext",
    "Mistake",
    "Tolerance",
    "Verdict",
    "builtin_mistakes",
    "format_in",
    "grade",
    "is_within",
    "needed_figures",
    "round_figures",
    "title_from_name",
    "tolerance_band",
]
