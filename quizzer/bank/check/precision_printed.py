"""What a student reads of a number: a placeholder rendered as the renderer does, and read back as a value."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

from quizzer.bank.expr.text import PLACEHOLDER_RE, TextError, format_value
from quizzer.bank.generate.prompt_numbers import number_spans
from quizzer.core.record import Record

#: How far the number read back may lie from the value and still be its printing (a 3-figure rounding is
#: within 0.5%; a scale read wrongly, 10^3 or 2^10 apart, is far outside).
_READ_FACTOR = 1.5


class Shown(Record):
    """One placeholder of a text the student reads before answering: where it is (the part whose text it
    is, None for the template's conventions; the field), the name and the style it is written with."""

    part: int | None
    field: str
    name: str
    style: str | None


class Printed(Record):
    """A number as the student reads it: the value read back, the text it was printed as, and where."""

    value: int | float
    text: str
    where: Shown


def placeholders(part: int | None, field: str, text: str) -> list[Shown]:
    """The placeholders of ``text`` (field ``field`` of part ``part``), in order.

    >>> [(s.name, s.style) for s in placeholders(1, "prompt", "A {total:si}-parameter model, {{ep}} {ep}")]
    [('total', 'si'), ('ep', None)]
    """
    return [Shown(part, field, m.group(1), m.group(2)) for m in PLACEHOLDER_RE.finditer(text)]


def is_number(value: Any) -> TypeGuard[int | float]:
    """A number the student could compute with (not a bool, a text, or a non-finite float)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def rendered(
    shown: Shown,
    value: Any,
    formats: Mapping[str, tuple[str | None, str | None]],
    displays: Mapping[str, str],
) -> str | None:
    """The text ``shown`` prints for ``value``, as the renderer prints it (an earlier part's answer with no
    style is its display form); None for a value no style can show.

    >>> rendered(Shown(1, "prompt", "n", "si"), 107_772_145_664, {}, {})
    '108B'
    >>> rendered(Shown(2, "prompt", "part1", None), 1, {}, {"part1": "32 GiB"})
    '32 GiB'
    """
    if shown.style is None and shown.name in displays:
        return displays[shown.name]
    var_style, unit = formats.get(shown.name, (None, None))
    try:
        return format_value(value, shown.style or var_style, unit)
    except (TextError, ValueError, ArithmeticError, TypeError):
        return None


def read_back(text: str, value: int | float, unit: str | None = None) -> int | float | None:
    """The number ``text`` shows for ``value``: of the numbers it holds (with their suffixes and units),
    the one nearest ``value``; for a unit the prompt reader does not know (15 GMACs), ``text`` as an answer
    in ``unit``. None when nothing in it is ``value`` printed (a word, an unknown scale). A whole value
    printed as a whole number stays an int.

    >>> read_back("108B", 107_772_145_664), read_back("15.6 GiB", 16_777_216_000), read_back("40%", 0.4)
    (108000000000, 16750372454.4, 0.4)
    >>> read_back("34,345,789,440 bytes (32 GiB = 34.3 GB)", 34_345_789_440)
    34345789440
    >>> read_back("15.4 GMACs", 15_377_539_072, "MACs"), read_back("the whole", 1)
    (15400000000, None)
    """
    if value == 0:
        return None
    size = abs(value)
    candidates = [v for _, _, values in number_spans(text) for v in values if v > 0]
    best = min(candidates, key=lambda v: abs(math.log(v / size)), default=None)
    if (best is None or abs(math.log(best / size)) > math.log(_READ_FACTOR)) and unit:
        best = _parsed(text, unit)
    if best is None or best <= 0 or abs(math.log(best / size)) > math.log(_READ_FACTOR):
        return None
    if isinstance(value, int) and float(best).is_integer():
        best = int(best)
    return best if value > 0 else -best


def _parsed(text: str, unit: str) -> int | float | None:
    from fractions import Fraction

    from quizzer.core.errors import QuizzerError
    from quizzer.grading.parse import parse_answer

    try:
        parsed = parse_answer(text, unit).value
    except (QuizzerError, ValueError, ArithmeticError):
        return None
    if isinstance(parsed, Fraction):
        return int(parsed) if parsed.denominator == 1 else float(parsed)
    return parsed if is_number(parsed) else None


def looks_exact(text: str, value: int | float) -> bool:
    """Whether ``text`` prints ``value`` as a plain number, which reads as exact: no scale suffix or
    prefix, no exponent ("110 tokens/s", not "108B", "15.6 GiB" or "1.29e21 FLOPs").

    >>> looks_exact("110 tokens/s", 110), looks_exact("108B", 108e9), looks_exact("1.29e21 FLOPs", 1.29e21)
    (True, False, False)
    """
    for start, end, values in number_spans(text):
        if values and values[0] == abs(value):
            return "e" not in text[start:end].lower() and len(values) == 1
    return False


def relative(value: int | float, true: int | float) -> float:
    """How far ``value`` is from ``true``, as a share of it (inf for a true value of 0).

    >>> relative(108, 107.772) < 0.0022, relative(1, 0)
    (True, inf)
    """
    return abs(value - true) / abs(true) if true else math.inf


__all__ = [
    "Printed",
    "Shown",
    "is_number",
    "looks_exact",
    "placeholders",
    "read_back",
    "relative",
    "rendered",
]
