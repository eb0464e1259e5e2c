"""The giveaway lint: a text shown before a part is answered that holds its answer, or a later part's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.giveaway_texts import Shown, shown_texts
from quizzer.bank.generate.common_mistakes import Reader, shown_numbers
from quizzer.bank.generate.giveaway_numbers import computations

if TYPE_CHECKING:
    from quizzer.bank.generate.giveaway_numbers import Computation
    from quizzer.bank.generate.instance import Instance, Part

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
    if field.startswith("mistakes[") or ".mistakes[" in field:
        return (
            "reword it: the Common mistakes section is read before answering, and its mask hides only "
            "numbers that are answers (not a title, a name, or an answer written in words)"
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
    conventions, the part's nudges and hints, the masked Common mistakes, an earlier part's TL;DR and
    explanation) that holds a number, or a product written out ("12 × 12"), which would grade right as
    that part's answer, in any unit, scale or rounding the grader reads (3 figures or more when rounded).

    A number the part's own question prints from a variable (a given: its prompt, and the conventions for
    part 1) may equal its answer there; the same number in a hint, a nudge, the Common mistakes or an
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
            for computation in computations(shown.text):
                for question, read in zip(
                    instance.parts[shown.answered :], readers[shown.answered :], strict=True
                ):
                    found = read(computation)
                    if found is None:
                        continue
                    if any(earlier(computation) for earlier in plain[: shown.answered]):
                        break  # an answered part's answer: equal answers are the degeneracy lint's
                    stated = {n.key for n in givens[shown.own - 1]} if shown.own is not None else set()
                    if len(computation.numbers) > 1 and all(n.key in stated for n in computation.numbers):
                        break  # the question states it as a computation of its givens ("224 × 224")
                    self._report(shown, computation, question, found, seed)
                    break

    def _report(self, shown: Shown, computation: Computation, question: Part, found: str, seed: int) -> None:
        number = question.number
        snippet = shown.text[computation.start : computation.end]
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
