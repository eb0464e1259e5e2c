"""The "Common mistakes" section of a question: its mistakes' titles and feedback, answer values hidden."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quizzer.bank.expr.text import display_scale
from quizzer.bank.generate.prompt_numbers import number_spans
from quizzer.grading.grade import Tolerance, is_within

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance, Part

#: What stands where a number would give an answer away.
HIDDEN = "…"
#: The band within which a number reads as an estimate's answer.
NEAR = Tolerance("rel", 0.05)


def common_mistakes(instance: Instance) -> tuple[tuple[str, str], ...]:
    """(title, feedback) for each mistake of the question and of its parts ("Part 2: " before a part's
    title) that is a slip on this instance (not within the band of the right answer), with every number
    of the feedback that reads as an answer of the chain (within its band, or 5% for an estimate, in any
    unit the text gives it) shown as ``HIDDEN``: a student can read it before answering."""
    questions = instance.parts
    out = []
    for question in questions:
        prefix = f"Part {question.number}: " if instance.part_count > 1 else ""
        for mistake in question.mistakes:
            if is_within(mistake.value, question.value, question.tolerance):
                continue  # the right answer on this instance (batch 1, one token...): no slip here
            out.append((prefix + mistake.title, hide_answers(mistake.feedback, questions)))
    return tuple(out)


def hide_answers(text: str, questions: Sequence[Part]) -> str:
    """``text`` with each number that matches one of the questions' answers replaced by ``HIDDEN``."""
    spans = []
    for question in questions:
        per_unit = display_scale(question.unit, question.display_unit) if question.display_unit else 1
        # an estimate's band (a factor) would hide every small number near it: hide what reads as its answer
        band = NEAR if question.tolerance.kind == "factor" else question.tolerance
        for start, end, values in number_spans(text, per_unit):
            if text[max(start - 1, 0) : start] in ("^", "e") or text[max(start - 2, 0) : start] == "**":
                continue  # an exponent (10^9) is no answer
            if any(v and is_within(v, question.value, band) for v in values):
                spans.append((start, end))
    for start, end in sorted(set(spans), reverse=True):
        text = text[:start] + HIDDEN + text[end:]
    return text


__all__ = ["HIDDEN", "common_mistakes", "hide_answers"]
