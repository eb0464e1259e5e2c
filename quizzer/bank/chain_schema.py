"""``[[template.parts]]``: the follow-up questions of a chain (parts 2, 3, ...), read and validated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzer.bank import answer_fields as fields
from quizzer.bank.answer_fields import ANSWER_KEYS, MistakeSpec
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import Expr
from quizzer.bank.limits import MAX_PARTS
from quizzer.bank.parts import OmissionOk, TextPart, omissions_ok, text_parts
from quizzer.bank.reader import Reader
from quizzer.bank.variables import PART_NAME_RE, Variable, parse_variables
from quizzer.core.record import Record
from quizzer.grading.grade import Tolerance

#: The keys of one part: True for the required ones.
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
    "dtype": False,
    "layers": False,
    "layers_label": False,
    "per_layer": False,
}
#: The grading context keys a part may give at its top level or in its answer table (not both).
CONTEXT_KEYS = ("dtype", "layers", "layers_label", "per_layer")


class PartSpec(Record):
    """One follow-up part of a chain: ``number`` 2 for the first ``[[template.parts]]``, then 3, ...

    Its expressions may use the template's variables, the variables of the parts before it and its own,
    and ``part1`` .. ``part{number - 1}`` (the true answers of the earlier parts).
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
    carry: bool = True
    """Also grade against the chain recomputed from the user's own (wrong, non-trivial) earlier answers."""
    explanation_parts: tuple[TextPart, ...] = ()
    tldr_parts: tuple[TextPart, ...] = ()
    dtype: Expr | None = None
    layers: Expr | None = None
    layers_label: str = ""
    per_layer: bool = False
    omissions_ok: tuple[OmissionOk, ...] = ()


class _PartReader(Reader):
    """A Reader of one part table: every field it names is prefixed with ``parts[i].``."""

    def __init__(self, parent: Reader, raw: Mapping[str, Any], index: int) -> None:
        super().__init__(parent.path, raw, PART_KEYS)
        self.tid = parent.tid
        self.prefix = f"parts[{index}]"

    def error(self, field: str | None, message: str) -> TemplateError:
        return TemplateError(self.path, self.tid, f"{self.prefix}.{field}" if field else self.prefix, message)


def parse_parts(r: Reader, kind: str, template_keys: Mapping[str, bool]) -> tuple[PartSpec, ...]:
    """``[[template.parts]]`` of the template ``r`` reads; ``kind`` gives the default tolerance."""
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
        out.append(_part(_PartReader(r, raw, index), index, kind, template_keys))
    return tuple(out)


def _part(r: _PartReader, index: int, kind: str, template_keys: Mapping[str, bool]) -> PartSpec:
    for key in r.raw:
        if key not in PART_KEYS and key in template_keys:
            raise r.error(
                key,
                f"{key!r} is a field of the template, not of a part: in TOML every key after a "
                "[[template.parts]] header belongs to that part; move it above the template's first "
                "[table] header",
            )
    r.unknown_keys(r.raw, PART_KEYS, "")
    answer = r.get(r.raw, "answer", dict, "answer")
    r.unknown_keys(answer, ANSWER_KEYS, "answer.")
    unit = fields.answer_unit(r, answer)
    context = _context(r, answer)
    explanation = text_parts(r, "explanation", required=True)
    tldr = text_parts(r, "tldr", required=False)
    prompt = r.text("prompt")
    return PartSpec(
        number=index + 2,
        prompt=prompt,
        answer=r.expr(answer.get("expr"), "answer.expr"),
        unit=unit,
        tolerance=fields.tolerance(r, answer.get("tolerance"), kind),
        display=fields.display(r, answer, unit),
        explanation=fields.joined(explanation),
        tldr=fields.joined(tldr),
        variables=parse_variables(r),
        constraints=tuple(r.expr(c, f"constraints[{i}]") for i, c in enumerate(r.texts("constraints"))),
        mistakes=fields.mistakes(r),
        nudges=fields.nudges(r),
        carry=r.get(r.raw, "carry", bool, "carry", required=False, default=True),
        explanation_parts=explanation,
        tldr_parts=tldr,
        dtype=None if context[0] is None else r.expr(context[0][1], context[0][0]),
        layers=None if context[1] is None else r.expr(context[1][1], context[1][0]),
        layers_label=_typed(r, context[2], str, ""),
        per_layer=_typed(r, context[3], bool, False),
        omissions_ok=omissions_ok(r),
    )


def _context(r: Reader, answer: Mapping[str, Any]) -> list[tuple[str, Any] | None]:
    """(field, value) of each of CONTEXT_KEYS, from the part's top level or its answer table."""
    out: list[tuple[str, Any] | None] = []
    for key in CONTEXT_KEYS:
        if key in r.raw and key in answer:
            raise r.error(key, f"given twice, here and as answer.{key}: keep one")
        out.append(
            (key, r.raw[key]) if key in r.raw else (f"answer.{key}", answer[key]) if key in answer else None
        )
    return out


def _typed(r: Reader, found: tuple[str, Any] | None, kind: type, default: Any) -> Any:
    if found is None:
        return default
    field, value = found
    return r.get({"value": value}, "value", kind, field)


__all__ = ["CONTEXT_KEYS", "PART_KEYS", "PART_NAME_RE", "PartSpec", "parse_parts"]
