"""Grading the parts of a chain: against the true earlier values, then against the user's own answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.text import answer_display, display_scale
from quizzer.bank.generate.instance import Instance, Part
from quizzer.bank.generate.prompt_numbers import prompt_numbers
from quizzer.bank.generate.render import grade_context, recompute_part
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.record import Record
from quizzer.grading.carry import trivial
from quizzer.grading.grade import Mistake, Verdict, grade

#: One part of a question (part 1 is the main question): what is asked, graded and explained at a time.
Question = Part
#: Verdict kinds that are right against the true value.
_RIGHT_NOW = ("exact", "correct")


def part_of(instance: Instance, number: int) -> Question:
    """Part ``number`` of ``instance``: 1 is the main question, 2 its first follow-up part, ..."""
    if not 1 <= number <= instance.part_count:
        raise ValueError(f"{instance.id} has no part {number} (it has {instance.part_count})")
    return instance.parts[number - 1]


def grade_question(question: Question, answer: str) -> Verdict:
    """Grade ``answer`` against one part (or a one-part question): its tolerance, its mistakes, then the
    built-in ones that fit it (its dtype, the layers in scope, the unit a bare number means)."""
    mistakes = [Mistake(m.name, m.value, m.feedback, m.title, m.family) for m in question.mistakes]
    return grade(
        answer, question.value, question.unit, question.tolerance, mistakes, context=grade_context(question)
    )


class PartGrade(Record):
    """The grade of one part: the verdict (kind "consistent" when right only against the user's own
    earlier answers) and those answers ({"1": value}) when they were carried."""

    verdict: Verdict
    carried: dict[str, int | float] | None = None


def carried_answers(
    instance: Instance, number: int, earlier: Mapping[int, int | float | None]
) -> dict[int, int | float]:
    """The earlier answers that part ``number`` may be graded against: not the exact value, not trivial.

    ``earlier`` maps a part before ``number`` to the value the user gave it (None: skipped or unread).
    An answer equal to the true value carries nothing; a right one rounded as the user typed it does,
    for a later part it moves (sequences that fit: ⌊free ÷ 6.05 GiB⌋ is 81 where the exact 6.07 GiB gives
    80). A trivial one (0, a number its prompt printed, more than a factor of 100 off:
    ``grading.carry.trivial``) earns no carried credit. The part is graded against the true values first:
    carrying only adds a way to be right.
    """
    out: dict[int, int | float] = {}
    for k, given in sorted(earlier.items()):
        if given is None or not 1 <= k < number:
            continue
        question = part_of(instance, k)
        if given == question.value:
            continue
        per_unit = display_scale(question.unit, question.display_unit) if question.display_unit else 1
        shown = prompt_numbers(_prompt(question), per_unit)
        try:
            if not trivial(float(given), float(question.value), shown):
                out[k] = given
        except OverflowError:  # beyond a float: no honest attempt (the parser never gives one)
            continue
    return out


def _prompt(question: Question) -> str:
    """What the student was shown of the question's own numbers: its prompt. (Not the conventions: their
    general figures, "fp32 4, bf16 2", would make honest answers look copied.)"""
    return question.prompt


def grade_part(
    template: Template | None,
    instance: Instance,
    number: int,
    answer: str,
    earlier: Mapping[int, int | float | None] | None = None,
) -> PartGrade:
    """Grade ``answer`` to part ``number`` of ``instance`` (1 for the main question).

    First against the true value; when that is not right, the part carries (``carry``), ``template`` is
    given and some earlier answer was wrong but not trivial, against the part recomputed from those
    answers: right there is the verdict "consistent", which counts as right. An empty answer is never
    right (the grader reads nothing).
    """
    question = part_of(instance, number)
    verdict = grade_question(question, answer)
    if verdict.kind in _RIGHT_NOW or verdict.kind == "unparsed" or number == 1 or template is None:
        return PartGrade(verdict)
    if not question.carry:
        return PartGrade(verdict)
    given = carried_answers(instance, number, earlier or {})
    if not given:
        return PartGrade(verdict)
    recomputed = recompute_part(template, instance, number, given)
    if recomputed is None:
        return PartGrade(verdict)
    against = grade(answer, recomputed, question.unit, question.tolerance, context=grade_context(question))
    if against.kind not in _RIGHT_NOW:
        return PartGrade(verdict)
    yours = ", ".join(f"part {k} ({_shown(part_of(instance, k), v)})" for k, v in given.items())
    true = question.display
    gives = _shown(question, recomputed)
    reading = against.given.reading if against.given is not None else answer.strip()
    earlier_word = "value" if len(given) == 1 else "values"
    message = (
        f"read as {reading}: consistent with your {yours}, which gives {gives}; right for this part "
        f"(from the true earlier {earlier_word} it is {true})"
    )
    value = against.given.value if against.given is not None else recomputed
    rel_error = abs(value - question.value) / abs(question.value) if question.value else None
    consistent = against.replace(
        kind="consistent", message=message, expected=question.value, summary=message, rel_error=rel_error
    )
    return PartGrade(consistent, {str(k): v for k, v in given.items()})


def _shown(question: Question, value: int | float) -> str:
    """``value`` as the question shows its answer: its display unit, the figures it needs."""
    return answer_display(value, question.unit, question.display_unit, question.needed_figures)


def template_lookup(bank: Bank) -> Callable[[str], Template | None]:
    """The bank's template of an id, None when it is unknown or invalid (carried credit is then off)."""

    def lookup(template_id: str) -> Template | None:
        try:
            return bank.get(template_id)
        except (KeyError, TemplateError):
            return None

    return lookup


__all__ = [
    "PartGrade",
    "Question",
    "carried_answers",
    "grade_part",
    "grade_question",
    "part_of",
    "template_lookup",
]
