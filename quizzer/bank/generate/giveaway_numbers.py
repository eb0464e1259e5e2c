"""The numbers a text shows ("16.4M", "15.6 GiB", "12 × 12"), and what each means in an answer's unit."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from quizzer.core.errors import QuizzerError
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.grading.vocabulary import FLOP, MAC, WORD_SCALES, fold, tables

_NUMBER = re.compile(
    r"(?<![\w.,^])(?P<pre>\$)?(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"(?P<pow>[ ]?(?:\^|\*\*)[ ]?\d+|[²³])?(?P<suffix>[kKMBT](?![^\W\d_]))?"
)
#: A word after a number: a unit ("GiB", "TB/s", "GPU-hours"), a percent or times sign, or any other word.
_WORD = re.compile(r"%|×|[^\W\d_]\w*(?:[/-][^\W_]+)*")
#: What joins the numbers of a computation written out: an operator ("12 × 12"), or "=" between members.
_OPERATOR = re.compile(r" ?([×*/÷·]) ?| (x) | ?([=≈]) ?")
#: A number multiplying a symbol ("6·N", "2 × d_model", "N × 2"): a coefficient of a formula.
_BEFORE_SYMBOL = re.compile(r" ?[×·*÷/] ?(?:[^\W\d_](?![^\W\d_])|[A-Za-z]\w*_)")
_AFTER_SYMBOL = re.compile(r"(?<!\w)(?:[^\W\d_]|[A-Za-z]\w*_\w*) ?[×·*/÷] ?$")
#: A name before a bare number: "RTX 4090", "CUDA 12", "Transformer Math 101".
_PRODUCT = re.compile(r"(?:\b[A-Z]{2,}[a-z]*|\b[A-Z][\w'’]* [A-Z][a-z]*) $")
#: A number after an operator ends a product even before a symbol: "2 × 31/32 × S" multiplies 2 × 31/32.
_AFTER_NUMBER = re.compile(r"\d ?[×*/÷] ?$")
#: What before a number makes it a term of a sum ("512 + 64"), whose "= 576" is not its own.
_TERM = re.compile(r"[+−-] ?\(?$")
_SUM = re.compile(r"\)? ?[+−-] ?[\d(]")
_SPACES = (" ", "\u00a0")
#: A hyphen before these makes a name, not a quantity: "8-bit", "2-byte" (a dtype).
_NAME_WORDS = frozenset({"bit", "bits", "byte", "bytes"})
_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
#: Units of things a count or a ratio may count: "144 tokens", "50 tokens per parameter".
_COUNTED = frozenset({"tokens", "params", "patches", "count"})


class Number(NamedTuple):
    """A number a text shows: its span (unit word included), digits, power ("2^30", "224²"), "$", scale
    letter, unit word; ``label``: a word that is no unit follows ("56 layers": a count of something);
    ``key``: as written ("2 GiB"); ``plain``: one digit and no unit, or "2^30": it tells nothing alone."""

    start: int
    end: int
    digits: str
    power: int
    prefix: str
    suffix: str
    unit: str
    label: bool
    key: str
    plain: bool


class Computation(NamedTuple):
    """A number alone, or numbers joined by ×, *, /, ÷ and = ("12 × 12 = 144"): its span, its numbers and
    its products (between "=" signs, each of two numbers or more, with the operator before each)."""

    start: int
    end: int
    numbers: tuple[Number, ...]
    products: tuple[tuple[tuple[str, Number], ...], ...]


@functools.lru_cache(maxsize=1024)
def _kind(word: str) -> str | None:
    """What a unit word measures ("tokens", "bytes", "FLOPs", "ratio" for "×"...); None: no unit."""
    units, folded = tables()
    entry = units.get(word) or folded.get(fold(word))
    if entry is None and (word == "×" or re.fullmatch(FLOP, word) or re.fullmatch(MAC, word)):
        return "ratio" if word == "×" else "MACs" if re.fullmatch(MAC, word) else "FLOPs"
    return entry[0] if entry else None


def _number(text: str, match: re.Match[str]) -> Number | None:
    """The number at ``match`` with its unit word; None in a name, a label or a formula: "GPT-2",
    "Llama-3-8B", "ViT-B/16", "8-bit", "2:4", "80-90%", "2nd", "2Ψ", "part 2", "6·N"."""
    start, end = match.span()
    before = text[max(start - 2, 0) : start]
    if (
        (before.endswith(("-", "–")) and before[:1].isalnum())
        or (before.endswith("/") and before[:1].isalpha())
        or (before.endswith(":") and before[:1].isdigit())
        or (text[end : end + 1] in (":", "-", "–") and text[end + 1 : end + 2].isdigit())
        or text[max(start - 5, 0) : start].lower() in ("part ", "step ")
        or (_BEFORE_SYMBOL.match(text, end) and not _AFTER_NUMBER.search(text, max(start - 4, 0), start))
        or _AFTER_SYMBOL.search(text, max(start - 24, 0), start)
    ):
        return None
    rest = text[end : end + 80]
    sep = rest[:1]
    spaced = sep in _SPACES
    word = _WORD.match(rest, 1 if spaced or sep == "-" else 0)
    found, unit = (word.group() if word else ""), ""
    if word is None or (spaced and found in ("×", "x") and rest[word.end() + 1 : word.end() + 2].isdigit()):
        found = ""  # "12 × 12": an operator follows
    elif sep == "-" and (_kind(found) is None or found.lower() in _NAME_WORDS):
        return None  # "8-bit", "4-way": a name; "4,096-token" is a quantity
    elif not spaced and sep != "-" and _kind(found) is None:
        return None  # letters written onto it: "2nd", "2Ψ"
    elif spaced and found.lower() in WORD_SCALES:  # "16.4 million params"
        unit, after = found, _WORD.match(rest, word.end() + 1)
        if after is not None and rest[word.end()] in _SPACES and _kind(after.group()):
            unit, word = f"{found} {after.group()}", after
    elif _kind(found) and (found != "×" or not spaced):
        unit = found
    elif spaced and found == "times":  # "6.5 times faster"
        unit = "×"
    if not (unit or match.group("suffix")) and _PRODUCT.search(text, max(start - 40, 0), start):
        return None  # "RTX 4090"; "HBM 80 GiB" and "MFU 40%" are quantities
    end += word.end() if unit and word else 0
    power = match.group("pow") or ""
    exponent = {"": 1, "²": 2, "³": 3}.get(power) or int(re.sub(r"\D", "", power))
    pre, suffix, digits = match.group("pre") or "", match.group("suffix") or "", match.group("num")
    plain = digits in ("2", "10") if exponent != 1 else not (unit or suffix or pre) and len(digits) == 1
    key = f"{pre}{digits}{suffix} {unit}"
    return Number(start, end, digits, exponent, pre, suffix, unit, bool(found) and not unit, key, plain)


@functools.lru_cache(maxsize=8192)
def computations(text: str) -> tuple[Computation, ...]:
    """The numbers ``text`` shows, grouped into the computations written out with them.

    >>> text = "49 patches × 3,072 = 150,528, an 8-bit GPT-2, 2^30 B, 15/16, 6·N, 512 + 64 = 576"
    >>> [text[c.start : c.end] for c in computations(text)]
    ['49 patches × 3,072 = 150,528', '2^30 B', '15/16', '512', '64', '576']
    """
    runs: list[list[tuple[str, Number]]] = []
    for match in _NUMBER.finditer(text):
        if (number := _number(text, match)) is None:
            continue
        joined = _OPERATOR.fullmatch(text, runs[-1][-1][1].end, number.start) if runs else None
        first = runs[-1][0][1].start if runs else 0
        if joined and joined.group(3) and _TERM.search(text, max(first - 3, 0), first):
            joined = None  # "512 + 64 = 576": the result is the sum's, not 64's
        if joined:
            runs[-1].append((joined.group(1) or joined.group(2) or joined.group(3), number))
        else:
            runs.append([("", number)])
    out = []
    for run in runs:
        members: list[list[tuple[str, Number]]] = [[]]
        for operator, number in run:
            if operator in ("=", "≈"):
                members.append([])
            members[-1].append((operator, number))
        start, end = run[0][1].start, run[-1][1].end
        term = bool(_TERM.search(text, max(start - 3, 0), start) or _SUM.match(text, end))  # "8 × 3 + 2 × 4"
        term = term or text[max(start - 1, 0) : start] in ("⌈", "⌊")  # "⌈10 ÷ 4⌉": rounded, not stated
        products = () if term else tuple(tuple(m) for m in members if len(m) > 1)
        out.append(Computation(start, end, tuple(n for _, n in run), products))
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _factor(words: str, unit: str, display: str | None) -> float | None:
    """What ``words`` ("1 GiB", "$1k", "1") are worth in ``unit``; None if they are no ``unit``."""
    try:
        return float(parse_answer(words, unit, display).value)
    except (ParseError, QuizzerError):  # a unit the grader reads but no answer has (bits/s)
        return None


def read_number(number: Number, unit: str | None, display: str | None) -> float | None:
    """What ``number`` means in ``unit`` (``_read``); None: nothing of ``unit``."""
    reading = number.digits, number.power, number.prefix, number.suffix, number.unit, number.label
    return _read(reading, unit, display)


@functools.lru_cache(maxsize=65536)
def _read(
    number: tuple[str, int, str, str, str, bool], unit: str | None, display: str | None
) -> float | None:
    """What a number (digits, power, "$", scale, unit word, label) means in ``unit`` as the grader reads
    it typed: a bare one of three figures or more in the ``display`` unit; for a count or a ratio a count
    of anything ("144 tokens", "8 GPUs"), a count of something else ("56 layers") for no other unit.
    ``unit`` None: in the base unit of its own unit word (a bare number as written)."""
    digits, power, prefix, suffix, word, label = number
    bare = float(digits.replace(",", "")) ** power
    if label or (unit is None and not word):
        return bare * _SCALES.get(suffix, 1.0) if suffix or unit in (None, "count", "ratio") else None
    if display and not (word or suffix or prefix) and figures(digits) < 3:
        return None  # "12" beside a GiB answer: too short to be read as 12 GiB
    unit = unit or _kind(word.rpartition(" ")[2]) or "count"
    factor = _factor(f"{prefix}1{suffix}{' ' if word not in ('', '%', '×') else ''}{word}", unit, display)
    if factor is None and unit in ("count", "ratio") and _kind(word) in _COUNTED:
        factor = _SCALES.get(suffix, 1.0)
    return None if factor is None else bare * factor


def in_unit(value: float, unit: str, answer: str) -> float | None:
    """``value`` of ``unit`` (a derivation step's) in an ``answer`` unit: converted where the grader
    converts (MACs to FLOPs); a count or a ratio as a count of anything; None for another dimension.

    >>> in_unit(15_377_539_072, "MACs", "FLOPs"), in_unit(153.016, "ratio", "tokens")
    (30755078144.0, 153.016)
    >>> in_unit(2_304, "count", "tokens/s") is None
    True
    """
    if unit == answer:
        return value
    if (factor := _factor(f"1 {unit}", answer, None)) is not None:
        return value * factor
    return value if unit in ("count", "ratio") and answer in (*_COUNTED, "ratio") else None


def product_value(product: Sequence[tuple[str, Number]], unit: str) -> float:
    """The value of a product written out ("12 × 12") in ``unit``: a number's unit counts where it is one
    of ``unit``; a bare product is read in the base unit ("15 / 5.6" is no 2.68 ms)."""
    total = 1.0
    for operator, number in product:
        factor = _factor(f"1 {number.unit}", unit, None) if number.unit else None
        value = float(number.digits.replace(",", "")) ** number.power
        value *= factor or _SCALES.get(number.suffix, 1.0)
        total = total / value if operator in ("/", "÷") and value else total * value
    return total


def figures(digits: str) -> int:
    """The significant figures of a number as written ("1,024": 4, "100": 1, "2.50": 3)."""
    whole = digits.lower().partition("e")[0].replace(",", "")
    kept = whole.replace(".", "").lstrip("0")
    return len(kept if "." in whole else kept.rstrip("0")) or 1


__all__ = ["Computation", "Number", "computations", "figures", "in_unit", "product_value", "read_number"]
