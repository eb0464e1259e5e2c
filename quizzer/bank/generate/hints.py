"""Hints that teach before they tell: the template's nudges, then the derivation, never the final answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.core.trace import Step
from quizzer.grading.grade import is_within

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Part

#: A hint: a nudge (a question, as text) or a step of the derivation.
Hint = str | Step


def formula_nudge(step: Step) -> str:
    """A step as a nudge: what it computes and its formula in words, without a number."""
    return f"{step.label}: {step.formula}"


def hint_steps(question: Part) -> tuple[Hint, ...]:
    """The hints of one part of a question (part 1 of a question of one part), in the order they are given.

    First the template's nudges (texts), then the derivation's steps but the last, then the last step's
    formula in words without its numbers (a text). A step whose value would itself grade correct (the
    answer before a rounding, say) is given as its formula too: no hint prints the final answer.

    >>> from types import SimpleNamespace as NS
    >>> from quizzer.grading.grade import Tolerance
    >>> one = Step("Embedding table", "vocab_size × d_model", "32,000 × 512", 16384000, "params")
    >>> hint_steps(NS(nudges=("Which matrix has a row per token?",), derivation=(one,), value=16384000,
    ...     tolerance=Tolerance("rel", 0.01)))
    ('Which matrix has a row per token?', 'Embedding table: vocab_size × d_model')
    """
    steps = question.derivation
    hints: list[Hint] = list(question.nudges)
    for step in steps[:-1]:
        gives_it = isinstance(step.value, int | float) and is_within(
            step.value, question.value, question.tolerance
        )
        hints.append(formula_nudge(step) if gives_it else step)
    if steps and any(c.isalpha() for c in steps[-1].formula):  # a formula of numbers only would tell
        hints.append(formula_nudge(steps[-1]))
    return tuple(hints)


__all__ = ["Hint", "formula_nudge", "hint_steps"]
