"""Drawing each part's variables from a seed until its constraints hold; own numbers may break part 1's."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, cast

from quizzer.bank.errors import ExprError, TemplateError
from quizzer.bank.expr.expression import Budget, Expr, plain
from quizzer.bank.generate.pending import Pending, later_part_has_layers, layer_names
from quizzer.bank.generate.per_template import per_template
from quizzer.bank.read.names import PRESET_FIELDS, calculators
from quizzer.bank.read.overrides import Fielded, apply_fields
from quizzer.bank.read.schema import PartSpec, Template
from quizzer.bank.read.variables import Variable
from quizzer.core.errors import QuizzerError

#: Draws before a template whose constraints keep failing is reported.
MAX_ATTEMPTS = 1000
#: Draws completed past a constraint that a ``--set`` value breaks, to find the one that breaks fewest.
MAX_CANDIDATES = 20

Env = dict[str, Any]


def draw_value(var: Variable, rng: random.Random) -> Any:
    """One value of a drawn (not derived) variable: ``rng.choice(spec)``, ``rng.random() < 0.5`` or
    ``rng.randint``, each read from the stream as ``random`` reads it (``_below``)."""
    if var.kind == "choices" or var.kind == "preset":
        spec = var.spec
        return spec[_below(rng, len(spec))]  # rng.choice(spec)
    if var.kind == "bool":
        return rng.random() < 0.5
    lo, hi = var.spec
    if var.kind == "log2":
        low = lo.bit_length() - 1
        return 1 << (low + _below(rng, hi.bit_length() - low))  # rng.randint(low, high)
    return lo + var.step * _below(rng, (hi - lo) // var.step + 1)  # rng.randint(0, steps)


def draw_count(var: Variable) -> int:
    """How many values ``draw_value`` draws ``var`` from: its choices, both truths, the steps of its
    range (the ``n`` it reads below from the stream)."""
    if var.kind == "choices" or var.kind == "preset":
        return len(var.spec)
    if var.kind == "bool":
        return 2
    lo: int
    hi: int
    lo, hi = var.spec
    if var.kind == "log2":
        return hi.bit_length() - lo.bit_length() + 1
    return (hi - lo) // var.step + 1


def _below(rng: random.Random, n: int) -> int:
    """A whole number in [0, n) from ``rng``, read from its stream as ``random.Random`` reads one for
    ``choice`` and ``randint`` (its ``_randbelow_with_getrandbits``), without its two Python calls a
    draw: the same numbers for the same seed (tests/bank/test_draw_stream.py holds it to them)."""
    bits = n.bit_length()
    found = rng.getrandbits(bits)
    while found >= n:
        found = rng.getrandbits(bits)
    return found


def expand(var: Variable, value: Any, env: Env) -> None:
    """Set ``var`` in ``env``; a preset also sets ``<name>_<field>`` for every field and its title."""
    env[var.name] = value
    if var.kind == "preset":
        env.update(_preset_names(var.name, _preset(value)))


def _preset(name: str) -> Any:
    """``quizzer.core.presets.preset(name)``, that module imported on the first preset drawn (it takes
    5 ms; an import statement in ``expand`` ran again for every preset drawn)."""
    if not _PRESET:
        from quizzer.core.presets import preset

        _PRESET.append(preset)
    return _PRESET[0](name)


#: ``preset``, once ``_preset`` has imported it.
_PRESET: list[Callable[[str], Any]] = []


#: ``_preset_names``'s answers by (variable name, id of the preset), each kept beside its preset (so that
#: the id cannot be reused while it is kept); at most ``_KEPT_PRESETS``, then it starts afresh.
_PRESET_NAMES: dict[tuple[str, int], tuple[Any, dict[str, Any]]] = {}
_KEPT_PRESETS = 512


def _preset_names(name: str, found: Any) -> dict[str, Any]:
    """The names a preset variable ``name`` sets for the preset ``found``: each field (None as 0), the
    title. A preset is immutable, so they are worked out once per preset and variable name."""
    kept = _PRESET_NAMES.get((name, id(found)))
    if kept is not None and kept[0] is found:
        return kept[1]
    names = {f"{name}_{field}": 0 if v is None else v for field, v in found.spec.as_dict().items()}
    names[f"{name}_title"] = found.title
    if len(_PRESET_NAMES) >= _KEPT_PRESETS:
        _PRESET_NAMES.clear()
    _PRESET_NAMES[(name, id(found))] = (found, names)
    return names


def _owners(template: Template) -> dict[str, int]:
    """The index of the variable that defines each name (preset fields belong to their preset)."""
    owner: dict[str, int] = {}
    for i, var in enumerate(template.main.variables):
        owner[var.name] = i
        if var.kind == "preset":
            owner.update(dict.fromkeys((f"{var.name}_{f}" for f in PRESET_FIELDS), i))
    return owner


@per_template
def constraint_schedule(template: Template) -> list[list[Expr]]:
    """For each variable, the constraints that can be checked once it is drawn (its last dependency);
    worked out once per template (shared: never change it)."""
    owner = _owners(template)
    schedule: list[list[Expr]] = [[] for _ in template.main.variables] or [[]]
    for constraint in template.main.constraints:
        schedule[max((owner[n] for n in constraint.names if n in owner), default=0)].append(constraint)
    return schedule


def touched_by(template: Template, names: set[str]) -> set[int]:
    """The ids of the constraints that depend on ``names``, directly or through derived variables."""
    owner = _owners(template)
    depends: list[set[str]] = []
    for var in template.main.variables:
        deps = {var.name}
        if var.expr is not None:
            for name in var.expr.names:
                if name in owner:
                    deps |= depends[owner[name]]
        depends.append(deps)
    touched = set()
    for constraint in template.main.constraints:
        deps = set().union(*(depends[owner[n]] for n in constraint.names if n in owner))
        if deps & names:
            touched.add(id(constraint))
    return touched


def draw(
    template: Template,
    rng: random.Random,
    overrides: Mapping[str, Any],
    budget: Budget | None = None,
    *,
    lazy: bool = False,
) -> tuple[Env, tuple[Expr, ...]]:
    """Variable values and the constraints they break (none without ``overrides``).

    Without overrides, a derived variable is evaluated when first read (``Pending``): by a constraint, or
    (``lazy``) by whatever reads the env returned, which is then that ``Pending``; else every one is
    evaluated before the env is returned, a plain dict in the variables' order.

    Each constraint is checked as soon as the variables it names are known, so a bad draw is dropped
    before the expensive derived variables after it are computed. Every draw is charged to ``budget``.
    Without overrides every constraint holds. With overrides (a user's own numbers), a draw satisfying every
    constraint is preferred (the same draw as before, when there is one); failing that, the draw that
    breaks the fewest constraints touched by the overrides is returned with them. A constraint the
    overrides cannot touch still holds, and an evaluation that fails stays a TemplateError.
    """
    fns = calculators()
    budget = budget or Budget()
    all_fixed = all(_fixed(v, overrides) for v in template.main.variables if v.expr is None)
    if not overrides and not all_fixed:  # the common draw, in a loop of its own (it is the hot one)
        for _ in range(MAX_ATTEMPTS):
            made = _plain_attempt(template, rng, fns, budget)
            if made is not None:
                return (made if lazy else made.settled()), ()
        raise TemplateError(
            template.path, template.id, "constraints", f"no draw in {MAX_ATTEMPTS} satisfied every constraint"
        )
    schedule = constraint_schedule(template)
    touched = touched_by(template, set(overrides)) if overrides else set()
    best: tuple[Env, tuple[Expr, ...]] | None = None
    candidates, error = 0, None

    def holds(constraint: Expr, env: Env) -> bool:
        return bool(_evaluate(template, constraint, env, fns, "constraints", budget))

    for _ in range(MAX_ATTEMPTS):
        env: Env = {}
        failed, at = None, 0
        for index, (var, constraints) in enumerate(zip(template.main.variables, schedule, strict=False)):
            _set(template, var, overrides, rng, env, fns, budget)
            failed = next((c for c in constraints if not holds(c, env)), None)
            if failed is not None:
                at = index
                break
        if not template.main.variables:
            failed = next((c for c in schedule[0] if not holds(c, env)), None)
        if failed is None:
            return env, ()
        if id(failed) in touched and candidates < MAX_CANDIDATES and (best is None or len(best[1]) > 1):
            candidates += 1
            state = rng.getstate()
            try:
                found = _complete(template, overrides, rng, env, at, failed, touched, schedule, holds, budget)
            except TemplateError as exc:
                error = error or exc
                found = None
            rng.setstate(state)
            if found is not None and (best is None or len(found[1]) < len(best[1])):
                best = found
        if all_fixed or (best is not None and budget.left < budget.limit // 2):
            break
    if best is not None:
        return best
    if error is not None:
        raise error
    if all_fixed:
        raise TemplateError(
            template.path,
            template.id,
            "constraints",
            # every variable is fixed, so the loop ran once and broke on the constraint that failed
            f"the values given break the constraint {cast(Expr, failed).source!r}",
        )
    raise TemplateError(
        template.path, template.id, "constraints", f"no draw in {MAX_ATTEMPTS} satisfied every constraint"
    )


def _plain_attempt(
    template: Template, rng: random.Random, fns: Mapping[str, Any], budget: Budget
) -> Pending | None:
    """One attempt of ``draw`` without own numbers: the env, or None at the first constraint that fails.
    What ``_set`` and ``holds`` do, inlined (the same values, charges and errors), but a derived variable
    is left to be evaluated when first read (most of an instance's 40 or so are read by no constraint;
    a derived preset is evaluated at once: its fields are set with it). The variables are read in the
    steps of ``_attempt_plan``."""
    env = Pending(template, fns, budget)
    later = env.later
    for var, deferred, constraints in _attempt_plan(template):
        if deferred is not None:  # derived variables, left for their first read
            later.update(deferred)
        elif var.expr is None:
            value = draw_value(var, rng)
            env[var.name] = value
            if var.kind == "preset":
                expand(var, value, env)
        else:  # a derived preset
            try:
                value = var.expr.remembered(env, fns, budget)  # the calculators: pure and memoized
            except ExprError as exc:
                raise TemplateError(
                    template.path, template.id, f"variables.{var.name}.expr", str(exc)
                ) from None
            env[var.name] = value
            expand(var, value, env)
        for constraint in constraints:
            try:
                holds = constraint.remembered(env, fns, budget)
            except ExprError as exc:
                raise TemplateError(template.path, template.id, "constraints", str(exc)) from None
            if not holds:
                return None
    return env


@per_template
def _attempt_plan(
    template: Template,
) -> tuple[tuple[Variable, dict[str, Variable] | None, list[Expr]], ...]:
    """The steps of ``_plain_attempt`` for part 1's variables, in order, each with the constraints checked
    after it (``constraint_schedule``): a drawn variable or a derived preset (``None``), or a run of
    derived variables left for their first read (their names; the constraints after the last of the
    run: the ones before it have none). Worked out once per template (shared: never change it)."""
    steps: list[tuple[Variable, dict[str, Variable] | None, list[Expr]]] = []
    run: dict[str, Variable] = {}
    for var, constraints in zip(template.main.variables, constraint_schedule(template), strict=False):
        if var.expr is not None and var.kind != "preset":
            run[var.name] = var
            if constraints:
                steps.append((var, run, constraints))
                run = {}
            continue
        if run:
            steps.append((var, run, []))
            run = {}
        steps.append((var, None, constraints))
    if run:
        steps.append((template.main.variables[-1], run, []))
    return tuple(steps)


def _set(
    template: Template,
    var: Variable,
    overrides: Mapping[str, Any],
    rng: random.Random,
    env: Env,
    fns: Mapping[str, Any],
    budget: Budget,
) -> None:
    value = own_value(template, var, overrides, rng)
    if value is _DRAW:
        if var.expr is not None:
            value = _evaluate(template, var.expr, env, fns, f"variables.{var.name}.expr", budget)
        else:
            value = draw_value(var, rng)
    expand(var, value, env)


def _fixed(var: Variable, overrides: Mapping[str, Any]) -> bool:
    """Whether the user fixed ``var`` (a chip or model given only fields is still drawn)."""
    value = overrides.get(var.name, _DRAW)
    return value is not _DRAW and not (isinstance(value, Fielded) and value.base is None)


#: ``own_value``'s answer for a variable the user did not set.
_DRAW = object()


def own_value(template: Template, var: Variable, overrides: Mapping[str, Any], rng: random.Random) -> Any:
    """The value the user gave ``var`` (a chip or model with own fields drawn first, then given them), or
    ``_DRAW``."""
    if var.name not in overrides:
        return _DRAW
    value = overrides[var.name]
    if not isinstance(value, Fielded):
        return value
    base = draw_value(var, rng) if value.base is None else value.base
    try:
        return apply_fields(var, base, value.fields)
    except QuizzerError as exc:
        raise TemplateError(template.path, template.id, f"variables.{var.name}", str(exc)) from None


def _complete(
    template: Template,
    overrides: Mapping[str, Any],
    rng: random.Random,
    env: Env,
    at: int,
    failed: Expr,
    touched: set[int],
    schedule: list[list[Expr]],
    holds: Any,
    budget: Budget,
) -> tuple[Env, tuple[Expr, ...]] | None:
    """The draw finished past ``failed`` (a constraint the overrides touch): None if a constraint they
    cannot touch fails, else the env and every touched constraint it breaks."""
    fns = calculators()
    env = dict(env)
    broken = [failed]
    rest = schedule[at][schedule[at].index(failed) + 1 :]
    for index in range(at, max(len(template.main.variables), 1)):
        if index > at:
            _set(template, template.main.variables[index], overrides, rng, env, fns, budget)
            rest = schedule[index]
        for constraint in rest:
            if not holds(constraint, env):
                if id(constraint) not in touched:
                    return None
                broken.append(constraint)
    return env, tuple(broken)


def draw_part(
    template: Template,
    part: PartSpec,
    rng: random.Random,
    env: Env,
    budget: Budget,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], tuple[Expr, ...]]:
    """Draw a later part's variables into ``env`` (the names of the parts before it) until its constraints
    hold: its own variables by name, and the constraints the user's own numbers (``overrides``) break.

    Unlike part 1's ``draw``, every variable of an attempt is drawn before the constraints are checked: the
    instances users saved (``ID#SEED``) were drawn this way, so the stream of each part stays as it was. With
    ``overrides``, a draw keeping every constraint is preferred, else the one breaking the fewest.
    """
    fns = calculators()
    overrides = overrides or {}
    drawn = any(v.expr is None and not _fixed(v, overrides) for v in part.variables)
    failed: Expr | None = None
    best: tuple[Env, list[Expr]] | None = None
    for _ in range(MAX_ATTEMPTS if drawn else 1):
        trial = dict(env)
        for var in part.variables:
            value = own_value(template, var, overrides, rng)
            if value is not _DRAW:
                pass
            elif var.expr is not None:
                try:  # the calculators: pure and memoized
                    value = var.expr.remembered(trial, fns, budget)
                except ExprError as exc:
                    field = part.field(f"variables.{var.name}.expr")
                    raise TemplateError(template.path, template.id, field, str(exc)) from None
            else:
                value = draw_value(var, rng)
            expand(var, value, trial)
        failing = []
        for i, constraint in enumerate(part.constraints):
            try:
                holds = constraint.remembered(trial, fns, budget)
            except ExprError as exc:
                field = part.field(f"constraints[{i}]")
                raise TemplateError(template.path, template.id, field, str(exc)) from None
            if not holds:
                failing.append(constraint)
        if not failing:
            env.update(trial)
            return {v.name: trial[v.name] for v in part.variables}, ()
        failed = failing[0]
        if overrides and (best is None or len(failing) < len(best[1])):
            best = (trial, failing)
        if overrides and budget.left < budget.limit // 2:
            break
    if best is not None:
        env.update(best[0])
        return {v.name: best[0][v.name] for v in part.variables}, tuple(best[1])
    message = (
        f"no draw in {MAX_ATTEMPTS} satisfied every constraint"
        if drawn
        else f"the constraint {failed.source if failed else ''!r} fails and the part draws nothing to change"
    )
    raise TemplateError(template.path, template.id, part.field("constraints"), message)


def n_layers_in(env: Mapping[str, Any], template: Template | None = None) -> int | None:
    """The model's layer count among the variables: ``n_layers``, else the first ``*_n_layers``. An env
    drawn for ``template`` holds part 1's names first: its first such name is part 1's first."""
    value = env.get("n_layers")
    if value is None and isinstance(env, Pending):  # only the one read is evaluated
        value = next((env[k] for k in layer_names(env.template)), None)
    elif value is None:
        names = layer_names(template) if template is not None else ()
        if names and names[0] in env:
            value = env[names[0]]
        elif template is None or names or later_part_has_layers(template):  # else no name can be one
            value = next((v for k, v in env.items() if k.endswith("_n_layers")), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _evaluate(
    template: Template,
    expr: Expr,
    env: Mapping[str, Any],
    fns: Mapping[str, Any],
    field: str,
    budget: Budget | None = None,
) -> Any:
    try:
        if fns is calculators():  # pure and memoized: the value follows from the names' values
            return expr.remembered(env, fns, budget)
        return plain(expr.evaluate(env, fns, budget))
    except ExprError as exc:
        raise TemplateError(template.path, template.id, field, str(exc)) from None


__all__ = [
    "MAX_ATTEMPTS",
    "constraint_schedule",
    "draw",
    "draw_count",
    "draw_part",
    "draw_value",
    "expand",
    "n_layers_in",
    "touched_by",
]
