"""The giveaway lint: a text shown before a part is answered that holds its answer, or a later part's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.giveaway_texts import Shown, shown_texts
from quizzer.bank.generate.common_mistakes import Reader, shown_numbers, verdict
from quizzer.bank.generate.giveaway_numbers import computations, in_unit
from quizzer.core.trace import num

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizzer.bank.generate.instance import Instance, Part
    from quizzer.core.trace import Step

#: How each verdict of a number reads in a finding.
_GRADES = {
    "exact": "grades exact",
    "correct": "grades correct",
    "imprecise": "gives it to the figures written (imprecise only for lack of figures)",
    "complement": "gives it as what is left of 100%",
}


def _fix(shown: Shown, number: int, chain: bool) -> str:
    """What an author does about a finding in ``shown`` that gives part ``number`` away."""
    field = shown.field
    if field.endswith("answer.expr") and shown.answered + 1 == number:
        return (
            "hints give a step whose value grades right as its formula alone, but not the same value in "
            "a unit the grader converts (MACs for FLOPs) or in a later step's numbers: the fix belongs in "
            "bank/generate/hints.py, or a derivation that reaches the answer only at its last step"
        )
    if field.endswith("answer.expr"):
        return (
            "hints show each step of the derivation but the last: compute the later part from a step "
            "the hints do not print, or reorder the parts so that it comes first"
        )
    if field.startswith("nudges[") or ".nudges[" in field:
        return "a nudge points the way without numbers: reword it"
    if field.endswith(("tldr", "explanation")):
        return (
            f"leave part {number}'s number out of this text (part {number}'s own explanation may give "
            "it), or show it only where it is no answer (a `when`)"
        )
    if field.startswith("conventions["):
        return "a convention holds for every draw: give an example that cannot be an answer, or none"
    if chain:
        return (
            f"print it only once part {number} is answered (in a later prompt, through {{part{number}}}), "
            "reword it, or constrain the draw so that it is no answer"
        )
    return "reword it, or constrain the draw so that it is no answer"


class Giveaway(Lint):
    """A text shown before a part is answered (the prompts as `show --no-answer` prints them, the
    conventions, the part's nudges and hints, an earlier part's TL;DR and
    explanation) that holds a number, or a product written out ("12 × 12"), which would grade right as
    that part's answer, in any unit, scale or rounding the grader reads (3 figures or more when rounded).

    A number the part's own question prints from a variable (a given: its prompt, and the conventions for
    part 1) may equal its answer there; the same number in a hint, a nudge or an
    earlier part's summary is a finding. A number that is already an answered part's answer is left to
    the degeneracy lint; a number in a name ("8-bit", "GPT-2", "ViT-B/16") is no number.
    """

    name = "giveaway"
    finds = "a text shown before a part is answered that holds its answer, or a later part's"

    def visit(self, instance: Instance, seed: int) -> None:
        givens = shown_numbers(instance)
        readers = [Reader(part, givens[i], strict=True) for i, part in enumerate(instance.parts)]
        plain = [Reader(part) for part in instance.parts]
        for shown in shown_texts(self.template, instance):
            later = list(zip(instance.parts[shown.answered :], readers[shown.answered :], strict=True))
            for computation in computations(shown.text):
                for question, read in later:
                    if (found := read(computation)) is None:
                        continue
                    if any(earlier(computation) for earlier in plain[: shown.answered]):
                        break  # an answered part's answer: equal answers are the degeneracy lint's
                    stated = {n.key for n in givens[shown.own - 1]} if shown.own is not None else set()
                    if len(computation.numbers) > 1 and all(n.key in stated for n in computation.numbers):
                        break  # the question states it as a computation of its givens ("224 × 224")
                    self._report(
                        shown, shown.text[computation.start : computation.end], question, found, seed
                    )
                    break
            for step in shown.steps:
                self._step(shown, step, later, instance.parts[: shown.answered], seed)

    def _step(
        self, shown: Shown, step: Step, later: list[tuple[Part, Reader]], done: Sequence[Part], seed: int
    ) -> None:
        """Report the first later part whose answer ``step`` (shown by ``shown``) gives, in its unit."""
        for question, read in later:
            value = in_unit(float(step.value), step.unit, question.unit)
            if value is None or (found := read.worked_out(value)) is None:
                continue
            answered = (in_unit(float(step.value), step.unit, p.unit) for p in done)
            if not any(v is not None and verdict(v, None, p) for v, p in zip(answered, done, strict=True)):
                self._report(shown, f"{step.label}: {num(step.value)} {step.unit}", question, found, seed)
            return

    def _report(self, shown: Shown, snippet: str, question: Part, found: str, seed: int) -> None:
        number = question.number
        what = f"part {number}'s answer" if len(self.template.parts) > 1 else "the answer"
        before = f"before part {number} is answered" if len(self.template.parts) > 1 else "before answering"
        self.report(
            shown.part,
            shown.field,
            f"part {number}",
            f"seed {seed}: {shown.where} shows {snippet!r}, which {_GRADES[found]} as {what} "
            f"({question.display}) {before}; {_fix(shown, number, len(self.template.parts) > 1)}",
        )


__all__ = ["Giveaway"]
