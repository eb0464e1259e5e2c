"""Grades a typed answer against the expected value: exact, correct, close, wrong or unparsed.

Verdicts, best first:

- exact: the value read equals the expected value (an int), or is within 1e-12 of it relative (a float).
- correct: inside the tolerance (rel: |v-e| <= rel·|e|; abs: |v-e| <= abs; factor f: e/f <= v <= e·f).
- close: outside the tolerance but inside the close band: max(5 × rel, 1 %) relative for rel tolerances,
  max(5 × abs, 1 % of |e|) for abs tolerances, factor f² for factor tolerances. The 1 % floor gives exact
  counts (rel 0) a "close" neighbourhood too.
- wrong: anything else; unparsed: the parser failed and nothing was graded.

A close or wrong answer is then compared with the template's mistakes, then with built-in mistakes that
apply to every question of a dimension ("gb-vs-gib", "fp32-vs-bf16", "factor-1000", "mac-vs-flop",
"per-layer"). A mistake matches when the answer is within the question's tolerance of the mistake's value
and nearer to it than to the expected value (in log ratio for factor tolerances); the nearest wins.
Comparisons allow a 1e-12 relative slack so decimal edges ("0.33" against 0.3 ± 10 %) are not lost to
binary rounding.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quizzer.core.checks import count
from quizzer.core.errors import SpecError
from quizzer.core.record import Record
from quizzer.core.trace import Number, num
from quizzer.grading.parse import Parsed, ParseError, format_plain, parse_answer

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Verdict kinds, best first.
VERDICTS = ("exact", "correct", "close", "wrong", "unparsed")
_SLACK = 1e-12


def _finite(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SpecError(f"{name} ({value!r}) must be a finite number")


class Tolerance(Record):
    """How far from the expected value an answer may be and still be correct.

    Attributes:
        kind: "rel" (fraction of the expected value), "abs" (in the answer's unit) or "factor" (an estimate:
            within ×/÷ ``value``).
        value: the fraction (>= 0), the amount (>= 0) or the factor (> 1).
    """

    kind: str
    value: float

    def __post_init__(self) -> None:
        if self.kind not in ("rel", "abs", "factor"):
            raise SpecError(f"tolerance kind ({self.kind!r}) must be one of rel, abs, factor")
        _finite("tolerance value", self.value)
        if self.kind == "factor" and self.value <= 1:
            raise SpecError(f"a factor tolerance ({self.value!r}) must be greater than 1")
        if self.value < 0:
            raise SpecError(f"a {self.kind} tolerance ({self.value!r}) must be >= 0")


class Mistake(Record):
    """A known wrong answer: its name, its value in the answer's unit, and what to tell the student."""

    name: str
    value: Number
    feedback: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"mistake name ({self.name!r}) must be a non-empty string")
        _finite(f"mistake {self.name!r} value", self.value)


class Verdict(Record):
    """The grade of one answer.

    Attributes:
        kind: one of ``VERDICTS``.
        given: the answer as read (None when unparsed).
        expected: the expected value, in ``unit``.
        unit: the base unit of the answer.
        rel_error: |given - expected| / |expected| (None when unparsed).
        mistake: the name of the mistake the answer matches, if any.
        feedback: what to tell the student about that mistake.
        message: one line for people: what was read, what was expected, how far off, the verdict.
        summary: the message without the verdict and the feedback ("read as ...; expected ... (6.6% off)").
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


def tolerance_band(expected: Number, tolerance: Tolerance) -> tuple[float, float]:
    """The band [lo, hi] of correct values.

    >>> tolerance_band(100, Tolerance("rel", 0.05)), tolerance_band(100, Tolerance("factor", 2))
    ((95.0, 105.0), (50.0, 200.0))
    """
    e, t = float(expected), tolerance.value
    if tolerance.kind == "rel":
        return e - t * abs(e), e + t * abs(e)
    if tolerance.kind == "abs":
        return e - t, e + t
    return (e / t, e * t) if e >= 0 else (e * t, e / t)


def is_within(value: Number, expected: Number, tolerance: Tolerance) -> bool:
    """Whether ``value`` is inside the tolerance around ``expected`` (edges included).

    >>> is_within(16_400_000, 16_384_000, Tolerance("rel", 0.001)), is_within(3, 1, Tolerance("factor", 2))
    (True, False)
    """
    slack = _SLACK * abs(expected)
    if tolerance.kind == "rel":
        return abs(value - expected) <= tolerance.value * abs(expected) + slack
    if tolerance.kind == "abs":
        return abs(value - expected) <= tolerance.value + slack
    if expected == 0 or value == 0 or (value < 0) != (expected < 0):
        return value == expected
    return _log_ratio(value, expected) <= math.log(tolerance.value) + _SLACK


def _log_ratio(value: Number, target: Number) -> float:
    """|ln(value / target)| for values of one sign, as a difference (the quotient may under- or overflow)."""
    return abs(math.log(abs(value)) - math.log(abs(target)))


def _is_exact(value: Number, expected: Number) -> bool:
    if isinstance(expected, int):  # an exact count: only the same number is exact
        return value == expected
    return abs(value - expected) <= _SLACK * abs(expected)


def _close_band(expected: Number, tolerance: Tolerance) -> Tolerance:
    if tolerance.kind == "rel":
        return Tolerance("rel", max(5 * tolerance.value, 0.01))
    if tolerance.kind == "abs":
        return Tolerance("abs", max(5 * tolerance.value, 0.01 * abs(expected)))
    return Tolerance("factor", tolerance.value**2)


def _distance(value: Number, target: Number, tolerance: Tolerance) -> float:
    if tolerance.kind == "factor":
        return _log_ratio(value, target) if value > 0 and target > 0 else math.inf
    return float(abs(value - target))


def _match(
    value: Number, expected: Number, tolerance: Tolerance, candidates: Sequence[Mistake]
) -> Mistake | None:
    """The nearest candidate the answer matches: within tolerance of it, and nearer to it than to expected."""
    away = _distance(value, expected, tolerance)
    hits = [
        (_distance(value, m.value, tolerance), i)
        for i, m in enumerate(candidates)
        if is_within(value, m.value, tolerance) and _distance(value, m.value, tolerance) < away
    ]
    return candidates[min(hits)[1]] if hits else None


def builtin_mistakes(
    expected: Number, unit: str, *, typed_unit: str | None = None, n_layers: int | None = None
) -> list[Mistake]:
    """The mistakes every question of ``unit`` can show, as values in ``unit``.

    gb-vs-gib is taken at the prefix the answer was typed with (GiB, TB, ...) or, with no prefix typed, at
    the prefix of the expected size; per-layer only when ``n_layers`` (> 1) is given.

    >>> [(m.name, m.value) for m in builtin_mistakes(8000, "FLOPs")]
    [('factor-1000', 8000000), ('factor-1000', 8.0), ('mac-vs-flop', 4000.0), ('mac-vs-flop', 16000)]
    """
    e = expected
    found = [
        Mistake("factor-1000", e * 1000, "1000× too large: check the prefix (k, M, B; ms or s; MB or GB)"),
        Mistake("factor-1000", e / 1000, "1000× too small: check the prefix (k, M, B; ms or s; MB or GB)"),
    ]
    if unit in ("bytes", "bytes/s"):
        letters = "KMGTPE"
        typed = (typed_unit or "")[:1].upper()
        level = letters.index(typed) + 1 if typed in letters else min(max(_level(e), 1), 6)
        p, ratio = letters[level - 1], 2 ** (10 * level) / 10 ** (3 * level)
        found += [
            Mistake(
                "gb-vs-gib", e * ratio, f"the {p}B figure labelled {p}iB: 1 {p}iB = 2^{10 * level} bytes"
            ),
            Mistake("gb-vs-gib", e / ratio, f"the {p}iB figure labelled {p}B: 1 {p}B = 10^{3 * level} bytes"),
        ]
    if unit in ("bytes", "bits"):
        found += [
            Mistake(
                "fp32-vs-bf16", e * 2, "twice the answer: 4 bytes per value (fp32) where 2 (bf16) apply?"
            ),
            Mistake("fp32-vs-bf16", e / 2, "half the answer: 2 bytes per value (bf16) where 4 (fp32) apply?"),
        ]
    if unit in ("FLOPs", "MACs"):
        half, twice = (("MACs", "FLOPs"), ("FLOPs", "MACs"))[unit == "MACs"]
        found += [
            Mistake("mac-vs-flop", e / 2, f"half the {unit}: these look like {half} (1 MAC = 2 FLOPs)"),
            Mistake("mac-vs-flop", e * 2, f"twice the {unit}: these look like {twice} (1 MAC = 2 FLOPs)"),
        ]
    if n_layers is not None and count("n_layers", n_layers) > 1:
        found += [
            Mistake("per-layer", e / n_layers, f"one layer's worth: multiply by the {n_layers} layers"),
            Mistake("per-layer", e * n_layers, f"{n_layers}× the answer: the question asks for one layer"),
        ]
    return [m for m in found if m.value != e]


def _level(value: Number) -> int:
    return math.floor(math.log10(abs(value)) / 3) if value else 0


def _off(value: Number, expected: Number) -> str:
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
    return f"{percent:.0f}% off" if percent >= 10 else f"{percent:.2g}% off"


def grade(
    answer: str,
    expected: Number,
    unit: str,
    tolerance: Tolerance,
    mistakes: Sequence[Mistake] = (),
    *,
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
        default_unit: what a bare number means (see ``parse_answer``).
        n_layers: the model's layer count, to recognise per-layer vs whole-model answers.

    Returns:
        The ``Verdict``.

    >>> v = grade("16.4M", 16_384_000, "params", Tolerance("rel", 0.01))
    >>> v.kind, v.message
    ('correct', 'read as 16,400,000 params; expected 16,384,000 params (0.098% off): correct')
    >>> grade("15.6 GB", 16_777_216_000, "bytes", Tolerance("rel", 0.01)).mistake
    'gb-vs-gib'
    """
    _finite("expected", expected)
    try:
        given = parse_answer(answer, unit, default_unit)
    except ParseError as error:
        return Verdict("unparsed", None, expected, str(unit), None, None, None, error.message, error.message)
    value = given.value
    if _is_exact(value, expected):
        kind = "exact"
    elif is_within(value, expected, tolerance):
        kind = "correct"
    elif is_within(value, expected, _close_band(expected, tolerance)):
        kind = "close"
    else:
        kind = "wrong"
    if expected:
        rel_error = float(abs(value - expected) / abs(expected))
    else:
        rel_error = 0.0 if value == 0 else math.inf
    found = None
    if kind in ("close", "wrong"):
        builtin = builtin_mistakes(expected, given.unit, typed_unit=given.typed_unit, n_layers=n_layers)
        found = _match(value, expected, tolerance, mistakes) or _match(value, expected, tolerance, builtin)
    summary = f"read as {given.reading}; expected {format_plain(expected, given.unit)}"
    if kind != "exact":
        summary += f" ({_off(value, expected)})"
    message = f"{summary}: {kind}"
    if found:
        message += f"; {found.feedback}"
    return Verdict(
        kind,
        given,
        expected,
        given.unit,
        rel_error,
        found.name if found else None,
        found.feedback if found else None,
        message,
        summary,
    )
