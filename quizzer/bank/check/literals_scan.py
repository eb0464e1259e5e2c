"""The literals lint's scanner: the numbers a template's source text writes out, and what each stands next to.

It reads the text as written in the TOML, so a ``{placeholder}`` (whatever value it will show) is never
a literal. A number is a *literal* when it stands next to a unit ("16 GiB", "40%", "$2"), carries a
scale ("70B", "1.5 trillion") or touches an arithmetic operator or comparison ("× 3", "= 1.07 × 10^12",
"≈ 4.2"), and it is not part of a name:

- glued to a letter on its left: H100, fp8, T5, v4, Qwen2.5, MXFP8, e4m3;
- joined by a hyphen to a word: GPT-2, Llama-3-8B, A100-80GB, gpt-oss-120b, 8-bit, 4-way (but ``n-1``,
  a single letter before the hyphen, is a subtraction; "512-token" and "7-billion" are a unit and a scale);
- a size after a model's name: "Llama 2 70B", "Gemma 3 4B", "H100 80GB" (a number with a scale or unit
  glued to it, after a capitalised word or a name holding a digit, not after a possessive);
- an ordinal (3rd, 4th) or a product of a name (8x7B).

Known limits: a number in plain prose with none of these neighbours ("the 32 layers") is not seen; a
constant of the allow-list is accepted wherever it has a neighbour it may have ("2 bytes" even where the
dtype is drawn), and a capitalised word before a size is taken for a name ("Mistral 7B", but also "Both 7B").
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from quizzer.bank.check.literals_allowed import allowed
from quizzer.bank.check.literals_names import after_name, named
from quizzer.bank.expr.text import PLACEHOLDER_RE
from quizzer.core.record import Record
from quizzer.grading.vocabulary import FLOP, MAC, SI, WORD_SCALES, tables

#: What a placeholder becomes before the scan: a value, never a literal (a private-use character).
VALUE = "\ue000"
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUP = "[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
_POWER = rf"(?:\^\(?[-−]?\d+\)?|\*\*[-−]?\d+|{_SUP})"
_NUMBER_RE = re.compile(
    rf"(?P<mant>(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?|\.\d+)"
    rf"(?P<exp>[eE][-+]?\d+(?![A-Za-z])|{_POWER})?"
    rf"(?P<sci>\s?[×x·*]\s?10{_POWER})?"
)
#: The operators and comparisons that make a number a literal when they touch it (spaces between).
OPERATORS = frozenset("×*/÷+−=^≈·~<>≤≥")
#: What a number may have glued to its right: a unit, a scale, a multiplier, an ordinal, a name's rest.
_GLUED_RE = re.compile(r"[A-Za-z%×µμ][A-Za-z0-9/%]*")
_WORD_RE = re.compile(r"[A-Za-z$%µμ][A-Za-z0-9/$%-]*(?: heads?)?")
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
#: Words a count is written with: the units a count takes in the bank (each a drawn quantity somewhere).
COUNT_NOUNS = frozenset(
    "layer layers head heads experts expert GPU GPUs chip chips node nodes device devices step steps "
    "sequence sequences request requests example examples stage stages microbatch microbatches "
    "micro-batch micro-batches hop hops rank ranks replica replicas shard shards".split()
) | {"KV head", "KV heads"}
#: Single letters that are variables of a formula, never units, when spaced after a number ("2 b s h").
_FORMULA_LETTERS = frozenset("bdhm")


class Literal(Record):
    """A number written out in a text: as written, its value, the unit word it is written with (None: no
    unit), and what makes it a literal ("next to '×'", "with the unit 'GB'", "with the scale 'B'").
    ``scaled``: written with a scale word, which no constant takes."""

    written: str
    value: Fraction
    unit: str | None
    why: str
    scaled: bool = False


@functools.cache
def _units() -> dict[str, str]:
    """Unit token -> kind, from the answer vocabulary and the counted nouns."""
    exact, _ = tables()
    kinds = {name: entry[0] for name, entry in exact.items()}
    kinds.update({noun: "count" for noun in COUNT_NOUNS})
    return kinds


def unit_kind(word: str) -> str | None:
    """The kind of unit ``word`` is ("GiB" -> bytes, "FLOPs" -> FLOPs, "layers" -> count), or None.

    >>> unit_kind("GiB"), unit_kind("TFLOP/s"), unit_kind("GMACs"), unit_kind("heads"), unit_kind("dog")
    ('bytes', 'FLOP/s', 'FLOPs', 'count', None)
    """
    if word in _units():
        return _units()[word]
    flop = re.fullmatch(FLOP, word)
    if flop:
        return "FLOP/s" if flop.group(3) else "FLOPs"
    return "FLOPs" if re.fullmatch(MAC, word) else None


def _scale(word: str) -> bool:
    return word in SI or word in ("B", "b", "m", "t") or word.lower() in WORD_SCALES


def value_of(written: str) -> Fraction:
    """The value of a number as written (0 for what is no number).

    >>> value_of("1,024"), value_of("2^30") == 2**30, value_of("1.07 × 10^12"), value_of("10⁶")
    (Fraction(1024, 1), True, Fraction(1070000000000, 1), Fraction(1000000, 1))
    """
    match = _NUMBER_RE.fullmatch(written)
    if match is None:
        return Fraction(0)
    value = Fraction(match.group("mant").replace(",", ""))
    exp, sci = match.group("exp"), match.group("sci")
    if exp and exp[0] in "eE":
        value *= Fraction(10) ** _bounded(exp[1:])
    elif exp:
        value **= _bounded(_power(exp))
    if sci:
        value *= Fraction(10) ** _bounded(_power(sci.split("10", 1)[1]))
    return value


def _power(text: str) -> str:
    """The exponent of ``^12``, ``**12``, ``(−3)``, ``¹²``, as digits."""
    return text.translate(_SUPERSCRIPTS).strip("^*()").replace("−", "-")


def _bounded(exponent: str) -> int:
    """An exponent, at most 400 either way: a text's number never needs more (and the work stays small)."""
    return max(-400, min(400, int(exponent)))


def prepare(source: str) -> str:
    """``source`` as the scan reads it: each placeholder a value, Markdown bold marks gone (``2**30``
    kept), literal braces as braces.

    >>> prepare("**{n} × 2**30** ({{x}})") == f" {VALUE} × 2**30  ({{x}})"
    True
    """
    text = PLACEHOLDER_RE.sub(VALUE, source)
    text = re.sub(r"(?<!\d)\*\*|\*\*(?!\d)", " ", text)
    return text.replace("{{", "{").replace("}}", "}")


def _operator_near(text: str, start: int, end: int) -> str | None:
    """The operator touching the span (spaces and brackets between), or None."""
    i = start - 1
    while i >= 0 and text[i] in " (\u00a0\u2009\u202f":
        i -= 1
    j = end
    while j < len(text) and text[j] in " )\u00a0\u2009\u202f":
        j += 1
    for k, spaced in ((i, i < start - 1), (j, j > end)):
        if not 0 <= k < len(text):
            continue
        char = text[k]
        if char == "*" and not _star_is_times(text, k):
            continue
        if char in OPERATORS:
            return char
        if char in "-x" and spaced and _spaced(text, k):  # " - " and " x " between terms
            return char
    return None


def _spaced(text: str, k: int) -> bool:
    return 0 < k < len(text) - 1 and text[k - 1] == " " and text[k + 1] == " "


def _star_is_times(text: str, k: int) -> bool:
    """A ``*`` between two spaces or two terms is a product; next to one word only, Markdown emphasis."""
    before, after = text[k - 1 : k], text[k + 1 : k + 2]
    return (before == " " and after == " ") or (
        (before.isalnum() or before == VALUE) and (after.isalnum() or after == VALUE)
    )


def scan(source: str) -> list[Literal]:
    """The literals of ``source`` (a template text with placeholders), in order, allowed constants left out.

    >>> [x.written for x in scan("2,048 × 512 × 10⁶ is 1.07 × 10^12 tokens, not {n} × 3 or 2 FLOPs")]
    ['2,048', '512 × 10⁶', '1.07 × 10^12']
    >>> scan("GPT-2, an H100 80GB, Llama 2 70B, 8-bit, the 3rd layer, 8x7B and fp8 × {x}")
    []
    """
    text = prepare(source)
    found: list[Literal] = []
    for match in _NUMBER_RE.finditer(text):
        literal = _classify(text, match)
        if literal is not None and (literal.scaled or not allowed(literal.value, literal.unit)):
            found.append(literal)
    return found


def _classify(text: str, match: re.Match[str]) -> Literal | None:
    """The literal ``match`` is, or None for a number in a name or a number with no neighbour that counts."""
    start = match.start()
    written = match.group(0)
    end = start + len(written)
    if named(text, start):
        return None
    value = value_of(written)
    glued = _GLUED_RE.match(text, end)
    if glued:
        return _glued(text, start, written, value, glued.group(0))
    hyphened = _GLUED_RE.match(text, end + 1) if text.startswith("-", end) else None
    if hyphened:
        word = hyphened.group(0)
        if _scale(word):
            return Literal(f"{written}-{word}", value, None, f"with the scale {word!r}", scaled=True)
        if unit_kind(word) not in (None, "bits"):
            return Literal(written, value, word, f"with the unit {word!r}")
        return None  # 8-bit, 4-way: a compound adjective
    if start and text[start - 1] == "$":
        return Literal("$" + written, value, "$", "with the unit '$'")
    after = _unit_after(text, end)
    if after is not None:
        if after.lower() in WORD_SCALES:
            return Literal(f"{written} {after}", value, None, f"with the scale {after!r}", scaled=True)
        return Literal(written, value, after, f"with the unit {after!r}")
    minus = start >= 2 and text[start - 1] == "-" and text[start - 2].isalnum()
    operator = "-" if minus else _operator_near(text, start, end)
    if operator is not None:
        return Literal(written, value, None, f"next to {operator!r}")
    if match.group("sci") or (match.group("exp") or " ")[0] in "eE":
        return Literal(written, value, None, "in scientific notation")  # 1.07 × 10^12, 5.9e23
    if match.group("exp"):
        return Literal(written, value, None, "as a power")  # 2^11
    return None


def _glued(text: str, start: int, written: str, value: Fraction, word: str) -> Literal | None:
    """The literal of a number with ``word`` glued to its right ("80GB", "70B", "2×", "6N"), or None (an
    ordinal, a name's rest, a model size after its name)."""
    if word in _ORDINALS or re.match(r"x\d", word):
        return None  # 3rd; 8x7B
    glued_letter = len(word) == 1 and word.islower() and not _scale(word)  # 2s, 4d: a coefficient
    kind = unit_kind(word) if not glued_letter else None
    if _scale(word) or kind is not None:
        if after_name(text, start):
            return None  # Llama 2 70B, H100 80GB
        if _scale(word) and value == 1 and text[:start].rstrip().endswith(("per", "/")):
            return None  # "per 1M tokens", "$/1M": a unit of pricing, not a size
        if _scale(word):
            return Literal(written + word, value, None, f"with the scale {word!r}", scaled=True)
        return Literal(written, value, word, f"with the unit {word!r}")
    if word in ("x", "×"):
        return Literal(written + word, value, None, "as a multiplier")
    if len(word) <= 2 and word.isalpha():  # 6N, 4d²: a coefficient
        return Literal(written, value, None, "as a coefficient")
    return None  # 3D, 4bit: a name


def _unit_after(text: str, end: int) -> str | None:
    """The unit or scale word after a space ("16 GiB", "8 KV heads", "70 billion"), or None."""
    after = text[end:].lstrip(" \u00a0\u2009\u202f")
    spaced = _WORD_RE.match(after)
    if not spaced or len(after) == len(text) - end:
        return None
    word = spaced.group(0).rstrip(".,;:'’-").removesuffix("'s").removesuffix("’s")
    if word in _FORMULA_LETTERS:
        return None
    if unit_kind(word) is None and " " in word:
        word = word.split()[0]
    return word if unit_kind(word) is not None or word.lower() in WORD_SCALES else None


__all__ = ["COUNT_NOUNS", "OPERATORS", "VALUE", "Literal", "prepare", "scan", "unit_kind", "value_of"]
