"""Turning a template into an instance: draw variables from a seed, compute the answer and its derivation."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import Budget, Expr, ExprError, bounded, num_or_repr, plain
from quizzer.bank.limits import MAX_TEXT_CHARS
from quizzer.bank.names import PRESET_FIELDS, TEXT_NAMES, calculators, check_names, variable_names
from quizzer.bank.schema import Template, Variable
from quizzer.bank.text import (
    TextError,
    TextTooLong,
    answer_display,
    derivation_table,
    format_value,
    render_text,
)
from quizzer.core.checks import did_you_mean
from quizzer.core.record import Record
from quizzer.core.trace import Result, Step
from quizzer.grading.grade import Tolerance

#: Draws before a template whose constraints keep failing is reported.
MAX_ATTEMPTS = 1000


class MistakeValue(Record):
    """A template mistake evaluated for one instance."""

    name: str
    value: int | float
    feedback: str


class Instance(Record):
    """One generated question: everything needed to ask it, grade it and explain it."""

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


def parse_override(var: Variable, value: Any, template: Template) -> Any:
    """A --set value converted to the variable's type; any value of the right type is allowed."""

    def fail(message: str) -> TemplateError:
        return TemplateError(template.path, template.id, f"variables.{var.name}", message)

    if var.kind == "expr":
        raise fail("is computed from other variables; set those instead")
    text = value.strip() if isinstance(value, str) else value
    if var.kind == "bool" or (var.kind == "choices" and isinstance(var.spec[0], bool)):
        if isinstance(text, bool):
            return text
        lowered = str(text).lower()
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise fail(f"{value!r} is not true or false")
    if var.kind == "preset" or (var.kind == "choices" and isinstance(var.spec[0], str)):
        if var.kind == "preset":
            from quizzer.core.errors import UnknownNameError
            from quizzer.core.presets import preset

            try:
                return preset(str(text)).name
            except UnknownNameError as exc:
                raise fail(str(exc)) from None
        return str(text)
    number = _number(text)
    if number is None:
        raise fail(f"{value!r} is not a number")
    problem = bounded(number)
    if problem:
        raise fail(f"{num_or_repr(value)}: {problem}")
    wants_int = var.kind in ("range", "log2") or (
        var.kind == "choices" and all(isinstance(c, int) for c in var.spec)
    )
    if wants_int:
        if isinstance(number, float) and not number.is_integer():
            raise fail(f"{value!r} must be a whole number")
        return int(number)
    return float(number)


def _number(text: Any) -> int | float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return text
    cleaned = str(text).replace(",", "").replace("_", "")
    if len(cleaned) > 400:  # int() of a long text is slow and beyond the size limit anyway
        return None
    try:
        return int(cleaned)
    except ValueError:
        try:
            return float(cleaned)
        except ValueError:
            return None


def _draw(var: Variable, rng: random.Random) -> Any:
    if var.kind == "choices" or var.kind == "preset":
        return rng.choice(var.spec)
    if var.kind == "bool":
        return rng.random() < 0.5
    lo, hi = var.spec
    if var.kind == "log2":
        return 1 << rng.randint(lo.bit_length() - 1, hi.bit_length() - 1)
    return lo + var.step * rng.randint(0, (hi - lo) // var.step)


def _expand(var: Variable, value: Any, env: dict[str, Any]) -> None:
    env[var.name] = value
    if var.kind == "preset":
        from quizzer.core.presets import preset

        found = preset(value)
        for field, field_value in found.spec.as_dict().items():
            env[f"{var.name}_{field}"] = 0 if field_value is None else field_value
        env[f"{var.name}_title"] = found.title


def _constraint_schedule(template: Template) -> list[list[Expr]]:
    """For each variable, the constraints that can be checked once it is drawn (its last dependency)."""
    owner: dict[str, int] = {}
    for i, var in enumerate(template.variables):
        owner[var.name] = i
        if var.kind == "preset":
            owner.update(dict.fromkeys((f"{var.name}_{f}" for f in PRESET_FIELDS), i))
    schedule: list[list[Expr]] = [[] for _ in template.variables] or [[]]
    for constraint in template.constraints:
        schedule[max((owner[n] for n in constraint.names if n in owner), default=0)].append(constraint)
    return schedule


def draw_variables(
    template: Template, rng: random.Random, overrides: Mapping[str, Any], budget: Budget | None = None
) -> dict[str, Any]:
    """Variable values satisfying the constraints; overrides are fixed, the rest drawn from ``rng``.

    Each constraint is checked as soon as the variables it names are known, so a bad draw is dropped
    before the expensive derived variables after it are computed. Every draw is charged to ``budget``.
    """
    fns = calculators()
    budget = budget or Budget()
    schedule = _constraint_schedule(template)
    all_fixed = set(overrides) >= {v.name for v in template.variables if v.expr is None}
    for _ in range(MAX_ATTEMPTS):
        env: dict[str, Any] = {}
        failed = None
        for var, constraints in zip(template.variables, schedule, strict=False):
            if var.name in overrides:
                value = overrides[var.name]
            elif var.expr is not None:
                value = _evaluate(template, var.expr, env, fns, f"variables.{var.name}.expr", budget)
            else:
                value = _draw(var, rng)
            _expand(var, value, env)
            failed = next(
                (c for c in constraints if not _evaluate(template, c, env, fns, "constraints", budget)), None
            )
            if failed is not None:
                break
        if not template.variables:
            failed = next(
                (c for c in schedule[0] if not _evaluate(template, c, env, fns, "constraints", budget)), None
            )
        if failed is None:
            return env
        if all_fixed:
            raise TemplateError(
                template.path,
                template.id,
                "constraints",
                f"the values given break the constraint {failed.source!r}",
            )
    raise TemplateError(
        template.path, template.id, "constraints", f"no draw in {MAX_ATTEMPTS} satisfied every constraint"
    )


def _evaluate(
    template: Template,
    expr: Expr,
    env: Mapping[str, Any],
    fns: Mapping[str, Any],
    field: str,
    budget: Budget | None = None,
) -> Any:
    try:
        return plain(expr.evaluate(env, fns, budget))
    except ExprError as exc:
        raise TemplateError(template.path, template.id, field, str(exc)) from None


def gradable(template: Template, value: Any, field: str) -> int | float:
    """``value`` if it is a number the grader can take (finite as a float); else TemplateError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemplateError(template.path, template.id, field, f"gives {num_or_repr(value)}, not a number")
    try:
        finite = math.isfinite(float(value))
    except OverflowError:
        finite = False
    if not finite:
        raise TemplateError(
            template.path,
            template.id,
            field,
            f"gives {num_or_repr(value)}, too large to show or grade (beyond ±1.8e308)",
        )
    return value


def answer_with_derivation(
    template: Template, env: Mapping[str, Any], budget: Budget | None = None
) -> tuple[int | float, tuple[Step, ...]]:
    """The answer and its derivation: a single calculator call gives its own steps; anything else adds a
    final step that shows the template's expression with the numbers substituted."""
    seen: list[Result] = []
    base = calculators()

    class Recording(dict):  # type: ignore[type-arg]
        def get(self, name: str, default: Any = None) -> Any:
            fn = base.get(name)
            if fn is None:
                return default

            def call(*args: Any, **kwargs: Any) -> Result:
                result = fn(*args, **kwargs)
                seen.append(result)
                return result

            return call

    try:
        raw = template.answer.evaluate(env, Recording(), budget)
        value = plain(raw)
    except ExprError as exc:
        raise TemplateError(template.path, template.id, "answer.expr", str(exc)) from None
    gradable(template, value, "answer.expr")
    if isinstance(raw, Result):
        return raw.value, raw.steps
    steps = tuple(step for result in seen for step in result.steps)
    final = Step("Answer", template.answer.source, template.answer.substitute(env), value, template.unit)
    return value, (*steps, final)


def generate(
    template: Template, seed: int, overrides: Mapping[str, Any] | None = None, budget: Budget | None = None
) -> Instance:
    """The instance of ``template`` for ``seed`` (deterministic); ``overrides`` fix some variables.

    Raises TemplateError naming the field for anything the template asks that cannot be done: a failed
    evaluation, a spent ``budget`` (default: ``MAX_EVAL_STEPS``), a mistake that is not a number, a value
    that cannot be shown, a text beyond ``MAX_TEXT_CHARS``.
    """
    budget = budget or Budget()
    given = dict(overrides or {})
    by_name = {v.name: v for v in template.variables}
    for name in given:
        if name not in by_name:
            close = did_you_mean(name, by_name)
            raise TemplateError(template.path, template.id, "variables", f"no variable {name!r}{close}")
    fixed = {name: parse_override(by_name[name], value, template) for name, value in given.items()}
    env = draw_variables(template, random.Random(f"{template.id}#{seed}"), fixed, budget)
    value, derivation = answer_with_derivation(template, env, budget)
    fns = calculators()
    try:
        display = answer_display(value, template.unit, template.display)
        table = derivation_table(derivation)
    except (ValueError, ArithmeticError) as exc:
        raise TemplateError(template.path, template.id, "answer.expr", f"cannot be shown: {exc}") from None
    shown = {**env, "answer": display, "derivation": table}
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

    mistakes = tuple(
        MistakeValue(
            m.name,
            gradable(
                template,
                _evaluate(template, m.expr, env, fns, f"mistakes[{i}].answer", budget),
                f"mistakes[{i}].answer",
            ),
            text(m.feedback, f"mistakes[{i}].feedback"),
        )
        for i, m in enumerate(template.mistakes)
        if m.when is None or _evaluate(template, m.when, env, fns, f"mistakes[{i}].when", budget)
    )
    explanation = text(template.explanation, "explanation")
    if "{derivation}" not in template.explanation:
        explanation = f"{explanation.rstrip()}\n\n{table}"
    return Instance(
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
        conventions=tuple(text(c, f"conventions[{i}]") for i, c in enumerate(template.conventions)),
        value=value,
        unit=template.unit,
        display=display,
        display_unit=template.display,
        tolerance=template.tolerance,
        derivation=derivation,
        explanation=explanation,
        tldr=text(template.tldr, "tldr"),
        memory_aid=text(template.memory_aid, "memory_aid"),
        follow_ups=tuple(
            (text(f.question, f"follow_ups[{i}].question"), text(f.answer, f"follow_ups[{i}].answer"))
            for i, f in enumerate(template.follow_ups)
        ),
        references=tuple((r.title, r.url) for r in template.references),
        mistakes=mistakes,
        n_layers=_n_layers(env),
    )


def _n_layers(env: Mapping[str, Any]) -> int | None:
    value = env.get("n_layers")
    if value is None:
        value = next((v for k, v in env.items() if k.endswith("_n_layers")), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


__all__ = [
    "PRESET_FIELDS",
    "TEXT_NAMES",
    "Instance",
    "MistakeValue",
    "calculators",
    "check_names",
    "draw_variables",
    "format_value",
    "generate",
    "gradable",
    "variable_names",
]
