"""The authoring check: load every template, generate many seeds each, and list every problem found."""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Iterable, Sequence

from quizzer.bank.check.base import Lint
from quizzer.bank.check.registry import LINTS
from quizzer.bank.errors import ExprError, TemplateError
from quizzer.bank.expr.expression import Budget, BudgetError
from quizzer.bank.generate.draw import constraint_schedule, draw_value, expand
from quizzer.bank.generate.instance import Part
from quizzer.bank.generate.render import instances
from quizzer.bank.loader import Bank
from quizzer.bank.read.names import calculators
from quizzer.bank.read.schema import PartSpec, Template
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
    template: Template,
    draws: int = 400,
    seed: int = 0,
    budget: Budget | None = None,
    enough: int | None = None,
) -> float:
    """Share of unconstrained draws of part 1's variables that satisfy every one of its constraints.

    The draws share one instance's ``budget`` (default: ``MAX_EVAL_STEPS``). When it is spent, the share
    is of the draws made; if none of them passed, an instance could not fit in the budget either, and that
    is a TemplateError. With ``enough``, the draws stop once that many have passed, and the share is of the
    draws made: it is then at least ``enough / draws`` (the check asks only whether it is under 5%).
    """
    main = template.main
    if not main.constraints:
        return 1.0
    rng, fns, passed = random.Random(seed), calculators(), 0
    schedule = constraint_schedule(template)
    budget = budget or Budget()
    for done in range(draws):
        env: dict[str, object] = {}
        try:
            for var, constraints in zip(main.variables, schedule, strict=False):
                # the calculators are pure and memoized: an expression's value follows from its names'
                value = (
                    var.expr.remembered(env, fns, budget) if var.expr is not None else draw_value(var, rng)
                )
                expand(var, value, env)
                if not all(c.remembered(env, fns, budget) for c in constraints):
                    break
            else:
                passed += 1
                if passed == enough:
                    return passed / (done + 1)
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
    template: Template, seeds: Iterable[int], *, lints: Sequence[type[Lint]] = LINTS
) -> tuple[list[TemplateError], int]:
    """Problems of one valid template over ``seeds``, and how many instances were generated.

    Every part is checked alike (a later part's problems name ``parts[i].``...): its answer, its mistakes,
    its unit; then each of ``lints`` (default: every lint, ``registry.LINTS``) sees every instance.
    """

    def problem(field: str, message: str) -> TemplateError:
        return TemplateError(template.path, template.id, field, message)

    problems: list[TemplateError] = []
    count = 0
    running: list[Lint] = []
    try:
        running = [lint(template) for lint in lints]
        count = _check_seeds(template, seeds, problems, running)
    except TemplateError as exc:
        problems.append(exc)
    except Exception as exc:  # a case the checks missed: still this template's problem, never a crash
        problems.append(problem("answer.expr", f"cannot be generated: {type(exc).__name__}: {exc}"))
    return problems + [problem for lint in running for problem in lint.problems()], count


def _check_seeds(
    template: Template, seeds: Iterable[int], problems: list[TemplateError], lints: list[Lint]
) -> int:
    """Append the problems of ``template`` over ``seeds`` (the lints keep theirs); the instances made."""

    def problem(field: str, message: str) -> TemplateError:
        return TemplateError(template.path, template.id, field, message)

    draws = 400
    rate = acceptance_rate(template, draws, enough=math.ceil(MIN_ACCEPTANCE * draws))
    if rate == 0:
        problems.append(
            problem("constraints", f"unsatisfiable: no draw in {draws} satisfied every constraint")
        )
        return 0
    if rate < MIN_ACCEPTANCE:
        problems.append(problem("constraints", f"rarely satisfiable: {rate:.1%} of draws pass (want >= 5%)"))
    seen: set[tuple[str, str]] = set()
    counting = [lint for lint in lints if lint.sees_repeats]
    count = 0
    made = instances(template, seeds)
    while True:
        try:
            seed, instance, repeat = next(made)
        except StopIteration:
            break
        except TemplateError as exc:  # its message names the seed: `quizzer show ID#SEED` shows the case
            problems.append(exc)
            break
        count += 1
        for lint in counting if repeat else lints:
            lint.visit(instance, seed)
        if repeat:  # its parts' problems are an earlier seed's, each reported once already
            continue
        for spec, part in zip(template.parts, instance.parts, strict=True):
            problems.extend(part_problems(template, spec, part, seed, seen))
    return count


def part_problems(
    template: Template, spec: PartSpec, part: Part, seed: int, seen: set[tuple[str, str]]
) -> list[TemplateError]:
    """The problems of one part of one instance not yet in ``seen`` (field, what), which is updated: an
    answer that is not finite and positive, a mistake the grader cannot tell from the answer (inside its
    band) or from another mistake, a unit that is not the one its calculator returns."""
    out: list[TemplateError] = []

    def report(field: str, what: str, message: str) -> None:
        field = spec.field(field)
        if (field, what) not in seen:
            seen.add((field, what))
            out.append(TemplateError(template.path, template.id, field, message))

    value = part.value
    if not math.isfinite(value) or value <= 0:
        report("answer.expr", "value", f"seed {seed}: the answer {value!r} is not finite and positive")
    index_of = {m.name: i for i, m in enumerate(spec.mistakes)}
    for mistake in part.mistakes:
        if is_within(mistake.value, value, part.tolerance):
            report(
                f"mistakes[{index_of[mistake.name]}].answer",
                "inside",
                f"seed {seed}: the mistake gives {mistake.value!r}, inside the tolerance of the answer "
                f"{value!r}: the grader could never tell them apart",
            )
    for k, later in enumerate(part.mistakes):
        for earlier in part.mistakes[:k]:
            if is_within(later.value, earlier.value, part.tolerance):
                report(
                    f"mistakes[{index_of[later.name]}].answer",
                    "same",
                    f"seed {seed}: gives {later.value!r}, as mistakes[{index_of[earlier.name]}] does: the "
                    "grader names only one of them; merge them, or tell them apart with `when`",
                )
    last = part.derivation[-1] if part.derivation else None
    if last is not None and last.label != "Answer" and last.unit != spec.unit:
        report("answer.unit", "unit", f"is {spec.unit!r} but the calculator returns {str(last.unit)!r}")
    return out


def check_bank(
    bank: Bank,
    seeds_per_template: int = 100,
    *,
    lints: Sequence[type[Lint]] = LINTS,
    workers: int = 1,
    paths: Sequence[str] | None = None,
) -> CheckReport:
    """Every problem in ``bank``: load problems, then each valid template over many seeds, with ``lints``
    (default: every one). With ``workers`` > 1 and the ``paths`` the bank was loaded from, the templates
    are checked in that many processes (``_in_processes``); the problems come in the same order either
    way."""
    problems: list[TemplateError] = list(bank.problems())
    templates = bank.templates()
    instances = 0
    found_all: Iterable[tuple[list[TemplateError], int]]
    if workers > 1 and paths is not None and len(templates) > 1:
        found_all = _in_processes(bank, [t.id for t in templates], seeds_per_template, lints, workers, paths)
    else:
        found_all = (check_template(t, range(seeds_per_template), lints=lints) for t in templates)
    for found, count in found_all:
        problems.extend(found)
        instances += count
    return CheckReport(tuple(problems), len(templates), instances)


def _in_processes(
    bank: Bank, ids: list[str], seeds: int, lints: Sequence[type[Lint]], workers: int, paths: Sequence[str]
) -> list[tuple[list[TemplateError], int]]:
    """``check_template`` of each id, in a pool of ``workers`` processes. On Linux they are forked and
    start with ``bank`` as it is here (loaded and its templates read: about 2 s each not spent again);
    elsewhere (a fork of a process is unsafe on macOS, absent on Windows) each loads ``paths`` itself."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    jobs = [(template_id, seeds, tuple(lints)) for template_id in ids]
    if sys.platform == "linux":
        _WORKER_BANK[:] = [bank]
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                return list(pool.map(_check_in_worker, jobs, chunksize=1))
        finally:
            _WORKER_BANK.clear()
    with ProcessPoolExecutor(workers, initializer=_load_in_worker, initargs=(list(paths),)) as pool:
        return list(pool.map(_check_in_worker, jobs, chunksize=1))


_WORKER_BANK: list[Bank] = []  # the bank a worker process checks: forked with it, or loaded by it (one)


def _load_in_worker(paths: list[str]) -> None:
    from quizzer.bank.loader import load_bank

    _WORKER_BANK.append(load_bank(paths))


def _check_in_worker(job: tuple[str, int, tuple[type[Lint], ...]]) -> tuple[list[TemplateError], int]:
    template_id, seeds, lints = job
    return check_template(_WORKER_BANK[0].get(template_id), range(seeds), lints=lints)
