"""Rendering template text: {placeholders} with thousands separators and units, the derivation table."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from quizzer.bank.limits import MAX_TEXT_CHARS
from quizzer.core.errors import QuizzerError
from quizzer.core.trace import Step, num
from quizzer.core.units import (
    Unit,
    format_bytes,
    format_count,
    format_quantity,
    format_rate,
    format_sci,
    format_seconds,
    format_si,
    format_sig,
)

#: ``{name}`` or ``{name:style}``; ``{{`` and ``}}`` stand for literal braces.
PLACEHOLDER_RE = re.compile(r"(?<!\{)\{([a-z_][a-z0-9_]*)(?::([a-z-]+))?\}(?!\})")
STYLES = ("count", "si", "sci", "bytes", "decimal", "seconds", "rate", "pct", "raw")


class TextError(QuizzerError, ValueError):
    """A text that cannot be rendered: a value its style cannot show, or a text beyond the size limit."""


class TextTooLong(TextError):
    """A text that would pass its size limit once its placeholders are filled in."""


def style_problem(style: str) -> str | None:
    """Why ``style`` is not a placeholder style (None if it is one).

    >>> style_problem("si") is None, style_problem("sii").split(";")[0]
    (True, "unknown style 'sii' (did you mean 'si'?)")
    """
    if style in STYLES:
        return None
    from quizzer.core.checks import did_you_mean

    return f"unknown style {style!r}{did_you_mean(style, STYLES)}; one of: {', '.join(STYLES)}"


def format_value(value: Any, style: str | None = None, unit: str | None = None) -> str:
    """A variable as a person reads it: 32,000; 16.4M; 15.6 GiB; 312 TFLOP/s; 40%.

    >>> format_value(32000), format_value(2**31, unit="bytes"), format_value(0.4, "pct"), format_value(True)
    ('32,000', '2 GiB', '40%', 'true')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if style is None and unit:
        return format_quantity(value, unit)
    if style in (None, "count"):
        return format_count(value) if isinstance(value, int) or float(value).is_integer() else num(value)
    styles = {
        "si": lambda: format_si(value),
        "sci": lambda: format_sci(value),
        "bytes": lambda: format_bytes(value),
        "decimal": lambda: format_bytes(value, binary=False),
        "seconds": lambda: format_seconds(value),
        "rate": lambda: format_rate(value, unit or Unit.FLOP_PER_S),
        "pct": lambda: f"{format_sig(100 * value, 4)}%",
        "raw": lambda: str(value),
    }
    if style not in styles:
        raise TextError(style_problem(style) or f"unknown style {style!r}")
    return styles[style]()


def render_text(
    source: str,
    env: Mapping[str, Any],
    formats: Mapping[str, tuple[str | None, str | None]],
    limit: int = MAX_TEXT_CHARS,
) -> str:
    """Replace placeholders; names must be in ``env`` (the loader checks this).

    Raises TextError naming the placeholder whose value its style cannot show, or when the text would
    grow beyond ``limit`` characters (a short placeholder can stand for a long table).
    """
    length = len(source)
    if length > limit:
        raise TextTooLong(f"the text passes the limit of {limit:,} characters")

    def replace(match: re.Match[str]) -> str:
        nonlocal length
        name, style = match.group(1), match.group(2)
        var_style, unit = formats.get(name, (None, None))
        try:
            shown = format_value(env[name], style or var_style, unit)
        except (ValueError, ArithmeticError, TypeError) as exc:
            raise TextError(f"cannot show {{{name}}} ({_cut(env[name])}): {exc}") from None
        length += len(shown) - len(match.group(0))
        if length > limit:
            raise TextTooLong(
                f"with its placeholders filled in, the text passes the limit of {limit:,} characters"
            )
        return shown

    return PLACEHOLDER_RE.sub(replace, source).replace("{{", "{").replace("}}", "}")


def _cut(value: Any, limit: int = 40) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_display(value: int | float, unit: str, display: str | None) -> str:
    """The answer for people, in the template's display unit when it names one (e.g. days, GiB, ms).

    >>> answer_display(16384000, "params", None)
    '16,384,000 params (16.4M)'
    >>> answer_display(3.83e6, "s", "days")
    '44.3 days'
    """
    if display:
        from quizzer.grading.parse import parse_answer

        scale = parse_answer(f"1 {display}", unit).value
        return f"{format_sig(value / scale, 3)} {display}"
    if unit in (Unit.PARAMS, Unit.TOKENS, Unit.PATCHES, Unit.COUNT) and isinstance(value, int):
        short = format_si(value)
        words = "" if unit == Unit.COUNT else f" {unit}"
        return f"{format_count(value)}{words}" + (f" ({short})" if short != format_count(value) else "")
    if unit == Unit.BYTES and isinstance(value, int) and value >= 1000:
        return f"{format_count(value)} bytes ({format_bytes(value)} = {format_bytes(value, binary=False)})"
    return format_quantity(value, unit)


def _result(step: Step) -> str:
    if step.unit in (Unit.RATIO, Unit.COUNT):
        return num(step.value)
    return f"{num(step.value)} {step.unit}"


def derivation_table(steps: tuple[Step, ...]) -> str:
    """The derivation as a Markdown table, one row per step."""
    rows = ["| Step | Formula | With the numbers | Result |", "|---|---|---|---|"]
    for step in steps:
        cells = (step.label, step.formula, step.substituted, _result(step))
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)
