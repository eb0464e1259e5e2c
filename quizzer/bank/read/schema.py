"""Template schema: a template is a question of one or more parts, each read and validated by one reader."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import Expr
from quizzer.bank.limits import MAX_PARTS
from quizzer.bank.read import answer_fields as fields
from quizzer.bank.read.answer_fields import ANSWER_KEYS, DEFAULT_TOLERANCE, MISTAKE_KEYS, MistakeSpec
from quizzer.bank.read.reader import Reader
from quizzer.bank.read.texts import (
    FollowUp,
    Need,
    NumberOk,
    OmissionOk,
    SameAsOk,
    TextPart,
    follow_ups,
    needs,
    numbers_ok,
    omissions_ok,
    same_as_ok,
    text_parts,
)
from quizzer.bank.read.variables import PART_NAME_RE, Variable, parse_variables
from quizzer.core.record import Record
from quizzer.grading.grade import Tolerance

DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("exact", "estimate")
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

#: The keys of a template's table (part 1 is written at its top level): True for the required ones.
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
    "needs": False,
    "numbers_ok": False,
    "parts": False,
}
#: The keys of a later part (a ``[[template.parts]]`` table): True for the required ones.
PART_KEYS = {
    "prompt": True,
    "answer": True,
    "explanation": True,
    "tldr": False,
    "nudges": False,
    "variables": False,
    "constraints": False,
    "mistakes": False,
    "carry": False,
    "omissions_ok": False,
    "needs": False,
    "same_as_ok": False,
    "dtype": False,
    "layers": False,
    "layers_label": False,
    "per_layer": False,
}
#: The grading context keys: in part 1's answer table; a later part may give them at its top level instead.
CONTEXT_KEYS = ("dtype", "layers", "layers_label", "per_layer")


class Reference(Record, slots=True):
    title: str
    url: str


class PartSpec(Record, slots=True):
    """One part of a template's question, validated; its expressions are parsed once, here.

    Part 1 is the main question, written at the template's top level; part ``k`` >= 2 is the ``k - 1``-th
    ``[[template.parts]]`` table. A part's expressions may use the variables of the parts up to it (its own
    included, defined before use) and ``part1`` .. ``part{k - 1}``, the true answers of the parts before
    it. ``explanation`` and ``tldr`` hold every text part (joined by blank lines); the ``*_parts`` fields
    keep them with their ``when`` conditions, and an instance shows only those whose condition holds.
    """

    number: int
    prompt: str
    answer: Expr
    unit: str
    tolerance: Tolerance
    display: str | None
    explanation: str
    tldr: str = ""
    variables: tuple[Variable, ...] = ()
    constraints: tuple[Expr, ...] = ()
    mistakes: tuple[MistakeSpec, ...] = ()
    nudges: tuple[str, ...] = ()
    """Questions that point the way without numbers, shown as the first hints."""
    carry: bool = True
    """Also grade against the chain recomputed from the user's own (wrong, non-trivial) earlier answers
    (part 1 has none: False)."""
    explanation_parts: tuple[TextPart, ...] = ()
    tldr_parts: tuple[TextPart, ...] = ()
    dtype: Expr | None = None
    """The dtype the answer counts bytes of; None: the ``dtype`` variable, if any."""
    layers: Expr | None = None
    """The layers a per-layer step is multiplied by; None: the model's layer count."""
    layers_label: str = ""
    """Those layers in words, with placeholders ("the {layers_per_gpu} layers one GPU holds")."""
    per_layer: bool = False
    """The question asks for one layer."""
    omissions_ok: tuple[OmissionOk, ...] = ()
    """Steps the omission lint may find left out without harm, each with the reason."""
    needs: tuple[Need, ...] = ()
    """What every draw must satisfy for the part to make sense (a finding of the check where it does not)."""
    same_as_ok: tuple[SameAsOk, ...] = ()
    """Earlier parts whose answers this part's may equal by design, each with the reason."""

    def field(self, name: str) -> str:
        """``name`` as a problem names it: as written for part 1, under ``parts[i].`` for a later part.

        >>> spec = PartSpec(3, "", Expr("1"), "count", Tolerance("rel", 0.01), None, "")
        >>> spec.field("answer.expr"), spec.replace(number=1).field("answer.expr")
        ('parts[1].answer.expr', 'answer.expr')
        """
        return name if self.number == 1 else f"parts[{self.number - 2}].{name}"

    def context_key(self, key: str) -> str:
        """A grading-context key (one of CONTEXT_KEYS) as named within the part: ``answer.dtype`` in part 1
        (only its answer table takes it), ``dtype`` in a later part (its top level or its answer table)."""
        return f"answer.{key}" if self.number == 1 else key


class Template(Record, slots=True):
    """A validated template: what every instance shares, and its parts (part 1, the main question, first).

    ``memory_aid`` holds every part of its text (joined by blank lines); ``memory_aid_parts`` keeps them
    with their ``when`` conditions. The conventions, memory aid and follow-ups are the template's: they
    are rendered with part 1's names.
    """

    id: str
    title: str
    topic: str
    difficulty: str
    minutes: float
    kind: str
    path: str
    parts: tuple[PartSpec, ...]
    """Part 1 (the main question) first, then the ``[[template.parts]]``: at least one."""
    tags: tuple[str, ...] = ()
    asked_at: tuple[str, ...] = ()
    conventions: tuple[str, ...] = ()
    memory_aid: str = ""
    memory_aid_parts: tuple[TextPart, ...] = ()
    follow_ups: tuple[FollowUp, ...] = ()
    references: tuple[Reference, ...] = ()
    numbers_ok: tuple[NumberOk, ...] = ()
    """Numbers the teaching texts may write out (not computed), each with the reason."""

    @property
    def main(self) -> PartSpec:
        """Part 1: the main question (its variables are the template's, drawn first)."""
        return self.parts[0]

    @property
    def later_parts(self) -> tuple[PartSpec, ...]:
        """The parts after the main question (a chain's follow-ups); () for a question of one part."""
        return self.parts[1:]


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
    title, topic = r.text("title"), r.text("topic")
    main = _part(r, 1, kind, required_tldr=True)
    memory_aid = text_parts(r, "memory_aid", required=False)
    return Template(
        id=tid,
        title=title,
        topic=topic,
        difficulty=difficulty,
        minutes=minutes,
        kind=kind,
        path=path,
        parts=(main, *_later_parts(r, kind)),
        tags=r.texts("tags"),
        asked_at=r.texts("asked_at"),
        conventions=r.texts("conventions"),
        memory_aid=fields.joined(memory_aid),
        memory_aid_parts=memory_aid,
        follow_ups=follow_ups(r),
        references=tuple(
            Reference(r.get(t, "title", str, f"{f}.title"), r.get(t, "url", str, f"{f}.url"))
            for f, t in r.table_list("references", {"title", "url"})
        ),
        numbers_ok=numbers_ok(r),
    )


class _PartReader(Reader):
    """A Reader of one ``[[template.parts]]`` table: every field it names is prefixed with ``parts[i].``."""

    def __init__(self, parent: Reader, raw: Mapping[str, Any], index: int) -> None:
        super().__init__(parent.path, raw, PART_KEYS)
        self.tid = parent.tid
        self.prefix = f"parts[{index}]"

    def error(self, field: str | None, message: str) -> TemplateError:
        return TemplateError(self.path, self.tid, f"{self.prefix}.{field}" if field else self.prefix, message)


def _later_parts(r: Reader, kind: str) -> tuple[PartSpec, ...]:
    """``[[template.parts]]`` of the template ``r`` reads (parts 2, 3, ...)."""
    raw_parts = r.get(r.raw, "parts", list, "parts", required=False, default=[])
    if len(raw_parts) > MAX_PARTS:
        raise r.error(
            "parts", f"{len(raw_parts)} parts; a chain has at most {MAX_PARTS} after the main question"
        )
    out = []
    for index, raw in enumerate(raw_parts):
        if not isinstance(raw, dict):
            raise r.error(
                f"parts[{index}]", f"expected a table ([[template.parts]]), got {type(raw).__name__}"
            )
        part_reader = _PartReader(r, raw, index)
        for key in raw:
            if key not in PART_KEYS and key in TEMPLATE_KEYS:
                raise part_reader.error(
                    key,
                    f"{key!r} is a field of the template, not of a part: in TOML every key after a "
                    "[[template.parts]] header belongs to that part; move it above the template's first "
                    "[table] header",
                )
        part_reader.unknown_keys(raw, PART_KEYS, "")
        out.append(_part(part_reader, index + 2, kind, required_tldr=False))
    return tuple(out)


def _part(r: Reader, number: int, kind: str, *, required_tldr: bool) -> PartSpec:
    """Part ``number`` from the table ``r`` reads (the template's own for part 1); ``kind`` gives the
    default tolerance. The fields are read, and their first problem raised, in the order the file lists."""
    answer = r.get(r.raw, "answer", dict, "answer")
    r.unknown_keys(answer, ANSWER_KEYS, "answer.")
    unit = fields.answer_unit(r, answer)
    context = _context(r, answer, top_level=number > 1)
    explanation = text_parts(r, "explanation", required=True)
    tldr = text_parts(r, "tldr", required=required_tldr)
    prompt = r.text("prompt")
    expr = r.expr(answer.get("expr"), "answer.expr")
    tolerance = fields.tolerance(r, answer.get("tolerance"), kind)
    display = fields.display(r, answer, unit)
    variables = parse_variables(r)
    constraints = tuple(r.expr(c, f"constraints[{i}]") for i, c in enumerate(r.texts("constraints")))
    return PartSpec(
        number=number,
        prompt=prompt,
        answer=expr,
        unit=unit,
        tolerance=tolerance,
        display=display,
        explanation=fields.joined(explanation),
        tldr=fields.joined(tldr),
        variables=variables,
        constraints=constraints,
        mistakes=fields.mistakes(r),
        nudges=fields.nudges(r),
        carry=number > 1 and r.get(r.raw, "carry", bool, "carry", required=False, default=True),
        explanation_parts=explanation,
        tldr_parts=tldr,
        dtype=None if context[0] is None else r.expr(context[0][1], context[0][0]),
        layers=None if context[1] is None else r.expr(context[1][1], context[1][0]),
        layers_label=_typed(r, context[2], str, ""),
        per_layer=_typed(r, context[3], bool, False),
        omissions_ok=omissions_ok(r),
        needs=needs(r),
        same_as_ok=same_as_ok(r, number),
    )


def _context(r: Reader, answer: Mapping[str, Any], *, top_level: bool) -> list[tuple[str, Any] | None]:
    """(field, value) of each of CONTEXT_KEYS: from the answer table, or (``top_level``: a later part) from
    the part's top level, never both."""
    out: list[tuple[str, Any] | None] = []
    for key in CONTEXT_KEYS:
        given = top_level and key in r.raw
        if given and key in answer:
            raise r.error(key, f"given twice, here and as answer.{key}: keep one")
        out.append((key, r.raw[key]) if given else (f"answer.{key}", answer[key]) if key in answer else None)
    return out


def _typed(r: Reader, found: tuple[str, Any] | None, kind: type, default: Any) -> Any:
    if found is None:
        return default
    field, value = found
    return r.get({"value": value}, "value", kind, field)


__all__ = [
    "ANSWER_KEYS",
    "CONTEXT_KEYS",
    "DEFAULT_TOLERANCE",
    "DIFFICULTIES",
    "KINDS",
    "MISTAKE_KEYS",
    "PART_KEYS",
    "PART_NAME_RE",
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
