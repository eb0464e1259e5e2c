"""A card's answer as the answerset Anki add-on grades it: a plain number and a factor, ``value?factor``.

What answerset reads (scott2000/answerset, ``doc/numeric_comparison.md`` and ``answerset/numeric.py``): in
the answer field a number is digits with at most one decimal point (no sign, no thousands separator, no
exponent, no unit: "16.4M" is the number 16.4 and the text "M", and a comma separates answers), and a
number followed at once by ``?`` and a second such number carries its own factor: the typed number x is
accepted when max(x, v) / min(x, v) <= factor (a factor below 1 counts as its reciprocal, so 0.8 = 1.25),
that is v / factor <= x <= v × factor. ``3.14159?0.999`` accepts 3.138 to 3.145. The factor text is not
shown when the card compares. A factor of 1 accepts the equal number only.

The factor from quizzer's tolerance (grading.bands): a factor tolerance f as f (the same band); a relative
tolerance r as 1 + r (quizzer accepts v(1 - r) to v(1 + r); v / (1 + r) is a little above v(1 - r), so the
add-on accepts a slightly narrower band, never an answer quizzer would call wrong); an absolute tolerance a
as 1 + a / |v| (the widest factor band inside v ± a: v(1 + a/|v|) is v + a, and v / (1 + a/|v|) > v - a);
for v = 0 that is the exact number only. The factor's excess over 1 is rounded down to three significant
figures (narrower, never wider). A whole count is written with every digit; any other number to the fewest
figures that move it by at most 1% of the band (``card_number``), so the add-on's band may pass quizzer's
edge by that much at most.

The unit: the question's display unit (GiB, ms, %); with none, a count of a million or more is given in
millions, billions or trillions (FLOPs and MACs by SI prefix), since the card takes every digit typed.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

from quizzer.core.record import Record
from quizzer.core.trace import Number
from quizzer.grading.bands import Tolerance
from quizzer.grading.display import unit_factor
from quizzer.grading.figures import round_figures

#: Display units named in words on the card (the others are written as the question writes them).
_UNIT_WORDS = {
    "%": "percent (%)",
    "ns": "nanoseconds (ns)",
    "µs": "microseconds (µs)",
    "ms": "milliseconds (ms)",
    "s": "seconds (s)",
}
#: A count's scale words ("1.316B" params: 1.316 billions of params).
_SCALE_WORDS = {"k": "thousands", "K": "thousands", "M": "millions", "B": "billions", "T": "trillions"}
#: A base unit after "millions of".
_OF = {"USD": "US dollars"}
#: A base unit with no display unit, as the card names it (after "a plain number").
_BASE_WORDS = {
    "ratio": "(a ratio such as 0.25 or 3.6, not a percentage)",
    "count": "(a count)",
    "USD": "in US dollars",
    "s": "in seconds",
}
#: Counts a card gives in millions, billions or trillions once they reach a million: in Anki the answer is
#: typed digit by digit, and 7,936,985,088 params is 7.937 billions.
_SCALED = frozenset({"params", "tokens", "count", "patches", "GPU-hours", "USD", "tokens/s"})
_SCALES = ((12, "T"), (9, "B"), (6, "M"))
#: FLOP and MAC counts take an SI prefix instead, as quizzer writes them ("6.03 ZFLOPs" for 6.03e21).
_PREFIXED = {"FLOPs": "MGTPEZY", "MACs": "MGTPE"}
#: The most significant figures a number is written to (a float's repr needs at most 17).
_MAX_FIGURES = 17


class CardAnswer(Record):
    """The answer field of a card and what the card says of it.

    Attributes:
        number: the expected value in ``unit``, a plain decimal ("64", "14.958", "7.93699").
        factor: the answerset factor ("1.01", "1.5", "1" for an exact answer).
        unit: the unit the number is in, as quizzer writes it ("GiB", "B", "%"), or None: the base unit.
        unit_words: how the card names that unit after "a plain number": "in GiB", "in billions of params
            (B)", "in percent (%)", "(a count)".
    """

    number: str
    factor: str
    unit: str | None
    unit_words: str

    @property
    def field(self) -> str:
        """The answer field in answerset's syntax: ``number?factor``.

        >>> CardAnswer("64", "1.01", "GiB", "in GiB").field
        '64?1.01'
        """
        return f"{self.number}?{self.factor}"


def card_unit(value: Number, unit: str, display_unit: str | None) -> tuple[str | None, Number, str]:
    """The unit a card asks for: (its token, its size in the base unit, how the card names it).

    The question's display unit when it has one; else, for a count of a million or more, millions, billions
    or trillions (FLOPs and MACs: their SI prefix); else the base unit.

    >>> card_unit(68_719_476_736, "bytes", "GiB")
    ('GiB', 1073741824, 'in GiB')
    >>> card_unit(7_936_985_088, "params", None)
    ('B', 1000000000, 'in billions of params (B)')
    >>> card_unit(6.03e23, "FLOPs", None)
    ('ZFLOPs', 1000000000000000000000, 'in ZFLOPs (10^21 FLOPs)')
    >>> card_unit(8, "count", None), card_unit(0.41, "ratio", "%"), card_unit(5e6, "bytes", None)
    ((None, 1, '(a count)'), ('%', 0.01, 'in percent (%)'), (None, 1, 'in bytes'))
    >>> card_unit(4e6, "bytes", "MB"), card_unit(5.1e6, "USD", None)
    (('MB', 1000000, 'in MB'), ('M', 1000000, 'in millions of US dollars (M)'))
    >>> card_unit(1.3e9, "params", "B")
    ('B', 1000000000, 'in billions of params (B)')
    """
    if display_unit:
        size_of_one = unit_factor(unit, display_unit)
        words = _UNIT_WORDS.get(display_unit, display_unit)
        if display_unit in _SCALE_WORDS and size_of_one != 1:  # "B" of params is a billion; of bytes, a byte
            words = f"{_SCALE_WORDS[display_unit]} of {_OF.get(unit, unit)} ({display_unit})"
        return display_unit, size_of_one, f"in {words}"
    size = abs(value)
    if unit in _SCALED:
        for power, token in _SCALES:
            if size >= 10**power:
                return token, 10**power, f"in {_SCALE_WORDS[token]} of {_OF.get(unit, unit)} ({token})"
    if unit in _PREFIXED:
        for step, prefix in reversed(list(enumerate(_PREFIXED[unit], 2))):
            if size >= 1000**step:
                return f"{prefix}{unit}", 1000**step, f"in {prefix}{unit} (10^{3 * step} {unit})"
    return None, 1, _BASE_WORDS.get(unit, f"in {unit}")


def answerset_factor(tolerance: Tolerance, value: Number) -> str:
    """The answerset factor for quizzer's ``tolerance`` around ``value`` (in its base unit): see the module.

    >>> from quizzer.grading.bands import Tolerance
    >>> answerset_factor(Tolerance("rel", 0.01), 5), answerset_factor(Tolerance("factor", 1.2), 5)
    ('1.01', '1.2')
    >>> answerset_factor(Tolerance("abs", 0.5), 80), answerset_factor(Tolerance("abs", 0.01), 0.4798)
    ('1.00625', '1.0208')
    >>> answerset_factor(Tolerance("rel", 0), 5), answerset_factor(Tolerance("abs", 0.5), 0)
    ('1', '1')
    """
    if tolerance.kind == "factor":
        excess = Decimal(repr(tolerance.value)) - 1
    elif tolerance.kind == "rel":
        excess = Decimal(repr(tolerance.value))
    elif value == 0:
        excess = Decimal(0)
    else:
        excess = Decimal(repr(tolerance.value)) / abs(Decimal(repr(value)))
    if excess <= 0:
        return "1"
    excess = excess.quantize(Decimal(10) ** (excess.adjusted() - 2), rounding=ROUND_FLOOR)
    return plain_decimal(1 + excess)


def plain_decimal(number: Decimal | Number) -> str:
    """``number`` as answerset reads one: digits and at most one point, no exponent, no trailing zeros.

    >>> plain_decimal(6.03e23), plain_decimal(2.5e-5), plain_decimal(64.0), plain_decimal(Decimal("1.0100"))
    ('603000000000000000000000', '0.000025', '64', '1.01')
    """
    exact = (
        number
        if isinstance(number, Decimal)
        else Decimal(number if isinstance(number, int) else repr(number))
    )
    text = format(exact, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def card_number(value: Number, band: float, least_figures: int) -> Number:
    """``value`` rounded to the fewest figures (at least ``least_figures``) that move it by at most 1% of
    ``band`` (the tolerance's relative half-width; 0: exact, all its figures). A whole count (an int) keeps
    every digit: 52,428 tokens is what the working gives, and what the card should show.

    >>> card_number(14.957523345947266, 0.01, 3), card_number(64.0, 0.01, 3), card_number(52428, 0.01, 3)
    (14.958, 64.0, 52428)
    >>> card_number(7.936985088, 0.0005, 4), card_number(7.936985088, 0.00005, 4)
    (7.937, 7.936985)
    """
    if isinstance(value, int):
        return value
    for figures in range(max(least_figures, 1), _MAX_FIGURES + 1):
        rounded = round_figures(value, figures)
        if abs(rounded - value) <= band / 100 * abs(value):
            return rounded
    return value


def card_answer(
    value: Number, unit: str, display_unit: str | None, tolerance: Tolerance, figures: int | None
) -> CardAnswer:
    """The answer field for a question whose answer is ``value`` ``unit`` (shown in ``display_unit``),
    graded within ``tolerance``; ``figures`` is the significant figures the question needs (None: any).

    >>> from quizzer.grading.bands import Tolerance
    >>> card_answer(16_060_522_496, "bytes", "GiB", Tolerance("rel", 0.01), 3).field
    '14.958?1.01'
    >>> card_answer(0.4798038, "ratio", "%", Tolerance("abs", 0.01), 2).field
    '47.98?1.0208'
    """
    token, per_unit, words = card_unit(value, unit, display_unit)
    scaled: Number
    if isinstance(value, int) and isinstance(per_unit, int) and value % per_unit == 0:
        scaled = value // per_unit
    else:
        scaled = value / per_unit
    factor = answerset_factor(tolerance, value)
    band = float(1 - 1 / Decimal(factor))  # the lower half of the band, the narrower one: v(1 - 1/f) wide
    number = card_number(scaled, band, figures or 3)
    return CardAnswer(plain_decimal(number), factor, token, words)


__all__ = ["CardAnswer", "answerset_factor", "card_answer", "card_number", "card_unit", "plain_decimal"]
