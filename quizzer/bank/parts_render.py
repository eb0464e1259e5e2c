"""A chain's follow-up parts for one instance: their draws, answers, derivations, mistakes and texts."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from quizzer.bank.derivation import derive, gradable, variable_labels
from quizzer.bank.draw import MAX_ATTEMPTS, draw_value, expand, n_layers_in
from quizzer.bank.draw import _evaluate as evaluate
from quizzer.bank.errors import PartError, TemplateError
from quizzer.bank.expr import Budget, Expr, plain
from quizzer.bank.limits import MAX_TEXT_CHARS
from quizzer.bank.names import calculators
from quizzer.bank.parts import TextPart
from quizzer.bank.schema import PartSpec, Template
from quizzer.bank.text import (
    TextError,
    TextTooLong,
    answer_display,
    derivation_table,
    display_scale,
    render_text,
)
from quizzer.bank.tolerance import tolerance_text
from quizzer.bank.values import MistakeValue, PartInstance
from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.grading.grade import GradeContext, Mistake, builtin_mistakes, needed_figures, title_from_name

if TYPE_CHECKING:
    from quizzer.bank.render import Instance

#: ``{part1}`` with no style: shown as that part's answer in its display form.
_ANSWER_RE = re.compile(r"(?<!\{)\{(part[0-9]+)\}(?!\})")
#: ``{part1}`` or ``{part1:style}``: hidden in a masked prompt.
_ANY_ANSWER_RE = re.compile(r"(?<!\{)\{part([0-9]+)(?::[a-z-]+(?:\([^{}()\n]*\))?)?\}(?!\})")


def masked(text: str) -> str:
    """``text`` with each ``{partK}`` placeholder (any style) as "(your answer to part K)".

    >>> masked("With {part1} per sequence and {part2:si} sequences")
    'With (your answer to part 1) per sequence and (your answer to part 2) sequences'
    """
    return _ANY_ANSWER_RE.sub(lambda m: f"(your answer to part {m.group(1)})", text)


def generate_parts(
    template: Template,
    seed: int,
    env: Mapping[str, Any],
    answer: tuple[int | float, str],
    budget: Budget,
    left: list[int],
) -> tuple[PartInstance, ...]:
    """The parts of the instance ``template#seed`` whose variables are ``env`` and whose main answer is
    ``answer`` (value, display); ``budget`` and ``left`` (text characters) are the instance's.

    Part ``k`` draws its variables from ``random.Random(f"{id}#{seed}#part{k}")`` until its constraints
    hold, after the main question's: adding a part never changes an earlier number.
    """
    if not template.parts:
        return ()
    env = {**env, "part1": answer[0]}
    displays = {"part1": answer[1]}
    formats = {v.name: (v.format, v.unit) for v in template.variables}
    labels = {**variable_labels(template), "part1": "part 1"}
    out = []
    for index, spec in enumerate(template.parts):
        rng = random.Random(f"{template.id}#{seed}#part{spec.number}")
        own = _draw(template, spec, index, rng, env, budget)
        formats.update({v.name: (v.format, v.unit) for v in spec.variables})
        labels.update({v.name: v.label for v in spec.variables if v.label})
        part = _Renderer(template, spec, index, env, displays, formats, budget, left).render(own, labels)
        out.append(part)
        env[f"part{spec.number}"] = part.value
        displays[f"part{spec.number}"] = part.display
        labels[f"part{spec.number}"] = f"part {spec.number}"
    return tuple(out)


def _draw(
    template: Template, spec: PartSpec, index: int, rng: random.Random, env: dict[str, Any], budget: Budget
) -> dict[str, Any]:
    """Draw the part's variables into ``env`` until its constraints hold; its own variables by name."""
    fns, prefix = calculators(), f"parts[{index}]"
    drawn = any(v.expr is None for v in spec.variables)
    failed: Expr | None = None
    for _ in range(MAX_ATTEMPTS if drawn else 1):
        trial = dict(env)
        for var in spec.variables:
            if var.expr is not None:
                value = evaluate(
                    template, var.expr, trial, fns, f"{prefix}.variables.{var.name}.expr", budget
                )
            else:
                value = draw_value(var, rng)
            expand(var, value, trial)
        failed = next(
            (
                c
                for i, c in enumerate(spec.constraints)
                if not evaluate(template, c, trial, fns, f"{prefix}.constraints[{i}]", budget)
            ),
            None,
        )
        if failed is None:
            env.update(trial)
            return {v.name: trial[v.name] for v in spec.variables}
    message = (
        f"no draw in {MAX_ATTEMPTS} satisfied every constraint"
        if drawn
        else f"the constraint {failed.source if failed else ''!r} fails and the part draws nothing to change"
    )
    raise TemplateError(template.path, template.id, f"{prefix}.constraints", message)


class _Renderer:
    """Renders one part: its answer and derivation, mistakes, figures, tolerance sentence and texts."""

    def __init__(
        self,
        template: Template,
        spec: PartSpec,
        index: int,
        env: Mapping[str, Any],
        displays: Mapping[str, str],
        formats: Mapping[str, tuple[str | None, str | None]],
        budget: Budget,
        left: list[int],
    ) -> None:
        self.template, self.spec, self.env, self.displays = template, spec, env, displays
        self.formats, self.budget, self.left = formats, budget, left
        self.prefix = f"parts[{index}]"
        self.fns = calculators()
        self.shown: dict[str, Any] = dict(env)

    def fail(self, field: str, message: str) -> TemplateError:
        return TemplateError(self.template.path, self.template.id, f"{self.prefix}.{field}", message)

    def value(self, expr: Expr, field: str) -> Any:
        return evaluate(self.template, expr, self.env, self.fns, f"{self.prefix}.{field}", self.budget)

    def text(self, source: str, field: str, hide: bool = False) -> str:
        if hide:
            source = masked(source)
        source = _ANSWER_RE.sub(lambda m: self.displays[m.group(1)], source)
        try:
            out = render_text(source, self.shown, self.formats, self.left[0])
        except TextTooLong:
            message = (
                f"with placeholders filled in, the texts of one instance pass {MAX_TEXT_CHARS:,} characters"
            )
            raise self.fail(field, message) from None
        except TextError as exc:
            raise self.fail(field, str(exc)) from None
        self.left[0] -= len(out)
        return out

    def holds(self, condition: Expr | None, field: str) -> bool:
        return condition is None or bool(self.value(condition, field))

    def joined(self, key: str) -> tuple[str, list[TextPart]]:
        chosen: tuple[TextPart, ...] = getattr(self.spec, f"{key}_parts")
        if len(chosen) == 1 and chosen[0].when is None:
            return self.text(chosen[0].text, key), list(chosen)
        kept = [(i, p) for i, p in enumerate(chosen) if self.holds(p.when, f"{key}[{i}].when")]
        return "\n\n".join(self.text(p.text, f"{key}[{i}].text").strip("\n") for i, p in kept), [
            p for _, p in kept
        ]

    def render(self, own: dict[str, Any], labels: Mapping[str, str]) -> PartInstance:
        spec, template = self.spec, self.template
        field = f"{self.prefix}.answer.expr"
        value, derivation = derive(template, spec.answer, spec.unit, self.env, labels, field, self.budget)
        try:
            table = derivation_table(derivation)
        except (ValueError, ArithmeticError) as exc:
            raise self.fail("answer.expr", f"cannot be shown: {exc}") from None
        self.shown["derivation"] = table
        self.left[0] -= len(table)
        chosen = [
            (
                i,
                m,
                gradable(
                    template,
                    self.value(m.expr, f"mistakes[{i}].answer"),
                    f"{self.prefix}.mistakes[{i}].answer",
                ),
            )
            for i, m in enumerate(spec.mistakes)
            if self.holds(m.when, f"mistakes[{i}].when")
        ]
        dtype, layers = self.dtype(), self.layers()
        layers_label = self.text(spec.layers_label, "layers_label") if spec.layers_label else None
        per_unit = display_scale(spec.unit, spec.display) if spec.display else 1
        context = GradeContext(spec.display, dtype, layers, layers_label, spec.per_layer)
        slips = builtin_mistakes(value, spec.unit, context, tolerance=spec.tolerance)
        figures = needed_figures(
            value,
            spec.tolerance,
            [*(Mistake(m.name, v, "", m.title) for _, m, v in chosen), *slips],
            per_unit=per_unit,
        )
        try:
            self.shown["answer"] = answer_display(value, spec.unit, spec.display, figures)
        except (ValueError, ArithmeticError) as exc:
            raise self.fail("answer.expr", f"cannot be shown: {exc}") from None
        explanation, kept = self.joined("explanation")
        if not any("{derivation}" in p.text for p in kept):
            explanation = f"{explanation.rstrip()}\n\n{table}"
        mistakes = tuple(
            MistakeValue(
                m.name,
                v,
                self.text(m.feedback, f"mistakes[{i}].feedback"),
                m.title or title_from_name(m.name),
            )
            for i, m, v in chosen
        )
        stated = tolerance_text(
            spec.tolerance,
            kind=template.kind,
            unit=spec.unit,
            value=value,
            figures=figures,
            display_unit=spec.display,
            per_unit=per_unit,
        )
        return PartInstance(
            number=spec.number,
            prompt=self.text(spec.prompt, "prompt"),
            value=value,
            unit=spec.unit,
            display=self.shown["answer"],
            display_unit=spec.display,
            tolerance=spec.tolerance,
            tolerance_text=stated,
            needed_figures=figures,
            mistakes=mistakes,
            derivation=derivation,
            explanation=explanation,
            tldr=self.joined("tldr")[0] if spec.tldr_parts else "",
            nudges=tuple(self.text(n, f"nudges[{i}]") for i, n in enumerate(spec.nudges)),
            carry=spec.carry,
            variables=own,
            dtype=dtype,
            layers=layers,
            layers_label=layers_label,
            per_layer=spec.per_layer,
            masked_prompt=self.text(spec.prompt, "prompt", hide=True),
        )

    def dtype(self) -> str | None:
        if self.spec.dtype is None:
            value = self.env.get("dtype")
            return value if isinstance(value, str) else None
        value = self.value(self.spec.dtype, "dtype")
        from quizzer.core.units import DTYPE_BITS

        if not isinstance(value, str) or value not in DTYPE_BITS:
            close = did_you_mean(value, DTYPE_BITS) if isinstance(value, str) else ""
            raise self.fail("dtype", f"gives {value!r}, not a dtype{close}")
        return value

    def layers(self) -> int | None:
        if self.spec.layers is None:
            return n_layers_in(self.env)
        value = self.value(self.spec.layers, "layers")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail("layers", f"gives {value!r}, not a whole number of layers")
        return value


def recompute_part(
    template: Template, instance: Instance, number: int, given: Mapping[int, int | float]
) -> int | float | None:
    """Part ``number``'s answer with ``part{k}`` replaced by ``given[k]`` for each earlier part k in
    ``given`` (the other earlier parts keep their true values); deterministic.

    The part variables keep the values the instance drew (a constraint the given values break is not
    re-checked and nothing is redrawn); only the derived ones are recomputed, so only what depends on a
    given value changes. None when an evaluation fails for those values (a calculator's SpecError, a
    division by zero...) or the answer is not a finite positive number. Raises PartError for a part the
    chain does not have, or a given part that is not before ``number``.
    """
    if not 2 <= number <= instance.part_count or len(template.parts) != len(instance.parts):
        raise PartError(f"part {number}: {instance.id} has parts 2 to {instance.part_count}")
    for k in given:
        if not 1 <= k < number:
            raise PartError(f"part {k} is not an earlier part of part {number}")
    fns, budget = calculators(), Budget()
    env: dict[str, Any] = {}
    try:
        for var in template.variables:
            expand(var, instance.variables[var.name], env)
        env["part1"] = given.get(1, instance.value)
        for spec, part in zip(template.parts[: number - 1], instance.parts, strict=False):
            for var in spec.variables:
                value = (
                    _derived(var.expr, env, fns, budget) if var.expr is not None else part.variables[var.name]
                )
                expand(var, value, env)
            if spec.number < number:
                env[f"part{spec.number}"] = given.get(spec.number, part.value)
        value = plain(template.parts[number - 2].answer.evaluate(env, fns, budget))
    except (QuizzerError, ArithmeticError, TypeError, ValueError, KeyError):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        finite = math.isfinite(float(value))
    except OverflowError:
        return None
    return value if finite and value > 0 else None


def _derived(
    expr: Expr, env: Mapping[str, Any], fns: Mapping[str, Callable[..., Any]], budget: Budget
) -> Any:
    return plain(expr.evaluate(env, fns, budget))


__all__ = ["generate_parts", "masked", "recompute_part"]
