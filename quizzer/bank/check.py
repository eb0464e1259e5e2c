"""The authoring check: load every template, generate many seeds each, and list every problem found."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

from quizzer.bank.chain_check import check_parts, part_text_problems
from quizzer.bank.derivation import answer_with_derivation
from quizzer.bank.draw import constraint_schedule, draw_value, expand
from quizzer.bank.errors import ExprError, TemplateError
from quizzer.bank.expr import Budget, BudgetError, plain
from quizzer.bank.lint import OmissionLint, tolerance_problems
from quizzer.bank.loader import Bank
from quizzer.bank.names import calculators
from quizzer.bank.render import generate
from quizzer.bank.schema import Template
from quizzer.core.record import Record
from quizzer.grading.grade import is_within

#: Below this share of draws passing the constraints, a template is reported as rarely satisfiable.
MIN_ACCEPTANCE = 0.05


class CheckReport(Record):
    """What ``check_bank`` found: problems (each names file, template and field) and what was covered."""

    problems: tuple[TemplateError, ...]
    templates: int
    instances: int


def acceptance_rate(
    template: Template, draws: int = 400, seed: int = 0, budget: Budget | None = None
) -> float:
    """Share of unconstrained draws that satisfy every constraint.

    The draws share one instance's ``budget`` (default: ``MAX_EVAL_STEPS``). When it is spent, the share
    is of the draws made; if none of them passed, an instance could not fit in the budget either, and that
    is a TemplateError.
    """
    if not template.constraints:
        return 1.0
    rng, fns, passed = random.Random(seed), calculators(), 0
    schedule = constraint_schedule(template)
    budget = budget or Budget()
    for done in range(draws):
        env: dict[str, object] = {}
        try:
            for var, constraints in zip(template.variables, schedule, strict=False):
                value = (
                    plain(var.expr.evaluate(env, fns, budget))
                    if var.expr is not None
                    else draw_value(var, rng)
                )
                expand(var, value, env)
                if not all(plain(c.evaluate(env, fns, budget)) for c in constraints):
                    break
            else:
                passed += 1
        except BudgetError as exc:
            if passed:
                return passed / done
            raise TemplateError(
                template.path,
                template.id,
                "constraints",
                f"{exc}: {done} draws fit in it and none satisfied every constraint",
            ) from None
        except ExprError as exc:  # a broken expression is its own problem, not an unsatisfiable constraint
            raise TemplateError(template.path, template.id, "variables", str(exc)) from None
    return passed / draws


def check_template(
    template: Template, seeds: Iterable[int], *, omissions: bool = False
) -> tuple[list[TemplateError], int]:
    """Problems of one valid template over ``seeds``, and how many instances were generated.

    Every part of a chain is checked as the main answer is (its problems name ``parts[i].``...). With
    ``omissions``, the omission lint runs on every instance too, on the main answer and on each part's.
    """

    def problem(field: str, message: str) -> TemplateError:
        return TemplateError(template.path, template.id, field, message)

    problems: list[TemplateError] = [*tolerance_problems(template), *part_text_problems(template)]
    count = 0
    try:
        lints = (
            [OmissionLint(template), *(OmissionLint(template, part=i) for i in range(len(template.parts)))]
            if omissions
            else []
        )
        count = _check_seeds(template, seeds, problems, lints)
    except TemplateError as exc:
        problems.append(exc)
    except Exception as exc:  # a case the checks missed: still this template's problem, never a crash
        problems.append(problem("answer.expr", f"cannot be generated: {type(exc).__name__}: {exc}"))
    return problems, count


def _check_seeds(
    template: Template, seeds: Iterable[int], problems: list[TemplateError], lints: list[OmissionLint]
) -> int:
    """Append the problems of ``template`` over ``seeds``; the instances generated."""

    def problem(field: str, message: str) -> TemplateError:
        return TemplateError(template.path, template.id, field, message)

    rate = acceptance_rate(template)
    if rate == 0:
        problems.append(problem("constraints", "unsatisfiable: no draw in 400 satisfied every constraint"))
        return 0
    if rate < MIN_ACCEPTANCE:
        problems.append(problem("constraints", f"rarely satisfiable: {rate:.1%} of draws pass (want >= 5%)"))
    seen: set[tuple[str, str]] = set()
    index_of = {m.name: i for i, m in enumerate(template.mistakes)}
    count = 0
    for seed in seeds:
        try:
            instance = generate(template, seed)
        except TemplateError as exc:  # the seed, so that `quizzer show ID#SEED` shows the case
            problems.append(
                TemplateError(exc.path, exc.template_id, exc.field, f"seed {seed}: {exc.message}")
            )
            break
        count += 1
        for lint in lints:
            lint.visit(instance, seed)
        problems.extend(check_parts(template, instance, seed, seen))
        value = instance.value
        if not math.isfinite(value) or value <= 0:
            key = ("answer.expr", "value")
            if key not in seen:
                seen.add(key)
                problems.append(
                    problem("answer.expr", f"seed {seed}: the answer {value!r} is not finite and positive")
                )
        for mistake in instance.mistakes:
            field = f"mistakes[{index_of[mistake.name]}].answer"
            if (field, "inside") not in seen and is_within(mistake.value, value, instance.tolerance):
                seen.add((field, "inside"))
                problems.append(
                    problem(
                        field,
                        (
                            f"seed {seed}: the mistake gives {mistake.value!r}, inside the tolerance of the "
                            "answer "
                            f"{value!r}: the grader could never tell them apart"
                        ),
                    )
                )
        if ("unit", "unit") not in seen:
            unit = _calculator_unit(template, instance.variables)
            if unit is not None and unit != template.unit:
                seen.add(("unit", "unit"))
                problems.append(
                    problem("answer.unit", f"is {template.unit!r} but the calculator returns {unit!r}")
                )
    for lint in lints:
        problems.extend(lint.problems())
    return count


def _calculator_unit(template: Template, variables: dict[str, object]) -> str | None:
    """The unit of the answer's calculator when the answer is a single call."""
    env: dict[str, object] = {}
    for var in template.variables:
        expand(var, variables[var.name], env)
    _, steps = answer_with_derivation(template, env, Budget())
    if steps and steps[-1].label != "Answer":
        return str(steps[-1].unit)  # a core Unit (a StrEnum): its repr is not the unit's name
    return None


def check_bank(bank: Bank, seeds_per_template: int = 100, *, omissions: bool = False) -> CheckReport:
    """Every problem in ``bank``: load problems, then each valid template over many seeds (with the
    omission lint when ``omissions`` is set)."""
    problems: list[TemplateError] = list(bank.problems())
    templates = bank.templates()
    instances = 0
    for template in templates:
        found, count = check_template(template, range(seeds_per_template), omissions=omissions)
        problems.extend(found)
        instances += count
    return CheckReport(tuple(problems), len(templates), instances)
