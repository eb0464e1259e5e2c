"""The precision lint: an answer recomputed from the numbers as printed that falls outside the band.

A student computes from what the question shows. For each part, every number shown before it is answered
(the placeholders of its prompt, of the earlier parts' prompts and of the conventions; each earlier
part's answer as it was shown) is rendered as the renderer renders it and read back; a value shown in
several places counts at its most precise printing. All of them are put into the part's names at once,
the derived variables that depend on them and are not shown themselves are recomputed in order, then the
answer; an answer outside the part's band is a finding, named at the placeholder that moves it most.
A drawn or derived value printed rounded as a plain number ("110 tokens/s" for 110.2) whose true value
the part's derivation shows is a finding too: the student meets a number the question never gave.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from quizzer.bank.check.base import Lint
from quizzer.bank.check.lints import part_env, scope
from quizzer.bank.check.precision_printed import (
    Printed,
    Shown,
    is_number,
    looks_exact,
    placeholders,
    read_back,
    relative,
    rendered,
)
from quizzer.bank.expr.expression import Budget, plain
from quizzer.bank.expr.text import answer_display
from quizzer.bank.generate.prompt_numbers import number_spans
from quizzer.bank.read.names import PRESET_FIELDS, calculators
from quizzer.bank.read.variables import PART_NAME_RE as PART_RE
from quizzer.core.errors import QuizzerError
from quizzer.core.trace import num
from quizzer.core.units import format_sig
from quizzer.grading.grade import Tolerance, is_within

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance, Part
    from quizzer.bank.read.schema import PartSpec, Template
    from quizzer.bank.read.variables import Variable

#: What the student is shown of an earlier part's answer, besides any prompt that prints it.
ANSWER_SHOWN = "answer"


class Precision(Lint):
    """Each part's answer recomputed from the numbers as they are printed (``PartPrecision``)."""

    name = "precision"
    finds = (
        "an answer recomputed from the numbers as the prompt prints them that falls outside the band, or a "
        "number printed rounded as if exact that the derivation shows in full"
    )

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.parts = [PartPrecision(template, spec.number) for spec in template.parts]
        self.fns = calculators()

    def visit(self, instance: Instance, seed: int) -> None:
        budget = Budget()
        for view in self.parts:
            miss = view.miss(instance, self.fns, budget)
            if miss is not None:
                self._found_miss(view, instance, seed, *miss)
            for printed in view.unseen(instance):
                self._found_unseen(view, instance, seed, printed)

    def _found_unseen(self, view: PartPrecision, instance: Instance, seed: int, printed: Printed) -> None:
        where = printed.where
        spec = None if where.part is None else self.template.parts[where.part - 1]
        whose = "the derivation" if len(instance.parts) == 1 else f"part {view.number}'s derivation"
        true = num(view.env_of(instance)[where.name])
        style = f":{where.style}" if where.style else ""
        self.report(
            spec,
            where.field,
            f"figures:{where.name}",
            f"seed {seed}: {{{where.name}{style}}} prints {printed.text}, a number that reads as exact, for "
            f"{true}, which {whose} shows: the student meets a number the question never gave; print it "
            f"with its figures ({{{where.name}:count}} prints {true}), or draw it with the figures it prints",
        )

    def _found_miss(
        self, view: PartPrecision, instance: Instance, seed: int, value: int | float, culprits: list[Printed]
    ) -> None:
        part = instance.parts[view.number - 1]
        culprit = culprits[0]
        where = culprit.where
        spec: PartSpec | None
        if where.field == ANSWER_SHOWN:  # an earlier answer no prompt prints: the part's own answer uses it
            spec, field = view.spec, "answer.expr"
        else:
            spec = None if where.part is None else self.template.parts[where.part - 1]
            field = where.field
        subject = "the answer" if len(instance.parts) == 1 else f"part {view.number}'s answer"
        got = answer_display(value, part.unit, part.display_unit, part.needed_figures)
        listing = "; ".join(_printing(p, view.env_of(instance)) for p in culprits[:3])
        off = _percent(relative(value, part.value))
        message = (
            f"seed {seed}: {subject} from the numbers as printed is {got}, {off} "
            f"from {part.display} (outside the band of {_band(part.tolerance)}): {listing}; "
            f"{_fix(culprit, view.env_of(instance), value, part.value)}"
        )
        self.report(spec, field, f"part{view.number}:{where.name}", message)


class PartPrecision:
    """The precision of one part: what is shown before it is answered (found once per template), and, per
    instance, its answer recomputed from those numbers as printed."""

    def __init__(self, template: Template, number: int) -> None:
        self.template, self.number = template, number
        self.spec = template.parts[number - 1]
        self.order: tuple[Variable, ...] = scope(template, number).variables
        self.formats = {v.name: (v.format, v.unit) for v in self.order}
        self.earlier = [f"part{k}" for k in range(1, number)]
        self.depends = _dependencies(self.spec.answer.names, self.order)
        shown = [placeholders(None, f"conventions[{i}]", c) for i, c in enumerate(template.conventions)]
        shown += [placeholders(p.number, "prompt", p.prompt) for p in template.parts[:number]]
        # a part's own prompt first: of two printings equally precise, the finding names the nearest
        ordered = [*shown[len(template.conventions) :][::-1], *shown[: len(template.conventions)]]
        self.shown = [s for group in ordered for s in group if s.name in self.depends]
        self._env: tuple[str, dict[str, Any]] | None = None
        self._printed: tuple[str, dict[str, Printed]] | None = None

    def env_of(self, instance: Instance) -> dict[str, Any]:
        """The names part ``number`` of ``instance`` is evaluated with (the last instance's, remembered)."""
        if self._env is None or self._env[0] != instance.id:
            self._env = (instance.id, part_env(self.template, instance, self.number))
        return self._env[1]

    def printed(self, instance: Instance) -> dict[str, Printed]:
        """Each number the answer depends on that the student is shown, at its most precise printing (the
        last instance's, remembered)."""
        if self._printed is None or self._printed[0] != instance.id:
            self._printed = (instance.id, self._printings(instance))
        return self._printed[1]

    def _printings(self, instance: Instance) -> dict[str, Printed]:
        env = self.env_of(instance)
        displays = {f"part{k}": instance.parts[k - 1].display for k in range(1, self.number)}
        units = {f"part{k}": instance.parts[k - 1].unit for k in range(1, self.number)}
        best: dict[str, Printed] = {}
        shown = [*self.shown, *(Shown(int(n[4:]), ANSWER_SHOWN, n, None) for n in self.earlier)]
        for where in shown:
            value = env.get(where.name)
            if where.name not in self.depends or not is_number(value):
                continue
            text = rendered(where, value, self.formats, displays)
            unit = self.formats.get(where.name, (None, None))[1] or units.get(where.name)
            got = None if text is None else read_back(text, value, unit)
            if got is None:
                continue
            kept = best.get(where.name)
            if kept is None or relative(got, value) < relative(kept.value, value):
                best[where.name] = Printed(got, text or "", where)
        return best

    def unseen(self, instance: Instance) -> list[Printed]:
        """The drawn or derived values printed rounded as if exact (no scale word, no exponent: "110
        tokens/s" for 110.2) whose true value this part's derivation shows; earlier answers are left out
        (they are shown to the figures their part needs, and later parts use their true values by design)."""
        env = self.env_of(instance)
        shown: set[float] | None = None
        out = []
        for name, p in self.printed(instance).items():
            if p.value == env[name] or p.where.field == ANSWER_SHOWN or PART_RE.match(name):
                continue
            if not looks_exact(p.text, p.value):
                continue
            if shown is None:
                steps = instance.parts[self.number - 1].derivation
                shown = {v[0] for s in steps for _, _, v in number_spans(s.substituted) if v}
            if float(env[name]) in shown:
                out.append(p)
        return out

    def miss(
        self, instance: Instance, fns: Mapping[str, Callable[..., Any]], budget: Budget
    ) -> tuple[int | float, list[Printed]] | None:
        """(the answer from the numbers as printed, the printings that move it, most first) when it falls
        outside the part's band; None when it is inside, or cannot be recomputed."""
        part: Part = instance.parts[self.number - 1]
        env = self.env_of(instance)
        printed = self.printed(instance)
        changed = {name: p for name, p in printed.items() if p.value != env[name]}
        if not changed:
            return None
        given = set(printed)
        value = self.recompute(env, {n: p.value for n, p in changed.items()}, given, fns, budget)
        if value is None or is_within(value, part.value, part.tolerance):
            return None
        moves = []
        for name, p in changed.items():
            alone = self.recompute(env, {name: p.value}, given, fns, budget)
            moves.append((relative(alone, part.value) if alone is not None else 0.0, name, p))
        moves.sort(key=lambda m: -m[0])
        return value, [p for moved, _, p in moves if moved > 0] or [moves[0][2]]

    def recompute(
        self,
        env: Mapping[str, Any],
        changed: Mapping[str, int | float],
        given: set[str],
        fns: Mapping[str, Callable[..., Any]],
        budget: Budget,
    ) -> int | float | None:
        """The answer with the names ``changed``, the derived variables that depend on them recomputed in
        order (but those in ``given``: the student reads them); None when it cannot be evaluated."""
        names = dict(env)
        names.update(changed)
        moved = set(changed)
        try:
            for var in self.order:
                if var.expr is not None and var.name not in given and var.expr.names & moved:
                    names[var.name] = plain(var.expr.evaluate(names, fns, budget))
                    moved.add(var.name)
            value = plain(self.spec.answer.evaluate(names, fns, budget))
        except (QuizzerError, ArithmeticError, TypeError, ValueError):
            return None
        return value if is_number(value) else None


def _dependencies(names: frozenset[str] | set[str], order: tuple[Variable, ...]) -> set[str]:
    """``names`` and every name the derived variables among them use, transitively (a preset's fields
    with it: a preset variable stands for its fields)."""
    derived = {v.name: v.expr for v in order if v.expr is not None}
    presets = {v.name for v in order if v.kind == "preset"}
    out: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in out:
            continue
        out.add(name)
        expr = derived.get(name)
        if expr is not None:
            stack.extend(expr.names)
    for preset in presets & out:  # a calculator given the model reads its fields
        out.update(f"{preset}_{field}" for field in PRESET_FIELDS)
    return out


def _printing(p: Printed, env: Mapping[str, Any]) -> str:
    where = p.where
    if where.field == ANSWER_SHOWN:
        return f"part {where.part}'s answer is shown as {p.text} (it is {num(env[where.name])})"
    style = f":{where.style}" if where.style else ""
    return f"{{{where.name}{style}}} prints {p.text} for {num(env[where.name])}"


def _fix(p: Printed, env: Mapping[str, Any], value: int | float, true: int | float) -> str:
    """What to do: keep the draw off a whole-number edge, or print the value with more figures."""
    where = p.where
    if float(value).is_integer() and float(true).is_integer() and abs(value - true) == 1:
        return (
            "the answer is rounded to a whole number and the printed figures land across the edge: keep "
            "the draw away from it (a constraint), or print the numbers it is rounded from with more figures"
        )
    if PART_RE.match(where.name):
        return (
            f"show {{{where.name}}} with more figures or give the numbers it stands for, so its rounding "
            "cannot carry, or change the draw"
        )
    if isinstance(env[where.name], int):
        return f"print it exactly ({{{where.name}:count}}), or change the draw"
    return f"print {{{where.name}}} with more figures, or change the draw"


def _percent(share: float) -> str:
    return f"{format_sig(100 * share, 2)}%"


def _band(tolerance: Tolerance) -> str:
    if tolerance.kind == "rel":
        return _percent(tolerance.value)
    if tolerance.kind == "abs":
        return f"±{num(tolerance.value)}"
    return f"a factor of {num(tolerance.value)}"


__all__ = ["PartPrecision", "Precision"]
