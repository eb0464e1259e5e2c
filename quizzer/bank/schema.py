"""Template schema: the records a questions/*.toml file becomes, and their strict validation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from quizzer.bank import answer_fields as fields
from quizzer.bank.answer_fields import ANSWER_KEYS, DEFAULT_TOLERANCE, MISTAKE_KEYS, MistakeSpec
from quizzer.bank.chain_schema import PartSpec, parse_parts
from quizzer.bank.expr import Expr
from quizzer.bank.parts import FollowUp, OmissionOk, TextPart, follow_ups, omissions_ok, text_parts
from quizzer.bank.reader import Reader
from quizzer.bank.variables import Variable, parse_variables
from quizzer.core.record import Record
from quizzer.grading.grade import Tolerance

DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("exact", "estimate")
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
    "parts": False,
}


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
    parts: tuple[PartSpec, ...] = ()
    """A chain's follow-up parts (``[[template.parts]]``): part 2, 3, ...; the main question is part 1."""


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
    unit = fields.answer_unit(r, answer)
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
        tolerance=fields.tolerance(r, answer.get("tolerance"), kind),
        display=fields.display(r, answer, unit),
        explanation=fields.joined(explanation),
        tldr=fields.joined(tldr),
        path=path,
        tags=r.texts("tags"),
        asked_at=r.texts("asked_at"),
        variables=parse_variables(r),
        conventions=r.texts("conventions"),
        constraints=tuple(r.expr(c, f"constraints[{i}]") for i, c in enumerate(r.texts("constraints"))),
        mistakes=fields.mistakes(r),
        memory_aid=fields.joined(memory_aid),
        follow_ups=follow_ups(r),
        references=tuple(
            Reference(r.get(t, "title", str, f"{f}.title"), r.get(t, "url", str, f"{f}.url"))
            for f, t in r.table_list("references", {"title", "url"})
        ),
        nudges=fields.nudges(r),
        explanation_parts=explanation,
        tldr_parts=tldr,
        memory_aid_parts=memory_aid,
        dtype=r.expr(answer["dtype"], "answer.dtype") if "dtype" in answer else None,
        layers=r.expr(answer["layers"], "answer.layers") if "layers" in answer else None,
        layers_label=r.get(answer, "layers_label", str, "answer.layers_label", required=False, default=""),
        per_layer=r.get(answer, "per_layer", bool, "answer.per_layer", required=False, default=False),
        omissions_ok=omissions_ok(r),
        parts=parse_parts(r, kind, TEMPLATE_KEYS),
    )


__all__ = [
    "ANSWER_KEYS",
    "DEFAULT_TOLERANCE",
    "DIFFICULTIES",
    "KINDS",
    "MISTAKE_KEYS",
    "FollowUp",
    "MistakeSpec",
    "OmissionOk",
    "PartSpec",
    "Reference",
    "Template",
    "TextPart",
    "Variable",
    "parse_template",
]
