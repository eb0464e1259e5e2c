"""Reads a typed answer ("16.4M", "1.6e7", "~15.6 GiB", "32000*512") as an exact value in a base unit.

What is accepted:

- Numbers: digits with ``,``, ``_`` or (thin) spaces between groups of three (``16 384 000``), decimals,
  ``1.6e7``/``1.6E7``, powers ``10^7``, ``2^24``, ``2**24`` and superscripts (``10⁷``).
- Scales after a number: ``k``/``K``, ``M``, ``G``, ``T``, ``P``, ``E`` and the words thousand, million,
  billion, trillion (and ``bn``); ``B`` is a billion except where it means bytes (bytes, bits and bytes/s
  answers); lowercase ``m``, ``b``, ``t`` are million, billion, trillion for counts only.
- Arithmetic: ``*``, ``×``, ``·``, ``x`` and ``/`` between numbers (``32000*512``, ``1.6 x 10^7``); each
  number may carry a scale, and a unit is written once and applies to the whole product (``100/8 GB``).
  No ``+``, ``-`` or parentheses, and nothing is ever evaluated as Python.
- Approximate marks in front: ``~``, ``≈``, about, around, roughly, approx(imately), circa; ``$`` in front
  for dollars.
- Units, read in the light of the expected unit (a unit of another dimension is a ParseError):
  bytes (B, kB/KB, MB, GB, TB, PB, EB = powers of 1000; KiB … EiB = powers of 1024; b, bit(s), Kb, Mb,
  Gb, Gbit = bits, divided by 8; all-lowercase ``mb``, ``gb``, ``tb`` … are read as bytes, with a note,
  while ``kb`` is the proper SI kilobit);
  time (ns, µs/us, ms, s/sec/seconds, min/minutes, h/hr/hours, d/days, weeks = 7 days, years = 365 days; a
  bare ``m`` is refused as ambiguous); FLOPs (FLOP, FLOPs, flops, GFLOPs … EFLOPs, ZFLOPs, YFLOPs; MACs
  convert ×2, with a note); FLOP/s (FLOP/s, FLOPS, TFLOP/s, TFLOPS; a FLOPs spelling without "/s" is read as
  FLOPs or FLOP/s by the answer expected); bytes/s (B/s, GB/s, TB/s, GiB/s, Gbps); counts (params, tokens,
  patches; any single word such as "GPUs" for a plain count); USD ($, USD, dollars); GPU-hours ("GPU-hours",
  "GPU hours", GPU-days = 24; a bare ``h``/``hours`` is taken as GPU-hours, other times are refused);
  ratios (plain, ``%``, ``x``); bits/param; tokens/s.

Significant figures: a single decimal number ("1.3B", "1.6e7", "1.6 x 10^7", "47.6%") records the figures it
was typed with (``Parsed.figures``: leading zeros never count, trailing zeros count after a decimal point and
not in a whole number), what one of it stands for (``Parsed.factor``) and how it was written
(``Parsed.form``), so the grader can say "right to 2 significant figures" in the answer's own terms.

Bounds: at most ``MAX_ANSWER_LENGTH`` characters are read, normalised with NFKC (fullwidth digits, the
Kelvin sign ...) and matched against ASCII units only; a power's size is checked before it is computed, and
every scan moves forward, so the work is linear in the length (a ``Meter`` counts it).
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import cast

from quizzer.core.errors import QuizzerError, SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Number, exact, num
from quizzer.core.units import Unit, format_sci, unknown_name_message
from quizzer.grading.figures import figures_of, round_figures, write_figures
from quizzer.grading.vocabulary import (
    ANSWER_IS,
    BYTE_LIKE,
    CLOSE_UNITS,
    CONVERT,
    COUNT_LIKE,
    FLOP,
    FLOP_SI,
    MAC,
    READ_AS,
    SCALE_NAMES,
    SI,
    WORD_SCALES,
    Entry,
    fold,
    tables,
)


class ParseError(QuizzerError, ValueError):
    """A typed answer that cannot be read; ``message`` says what was understood or what is wrong."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class Parsed(Record):
    """An answer as read.

    Attributes:
        value: the value in ``unit`` (an ``int`` when exact and whole, else a ``float``).
        unit: the expected base unit (a ``Unit`` value).
        typed_unit: the unit token as typed ("GiB", "%", "$"), or None when none was typed.
        approximate: whether the answer was marked approximate (~, ≈, about, ...).
        reading: how it was read, for people ("15.6 GiB = 16,750,372,454 bytes").
        figures: the significant figures of the number typed ("1.3B": 2, "16,384,000": 5, "0.00210": 3), or
            None when the answer is not one decimal number (a product, a power such as "2^24", zero).
        factor: what one of the typed number stands for, in ``unit`` (1e9 for "1.3B", 2**30 for "15.6 GiB",
            86400 for a bare "28" read as days; 1 when ``figures`` is None).
        form: how the number was written, to write another one the same way: the text before it, the text
            after it ("B", " GiB", "e7", " days" for a bare number read as days) and its group separator.
        bare: no unit and no scale was typed: the number is read in the default unit, or the base unit.
        terms: the numbers of a product or quotient as typed, each with its scale word and its power (1 for
            a factor, -1 for a divisor): "2*32*8 GiB" is ((2, 1), (32, 1), (8, 1)), its unit left out; ()
            for a single number. ``value`` is their product times the unit's factor.
    """

    value: Number
    unit: str
    typed_unit: str | None = None
    approximate: bool = False
    reading: str = ""
    figures: int | None = None
    factor: Number = 1
    form: tuple[str, str, str] = ("", "", "")
    bare: bool = False
    terms: tuple[tuple[Number, int], ...] = ()

    def written(self, value: Number, figures: int) -> str:
        """``value`` (in ``unit``) written as this answer was, to ``figures`` significant figures.

        >>> parse_answer("1.3B", "params").written(1_315_723_264, 4), parse_answer("$1,200", "USD").written(1234.5, 3)
        ('1.316B', '$1,230')
        """  # noqa: E501
        factor = self.factor
        scaled = value / factor if factor != 1 else value
        before, after, grouping = self.form
        return before + write_figures(round_figures(scaled, figures), figures, grouping) + after


#: The longest answer read, in characters; the answer boxes hold no more. A product typed out in full,
#: "3 * 3072 * 8192 * 28 * 2 * 2 bytes / 1024 / 1024 / 1024" (56), fits four times over.
MAX_ANSWER_LENGTH = 256


class Meter:
    """The work of one ``parse_answer``, for the tests that bound it (pass one as ``meter``): the characters
    each scan covers (a match, a search, a slice, a normalising pass) plus the 64-bit words of each exact
    number built. ``parse_answer`` makes its own when given none: the module keeps no state.

    >>> meter = Meter(); _ = parse_answer("16.4M", "params", meter=meter); 0 < meter.work < 40 * len("16.4M")
    True
    """

    __slots__ = ("work",)

    def __init__(self) -> None:
        self.work = 0

    def charge(self, steps: int) -> None:
        self.work += steps


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = "[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+"
_TIMES, _SPACES, _BRACKETS = "[·⋅∙✕]", r"\s+", r"[()\[\]{}]"
_APPROX = (  # any run of marks, in one match: possessive, nothing to backtrack
    r"(?ai)(?:(?:~=?|≈|≃|about(?![a-z])|around(?![a-z])|roughly(?![a-z])|approx(?:imately|\.)?|circa|ca\.)\s*)*+"
)
#: "per GPU" after a rate or a size the question already asks per device ("645.6 tokens/s per GPU").
_PER_DEVICE = r"(?ai)\s*(?:/|\bper\s+|\beach\s+|\ba\s+)(?:gpus?|chips?|devices?|tpus?|accelerators?)\s*$"
_NUMBER = r"(?:[0-9]{1,3}(?:[,_ ][0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+"
_GROUPING = "[,_ ]"
_EXPONENT = r"[eE]([+-]?[0-9]+)"
_POWER = r"\s*(?:\^|\*\*)\s*([+-]?[0-9]+)"
_OPERATOR = r"\*|/(?=\s*\.?[0-9])|(?<![A-Za-z])[xX](?=\s*\.?[0-9])"
_DECIMAL_AGAIN, _GROUP_AFTER = r"\.[0-9]", r"[,_][0-9]"
_SIGNED, _DIGIT = r"[+-]\s*\.?[0-9]", "[0-9]"
_LABEL = "[A-Za-z][A-Za-z-]*"
_LIMIT = Fraction(10**300)
_TINY, _LIMIT_2, _TINY_2 = 1 / _LIMIT, _LIMIT**2, 1 / _LIMIT**2
_pattern = functools.cache(re.compile)  # each pattern is compiled on first use: keeps the import cheap
_POWER_BITS, _VALUE_BITS = 2048, 4096  # the bits of a power's (checked first) or the product's parts


def _unit(token: str, expected: str, meter: Meter) -> Entry | None:
    """The unit ``token`` names when the answer is in ``expected``, or None if it is not a unit here."""
    meter.charge(4 * len(token) + 4)  # the fold, two full matches and the look-ups
    if token in ("B", "b"):  # bytes/bits beside sizes; a billion beside counts and elsewhere ("7B")
        if expected in BYTE_LIKE or (token == "b" and expected == "bits/param"):
            return tables()[0][token]
        return None if token == "B" or expected in COUNT_LIKE else tables()[0]["b"]
    if expected == "GPU-hours" and fold(token) in ("h", "hr", "hrs", "hour", "hours"):
        return ("GPU-hours", Fraction(1), f"{token!r} read as GPU-hours")
    if match := _pattern(FLOP).fullmatch(token):
        prefix, stem, per_s = match.groups()
        factor = Fraction(10 ** FLOP_SI[prefix.upper()] if prefix else 1)
        if expected == "FLOP/s":
            rate = True
        elif expected in ("FLOPs", "MACs"):
            rate = bool(per_s)
        else:
            rate = bool(per_s) or stem == "FLOPS"
        return ("FLOP/s" if rate else "FLOPs", factor, None)
    if match := _pattern(MAC).fullmatch(token):
        return ("MACs", Fraction(10 ** SI[match[1].upper()] if match[1] else 1), None)
    units, folded = tables()
    return units.get(token) or folded.get(fold(token))


def _scale(token: str, expected: str, before_unit: bool = False) -> int | None:
    """The power of ten a scale word or letter stands for, or None ("B" before a unit is a billion)."""
    if token in SI or (token == "B" and (before_unit or expected not in BYTE_LIKE)):
        return 9 if token == "B" else SI[token]
    if expected in COUNT_LIKE and token in ("m", "b", "t"):
        return {"m": 6, "b": 9, "t": 12}[token]
    return WORD_SCALES.get(token.lower())


def _read_tail(tail: str, expected: str, text: str, meter: Meter) -> tuple[int, Entry | None, str | None]:
    """Split what follows a number into (power of ten, unit entry, unit token as typed)."""
    if not tail:
        return 0, None, None
    if entry := _unit(tail, expected, meter):
        return 0, entry, tail
    if (power := _scale(tail, expected)) is not None:
        return power, None, None
    meter.charge(
        (len(SCALE_NAMES) + 2) * (len(tail) + 12)
    )  # a slice per name, the rest if it matches; a label
    for name in SCALE_NAMES:  # a scale, then a unit: "16.4M params", "2 GFLOPs"
        head = tail[: len(name)]
        if head == name or (len(name) > 1 and head.lower() == name):
            rest = tail[len(name) :].strip()
            power = _scale(head, expected, before_unit=True) if rest else None
            if power is not None and (entry := _unit(rest, expected, meter)):
                return power, entry, rest
    if expected == "count":  # a plain count may name what it counts: "8 GPUs", "2k steps"
        head, _, rest = tail.partition(" ")
        power = _scale(head, expected) if rest else None
        label = rest if power is not None else tail
        if _pattern(_LABEL).fullmatch(label):
            return power or 0, ("count", Fraction(1), None), label
    if tail == "m" and expected == "s":
        raise ParseError(f"'m' is ambiguous in {text!r}: write min (minutes) or ms (milliseconds)")
    what, example = ANSWER_IS[expected]
    raise ParseError(f"could not read the unit {tail!r} in {text!r}; this answer is {what} (e.g. {example})")


def _number(match: re.Match[str], text: str, meter: Meter) -> Fraction:
    digits = _pattern(_GROUPING).sub("", match.group())
    meter.charge(2 * len(match.group()))
    whole, _, decimals = digits.partition(".")
    if len(digits) > 100:
        raise ParseError(f"the number in {text!r} is too long", match.start())
    return Fraction(int(whole or "0") * 10 ** len(decimals) + int(decimals or "0"), 10 ** len(decimals))


def _words(value: Fraction, meter: Meter) -> Fraction:
    """``value``, charged with the 64-bit words of its numerator and denominator."""
    meter.charge((value.numerator.bit_length() + value.denominator.bit_length()) // 64 + 1)
    return value


def _power_of(base: Fraction, exponent_text: str, text: str, position: int, meter: Meter) -> Fraction:
    """``base`` to the power typed, refused before it is computed when it would be too large to hold."""
    if len(exponent_text.lstrip("+-")) > 3:
        raise ParseError(f"the exponent in {text!r} is out of range", position)
    exponent = int(exponent_text)
    if base == 0 and exponent < 0:
        raise ParseError(f"0 to a negative power in {text!r}", position)
    if abs(exponent) * max(base.numerator.bit_length(), base.denominator.bit_length()) > _POWER_BITS:
        raise ParseError(f"a number in {text!r} is out of range: too large to compute exactly", position)
    return _words(base**exponent, meter)


#: How the first number of an answer was typed: (its value, its figures, where it starts and ends).
_First = tuple[Fraction, int, int, int]


def _lex(
    text: str, expected: str, meter: Meter
) -> tuple[Fraction, list[tuple[Entry, str]], bool, bool, _First | None, list[tuple[Fraction, int]]]:
    """Read ``text`` as numbers joined by * and /: (product, units typed, any scale typed, any operator, the
    number typed when the answer is one decimal number, "1.6e7" or "1.6 x 10^7", else None, and each term
    with its power: 1 multiplied, -1 divided)."""
    value, units, scaled, operator, pos = Fraction(1), [], False, "", 0
    terms: list[tuple[Fraction, int]] = []
    first: _First | None = None
    shapes: list[tuple[str, bool, bool, str]] = []  # each term: its digits, an exponent?, a power?, its tail
    while True:  # one pass: each term is read from where the last one ended (spaces are single here)
        start = pos = pos + text.startswith(" ", pos)
        if text.startswith("$", pos):
            units.append((tables()[0]["$"], "$"))
            pos += 1 + text.startswith(" ", pos + 1)
        match = _pattern(_NUMBER).match(text, pos)
        if match is None:
            if not operator and text.startswith("-", pos):
                raise ParseError(f"a negative answer is not read: {text!r} (answers here are positive)", pos)
            if pos < len(text) and text[pos] in "+-":
                raise ParseError(f"only *, × and / may join numbers, not {text[pos]!r}: {text!r}", pos)
            if operator and pos >= len(text):
                raise ParseError(f"{text!r} ends with {operator!r}: a number must follow it", pos)
            if operator:
                raise ParseError(f"expected a number after {operator!r} in {text!r}", pos)
            raise ParseError(f"could not read {text!r} as a number", pos)
        term = _number(match, text, meter)
        if first is None:
            meter.charge(2 * len(match.group()))
            first = (term, figures_of(match.group()), match.start(), match.end())
        pos = match.end()
        if exponent := _pattern(_EXPONENT).match(text, pos):
            term = _words(term * _power_of(Fraction(10), exponent[1], text, pos, meter), meter)
            pos = exponent.end()
        if power := _pattern(_POWER).match(text, pos):
            term = _power_of(term, power[1], text, pos, meter)
            pos = power.end()
        following = _pattern(_OPERATOR).search(text, pos)
        end = following.start() if following else len(text)
        tail = text[pos:end].strip()
        meter.charge(
            10 * (end - start + 2)
        )  # ten scans of this term at most: number ... search, slice, 4 checks
        if _pattern(_DECIMAL_AGAIN).match(tail):
            raise ParseError(f"two decimal points in {text!r}", pos)
        if _pattern(_GROUP_AFTER).match(tail):
            raise ParseError(f"digits after {tail[0]!r} must come in groups of three: {text!r}", pos)
        if _pattern(_SIGNED).search(tail):
            raise ParseError(f"only *, × and / may join numbers, not + or -: {text!r}", pos)
        if _pattern(_DIGIT).search(tail):
            raise ParseError(f"two numbers without an operator: {text!r}", pos)
        ten, entry, token = _read_tail(tail, expected, text, meter)
        shapes.append((match.group(), bool(exponent), bool(power), tail))
        scaled = scaled or bool(ten)
        term *= 10**ten
        if entry and token:
            units.append((entry, token))
        if abs(term) > _LIMIT or 0 < abs(term) < _TINY:
            raise ParseError(f"a number in {text!r} is out of range", match.start())
        if operator == "/":
            if term == 0:
                raise ParseError(f"division by zero in {text!r}", match.start())
            value /= term
        else:
            value *= term
        terms.append((term, -1 if operator == "/" else 1))
        if value and not _TINY_2 < abs(value) < _LIMIT_2:
            raise ParseError(f"{text!r} is out of range", match.start())
        if max(_words(value, meter).numerator.bit_length(), value.denominator.bit_length()) > _VALUE_BITS:
            raise ParseError(f"{text!r} has too many digits to compute exactly", match.start())
        if following is None:
            return value, units, scaled, bool(operator), _decimal_number(first, shapes, operator), terms
        operator = "/" if following.group() == "/" else "*"
        pos = following.end()


def _decimal_number(
    first: _First | None, shapes: list[tuple[str, bool, bool, str]], operator: str
) -> _First | None:
    """``first`` when the answer is one decimal number: alone ("1.3B", "1.6e7") or times a power of ten
    ("1.6 x 10^7"); None for other products, quotients and powers ("32000*512", "2^24"), and for zero."""
    if first is None or first[0] == 0:
        return None
    if len(shapes) == 1 and not shapes[0][2]:
        return first
    if len(shapes) == 2 and operator == "*":
        (_, exponent, power, tail), (ten, ten_exponent, ten_power, _) = shapes
        if not (exponent or power or tail or ten_exponent) and ten == "10" and ten_power:
            return first
    return None


def _clean(text: str, meter: Meter) -> tuple[str, bool]:
    """Normalise spaces, signs and Unicode forms (NFKC); strip approximate marks (returned as a flag)."""
    import unicodedata  # here, not at the top: a parse needs it, not every verb's start

    meter.charge(len(text))
    text = _pattern(_SUPERSCRIPT_RUN).sub(lambda m: "^" + m[0].translate(_SUPERSCRIPTS), text)
    text = unicodedata.normalize("NFKC", text)  # after that: "10⁷" -> "107"; "１６", "\u212aB" -> "16", "KB"
    if len(text) > 2 * MAX_ANSWER_LENGTH:  # at most 18 times longer (U+FDFA): bound it again
        raise ParseError(f"the answer is {len(text)} characters long once normalised (NFKC), too long")
    meter.charge(7 * len(text))  # the passes below
    text = text.replace("×", " x ").replace("−", "-")
    text = _pattern(_TIMES).sub("*", text).replace("÷", "/")
    text = _pattern(_SPACES).sub(" ", text).strip()
    if any(c.isdigit() for c in text):  # "per GPU" alone is no answer: left for the unit's message
        text = _pattern(_PER_DEVICE).sub("", text)
    marks = cast("re.Match[str]", _pattern(_APPROX).match(text))  # never None: _APPROX matches ''
    meter.charge(marks.end())
    return text[marks.end() :], marks.end() > 0


def _convert(entry: Entry, expected: str, text: str) -> tuple[Fraction, list[str]]:
    """The factor from ``entry``'s unit to ``expected``, and the notes to show; ParseError if impossible."""
    kind, factor, note = entry
    if kind == expected:
        ratio, how = Fraction(1), None
    elif (kind, expected) in CONVERT:
        ratio, how = CONVERT[(kind, expected)]
    else:
        as_what = READ_AS.get(kind, kind)
        what, example = ANSWER_IS[expected]
        raise ParseError(f"read {text!r} as {as_what}, but this answer is {what} (e.g. {example})")
    return factor * ratio, [n for n in (note, how) if n]


def parse_answer(
    text: str, unit: str, default_unit: str | None = None, *, meter: Meter | None = None
) -> Parsed:
    """Read a typed answer as an exact value in the base ``unit`` (see the module docstring for the forms).

    The value is computed with ``fractions.Fraction`` from the decimal text, so "16.384 million" and
    "1.6384e7" are exactly 16,384,000.

    Args:
        text: what the user typed.
        unit: the expected base unit, a ``quizzer.core.units.Unit`` value ("params", "bytes", "s", ...).
        default_unit: what a bare number (no unit, no scale) means, as a token this parser accepts
            ("days", "ms", "GiB", "TFLOP/s", "%", "B" for billions); None means ``unit`` itself.

    Returns:
        The ``Parsed`` answer.

    Raises:
        ParseError: the text cannot be read, names a unit of another dimension, or is longer than
            ``MAX_ANSWER_LENGTH`` (checked before anything else is done).

    >>> parse_answer("16.384 million", "params").value
    16384000
    >>> parse_answer("~15.6 GiB", "bytes")
    Parsed(value=16750372454.4, unit='bytes', typed_unit='GiB', approximate=True, reading='15.6 GiB = 16,750,372,454 bytes', figures=3, factor=1073741824, form=('', ' GiB', ''), bare=False, terms=())
    >>> parse_answer("2*32*8 GiB", "bytes").terms
    ((2, 1), (32, 1), (8, 1))
    >>> parse_answer("3", "s", default_unit="days").reading
    '3 days = 259,200 s'
    >>> parse_answer("16 GB", "params")
    Traceback (most recent call last):
    ...
    quizzer.grading.parse.ParseError: read '16 GB' as bytes, but this answer is a number of parameters (e.g. 7B or 6.7e9 params)
    """  # noqa: E501
    meter = meter or Meter()
    if len(text) > MAX_ANSWER_LENGTH:
        raise ParseError(
            f"the answer is {len(text)} characters long; at most {MAX_ANSWER_LENGTH} are read", 0
        )
    try:
        expected = Unit(unit).value
    except ValueError:
        raise UnknownNameError(unknown_name_message("unit", unit, [u.value for u in Unit])) from None
    default = _default(default_unit, expected, meter)
    cleaned, approximate = _clean(text, meter)
    if not cleaned:
        raise ParseError("empty answer: type a number such as 16.4M, 1.6e7 or 16 GiB", 0)
    if _pattern(_BRACKETS).search(cleaned):
        raise ParseError(f"parentheses are not accepted: {cleaned!r} (write a plain product like 32000*512)")
    value, units, scaled, operator, number, typed_terms = _lex(cleaned, expected, meter)
    after, bare = "", not units and not scaled
    entry: Entry  # its note is None here, a string for some units below
    shown, typed, entry = cleaned, None, (expected, Fraction(1), None)
    tokens = [token for _, token in units]
    if len(units) > 1 and {e[0] for e, _ in units} != {"USD"}:  # "$5 USD" is one unit written twice
        raise ParseError(f"write one unit, for the whole answer: {cleaned!r} has {', '.join(tokens)}")
    if units:
        entry, typed = units[-1]
    elif default and not scaled:
        ten, default_entry = default
        value *= Fraction(10) ** ten
        entry = default_entry or entry
        shown = f"{cleaned} {default_unit}"
        after = default_unit if default_unit in CLOSE_UNITS else f" {default_unit}"
    factor, notes = _convert(entry, expected, cleaned)
    value *= factor
    if value and not 1 / _LIMIT < abs(value) < _LIMIT:
        raise ParseError(f"{cleaned!r} is out of range")
    result, first = exact(value), number
    terms = tuple((exact(t), p) for t, p in typed_terms) if len(typed_terms) > 1 else ()
    plain = format_plain(result, expected)
    reading = f"{shown} = {plain}" if operator or factor != 1 or shown != cleaned else plain
    if notes:
        reading += f" ({'; '.join(notes)})"
    if first is None:
        return Parsed(result, expected, typed, approximate, reading, None, 1, ("", "", ""), bare, terms)
    mantissa, figures, start, end = first
    typed_number = cleaned[start:end]
    grouping = next((c for c in ",_ " if c in typed_number), "")
    form = (cleaned[:start], cleaned[end:] + after, grouping)
    per_number = exact(value / mantissa)
    return Parsed(result, expected, typed, approximate, reading, figures, per_number, form, bare, terms)


def _default(default_unit: str | None, expected: str, meter: Meter) -> tuple[int, Entry | None] | None:
    """The scale and unit a bare number carries; a SpecError (a template bug) if ``default_unit`` is bad."""
    if default_unit is None:
        return None
    try:
        ten, entry, _ = _read_tail(default_unit, expected, default_unit, meter)
        if entry:
            _convert(entry, expected, default_unit)
    except ParseError as error:
        raise SpecError(f"default_unit ({default_unit!r}) for a {expected} answer: {error.message}") from None
    if not ten and not entry:
        raise SpecError(f"default_unit ({default_unit!r}) for a {expected} answer: give a unit or a scale")
    return ten, entry


def format_plain(value: Number, unit: str) -> str:
    """A value in its base unit as readings and verdicts show it: all digits up to 1e15, then 6 figures.

    >>> format_plain(16384000, "params"), format_plain(0.0021, "s"), format_plain(1200, "USD")
    ('16,384,000 params', '0.0021 s', '$1,200')
    >>> format_plain(315 * 10**21, "FLOPs"), format_plain(0.25, "ratio")
    ('3.15e23 FLOPs', '0.25')
    """
    if isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:,}" if abs(value) < 10**15 else format_sci(value, 6)
    elif 1e3 <= abs(value) < 1e15:
        decimals = max(0, 6 - len(str(int(abs(value)))))
        text = f"{value:,.{decimals}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    else:
        text = num(float(value))
    if unit == Unit.USD:
        return "$" + text
    return text if unit in (Unit.RATIO, Unit.COUNT) else f"{text} {unit}"
