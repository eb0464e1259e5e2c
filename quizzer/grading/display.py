"""Values in the unit a question speaks in ("28.26 days", "41.4 GB", "47.6%"), as the parser reads them."""

from __future__ import annotations

import functools
import math

from quizzer.core.trace import Number
from quizzer.grading.figures import round_figures
from quizzer.grading.parse import format_plain, parse_answer
from quizzer.grading.vocabulary import CLOSE_UNITS

DEFAULT_FIGURES = 4


@functools.lru_cache(maxsize=512)
def unit_factor(unit: str, display_unit: str) -> Number:
    """What one ``display_unit`` is in the base ``unit`` (2**30 for "GiB", 86400 for "days", 0.01 for "%").

    Raises ParseError or SpecError when ``display_unit`` is no unit of ``unit`` the parser accepts.

    >>> unit_factor("bytes", "GiB"), unit_factor("s", "days"), unit_factor("ratio", "%"), unit_factor("params", "B")
    (1073741824, 86400, 0.01, 1000000000)
    """  # noqa: E501
    return parse_answer("1", unit, display_unit).value


def join(number: str, token: str) -> str:
    """``number`` followed by the unit ``token``: "47.6%", "1.3B", "41.4 GB"."""
    return f"{number}{token}" if token in CLOSE_UNITS else f"{number} {token}"


def number_text(value: Number, figures: int = DEFAULT_FIGURES) -> str:
    """``value`` to ``figures`` significant figures, trailing zeros dropped (a whole number below a million keeps
    all its digits); thousands separated from 1,000, scientific ("1.234e7", "2.5e-5") from a million up and
    below 0.001, as the parser reads them.

    >>> number_text(28.2570), number_text(1234.56), number_text(0.476008), number_text(3.2e7), number_text(2.5e-5)
    ('28.26', '1,235', '0.476', '3.2e7', '2.5e-5')
    >>> number_text(16384), number_text(16384.0), number_text(16384.4)
    ('16,384', '16,384', '16,380')
    """  # noqa: E501
    whole = round(value)
    if 1 <= abs(whole) < 10**6 and abs(value - whole) <= 1e-9 * abs(value):  # all the digits of 16,384 ms
        return f"{whole:,}"
    rounded = round_figures(value, figures)
    if rounded == 0:
        return "0"
    size = abs(rounded)
    top = math.floor(math.log10(size))
    if 10 ** (top + 1) <= size:
        top += 1
    if not -3 <= top < 6:
        mantissa = f"{float(rounded) / 10**top:.{figures - 1}f}"
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{top}"
    decimals = max(figures - 1 - top, 0)
    text = f"{float(rounded):,.{decimals}f}" if decimals else f"{int(rounded):,}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_in(value: Number, unit: str, display_unit: str | None, figures: int | None = None) -> str:
    """A value in its base ``unit`` shown in ``display_unit``, as a token the parser reads back.

    Args:
        value: the value, in ``unit``.
        unit: its base unit ("bytes", "s", "ratio", "params", ...).
        display_unit: the unit the question speaks in ("GiB", "days", "%", "ms", "TFLOP/s", "B" for
            billions), or None for today's base-unit text (``format_plain``).
        figures: the significant figures to show (4 when None; pass the figures a question needs when they
            are more). Trailing zeros are dropped.

    Returns:
        The text, e.g. "28.26 days", "15.63 GiB", "47.6%", "1.316B".

    >>> format_in(2_441_406, "s", "days"), format_in(0.476008, "ratio", "%"), format_in(41.4e9, "bytes", "GB")
    ('28.26 days', '47.6%', '41.4 GB')
    >>> format_in(1_315_723_264, "params", "B"), format_in(124_439_808, "params", "M", 9), format_in(0.25, "ratio", None)
    ('1.316B', '124.439808M', '0.25')
    """  # noqa: E501
    if display_unit is None:
        return format_plain(value, unit)
    factor = unit_factor(unit, display_unit)
    scaled = value / factor if factor != 1 else value
    return join(number_text(scaled, figures or DEFAULT_FIGURES), display_unit)
