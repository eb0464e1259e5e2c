"""Turning a template into an instance: draw variables from a seed, compute the answer and its derivation."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from quizzer.bank.derivation import answer_with_derivation, gradable
from quizzer.bank.draw import MAX_ATTEMPTS, draw, draw_variables, n_layers_in
from quizzer.bank.draw import _evaluate as evaluate
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import Budget
from quizzer.bank.limits import MAX_TEXT_CHARS
from quizzer.bank.names import PRESET_FIELDS, TEXT_NAMES, calculators, check_names, variable_names
from quizzer.bank.overrides import parse_override
from quizzer.bank.parts import TextPart
from quizzer.bank.schema import Template
from quizzer.bank.text import (
    TextError,
    TextTooLong,
    answer_display,
    derivation_table,
    display_scale,
    format_value,
    render_text,
)
from quizzer.bank.tolerance import tolerance_text
from quizzer.bank.values import MistakeValue, PartInstance
from quizzer.core.checks import did_you_mean
from quizzer.core.record import Record
from quizzer.core.trace import Step
from quizzer.grading.grade import (
    GradeContext,
    Mistake,
    Tolerance,
    builtin_mistakes,
    needed_figures,
    title_from_name,
)

#: The start of the warning an instance carries for each constraint a user's own numbers break.
OUTSIDE_RANGE = "outside this template's usual range: "


class Instance(Record):
    """One generated question: everything needed to ask it, grade it and explain it.

    ``conventions`` ends with ``tolerance_text``, the generated sentence stating the tolerance.
    """

    id: str
    template_id: str
    seed: int
    title: str
    topic: str
    difficulty: str
    kind: str
    minutes: float
    variables: dict[str, Any]
    prompt: str
    conventions: tuple[str, ...]
    value: int | float
    unit: str
    display: str
    display_unit: str | None
    tolerance: Tolerance
    derivation: tuple[Step, ...]
    explanation: str
    tldr: str
    memory_aid: str
    follow_ups: tuple[tuple[str, str], ...]
    references: tuple[tuple[str, str], ...]
    mistakes: tuple[MistakeValue, ...]
    n_layers: int | None
    nudges: tuple[str, ...] = ()
    """Questions that point the way without numbers: the first hints (see ``hints.hint_steps``)."""
    dtype: str | None = None
    """The dtype the answer counts bytes of (``answer.dtype``, else the ``dtype`` variable)."""
    layers: int | None = None
    """The layers a per-layer step is multiplied by (``answer.layers``, else ``n_layers``)."""
    layers_label: str | None = None
    """Those layers in words, rendered ("the 3 layers one GPU holds"); None: the grader words it."""
    per_layer: bool = False
    """The question asks for one layer."""
    needed_figures: int | None = None
    """The fewest significant figures that tell the answer from this instance's mistakes (None: estimate)."""
    tolerance_text: str = ""
    """The sentence stating the tolerance ("Answers within 1% are correct (give at least ...)")."""
    warnings: tuple[str, ...] = ()
    """One line per constraint a user's own numbers break ("outside this template's usual range: ...")."""
    parts: tuple[PartInstance, ...] = ()
    """The follow-up parts of a chain: part 2 is ``parts[0]`` (this instance is part 1); () for one part."""

    @property
    def part_count(self) -> int:
        """The parts of the question: 1 (this instance) plus its follow-up parts."""
        return 1 + len(self.parts)


def generate(
    template: Template, seed: int, overrides: Mapping[str, Any] | None = None, budget: Budget | None = None
) -> Instance:
    """The instance of ``template`` for ``seed`` (deterministic); ``overrides`` fix some variables.

    Overrides that break a constraint still pose the question, with a warning per broken constraint.
    Raises TemplateError naming the field for anything the template asks that cannot be done: a failed
    evaluation (a calculator refusing the values), a spent ``budget`` (default: ``MAX_EVAL_STEPS``), a
    mistake that is not a number, a value that cannot be shown, a text beyond ``MAX_TEXT_CHARS``.
    """
    budget = budget or Budget()
    given = dict(overrides or {})
    by_name = {v.name: v for v in template.variables}
    for name in given:
        if name not in by_name:
            close = did_you_mean(name, by_name)
            raise TemplateError(template.path, template.id, "variables", f"no variable {name!r}{close}")
    fixed = {name: parse_override(by_name[name], value, template) for name, value in given.items()}
    env, broken = draw(template, random.Random(f"{template.id}#{seed}"), fixed, budget)
    value, derivation = answer_with_derivation(template, env, budget)
    fns = calculators()
    try:
        table = derivation_table(derivation)
    except (ValueError, ArithmeticError) as exc:
        raise TemplateError(template.path, template.id, "answer.expr", f"cannot be shown: {exc}") from None
    shown = {**env, "derivation": table}  # the answer joins it once its figures are known (below)
    formats = {v.name: (v.format, v.unit) for v in template.variables}
    left = [MAX_TEXT_CHARS - len(table)]

    def text(source: str, field: str) -> str:
        try:
            out = render_text(source, shown, formats, left[0])
        except TextTooLong:
            message = (
                f"with placeholders filled in, the texts of one instance pass {MAX_TEXT_CHARS:,} characters"
            )
            raise TemplateError(template.path, template.id, field, message) from None
        except TextError as exc:
            raise TemplateError(template.path, template.id, field, str(exc)) from None
        left[0] -= len(out)
        return out

    def holds(condition: Any, field: str) -> bool:
        return condition is None or bool(evaluate(template, condition, env, fns, field, budget))

    def parts(key: str) -> tuple[str, list[TextPart]]:
        """A field's text from the parts whose condition holds (joined by blank lines), and those parts."""
        chosen: tuple[TextPart, ...] = getattr(template, f"{key}_parts")
        if len(chosen) == 1 and chosen[0].when is None:
            return text(chosen[0].text, key), list(chosen)
        kept = [(i, p) for i, p in enumerate(chosen) if holds(p.when, f"{key}[{i}].when")]
        joined = "\n\n".join(text(p.text, f"{key}[{i}].text").strip("\n") for i, p in kept)
        return joined, [p for _, p in kept]

    chosen = [
        (
            i,
            m,
            gradable(
                template,
                evaluate(template, m.expr, env, fns, f"mistakes[{i}].answer", budget),
                f"mistakes[{i}].answer",
            ),
        )
        for i, m in enumerate(template.mistakes)
        if holds(m.when, f"mistakes[{i}].when")
    ]
    per_unit = _per_unit(template)
    dtype, layers = _dtype(template, env, fns, budget), _layers(template, env, fns, budget)
    layers_label = text(template.layers_label, "answer.layers_label") if template.layers_label else None
    context = GradeContext(template.display, dtype, layers, layers_label, template.per_layer)
    slips = builtin_mistakes(value, template.unit, context, tolerance=template.tolerance)
    own = [Mistake(m.name, v, "", m.title) for _, m, v in chosen]
    figures = needed_figures(value, template.tolerance, [*own, *slips], per_unit=per_unit)
    try:
        shown["answer"] = answer_display(value, template.unit, template.display, figures)
    except (ValueError, ArithmeticError) as exc:
        raise TemplateError(template.path, template.id, "answer.expr", f"cannot be shown: {exc}") from None
    explanation, kept = parts("explanation")
    if not any("{derivation}" in p.text for p in kept):
        explanation = f"{explanation.rstrip()}\n\n{table}"
    mistakes = tuple(
        MistakeValue(
            m.name, v, text(m.feedback, f"mistakes[{i}].feedback"), m.title or title_from_name(m.name)
        )
        for i, m, v in chosen
    )
    stated = tolerance_text(
        template.tolerance,
        kind=template.kind,
        unit=template.unit,
        value=value,
        figures=figures,
        display_unit=template.display,
        per_unit=per_unit,
    )
    conventions = tuple(text(c, f"conventions[{i}]") for i, c in enumerate(template.conventions))
    instance = Instance(
        id=f"{template.id}#{seed}",
        template_id=template.id,
        seed=seed,
        title=template.title,
        topic=template.topic,
        difficulty=template.difficulty,
        kind=template.kind,
        minutes=template.minutes,
        variables={v.name: env[v.name] for v in template.variables},
        prompt=text(template.prompt, "prompt"),
        conventions=(*conventions, stated),
        value=value,
        unit=template.unit,
        display=shown["answer"],
        display_unit=template.display,
        tolerance=template.tolerance,
        derivation=derivation,
        explanation=explanation,
        tldr=parts("tldr")[0],
        memory_aid=parts("memory_aid")[0],
        follow_ups=tuple(
            (text(f.question, f"follow_ups[{i}].question"), text(f.answer, f"follow_ups[{i}].answer"))
            for i, f in enumerate(template.follow_ups)
            if holds(f.when, f"follow_ups[{i}].when")
        ),
        references=tuple((r.title, r.url) for r in template.references),
        mistakes=mistakes,
        n_layers=n_layers_in(env),
        nudges=tuple(text(n, f"nudges[{i}]") for i, n in enumerate(template.nudges)),
        dtype=dtype,
        layers=layers,
        layers_label=layers_label,
        per_layer=template.per_layer,
        needed_figures=figures,
        tolerance_text=stated,
        warnings=tuple(OUTSIDE_RANGE + c.source for c in broken),
    )
    if not template.parts:
        return instance
    from quizzer.bank.parts_render import generate_parts

    return instance.replace(
        parts=generate_parts(template, seed, env, (value, instance.display), budget, left)
    )


def grade_context(instance: Instance | PartInstance) -> GradeContext:
    """What the grader needs to know of an instance beyond its value: the unit a bare number means, the
    dtype, the layers in scope and their name, whether the question asks for one layer."""
    return GradeContext(
        instance.display_unit, instance.dtype, instance.layers, instance.layers_label, instance.per_layer
    )


def _per_unit(template: Template) -> int | float:
    """The size of one display unit in the answer's base unit (1 without a display unit)."""
    if not template.display:
        return 1
    return display_scale(template.unit, template.display)


def _dtype(template: Template, env: Mapping[str, Any], fns: Mapping[str, Any], budget: Budget) -> str | None:
    if template.dtype is None:
        value = env.get("dtype") if any(v.name == "dtype" for v in template.variables) else None
        return value if isinstance(value, str) else None
    value = evaluate(template, template.dtype, env, fns, "answer.dtype", budget)
    if not isinstance(value, str):
        raise TemplateError(template.path, template.id, "answer.dtype", f"gives {value!r}, not a dtype name")
    from quizzer.core.units import DTYPE_BITS

    if value not in DTYPE_BITS:
        message = f"gives {value!r}, not a dtype{did_you_mean(value, DTYPE_BITS)}"
        raise TemplateError(template.path, template.id, "answer.dtype", message)
    return value


def _layers(template: Template, env: Mapping[str, Any], fns: Mapping[str, Any], budget: Budget) -> int | None:
    if template.layers is None:
        return n_layers_in(env)
    value = evaluate(template, template.layers, env, fns, "answer.layers", budget)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TemplateError(
            template.path, template.id, "answer.layers", f"gives {value!r}, not a whole number of layers"
        )
    return value


__all__ = [
    "MAX_ATTEMPTS",
    "OUTSIDE_RANGE",
    "PRESET_FIELDS",
    "TEXT_NAMES",
    "Instance",
    "MistakeValue",
    "PartInstance",
    "answer_with_derivation",
    "calculators",
    "check_names",
    "draw_variables",
    "format_value",
    "generate",
    "gradable",
    "grade_context",
    "parse_override",
    "variable_names",
]
