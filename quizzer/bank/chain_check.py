"""The authoring check of a chain's parts: each part checked as the main answer is, under ``parts[i].``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from quizzer.bank.draw import expand
from quizzer.bank.errors import TemplateError
from quizzer.bank.schema import Template
from quizzer.bank.tolerance import hand_written_tolerance
from quizzer.bank.variables import Variable
from quizzer.grading.grade import is_within

if TYPE_CHECKING:
    from quizzer.bank.render import Instance


def part_view(template: Template, index: int) -> Template:
    """``template`` as the omission lint sees part ``index + 2`` (``parts[index]``): the part's answer,
    unit, tolerance and ``omissions_ok``; the template's variables, then ``part1``, each earlier part's
    variables and answer, then the part's own variables, in the order they are defined; as its prompt,
    every prompt the student has read by then (the template's and the parts' up to this one), so the
    variables they show are givens.

    An earlier answer (``part1``...) is a number here, never a derived variable: the student is shown its
    true value, so the lint does not look inside it.
    """
    spec = template.parts[index]
    variables: list[Variable] = [*template.variables]
    for earlier in template.parts[: index + 1]:
        variables.append(Variable(f"part{earlier.number - 1}", "range", (1, 1)))
        variables.extend(earlier.variables)
    return template.replace(
        answer=spec.answer,
        unit=spec.unit,
        tolerance=spec.tolerance,
        display=spec.display,
        prompt="\n\n".join([template.prompt, *(p.prompt for p in template.parts[: index + 1])]),
        variables=tuple(variables),
        omissions_ok=spec.omissions_ok,
        mistakes=spec.mistakes,
        constraints=spec.constraints,
        parts=(),
    )


def part_env(template: Template, instance: Instance, index: int) -> dict[str, Any]:
    """The names part ``index + 2`` of ``instance`` is evaluated with: the template's variables, the
    earlier parts' true answers (``part1``...) and variables, and the part's own variables."""
    env: dict[str, Any] = {}
    for var in template.variables:
        expand(var, instance.variables[var.name], env)
    env["part1"] = instance.value
    for spec, part in zip(template.parts[: index + 1], instance.parts, strict=False):
        for var in spec.variables:
            expand(var, part.variables[var.name], env)
        if spec.number < index + 2:
            env[f"part{spec.number}"] = part.value
    return env


def part_text_problems(template: Template) -> list[TemplateError]:
    """A part prompt that states its tolerance by hand: every part states it in a generated sentence."""
    problems = []
    for index, spec in enumerate(template.parts):
        phrase = hand_written_tolerance(spec.prompt)
        if phrase:
            problems.append(
                TemplateError(
                    template.path,
                    template.id,
                    f"parts[{index}].prompt",
                    f"states the tolerance by hand ({phrase!r}); every part is shown with a sentence "
                    "generated from its answer.tolerance: remove it",
                )
            )
    return problems


def check_parts(
    template: Template, instance: Instance, seed: int, seen: set[tuple[str, str]]
) -> list[TemplateError]:
    """The problems of the parts of one instance not yet in ``seen`` (field, what), which is updated: an
    answer that is not finite and positive, a mistake the grader cannot tell from the answer (inside its
    band), a unit that is not the one its calculator returns. Every field starts ``parts[i].``."""
    out: list[TemplateError] = []

    def report(field: str, what: str, message: str) -> None:
        if (field, what) not in seen:
            seen.add((field, what))
            out.append(TemplateError(template.path, template.id, field, message))

    for index, (spec, part) in enumerate(zip(template.parts, instance.parts, strict=False)):
        prefix, value = f"parts[{index}]", part.value
        if not math.isfinite(value) or value <= 0:
            report(
                f"{prefix}.answer.expr",
                "value",
                f"seed {seed}: the answer {value!r} is not finite and positive",
            )
        index_of = {m.name: i for i, m in enumerate(spec.mistakes)}
        for mistake in part.mistakes:
            if is_within(mistake.value, value, part.tolerance):
                report(
                    f"{prefix}.mistakes[{index_of[mistake.name]}].answer",
                    "inside",
                    f"seed {seed}: the mistake gives {mistake.value!r}, inside the tolerance of the answer "
                    f"{value!r}: the grader could never tell them apart",
                )
        last = part.derivation[-1] if part.derivation else None
        if last is not None and last.label != "Answer" and last.unit != spec.unit:
            message = f"is {spec.unit!r} but the calculator returns {str(last.unit)!r}"
            report(f"{prefix}.answer.unit", "unit", message)
    return out


__all__ = ["check_parts", "part_env", "part_text_problems", "part_view"]
