"""The numbers a rendered prompt shows ("32,000", "16.4M", "4,096 tokens", "15.6 GiB"), as values."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

_NUMBER = re.compile(
    r"(?<![\w.,])(?P<digits>\d{1,3}(?:,\d{3})+(?![\d])|\d+)(?P<frac>\.\d+)?(?:[eE](?P<exp>[+-]?\d+))?"
    r"(?P<suffix>[kKMBT](?![A-Za-z]))?(?:[ \t\u00a0]?(?P<word>%|[A-Za-zµ]+))?"
)
#: A letter right after the digits: 32k, 16.4M, 7B (billions), 1.5T.
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
#: Whole words after a number.
_WORDS = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "ms": 1e-3,
    "µs": 1e-6,
    "us": 1e-6,
    "ns": 1e-9,
    "min": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hours": 3600.0,
    "days": 86400.0,
}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}
_DECIMAL = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18, "Z": 1e21}
#: What a decimal or binary prefix may stand before: bytes, FLOPs, FLOP/s, params, tokens.
_PREFIXED = ("B", "FLOP", "bytes", "param", "token")


def _scale(word: str) -> float | None:
    """The size of one ``word`` after a number (None: not a unit or scale word)."""
    if word == "%":
        return 0.01
    if word in _WORDS:
        return _WORDS[word]
    if word[:2] in _BINARY and word[2:].startswith("B"):
        return _BINARY[word[:2]]
    if word[:1] in _DECIMAL and word[1:].startswith(_PREFIXED):
        return _DECIMAL[word[:1]]
    return None


def prompt_numbers(text: str, per_unit: float = 1) -> tuple[float, ...]:
    """Every number ``text`` shows, as printed and as the value its suffix or unit word gives it; with a
    ``per_unit`` (the size of a question's display unit), a number with no suffix or word after it also
    as that many display units (a bare "80" typed to a question in GiB means 80 GiB; "16 sequences" is
    not 16 GiB).

    >>> prompt_numbers("A 7B model, **32,000** tokens, 16.4M params and 15.6 GiB, 40% of 2.1 ms")
    (7.0, 7000000000.0, 32000.0, 16.4, 16400000.0, 15.6, 16750372454.4, 40.0, 0.4, 2.1, 0.0021)
    >>> prompt_numbers("H100 with 80 GB free, 16 sequences, a budget of 24", per_unit=2**30)
    (80.0, 80000000000.0, 16.0, 24.0, 25769803776.0)
    """
    found: dict[float, None] = {}
    for _start, _end, values in number_spans(text, per_unit):
        found.update(dict.fromkeys(values))
    return tuple(found)


@lru_cache(maxsize=4096)
def number_spans(text: str, per_unit: float = 1) -> tuple[tuple[int, int, tuple[float, ...]], ...]:
    """Each number ``text`` shows: where it is (start, end, its suffix and unit word included) and the
    values it can mean (as ``prompt_numbers`` reads them). Remembered: the check's lints read the same
    texts of an instance one after another.

    >>> [(text[a:b], v) for text in ["of 7.5 GiB, 32 sequences"] for a, b, v in number_spans(text)]
    [('7.5 GiB', (7.5, 8053063680.0)), ('32', (32.0,))]
    """
    out = []
    for match in _NUMBER.finditer(text):
        number = match.group("digits").replace(",", "") + (match.group("frac") or "")
        if match.group("exp"):
            number += f"e{match.group('exp')}"
        try:
            bare = float(number)
        except (ValueError, OverflowError):  # pragma: no cover - the pattern reads floats only
            continue
        values = [bare]
        scale = _SUFFIX[match.group("suffix")] if match.group("suffix") else 1.0
        word = match.group("word")
        unit = _scale(word) if word else None
        if scale != 1.0 or unit is not None:  # in decimal: 16.4M is 16,400,000, not 16,399,999.999...
            values.append(float(Decimal(number) * Decimal(repr(scale)) * Decimal(repr(unit or 1.0))))
        if per_unit != 1 and scale == 1.0 and not word:  # "80" alone; "16 sequences" is no 16 GiB
            values.append(bare * per_unit)
        kept = tuple(dict.fromkeys(v for v in values if v == v and abs(v) != float("inf")))
        # a word that is no unit ("24 by") is not part of the number
        end = (
            match.end()
            if unit is not None
            else max(match.end(g) for g in ("digits", "frac", "exp", "suffix"))
        )
        out.append((match.start(), end, kept))
    return tuple(out)


__all__ = ["number_spans", "prompt_numbers"]
