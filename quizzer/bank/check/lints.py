"""Lints of the texts and derivations: tolerances written by hand, steps that can be left out unnoticed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quizzer.bank.check.base import Lint
from quizzer.bank.check.omissions import Scope, grade_omission, omissions_within, omitted_values
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import Budget
from quizzer.bank.expr.text import answer_display
from quizzer.bank.generate.draw import expand
from quizzer.bank.generate.tolerance import hand_written_tolerance
from quizzer.bank.limits import MAX_EVAL_STEPS, MAX_OMISSION_CHARS
from quizzer.bank.read.names import calculators
from quizzer.bank.read.schema import Template
from quizzer.bank.read.variables import Variable

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance, Part

#: Omission verdicts the lint reports: the step is not tested (correct), or it is and nothing says so (close).
SILENT, UNNAMED = "correct", "close"


class ToleranceText(Lint):
    """A prompt (of any part) or a convention that states the tolerance by hand: every part is shown with a
    sentence generated from its answer.tolerance already."""

    name = "tolerance-text"
    finds = "a prompt or convention that states the tolerance by hand (a sentence is generated)"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        texts = [
            *((part, "prompt", part.prompt) for part in template.parts),
            *((None, f"conventions[{i}]", c) for i, c in enumerate(template.conventions)),
        ]
        for part, field, text in texts:
            phrase = hand_written_tolerance(text)
            if phrase:
                self.report(
                    part,
                    field,
                    "by hand",
                    f"states the tolerance by hand ({phrase!r}); every part is shown with a sentence "
                    "generated from its answer.tolerance: remove it",
                )


class Omissions(Lint):
    """The omission lint of every part's answer (``OmissionLint``, one per part)."""

    name = "omissions"
    finds = "a step of a derivation that can be left out and still grade correct, or close with no mistake"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.parts = [OmissionLint(template, part.number) for part in template.parts]

    def visit(self, instance: Instance, seed: int) -> None:
        for lint in self.parts:
            lint.visit(instance, seed)

    def problems(self) -> list[TemplateError]:
        return [problem for lint in self.parts for problem in lint.problems()]


def scope(template: Template, number: int) -> Scope:
    """What the omission lint reads of part ``number``: its answer and ``omissions_ok``; part 1's
    variables, then, for each later part up to it, the answer before it (``part1``...: a number here,
    never a derived variable) and its variables, in the order they are defined; as texts shown, the
    conventions and every prompt the student has read by then, so the variables they show are givens."""
    variables: list[Variable] = [*template.main.variables]
    for later in template.parts[1:number]:
        variables.append(Variable(f"part{later.number - 1}", "range", (1, 1)))
        variables.extend(later.variables)
    part = template.parts[number - 1]
    prompts = [p.prompt for p in template.parts[:number]]
    return Scope(part.answer, tuple(variables), (*prompts, *template.conventions), part.omissions_ok)


def part_env(template: Template, instance: Instance, number: int) -> dict[str, Any]:
    """The names part ``number`` of ``instance`` is evaluated with: part 1's variables, then each later
    part's up to it, and the true answers of the parts before it (``part1``...). A copy: the lints of one
    instance ask for the same ones (an instance is immutable, so they are made once, ``_ENVS``)."""
    key = (id(instance), number)
    found = _ENVS.get(key)
    if found is not None and found[0] is instance and found[1] is template:
        return dict(found[2])
    env: dict[str, Any] = {}
    for var in template.main.variables:
        expand(var, instance.variables[var.name], env)
    for spec, part in zip(template.parts[1:number], instance.parts[1:number], strict=True):
        env[f"part{spec.number - 1}"] = instance.parts[spec.number - 2].value
        for var in spec.variables:
            expand(var, part.variables[var.name], env)
    if len(_ENVS) >= 64:  # the parts of the instance being checked, and a few before it
        _ENVS.clear()
    _ENVS[key] = (instance, template, env)
    return dict(env)


#: ``part_env``'s answers by (id of the instance, part), each kept beside its instance and template (so that
#: the id cannot be reused while it is kept).
_ENVS: dict[tuple[int, int], tuple[Instance, Template, dict[str, Any]]] = {}


class OmissionLint:
    """The omission lint over the instances of one template: the first seed of each finding is reported.

    One instance's evaluations share a budget of ``steps`` expression nodes, and the variants of one
    template at most ``MAX_OMISSION_CHARS`` characters: a lint that stops short says so, once.
    """

    def __init__(self, template: Template, number: int = 1, steps: int = MAX_EVAL_STEPS) -> None:
        """The lint of part ``number``'s answer (1: the main question): its findings name the part's
        ``answer.expr`` (``parts[i].`` for a later part) and its own ``omissions_ok`` accepts them."""
        self.template, self.number, self.steps_per_instance = template, number, steps
        self.part = template.parts[number - 1]
        self.view = scope(template, number)
        self.omissions, complete = omissions_within(self.view)
        accepted = {o.step for o in self.view.omissions_ok}
        self.steps = {o.step for o in self.omissions}
        self.active = [o for o in self.omissions if o.step not in accepted]
        self.spent: TemplateError | None = None
        self.cut: TemplateError | None = None
        if not complete:
            self.cut = self._error(
                "answer.expr",
                f"the omission lint tried the first {len(self.omissions)} steps only: their copies of the "
                f"expression pass {MAX_OMISSION_CHARS:,} characters (split it into expr variables)",
            )
        self.found: dict[tuple[str, str], TemplateError] = {}
        self.fns = _Memo(calculators())
        self.visited = 0

    def _error(self, field: str, message: str) -> TemplateError:
        return TemplateError(self.template.path, self.template.id, self.part.field(field), message)

    def visit(self, instance: Instance, seed: int) -> None:
        """Evaluate every omission for ``instance``; record the findings not yet recorded."""
        env = part_env(self.template, instance, self.number)
        question = instance.parts[self.number - 1]
        self.visited += 1
        budget = Budget(self.steps_per_instance)
        for omission, value in omitted_values(self.view, env, self.active, self.fns, budget):
            graded = grade_omission(question, value)
            if graded is None:
                continue
            kind, mistake = graded
            if kind in ("exact", "correct", "imprecise"):
                finding = SILENT
            elif kind == "close" and mistake is None:
                finding = UNNAMED
            else:
                continue
            key = (omission.step, finding)
            if key not in self.found:
                self.found[key] = self._problem(omission.step, omission.how, finding, seed, value, question)
        if budget.left <= 0 and self.spent is None:
            self.spent = self._error(
                "answer.expr",
                f"seed {seed}: the omission lint stopped: its {len(self.active)} omissions exceed the "
                f"evaluation budget of {budget.limit:,} steps for one instance",
            )

    def _problem(
        self, step: str, how: str, finding: str, seed: int, value: Any, question: Part
    ) -> TemplateError:
        shown = answer_display(value, question.unit, question.display_unit)
        if finding == SILENT:
            message = (
                f"leaving out {step!r} ({how}) still grades correct at seed {seed} (value {shown}); "
                "widen the question, narrow the band, add a mistake for it, or declare it in omissions_ok "
                "with a reason"
            )
        else:
            message = (
                f"leaving out {step!r} ({how}) grades close at seed {seed} (value {shown}) and no mistake "
                "says what was left out; add a mistake for it, or declare it in omissions_ok with a reason"
            )
        return self._error("answer.expr", message)

    def problems(self) -> list[TemplateError]:
        """The findings, then every omissions_ok entry that names no step of the derivation."""
        out = [*self.found.values(), *(p for p in (self.cut, self.spent) if p is not None)]
        for i, declared in enumerate(self.view.omissions_ok):
            if declared.step not in self.steps:
                known = ", ".join(repr(s) for s in sorted(self.steps)) or "none"
                out.append(
                    self._error(
                        f"omissions_ok[{i}].step",
                        f"{declared.step!r} is no step of the answer's derivation; the steps are: {known}",
                    )
                )
        return out


class _Memo(dict[str, Any]):
    """The calculators with their results remembered by arguments (they are pure): instances of one
    template share many calls, and every omission repeats most of them."""

    def __init__(self, base: Any) -> None:
        super().__init__()
        self.base = base
        self.cache: dict[Any, Any] = {}

    def get(self, name: str, default: Any = None) -> Any:
        fn = self.base.get(name)
        if fn is None:
            return default
        cache = self.cache

        def call(*args: Any, **kwargs: Any) -> Any:
            key = (name, *((type(a), a) for a in args), *((k, type(v), v) for k, v in sorted(kwargs.items())))
            if key not in cache:
                if len(cache) > 50_000:
                    cache.clear()
                cache[key] = fn(*args, **kwargs)
            return cache[key]

        return call


__all__ = ["OmissionLint", "Omissions", "ToleranceText", "part_env", "scope"]
