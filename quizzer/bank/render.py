"""Turning a template into an instance: draw variables from a seed, compute the answer and its derivation."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import BUILTIN_NAMES, Expr, ExprError, plain
from quizzer.bank.schema import Template, Variable
from quizzer.bank.text import PLACEHOLDER_RE, answer_display, derivation_table, format_value, render_text
from quizzer.core.checks import did_you_mean
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Step
from quizzer.grading.grade import Tolerance

#: Draws before a template whose constraints keep failing is reported.
MAX_ATTEMPTS = 1000
#: Names every text may use besides the variables.
TEXT_NAMES = frozenset({"answer", "derivation"})
PRESET_FIELDS = (*ModelSpec._fields, "title")


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


def calculators() -> Mapping[str, Callable[..., Result]]:
    """The core's calculators by name (imported on first use)."""
    import quizzer.core

    return quizzer.core.CALCULATORS


def variable_names(template: Template) -> set[str]:
    """Names a template's expressions and texts may use: variables and the fields of preset variables."""
    names: set[str] = set()
    for var in template.variables:
        names.add(var.name)
        if var.kind == "preset":
            names.update(f"{var.name}_{f}" for f in PRESET_FIELDS)
    return names


def check_names(template: Template) -> None:
    """Every expression names known variables (defined before use) and functions; placeholders resolve."""
    known_functions = BUILTIN_NAMES | set(calculators())

    def check(expr: Expr, field: str, allowed: set[str]) -> None:
        for name in sorted(expr.calls - known_functions):
            close = did_you_mean(name, known_functions)
            raise TemplateError(template.path, template.id, field, f"unknown calculator {name!r}{close}")
        for name in sorted(expr.names - allowed):
            close = did_you_mean(name, allowed)
            raise TemplateError(template.path, template.id, field, f"unknown variable {name!r}{close}")

    defined: set[str] = set()
    for var in template.variables:
        if var.expr is not None:
            check(var.expr, f"variables.{var.name}.expr", defined)
        defined.add(var.name)
        if var.kind == "preset":
            defined.update(f"{var.name}_{f}" for f in PRESET_FIELDS)
    check(template.answer, "answer.expr", defined)
    for i, expr in enumerate(template.constraints):
        check(expr, f"constraints[{i}]", defined)
    for i, mistake in enumerate(template.mistakes):
        check(mistake.expr, f"mistakes[{i}].answer", defined)
        if mistake.when is not None:
            check(mistake.when, f"mistakes[{i}].when", defined)
    texts = {
        "prompt": template.prompt,
        "explanation": template.explanation,
        "tldr": template.tldr,
        "memory_aid": template.memory_aid,
    }
    texts.update({f"follow_ups[{i}]": f.question + f.answer for i, f in enumerate(template.follow_ups)})
    texts.update({f"conventions[{i}]": c for i, c in enumerate(template.conventions)})
    texts.update({f"mistakes[{i}].feedback": m.feedback for i, m in enumerate(template.mistakes)})
    for field, text in texts.items():
        for match in PLACEHOLDER_RE.finditer(text):
            name = match.group(1)
            if name not in defined and name not in TEXT_NAMES:
                close = did_you_mean(name, defined | TEXT_NAMES)
                raise TemplateError(
                    template.path, template.id, field, f"unknown placeholder {{{name}}}{close}"
                )


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


def draw_variables(template: Template, rng: random.Random, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Variable values satisfying the constraints; overrides are fixed, the rest drawn from ``rng``.

    Each constraint is checked as soon as the variables it names are known, so a bad draw is dropped
    before the expensive derived variables after it are computed.
    """
    fns = calculators()
    schedule = _constraint_schedule(template)
    all_fixed = set(overrides) >= {v.name for v in template.variables if v.expr is None}
    for _ in range(MAX_ATTEMPTS):
        env: dict[str, Any] = {}
        failed = None
        for var, constraints in zip(template.variables, schedule, strict=False):
            if var.name in overrides:
                value = overrides[var.name]
            elif var.expr is not None:
                value = _evaluate(template, var.expr, env, fns, f"variables.{var.name}.expr")
            else:
                value = _draw(var, rng)
            _expand(var, value, env)
            failed = next(
                (c for c in constraints if not _evaluate(template, c, env, fns, "constraints")), None
            )
            if failed is not None:
                break
        if not template.variables:
            failed = next(
                (c for c in schedule[0] if not _evaluate(template, c, env, fns, "constraints")), None
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
    template: Template, expr: Expr, env: Mapping[str, Any], fns: Mapping[str, Any], field: str
) -> Any:
    try:
        return plain(expr.evaluate(env, fns))
    except ExprError as exc:
        raise TemplateError(template.path, template.id, field, str(exc)) from None


def answer_with_derivation(
    template: Template, env: Mapping[str, Any]
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
        raw = template.answer.evaluate(env, Recording())
    except ExprError as exc:
        raise TemplateError(template.path, template.id, "answer.expr", str(exc)) from None
    if isinstance(raw, Result):
        return raw.value, raw.steps
    value = plain(raw)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemplateError(template.path, template.id, "answer.expr", f"gives {value!r}, not a number")
    steps = tuple(step for result in seen for step in result.steps)
    final = Step("Answer", template.answer.source, template.answer.substitute(env), value, template.unit)
    return value, (*steps, final)


def generate(template: Template, seed: int, overrides: Mapping[str, Any] | None = None) -> Instance:
    """The instance of ``template`` for ``seed`` (deterministic); ``overrides`` fix some variables."""
    given = dict(overrides or {})
    by_name = {v.name: v for v in template.variables}
    for name in given:
        if name not in by_name:
            close = did_you_mean(name, by_name)
            raise TemplateError(template.path, template.id, "variables", f"no variable {name!r}{close}")
    fixed = {name: parse_override(by_name[name], value, template) for name, value in given.items()}
    env = draw_variables(template, random.Random(f"{template.id}#{seed}"), fixed)
    value, derivation = answer_with_derivation(template, env)
    fns = calculators()
    display = answer_display(value, template.unit, template.display)
    shown = {**env, "answer": display, "derivation": derivation_table(derivation)}
    formats = {v.name: (v.format, v.unit) for v in template.variables}

    def text(source: str) -> str:
        return render_text(source, shown, formats)

    mistakes = tuple(
        MistakeValue(m.name, _evaluate(template, m.expr, env, fns, f"mistakes[{i}].answer"), text(m.feedback))
        for i, m in enumerate(template.mistakes)
        if m.when is None or _evaluate(template, m.when, env, fns, f"mistakes[{i}].when")
    )
    explanation = text(template.explanation)
    if "{derivation}" not in template.explanation:
        explanation = f"{explanation.rstrip()}\n\n{derivation_table(derivation)}"
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
        prompt=text(template.prompt),
        conventions=tuple(text(c) for c in template.conventions),
        value=value,
        unit=template.unit,
        display=display,
        display_unit=template.display,
        tolerance=template.tolerance,
        derivation=derivation,
        explanation=explanation,
        tldr=text(template.tldr),
        memory_aid=text(template.memory_aid),
        follow_ups=tuple((text(f.question), text(f.answer)) for f in template.follow_ups),
        references=tuple((r.title, r.url) for r in template.references),
        mistakes=mistakes,
        n_layers=_n_layers(env),
    )


def _n_layers(env: Mapping[str, Any]) -> int | None:
    value = env.get("n_layers")
    if value is None:
        value = next((v for k, v in env.items() if k.endswith("_n_layers")), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


__all__ = ["Instance", "MistakeValue", "check_names", "draw_variables", "format_value", "generate"]
