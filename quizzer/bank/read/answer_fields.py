"""The fields a template's answer and each part's answer share: unit, tolerance, display, mistakes, nudges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import short_repr
from quizzer.bank.expr.expression import Expr
from quizzer.bank.read.reader import Reader
from quizzer.bank.read.texts import TextPart
from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.units import Unit
from quizzer.grading.grade import Tolerance
from quizzer.grading.slip_families import FAMILIES

#: Default tolerance per kind: 1% for computed values, a factor of 2 for estimates.
DEFAULT_TOLERANCE = {"exact": Tolerance("rel", 0.01), "estimate": Tolerance("factor", 2.0)}
ANSWER_KEYS = {"expr", "unit", "tolerance", "display", "dtype", "layers", "layers_label", "per_layer"}
MISTAKE_KEYS = {"answer", "family", "feedback", "name", "title", "when"}


class MistakeSpec(Record, slots=True):
    """A known wrong answer (an expression) and the feedback a student who gives it gets."""

    name: str
    expr: Expr
    feedback: str
    when: Expr | None = None
    """Optional condition: the mistake applies only to instances where it holds."""
    title: str = ""
    """A human title ("Untied head left out"); empty: made from the name when an instance is generated."""
    family: str = ""
    """The classic slip family it is (``quizzer.grading.slip_families.FAMILIES``: "kv-pair", "dtype",
    ...), or "own": a slip of this template's own; "" when the template does not say (counted as "own"; the
    slips lint asks for a family when the mistake gives a family's value on every instance)."""


def answer_unit(r: Reader, answer: Mapping[str, Any]) -> str:
    """``answer.unit``: one of the base units."""
    unit = r.get(answer, "unit", str, "answer.unit")
    if unit not in {u.value for u in Unit}:
        raise r.error("answer.unit", f"{unit!r} is not a unit; one of: {', '.join(u.value for u in Unit)}")
    return unit


def joined(parts: tuple[TextPart, ...]) -> str:
    """Every part of a text, joined by blank lines (the one part as written when there is one)."""
    return "\n\n".join(p.text.strip("\n") for p in parts) if len(parts) != 1 else parts[0].text


def nudges(r: Reader) -> tuple[str, ...]:
    """``nudges``: a list of non-empty texts."""
    found = r.texts("nudges")
    for i, nudge in enumerate(found):
        if not nudge.strip():
            raise r.error(f"nudges[{i}]", "must not be empty")
    return found


def mistakes(r: Reader) -> tuple[MistakeSpec, ...]:
    """``[[...mistakes]]`` with ``answer``, ``feedback`` and optional ``name``, ``title``, ``when``,
    ``family``."""
    found = tuple(
        MistakeSpec(
            name=r.get(m, "name", str, f"{f}.name", required=False, default=f"mistake-{i + 1}"),
            expr=r.expr(m.get("answer"), f"{f}.answer"),
            feedback=r.get(m, "feedback", str, f"{f}.feedback"),
            when=r.expr(m["when"], f"{f}.when") if "when" in m else None,
            title=_title(r, m, f),
            family=_family(r, m, f),
        )
        for i, (f, m) in enumerate(r.table_list("mistakes", MISTAKE_KEYS))
    )
    seen: set[str] = set()
    for i, mistake in enumerate(found):
        if mistake.name in seen:
            raise r.error(f"mistakes[{i}].name", f"{mistake.name!r} is used twice; mistake names are unique")
        seen.add(mistake.name)
    return found


def _family(r: Reader, mistake: Mapping[str, Any], field: str) -> str:
    """``family``: one of the slip families (``FAMILIES``, "own" included), "" when left out."""
    family = r.get(mistake, "family", str, f"{field}.family", required=False, default="")
    if "family" in mistake and family not in FAMILIES:
        close = did_you_mean(family, FAMILIES) if len(family) <= 40 else ""
        message = f"{short_repr(family)} is not a slip family{close}; one of: {', '.join(FAMILIES)}"
        raise r.error(f"{field}.family", message)
    return family


def _title(r: Reader, mistake: Mapping[str, Any], field: str) -> str:
    title = r.get(mistake, "title", str, f"{field}.title", required=False, default="")
    if "title" in mistake and not title.strip():
        raise r.error(f"{field}.title", "must not be empty (leave the key out to make it from the name)")
    if "\n" in title or len(title) > 80:
        raise r.error(f"{field}.title", "a title is one short line (at most 80 characters)")
    return title.strip()


def display(r: Reader, answer: Mapping[str, Any], unit: str) -> str | None:
    """The display unit, checked now: the answer is shown and answers are read in it."""
    shown = r.get(answer, "display", str, "answer.display", required=False)
    if shown is None:
        return None
    from quizzer.grading.parse import parse_answer

    try:
        scale = parse_answer(f"1 {shown}", unit).value
    except (QuizzerError, ValueError, ArithmeticError) as exc:
        raise r.error("answer.display", f"{shown!r} cannot be read as a unit of {unit!r}: {exc}") from None
    if not 0 < scale < float("inf"):
        raise r.error("answer.display", f"{shown!r} is not a positive size of {unit!r}")
    return shown


def tolerance(r: Reader, raw: Any, kind: str) -> Tolerance:
    """``answer.tolerance``: one of rel, abs, factor (a factor for an estimate); the kind's default."""
    if raw is None:
        return DEFAULT_TOLERANCE[kind]
    if not isinstance(raw, dict) or len(raw) != 1:
        raise r.error("answer.tolerance", "expected a table with exactly one of rel, abs, factor")
    ((key, value),) = raw.items()
    if key not in ("rel", "abs", "factor"):
        raise r.error(f"answer.tolerance.{key}", "unknown key; expected one of: abs, factor, rel")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.error(f"answer.tolerance.{key}", f"expected a number, got {short_repr(value)}")
    if kind == "estimate" and key != "factor":
        raise r.error("answer.tolerance", "an estimate is graded by a factor: use { factor = 2 } or similar")
    try:
        return Tolerance(key, float(value))
    except (ValueError, OverflowError) as exc:
        raise r.error(f"answer.tolerance.{key}", str(exc)) from None


__all__ = [
    "ANSWER_KEYS",
    "DEFAULT_TOLERANCE",
    "MISTAKE_KEYS",
    "MistakeSpec",
    "answer_unit",
    "display",
    "joined",
    "mistakes",
    "nudges",
    "tolerance",
]
