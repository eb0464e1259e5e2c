"""Template schema: the records a questions/*.toml file becomes, and their strict validation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import short_repr
from quizzer.bank.expr import Expr
from quizzer.bank.parts import FollowUp, OmissionOk, TextPart, follow_ups, omissions_ok, text_parts
from quizzer.bank.reader import Reader
from quizzer.bank.variables import Variable, parse_variables
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.units import Unit
from quizzer.grading.grade import Tolerance

DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("exact", "estimate")
#: Default tolerance per kind: 1% for computed values, a factor of 2 for estimates.
DEFAULT_TOLERANCE = {"exact": Tolerance("rel", 0.01), "estimate": Tolerance("factor", 2.0)}
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

TEMPLATE_KEYS = {
    "id": True,
    "title": True,
    "topic": True,
    "difficulty": True,
    "minutes": True,
    "kind": True,
    "prompt": True,
    "answer": True,
    "explanation": True,
    "tldr": True,
    "tags": False,
    "asked_at": False,
    "variables": False,
    "constraints": False,
    "conventions": False,
    "nudges": False,
    "mistakes": False,
    "memory_aid": False,
    "follow_ups": False,
    "references": False,
    "omissions_ok": False,
}
ANSWER_KEYS = {"expr", "unit", "tolerance", "display", "dtype", "layers", "layers_label", "per_layer"}
MISTAKE_KEYS = {"answer", "feedback", "name", "title", "when"}


class MistakeSpec(Record):
    """A known wrong answer (an expression) and the feedback a student who gives it gets."""

    name: str
    expr: Expr
    feedback: str
    when: Expr | None = None
    """Optional condition: the mistake applies only to instances where it holds."""
    title: str = ""
    """A human title ("Untied head left out"); empty: made from the name when an instance is generated."""


class Reference(Record):
    title: str
    url: str


class Template(Record):
    """A validated template; expressions are parsed once, here.

    ``explanation``, ``tldr`` and ``memory_aid`` hold every part of the text (joined by blank lines); the
    ``*_parts`` fields keep the parts with their ``when`` conditions, and an instance shows only the parts
    whose condition holds.
    """

    id: str
    title: str
    topic: str
    difficulty: str
    minutes: float
    kind: str
    prompt: str
    answer: Expr
    unit: str
    tolerance: Tolerance
    display: str | None
    explanation: str
    tldr: str
    path: str
    tags: tuple[str, ...] = ()
    asked_at: tuple[str, ...] = ()
    variables: tuple[Variable, ...] = ()
    constraints: tuple[Expr, ...] = ()
    conventions: tuple[str, ...] = ()
    mistakes: tuple[MistakeSpec, ...] = ()
    memory_aid: str = ""
    follow_ups: tuple[FollowUp, ...] = ()
    references: tuple[Reference, ...] = ()
    nudges: tuple[str, ...] = ()
    """Questions that point the way without numbers, shown as the first hints."""
    explanation_parts: tuple[TextPart, ...] = ()
    tldr_parts: tuple[TextPart, ...] = ()
    memory_aid_parts: tuple[TextPart, ...] = ()
    dtype: Expr | None = None
    """The dtype the answer counts bytes of (``answer.dtype``); None: the ``dtype`` variable, if any."""
    layers: Expr | None = None
    """The layers a per-layer step is multiplied by (``answer.layers``); None: the model's layer count."""
    layers_label: str = ""
    """Those layers in words, with placeholders ("the {layers_per_gpu} layers one GPU holds")."""
    per_layer: bool = False
    """The question asks for one layer."""
    omissions_ok: tuple[OmissionOk, ...] = ()
    """Steps the omission lint may find left out without harm, each with the reason."""


def parse_template(raw: Mapping[str, Any], path: str) -> Template:
    """Validate one raw template table; the first problem raises TemplateError."""
    r = Reader(path, raw, TEMPLATE_KEYS)
    r.unknown_keys(raw, TEMPLATE_KEYS, "")
    tid = r.text("id")
    if not ID_RE.match(tid):
        raise r.error("id", f"{tid!r} must be kebab-case (lower-case letters, digits and single dashes)")
    difficulty, kind = r.text("difficulty"), r.text("kind")
    if difficulty not in DIFFICULTIES:
        raise r.error("difficulty", f"{difficulty!r} must be one of {', '.join(DIFFICULTIES)}")
    if kind not in KINDS:
        raise r.error("kind", f"{kind!r} must be one of {', '.join(KINDS)}")
    minutes = r.get(raw, "minutes", (int, float), "minutes")
    if not 0 < minutes <= 120:
        raise r.error("minutes", f"{minutes!r} must be between 0 and 120")
    answer = r.get(raw, "answer", dict, "answer")
    r.unknown_keys(answer, ANSWER_KEYS, "answer.")
    unit = r.get(answer, "unit", str, "answer.unit")
    if unit not in {u.value for u in Unit}:
        raise r.error("answer.unit", f"{unit!r} is not a unit; one of: {', '.join(u.value for u in Unit)}")
    explanation = text_parts(r, "explanation", required=True)
    tldr = text_parts(r, "tldr", required=True)
    memory_aid = text_parts(r, "memory_aid", required=False)
    return Template(
        id=tid,
        title=r.text("title"),
        topic=r.text("topic"),
        difficulty=difficulty,
        minutes=minutes,
        kind=kind,
        prompt=r.text("prompt"),
        answer=r.expr(answer.get("expr"), "answer.expr"),
        unit=unit,
        tolerance=_tolerance(r, answer.get("tolerance"), kind),
        display=_display(r, answer, unit),
        explanation=_joined(explanation),
        tldr=_joined(tldr),
        path=path,
        tags=r.texts("tags"),
        asked_at=r.texts("asked_at"),
        variables=parse_variables(r),
        conventions=r.texts("conventions"),
        constraints=tuple(r.expr(c, f"constraints[{i}]") for i, c in enumerate(r.texts("constraints"))),
        mistakes=_mistakes(r),
        memory_aid=_joined(memory_aid),
        follow_ups=follow_ups(r),
        references=tuple(
            Reference(r.get(t, "title", str, f"{f}.title"), r.get(t, "url", str, f"{f}.url"))
            for f, t in r.table_list("references", {"title", "url"})
        ),
        nudges=_nudges(r),
        explanation_parts=explanation,
        tldr_parts=tldr,
        memory_aid_parts=memory_aid,
        dtype=r.expr(answer["dtype"], "answer.dtype") if "dtype" in answer else None,
        layers=r.expr(answer["layers"], "answer.layers") if "layers" in answer else None,
        layers_label=r.get(answer, "layers_label", str, "answer.layers_label", required=False, default=""),
        per_layer=r.get(answer, "per_layer", bool, "answer.per_layer", required=False, default=False),
        omissions_ok=omissions_ok(r),
    )


def _joined(parts: tuple[TextPart, ...]) -> str:
    return "\n\n".join(p.text.strip("\n") for p in parts) if len(parts) != 1 else parts[0].text


def _nudges(r: Reader) -> tuple[str, ...]:
    nudges = r.texts("nudges")
    for i, nudge in enumerate(nudges):
        if not nudge.strip():
            raise r.error(f"nudges[{i}]", "must not be empty")
    return nudges


def _mistakes(r: Reader) -> tuple[MistakeSpec, ...]:
    mistakes = tuple(
        MistakeSpec(
            name=r.get(m, "name", str, f"{f}.name", required=False, default=f"mistake-{i + 1}"),
            expr=r.expr(m.get("answer"), f"{f}.answer"),
            feedback=r.get(m, "feedback", str, f"{f}.feedback"),
            when=r.expr(m["when"], f"{f}.when") if "when" in m else None,
            title=_title(r, m, f),
        )
        for i, (f, m) in enumerate(r.table_list("mistakes", MISTAKE_KEYS))
    )
    seen: set[str] = set()
    for i, mistake in enumerate(mistakes):
        if mistake.name in seen:
            raise r.error(f"mistakes[{i}].name", f"{mistake.name!r} is used twice; mistake names are unique")
        seen.add(mistake.name)
    return mistakes


def _title(r: Reader, mistake: Mapping[str, Any], field: str) -> str:
    title = r.get(mistake, "title", str, f"{field}.title", required=False, default="")
    if "title" in mistake and not title.strip():
        raise r.error(f"{field}.title", "must not be empty (leave the key out to make it from the name)")
    if "\n" in title or len(title) > 80:
        raise r.error(f"{field}.title", "a title is one short line (at most 80 characters)")
    return title.strip()


def _display(r: Reader, answer: Mapping[str, Any], unit: str) -> str | None:
    """The display unit, checked now: the answer is shown and answers are read in it."""
    display = r.get(answer, "display", str, "answer.display", required=False)
    if display is None:
        return None
    from quizzer.grading.parse import parse_answer

    try:
        scale = parse_answer(f"1 {display}", unit).value
    except (QuizzerError, ValueError, ArithmeticError) as exc:
        raise r.error("answer.display", f"{display!r} cannot be read as a unit of {unit!r}: {exc}") from None
    if not 0 < scale < float("inf"):
        raise r.error("answer.display", f"{display!r} is not a positive size of {unit!r}")
    return display


def _tolerance(r: Reader, raw: Any, kind: str) -> Tolerance:
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
    "DEFAULT_TOLERANCE",
    "DIFFICULTIES",
    "KINDS",
    "FollowUp",
    "MistakeSpec",
    "OmissionOk",
    "Reference",
    "Template",
    "TextPart",
    "Variable",
    "parse_template",
]
