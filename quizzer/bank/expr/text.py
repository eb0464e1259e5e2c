"""Rendering template text: {placeholders} with thousands separators and units, the derivation table."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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
from quizzer.core.words import plural_word

#: ``{name}`` or ``{name:style}``; ``{{`` and ``}}`` stand for literal braces. A style may take an argument
#: in parentheses: ``{n_layers:plural(layer)}``, ``{n:plural(matrix|matrices)}``.
PLACEHOLDER_RE = re.compile(r"(?<!\{)\{([a-z_][a-z0-9_]*)(?::([a-z-]+(?:\([^{}()\n]*\))?))?\}(?!\})")
STYLES = (
    "count",
    "si",
    "sci",
    "bytes",
    "decimal",
    "seconds",
    "rate",
    "pct",
    "raw",
    "ordinal",
    "share",
    "plural",
)
#: The word a ``plural(...)`` style takes: ``layer``, ``KV head``, or ``matrix|matrices`` (singular|plural).
_PLURAL_RE = re.compile(r"^plural\(([A-Za-z][A-Za-z0-9 '\-]*)(?:\|([A-Za-z][A-Za-z0-9 '\-]*))?\)$")


class TextError(QuizzerError, ValueError):
    """A text that cannot be rendered: a value its style cannot show, or a text beyond the size limit."""


class TextTooLong(TextError):
    """A text that would pass its size limit once its placeholders are filled in."""


def style_problem(style: str) -> str | None:
    """Why ``style`` is not a placeholder style (None if it is one).

    >>> style_problem("si") is None, style_problem("sii").split(";")[0]
    (True, "unknown style 'sii' (did you mean 'si'?)")
    """
    if style in STYLES and style != "plural":
        return None
    if style.startswith("plural"):
        if _PLURAL_RE.match(style):
            return None
        return (
            f"{style!r}: write plural(word) or plural(singular|plural), e.g. plural(layer) or "
            "plural(matrix|matrices)"
        )
    from quizzer.core.checks import did_you_mean

    names = [s for s in STYLES if s != "plural"] + ["plural(word)"]
    return f"unknown style {style!r}{did_you_mean(style, STYLES)}; one of: {', '.join(names)}"


def format_value(value: Any, style: str | None = None, unit: str | None = None) -> str:
    """A variable as a person reads it: 32,000; 16.4M; 15.6 GiB; 312 TFLOP/s; 40%.

    >>> format_value(32000), format_value(2**31, unit="bytes"), format_value(0.4, "pct"), format_value(True)
    ('32,000', '2 GiB', '40%', 'true')
    >>> format_value(1, "plural(layer)"), format_value(3, "plural(matrix|matrices)")
    ('1 layer', '3 matrices')
    >>> format_value(22, "ordinal"), format_value(13, "ordinal")
    ('22nd', '13th')
    >>> format_value(8, "share")
    'a 1/8 share'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if style is not None and style.startswith("plural"):
        return plural(value, style)
    if style in ("ordinal", "share"):
        return _ordinal(value) if style == "ordinal" else _share(value)
    if style is None and unit:
        return format_quantity(value, unit)
    if style in (None, "count"):
        return format_count(value) if isinstance(value, int) or float(value).is_integer() else num(value)
    shown = _STYLES.get(style)
    if shown is None:
        raise TextError(style_problem(style) or f"unknown style {style!r}")
    return shown(value, unit)


#: How each named style shows a value (in ``unit``, for a rate).
_STYLES: dict[str, Callable[[Any, str | None], str]] = {
    "si": lambda value, unit: format_si(value),
    "sci": lambda value, unit: format_sci(value),
    "bytes": lambda value, unit: format_bytes(value),
    "decimal": lambda value, unit: format_bytes(value, binary=False),
    "seconds": lambda value, unit: format_seconds(value),
    "rate": lambda value, unit: format_rate(value, unit or Unit.FLOP_PER_S),
    "pct": lambda value, unit: f"{format_sig(100 * value, 4)}%",
    "raw": lambda value, unit: str(value),
}


def plural(value: Any, style: str) -> str:
    """``value`` and the word of a ``plural(...)`` style, singular for exactly 1: "1 layer", "3 layers".

    >>> plural(2, "plural(batch)"), plural(1.0, "plural(KV head)"), plural(0.5, "plural(bit)")
    ('2 batches', '1 KV head', '0.5 bits')
    """
    match = _PLURAL_RE.match(style)
    if match is None:
        raise TextError(style_problem(style) or f"unknown style {style!r}")
    singular, many = match.group(1), match.group(2)
    shown = format_value(value)
    return f"{shown} {singular if value == 1 else many or plural_word(singular)}"


def _whole(value: Any, style: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or value < 1:
        raise TextError(f"the {style} style needs a whole number of at least 1, not {value!r}")
    return value


def _ordinal(value: Any) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st, 111th."""
    n = _whole(value, "ordinal")
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def _share(value: Any) -> str:
    """A one-in-k share: "a 1/8 share" ("the whole" for 1)."""
    n = _whole(value, "share")
    return "the whole" if n == 1 else f"a 1/{n:,} share"


def render_text(
    source: str,
    env: Mapping[str, Any],
    formats: Mapping[str, tuple[str | None, str | None]],
    limit: int = MAX_TEXT_CHARS,
    displays: Mapping[str, str] | None = None,
) -> str:
    """Replace placeholders; names must be in ``env`` (the loader checks this). A placeholder without a
    style whose name is in ``displays`` shows that text as it is (an earlier part's answer, ``{part1}``,
    in its display form).

    Raises TextError naming the placeholder whose value its style cannot show, or when the text would
    grow beyond ``limit`` characters (a short placeholder can stand for a long table).
    """
    length = len(source)
    if length > limit:
        raise TextTooLong(f"the text passes the limit of {limit:,} characters")
    head, steps = _PIECES.get(source) or _pieces(source)
    if not steps:  # a text without placeholders: kept as it reads
        return head
    out: list[str] = [head]
    append = out.append
    for name, style, written, after in steps:
        if displays and style is None and name in displays:
            shown = displays[name]
        else:
            var_style, unit = formats.get(name, _NO_FORMAT)
            value = env[name]
            style = style or var_style
            kind = type(value)
            if kind is int and style is None and not unit:  # most: a count, as format_value shows it
                shown = f"{value:,}"
            elif kind is str:  # text shows as it is, whatever the style
                shown = value
            else:
                key = (value, kind, style, unit) if (kind is int or kind is float) and value else None
                kept = _SHOWN.get(key) if key is not None else None  # (0.0 and -0.0: equal, not alike)
                if kept is not None:
                    shown = kept
                else:
                    try:
                        shown = format_value(value, style, unit)
                    except (ValueError, ArithmeticError, TypeError) as exc:
                        raise TextError(f"cannot show {{{name}}} ({_cut(env[name])}): {exc}") from None
                    if key is not None:
                        if len(_SHOWN) >= 8192:
                            _SHOWN.clear()
                        _SHOWN[key] = shown
        length += len(shown) - written
        if length > limit:
            raise TextTooLong(
                f"with its placeholders filled in, the text passes the limit of {limit:,} characters"
            )
        append(shown)
        append(after)
    return _unescaped("".join(out))  # after filling in, as ever: a value shown with {{ reads as {


#: Numbers as the texts show them, by (value, its type, style, unit): a value a template shows is shown
#: again and again (in the prompt, the explanation, each mistake's feedback), and by the next instance.
_SHOWN: dict[tuple[Any, type, str | None, str | None], str] = {}
#: The format of a name the texts' formats do not list: no style, no unit.
_NO_FORMAT: tuple[str | None, str | None] = (None, None)
#: A text split at its placeholders: the text before the first, then for each its name, style and the
#: characters written, with the text after it up to the next ("" where two placeholders meet). A text
#: without placeholders is kept as it reads (``{{`` as ``{``), with no steps.
_Pieces = tuple[str, tuple[tuple[str, "str | None", int, str], ...]]
_PIECES: dict[str, _Pieces] = {}


def _pieces(source: str) -> _Pieces:
    """``source`` split at its placeholders, once per text (a template's texts are rendered again and
    again)."""
    found = _PIECES.get(source)
    if found is not None:
        return found
    matches = list(PLACEHOLDER_RE.finditer(source))
    ends = [m.start() for m in matches[1:]] + [len(source)] * bool(matches)
    head = source[: matches[0].start()] if matches else source
    steps = tuple(
        (m.group(1), m.group(2), len(m.group(0)), source[m.end() : end])
        for m, end in zip(matches, ends, strict=True)
    )
    found = (head, steps) if steps else (_unescaped(head), ())
    if len(_PIECES) > 20_000:  # the texts of every pack loaded, many times over: never let them pile up
        _PIECES.clear()
    _PIECES[source] = found
    return found


def _unescaped(text: str) -> str:
    if "{" not in text and "}" not in text:  # most texts: two scans for a character are the quickest
        return text
    return text.replace("{{", "{").replace("}}", "}")


def _cut(value: Any, limit: int = 40) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SCALES: dict[tuple[str, str], int | float] = {}


def display_scale(unit: str, display: str) -> int | float:
    """One ``display`` unit in the base ``unit`` (2**30 for GiB of bytes), read once per pair.

    >>> display_scale("bytes", "GiB"), display_scale("s", "days")
    (1073741824, 86400)
    """
    key = (unit, display)
    if key not in _SCALES:
        from quizzer.grading.parse import parse_answer

        if len(_SCALES) > 1000:  # pack files name a few display units; never let them pile up
            _SCALES.clear()
        _SCALES[key] = parse_answer(f"1 {display}", unit).value
    return _SCALES[key]


def _grouped(number: str) -> str:
    """A plain number with thousands separators in its whole part ("6291456.5" -> "6,291,456.5"); one in
    exponent notation, or of four digits or fewer, as it is.

    >>> _grouped("6291456"), _grouped("-12345.25"), _grouped("1234"), _grouped("1.5e-7")
    ('6,291,456', '-12,345.25', '1234', '1.5e-7')
    """
    whole, dot, fraction = number.partition(".")
    digits = whole.lstrip("-")
    if "e" in number or not digits.isdigit() or len(digits) <= 4:
        return number
    return f"{'-' if whole.startswith('-') else ''}{int(digits):,}{dot}{fraction}"


def answer_display(value: int | float, unit: str, display: str | None, figures: int | None = None) -> str:
    """The answer for people, in the template's display unit when it names one (e.g. days, GiB, ms), to at
    least the ``figures`` the question needs (3 by default), so the answer shown grades right when typed.

    >>> answer_display(16384000, "params", None)
    '16,384,000 params (16.4M)'
    >>> answer_display(3.83e6, "s", "days")
    '44.3 days'
    >>> answer_display(18_954_059_776, "FLOPs", "GFLOPs", figures=4)
    '18.95 GFLOPs'
    >>> answer_display(1_315_723_264, "params", None, figures=4)
    '1,315,723,264 params (1.316B)'
    >>> answer_display(6_291_456 * 2**30, "bytes", "GiB"), answer_display(12_345.6e-3, "s", "ms", figures=6)
    ('6,291,456 GiB', '12,345.6 ms')
    >>> answer_display(0.130839, "ratio", "%")  # a percentage as the texts and the grader write one
    '13.1%'
    """
    digits = max(figures or 3, 3)
    keep = digits > 3  # "19.00": a precise question shows the figures it asks for
    if display:
        shown = format_sig(value / display_scale(unit, display), digits, keep_zeros=keep)
        return f"{_grouped(shown)}{'' if display == '%' else ' '}{display}"
    if unit in (Unit.PARAMS, Unit.TOKENS, Unit.PATCHES, Unit.COUNT) and isinstance(value, int):
        short = format_si(value, digits, keep_zeros=keep)
        words = "" if unit == Unit.COUNT else f" {unit}"
        return f"{format_count(value)}{words}" + (f" ({short})" if short != format_count(value) else "")
    if unit == Unit.BYTES and isinstance(value, int) and value >= 1000:
        binary, decimal = format_bytes(value, digits=digits), format_bytes(value, binary=False, digits=digits)
        return f"{format_count(value)} bytes ({binary} = {decimal})"
    return format_quantity(value, unit, digits=digits)


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
