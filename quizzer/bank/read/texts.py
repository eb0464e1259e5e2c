"""Conditional teaching text (parts and follow-ups with ``when``) and what a template declares with a
reason (omissions, needs, equal parts, numbers written out)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quizzer.bank.expr.expression import Expr
from quizzer.bank.read.reader import Reader
from quizzer.core.record import Record

PART_KEYS = {"text", "when"}
FOLLOW_UP_KEYS = {"question", "answer", "when"}
NEED_KEYS = {"holds", "why"}


class TextPart(Record, slots=True):
    """One part of a teaching text; shown only where ``when`` holds (always without one)."""

    text: str
    when: Expr | None = None


class FollowUp(Record, slots=True):
    """A question to think about after the answer, with its answer; left out where ``when`` is false."""

    question: str
    answer: str
    when: Expr | None = None


class OmissionOk(Record, slots=True):
    """A step the omission lint may find left out without harm (``step`` as the lint names it), and why."""

    step: str
    why: str


class Need(Record, slots=True):
    """What a draw must satisfy for the question to make sense (``holds``, an expression), and why: a text
    that speaks of sharding needs more than one GPU. A draw that breaks it is a finding of the check."""

    holds: Expr
    why: str


class SameAsOk(Record, slots=True):
    """An earlier part whose answer this part's may equal by design (``part``, its number), and why: a
    per-GPU figure that is the total when nothing is sharded, a share that is the same under two readings."""

    part: int
    why: str


class NumberOk(Record, slots=True):
    """A number the template's teaching texts may write out (``number`` as written: a year, a model's
    size in its name, a figure quoted from a paper), and why it is no hand-written result."""

    number: str
    why: str


def text_parts(r: Reader, key: str, *, required: bool) -> tuple[TextPart, ...]:
    """A text field written as one string, or as a list of ``{ text = "...", when = "<expr>" }`` tables."""
    value = r.get(r.raw, key, (str, list), key, required=required, default="")
    if isinstance(value, str):
        if required and not value.strip():
            raise r.error(key, "must not be empty")
        return (TextPart(value),) if value else ()
    if required and not value:
        raise r.error(key, "must not be empty: give a text, or a list of { text = ..., when = ... } parts")
    parts = []
    for i, item in enumerate(value):
        field = f"{key}[{i}]"
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            raise r.error(
                field, f"expected a text or a table {{ text = ..., when = ... }}, got {type(item).__name__}"
            )
        r.unknown_keys(item, PART_KEYS, f"{field}.")
        text = r.get(item, "text", str, f"{field}.text")
        if not text.strip():
            raise r.error(f"{field}.text", "must not be empty")
        when = r.expr(item["when"], f"{field}.when") if "when" in item else None
        parts.append(TextPart(text, when))
    if required and all(p.when is not None for p in parts):
        raise r.error(key, "needs at least one part without `when`, so that every instance shows some text")
    return tuple(parts)


def follow_ups(r: Reader) -> tuple[FollowUp, ...]:
    """``[[template.follow_ups]]`` with ``question``, ``answer`` and an optional ``when``."""
    return tuple(
        FollowUp(
            r.get(t, "question", str, f"{f}.question"),
            r.get(t, "answer", str, f"{f}.answer"),
            r.expr(t["when"], f"{f}.when") if "when" in t else None,
        )
        for f, t in r.table_list("follow_ups", FOLLOW_UP_KEYS)
    )


def _declared(
    r: Reader,
    key: str,
    name: str,
    kind: type[Any],
    invalid: Callable[[Any], str | None],
    why_missing: str,
    shown: Callable[[Any], str] = repr,
) -> list[tuple[Any, str]]:
    """``key = [{ <name> = ..., why = "..." }]``: each (value, reason), the value valid (``invalid`` says
    what is wrong, else None), the reason non-empty, each value declared once."""
    out: list[tuple[Any, str]] = []
    for f, t in r.table_list(key, {name, "why"}):
        value = r.get(t, name, kind, f"{f}.{name}")
        value = value.strip() if isinstance(value, str) else value
        why = r.get(t, "why", str, f"{f}.why").strip()
        if problem := invalid(value):
            raise r.error(f"{f}.{name}", problem)
        if not why:
            raise r.error(f"{f}.why", why_missing)
        if any(v == value for v, _ in out):
            raise r.error(f"{f}.{name}", f"{shown(value)} is declared twice")
        out.append((value, why))
    return out


def omissions_ok(r: Reader) -> tuple[OmissionOk, ...]:
    """``omissions_ok = [{ step = "...", why = "..." }]``: both non-empty, each step once."""
    empty = "must not be empty: name the step as `quizzer check --omissions` does"
    why = "must give the reason the omission is acceptable"
    rows = _declared(r, "omissions_ok", "step", str, lambda step: None if step else empty, why)
    return tuple(OmissionOk(step, reason) for step, reason in rows)


def needs(r: Reader) -> tuple[Need, ...]:
    """``needs = [{ holds = "<expr>", why = "..." }]``: what every draw of the part must satisfy."""
    out = []
    for f, t in r.table_list("needs", NEED_KEYS):
        holds = r.expr(r.get(t, "holds", str, f"{f}.holds"), f"{f}.holds")
        why = r.get(t, "why", str, f"{f}.why").strip()
        if not why:
            raise r.error(f"{f}.why", "must say why the draw needs it (what the text says that needs it)")
        out.append(Need(holds, why))
    return tuple(out)


def same_as_ok(r: Reader, number: int) -> tuple[SameAsOk, ...]:
    """``same_as_ok = [{ part = 1, why = "..." }]``: earlier parts (of the part ``number``) this one may
    equal."""

    def invalid(part: int) -> str | None:
        return None if 1 <= part < number else f"must name an earlier part (1 to {number - 1}), got {part}"

    why = "must say why the two answers may be equal"
    rows = _declared(r, "same_as_ok", "part", int, invalid, why, shown=lambda part: f"part {part}")
    return tuple(SameAsOk(part, reason) for part, reason in rows)


def numbers_ok(r: Reader) -> tuple[NumberOk, ...]:
    """``numbers_ok = [{ number = "2017", why = "..." }]``: numbers the teaching texts may write out."""
    empty = "must not be empty: the number as the text writes it"
    why = "must say why the number is written out (a year, a name, a quoted figure)"
    rows = _declared(r, "numbers_ok", "number", str, lambda number: None if number else empty, why)
    return tuple(NumberOk(number, reason) for number, reason in rows)


__all__ = [
    "FollowUp",
    "Need",
    "NumberOk",
    "OmissionOk",
    "SameAsOk",
    "TextPart",
    "follow_ups",
    "needs",
    "numbers_ok",
    "omissions_ok",
    "same_as_ok",
    "text_parts",
]
