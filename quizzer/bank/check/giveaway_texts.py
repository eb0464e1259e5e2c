"""What a student reads before each part of a question is answered: the texts the giveaway lint reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from quizzer.bank.expr.text import derivation_table
from quizzer.bank.generate.giveaway_numbers import computations
from quizzer.bank.generate.hints import hint_steps
from quizzer.core.trace import Step, num

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import PartSpec, Template


class Shown(NamedTuple):
    """One text a student reads: the field it comes from (of ``part``; None: of the template), where it is
    shown in words, the text as shown, how many parts are answered when it is, and the part whose own
    question it states (its givens may be that part's answer: the answer equals a given), if any."""

    part: PartSpec | None
    field: str
    where: str
    text: str
    answered: int
    own: int | None = None
    steps: tuple[Step, ...] = ()
    """Derivation steps it shows (a hint, a derivation table), read by their values and units."""


def step_inputs(step: Step, derivation: tuple[Step, ...]) -> list[Step]:
    """The steps of ``derivation`` whose values ``step`` puts into its formula (a hint prints them even
    where the step itself is given as its formula alone)."""
    numbers = {n.digits for c in computations(step.substituted) for n in c.numbers}
    return [s for s in derivation[:-1] if s is not step and num(s.value) in numbers]  # the last: answer


def shown_texts(template: Template, instance: Instance) -> Iterator[Shown]:
    """Every text shown before some part is answered, with when it is shown."""
    main, chain = template.main, instance.part_count > 1
    yield Shown(main, "prompt", "the prompt", instance.prompt, 0, 1)
    for i, convention in enumerate(instance.conventions[: len(template.conventions)]):
        yield Shown(None, f"conventions[{i}]", f"convention {i + 1}", convention, 0, 1)
    for spec, part in zip(template.later_parts, instance.later_parts, strict=True):
        where = f"part {spec.number}'s prompt as `show --no-answer` prints it"
        yield Shown(spec, "prompt", where, part.masked_prompt, 0, spec.number)
    for spec, part in zip(template.parts, instance.parts, strict=True):
        of_part = f" of part {spec.number}" if chain else ""
        for i, nudge in enumerate(part.nudges):
            yield Shown(spec, f"nudges[{i}]", f"nudge {i + 1}{of_part}", nudge, spec.number - 1)
        for i, hint in enumerate(hint_steps(part)[len(part.nudges) :], len(part.nudges) + 1):
            where = f"hint {i}{of_part} (its derivation)"
            if isinstance(hint, str):
                yield Shown(spec, "answer.expr", where, hint, spec.number - 1)
            else:  # its label and formula, and the values of the steps its numbers come from, by unit
                text = f"{hint.label}: {hint.formula}"
                steps = (hint, *step_inputs(hint, part.derivation))
                yield Shown(spec, "answer.expr", where, text, spec.number - 1, steps=steps)
    if not chain:
        return
    first = instance.main
    yield Shown(main, "tldr", "part 1's TL;DR, shown once part 1 is answered", first.tldr, 1)
    for spec, part in zip(template.later_parts[:-1], instance.later_parts[:-1], strict=True):
        where = f"part {spec.number}'s explanation, shown once part {spec.number} is answered"
        prose = part.explanation.replace(derivation_table(part.derivation), "")  # its rows: by their units
        yield Shown(spec, "explanation", where, prose, spec.number, steps=part.derivation)
        if part.tldr:
            where = f"part {spec.number}'s TL;DR, shown once part {spec.number} is answered"
            yield Shown(spec, "tldr", where, part.tldr, spec.number)


__all__ = ["Shown", "shown_texts", "step_inputs"]
