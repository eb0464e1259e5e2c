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
  time (ns, µs/us, ms, s/sec/seconds, min/minutes, h/hr/hours, d/days, weeks = 7 days, years = 365 days;
  a bare ``m`` is refused as ambiguous); FLOPs (FLOP, FLOPs, flops, GFLOPs … EFLOPs; MACs convert ×2, with
  a note); FLOP/s (FLOP/s, FLOPS, TFLOP/s, TFLOPS; a FLOPs spelling without "/s" is read as FLOPs or FLOP/s
  by the answer expected); bytes/s (B/s, GB/s, TB/s, GiB/s, Gbps); counts (params, tokens, patches; any
  single word such as "GPUs" for a plain count); USD ($, USD, dollars); GPU-hours ("GPU-hours",
  "GPU hours", GPU-days = 24; a bare ``h``/``hours`` is taken as GPU-hours, other times are refused);
  ratios (plain, ``%``, ``x``); bits/param; tokens/s.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from quizzer.core.errors import QuizzerError, SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Number, exact, num
from quizzer.core.units import Unit, format_sci, unknown_name_message

Entry = tuple[str, Fraction, str | None]  # (kind, factor to the kind's base unit, note for the reading)


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
    """

    value: Number
    unit: str
    typed_unit: str | None = None
    approximate: bool = False
    reading: str = ""


_COUNT_LIKE = frozenset({"params", "tokens", "FLOPs", "MACs", "count", "patches", "GPU-hours", "USD"})
_BYTE_LIKE = frozenset({"bytes", "bits", "bytes/s"})
_SI = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_WORD_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12, "quadrillion": 15, "bn": 9}
_SCALE_NAMES = sorted([*_SI, "B", "m", "b", "t", *_WORD_SCALES], key=len, reverse=True)


def _fold(token: str) -> str:
    return re.sub(r"[\s-]+", "-", token.lower())


@functools.cache  # built on first use, not at import: keeps the import cheap
def _tables() -> tuple[dict[str, Entry], dict[str, Entry]]:
    """The unit tokens, exact and folded ("gpu-hours", "gb"), each to (kind, factor, note)."""
    units: dict[str, Entry] = {}
    folded: dict[str, Entry] = {}

    def add(kind: str, factor: int | Fraction, *names: str) -> None:
        for name in names:
            units[name] = (kind, Fraction(factor), None)

    add("bytes", 1, "B", "byte", "bytes")
    add("bits", 1, "b", "bit", "bits")
    for prefix, power in _SI.items():
        add("bytes", 10**power, prefix + "B")
        add("bits", 10**power, prefix + "b", prefix + "bit", prefix + "bits")
        if prefix not in "kK":  # "gb": people mean GB far more often than gigabits ("kb" is proper SI)
            low = prefix.lower() + "b"
            folded[low] = ("bytes", Fraction(10**power), f"{low!r} read as {prefix}B")
    for power, prefix in enumerate("KMGTPE", 1):
        add("bytes", 2 ** (10 * power), prefix + "iB")
        add("bits", 2 ** (10 * power), prefix + "ib", prefix + "ibit")
    for name, (kind, factor, _) in list(units.items()):
        per_s = "bytes/s" if kind == "bytes" else "bits/s"
        add(per_s, factor, name + "/s", name + "/sec", *([name + "ps"] if name[-1] in "Bb" else []))
    for names, seconds in (
        ("ns nsec nanosecond nanoseconds", Fraction(1, 10**9)),
        ("µs μs us usec microsecond microseconds", Fraction(1, 10**6)),
        ("ms msec millisecond milliseconds", Fraction(1, 1000)),
        ("s sec secs second seconds", 1),
        ("min mins minute minutes", 60),
        ("h hr hrs hour hours", 3600),
        ("d day days", 86400),
        ("wk wks week weeks", 7 * 86400),
        ("yr yrs year years", 365 * 86400),
    ):
        add("s", seconds, *names.split())
    add("params", 1, "params", "param", "parameters", "parameter", "weights")
    add("tokens", 1, "tokens", "token", "tok", "toks")
    add("patches", 1, "patches", "patch")
    add("count", 1, "count")
    add("GPU-hours", 1, "GPU-hours", "GPU-hour", "GPU-h", "GPUh", "GPU-hrs", "GPU-hr")
    add("GPU-hours", 24, "GPU-days", "GPU-day")
    add("USD", 1, "$", "USD", "US$", "dollars", "dollar")
    add("ratio", Fraction(1, 100), "%", "percent", "pct")
    add("ratio", 1, "x", "X")
    add("bits/param", 1, "bits/param", "bit/param", "bits/parameter", "bits/weight", "b/param", "bpw")
    add("bits/param", 1, "bits-per-param", "bits-per-parameter", "bits-per-weight")
    add("bytes/param", 1, "bytes/param", "B/param", "bytes/parameter", "bytes-per-param")
    add("tokens/s", 1, "tokens/s", "token/s", "tok/s", "tokens/sec", "tok/sec", "tokens-per-second", "tps")
    for name, entry in units.items():
        folded.setdefault(_fold(name), entry)
    return units, folded


_FLOP = r"(?i)([kmgtpe]?)(flops?)(/s|/sec)?"
_MAC = r"(?i)([kmgtpe]?)(macs?)"
_CONVERT: dict[tuple[str, str], tuple[Fraction, str | None]] = {
    ("bits", "bytes"): (Fraction(1, 8), "8 bits = 1 byte"),
    ("bytes", "bits"): (Fraction(8), None),
    ("bits/s", "bytes/s"): (Fraction(1, 8), "8 bits = 1 byte"),
    ("MACs", "FLOPs"): (Fraction(2), "1 MAC = 2 FLOPs"),
    ("FLOPs", "MACs"): (Fraction(1, 2), "1 MAC = 2 FLOPs"),
    ("bytes/param", "bits/param"): (Fraction(8), None),
    ("bits", "bits/param"): (Fraction(1), None),
    ("tokens", "patches"): (Fraction(1), "a ViT's patches are its tokens"),
}
_READ_AS = {"params": "parameters", "count": "a count", "USD": "dollars", "s": "a time", "ratio": "a ratio"}
_READ_AS |= {"FLOP/s": "a compute rate (FLOP/s)", "bytes/s": "a bandwidth (bytes/s)"}
_READ_AS |= {"bits/s": "a bandwidth (bits/s)", "bits/param": "bits per parameter"}
_READ_AS |= {"bytes/param": "bytes per parameter", "tokens/s": "a throughput (tokens/s)"}
_ANSWER_IS = {
    "params": ("a number of parameters", "7B or 6.7e9 params"),
    "tokens": ("a number of tokens", "2T tokens"),
    "FLOPs": ("a number of FLOPs", "3.15e23 FLOPs or 6 GFLOPs"),
    "MACs": ("a number of MACs (multiply-adds)", "5 GMACs"),
    "bytes": ("a size in bytes", "16 GiB, 17.2 GB or 1.7e10 bytes"),
    "bits": ("a size in bits", "128 Gb or 16 GB"),
    "s": ("a time", "2.1 ms, 30 s or 3 days"),
    "FLOP/s": ("a compute rate in FLOP/s", "312 TFLOP/s"),
    "bytes/s": ("a bandwidth in bytes/s", "2 TB/s or 900 GB/s"),
    "ratio": ("a ratio", "0.4, 40% or 1.5x"),
    "USD": ("a cost in dollars", "$1.2M"),
    "GPU-hours": ("a number of GPU-hours (GPUs × hours)", "2,048 GPU-hours"),
    "patches": ("a number of patches", "196 patches"),
    "count": ("a plain count", "8"),
    "bits/param": ("a number of bits per parameter", "4.13 bits/param"),
    "tokens/s": ("a throughput in tokens/s", "1.2k tokens/s"),
}

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_APPROX = (
    r"(?i)(?:~=?|≈|≃|about(?![a-z])|around(?![a-z])|roughly(?![a-z])|approx(?:imately|\.)?|circa|ca\.)\s*"
)
_NUMBER = r"(?:[0-9]{1,3}(?:[,_ ][0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+"
_EXPONENT = r"[eE]([+-]?[0-9]+)"
_POWER = r"\s*(?:\^|\*\*)\s*([+-]?[0-9]+)"
_OPERATOR = r"\*|/(?=\s*\.?[0-9])|(?<![A-Za-z])[xX](?=\s*\.?[0-9])"
_LABEL = r"[A-Za-z][A-Za-z-]*"
_LIMIT = Fraction(10**300)


def _unit(token: str, expected: str) -> Entry | None:
    """The unit ``token`` names when the answer is in ``expected``, or None if it is not a unit here."""
    if token in ("B", "b"):  # bytes/bits beside sizes; a billion beside counts and elsewhere ("7B")
        if expected in _BYTE_LIKE or (token == "b" and expected == "bits/param"):
            return _tables()[0][token]
        return None if token == "B" or expected in _COUNT_LIKE else _tables()[0]["b"]
    if expected == "GPU-hours" and _fold(token) in ("h", "hr", "hrs", "hour", "hours"):
        return ("GPU-hours", Fraction(1), f"{token!r} read as GPU-hours")
    if match := re.fullmatch(_FLOP, token):
        prefix, stem, per_s = match.groups()
        factor = Fraction(10 ** _SI[prefix.upper()] if prefix else 1)
        if expected == "FLOP/s":
            rate = True
        elif expected in ("FLOPs", "MACs"):
            rate = bool(per_s)
        else:
            rate = bool(per_s) or stem == "FLOPS"
        return ("FLOP/s" if rate else "FLOPs", factor, None)
    if match := re.fullmatch(_MAC, token):
        return ("MACs", Fraction(10 ** _SI[match[1].upper()] if match[1] else 1), None)
    units, folded = _tables()
    return units.get(token) or folded.get(_fold(token))


def _scale(token: str, expected: str, before_unit: bool = False) -> int | None:
    """The power of ten a scale word or letter stands for, or None ("B" before a unit is a billion)."""
    if token in _SI or (token == "B" and (before_unit or expected not in _BYTE_LIKE)):
        return 9 if token == "B" else _SI[token]
    if expected in _COUNT_LIKE and token in ("m", "b", "t"):
        return {"m": 6, "b": 9, "t": 12}[token]
    return _WORD_SCALES.get(token.lower())


def _read_tail(tail: str, expected: str, text: str) -> tuple[int, Entry | None, str | None]:
    """Split what follows a number into (power of ten, unit entry, unit token as typed)."""
    if not tail:
        return 0, None, None
    if entry := _unit(tail, expected):
        return 0, entry, tail
    if (power := _scale(tail, expected)) is not None:
        return power, None, None
    for name in _SCALE_NAMES:
        head, rest = tail[: len(name)], tail[len(name) :].strip()
        if rest and (head == name or (len(name) > 1 and head.lower() == name)):
            power = _scale(head, expected, before_unit=True)
            if power is not None and (entry := _unit(rest, expected)):
                return power, entry, rest
    if expected == "count":  # a plain count may name what it counts: "8 GPUs", "2k steps"
        head, _, rest = tail.partition(" ")
        power = _scale(head, expected) if rest else None
        label = rest if power is not None else tail
        if re.fullmatch(_LABEL, label):
            return power or 0, ("count", Fraction(1), None), label
    if tail == "m" and expected == "s":
        raise ParseError(f"'m' is ambiguous in {text!r}: write min (minutes) or ms (milliseconds)")
    what, example = _ANSWER_IS[expected]
    raise ParseError(f"could not read the unit {tail!r} in {text!r}; this answer is {what} (e.g. {example})")


def _number(match: re.Match[str], text: str) -> Fraction:
    digits = re.sub(r"[,_ ]", "", match.group())
    whole, _, decimals = digits.partition(".")
    if len(digits) > 100:
        raise ParseError(f"the number in {text!r} is too long", match.start())
    return Fraction(int(whole or "0") * 10 ** len(decimals) + int(decimals or "0"), 10 ** len(decimals))


def _power_of(base: Fraction, exponent_text: str, text: str, position: int) -> Fraction:
    if len(exponent_text.lstrip("+-")) > 3:
        raise ParseError(f"the exponent in {text!r} is out of range", position)
    exponent = int(exponent_text)
    if base == 0 and exponent < 0:
        raise ParseError(f"0 to a negative power in {text!r}", position)
    return base**exponent


def _lex(text: str, expected: str) -> tuple[Fraction, list[tuple[Entry, str]], bool, bool]:
    """Read ``text`` as numbers joined by * and /: (product, units typed, any scale typed, any operator)."""
    value, units, scaled, operator, pos = Fraction(1), [], False, "", 0
    while True:
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if text.startswith("$", pos):
            units.append((_tables()[0]["$"], "$"))
            pos = len(text) - len(text[pos + 1 :].lstrip())
        match = re.compile(_NUMBER).match(text, pos)
        if match is None:
            if pos < len(text) and text[pos] in "+-":
                raise ParseError(f"only *, × and / may join numbers, not {text[pos]!r}: {text!r}", pos)
            if operator and pos >= len(text):
                raise ParseError(f"{text!r} ends with {operator!r}: a number must follow it", pos)
            if operator:
                raise ParseError(f"expected a number after {operator!r} in {text!r}", pos)
            raise ParseError(f"could not read {text!r} as a number", pos)
        term = _number(match, text)
        pos = match.end()
        if exponent := re.compile(_EXPONENT).match(text, pos):
            term *= _power_of(Fraction(10), exponent[1], text, pos)
            pos = exponent.end()
        if power := re.compile(_POWER).match(text, pos):
            term = _power_of(term, power[1], text, pos)
            pos = power.end()
        following = re.compile(_OPERATOR).search(text, pos)
        end = following.start() if following else len(text)
        tail = text[pos:end].strip()
        if re.match(r"\.[0-9]", tail):
            raise ParseError(f"two decimal points in {text!r}", pos)
        if re.match(r"[,_][0-9]", tail):
            raise ParseError(f"digits after {tail[0]!r} must come in groups of three: {text!r}", pos)
        if re.search(r"[+-]\s*\.?[0-9]", tail):
            raise ParseError(f"only *, × and / may join numbers, not + or -: {text!r}", pos)
        if re.search(r"[0-9]", tail):
            raise ParseError(f"two numbers without an operator: {text!r}", pos)
        ten, entry, token = _read_tail(tail, expected, text)
        scaled = scaled or bool(ten)
        term *= Fraction(10) ** ten
        if entry and token:
            units.append((entry, token))
        if abs(term) > _LIMIT or 0 < abs(term) < 1 / _LIMIT:
            raise ParseError(f"a number in {text!r} is out of range", match.start())
        if operator == "/":
            if term == 0:
                raise ParseError(f"division by zero in {text!r}", match.start())
            value /= term
        else:
            value *= term
        if value and not 1 / _LIMIT**2 < abs(value) < _LIMIT**2:
            raise ParseError(f"{text!r} is out of range", match.start())
        if following is None:
            return value, units, scaled, bool(operator)
        operator = "/" if following.group() == "/" else "*"
        pos = following.end()


def _clean(text: str) -> tuple[str, bool]:
    """Normalise spaces and signs; strip approximate marks (returned as a flag)."""
    text = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+", lambda m: "^" + m.group().translate(_SUPERSCRIPTS), text)
    text = text.replace("×", " x ").replace("−", "-")
    text = re.sub(r"[·⋅∙✕]", "*", text).replace("÷", "/")
    text = re.sub(r"\s+", " ", text).strip()
    approximate = False
    while match := re.match(_APPROX, text):
        approximate, text = True, text[match.end() :]
    return text, approximate


def _convert(entry: Entry, expected: str, text: str) -> tuple[Fraction, list[str]]:
    """The factor from ``entry``'s unit to ``expected``, and the notes to show; ParseError if impossible."""
    kind, factor, note = entry
    if kind == expected:
        ratio, how = Fraction(1), None
    elif (kind, expected) in _CONVERT:
        ratio, how = _CONVERT[(kind, expected)]
    else:
        as_what = _READ_AS.get(kind, kind)
        what, example = _ANSWER_IS[expected]
        raise ParseError(f"read {text!r} as {as_what}, but this answer is {what} (e.g. {example})")
    return factor * ratio, [n for n in (note, how) if n]


def parse_answer(text: str, unit: str, default_unit: str | None = None) -> Parsed:
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
        ParseError: the text cannot be read, or names a unit of another dimension.

    >>> parse_answer("16.384 million", "params").value
    16384000
    >>> parse_answer("~15.6 GiB", "bytes")
    Parsed(value=16750372454.4, unit='bytes', typed_unit='GiB', approximate=True, reading='15.6 GiB = 16,750,372,454 bytes')
    >>> parse_answer("3", "s", default_unit="days").reading
    '3 days = 259,200 s'
    >>> parse_answer("16 GB", "params")
    Traceback (most recent call last):
    ...
    quizzer.grading.parse.ParseError: read '16 GB' as bytes, but this answer is a number of parameters (e.g. 7B or 6.7e9 params)
    """  # noqa: E501
    try:
        expected = Unit(unit).value
    except ValueError:
        raise UnknownNameError(unknown_name_message("unit", unit, [u.value for u in Unit])) from None
    default = _default(default_unit, expected)
    cleaned, approximate = _clean(text)
    if not cleaned:
        raise ParseError("empty answer: type a number such as 16.4M, 1.6e7 or 16 GiB", 0)
    if re.search(r"[()\[\]{}]", cleaned):
        raise ParseError(f"parentheses are not accepted: {cleaned!r} (write a plain product like 32000*512)")
    value, units, scaled, operator = _lex(cleaned, expected)
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
    factor, notes = _convert(entry, expected, cleaned)
    value *= factor
    if value and not 1 / _LIMIT < abs(value) < _LIMIT:
        raise ParseError(f"{cleaned!r} is out of range")
    number = exact(value)
    plain = format_plain(number, expected)
    reading = f"{shown} = {plain}" if operator or factor != 1 or shown != cleaned else plain
    if notes:
        reading += f" ({'; '.join(notes)})"
    return Parsed(number, expected, typed, approximate, reading)


def _default(default_unit: str | None, expected: str) -> tuple[int, Entry | None] | None:
    """The scale and unit a bare number carries; a SpecError (a template bug) if ``default_unit`` is bad."""
    if default_unit is None:
        return None
    try:
        ten, entry, _ = _read_tail(default_unit, expected, default_unit)
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
