"""An instance's answer and its derivation: the calculators' own steps, then a last row in words."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from quizzer.bank.errors import ExprError, TemplateError
from quizzer.bank.expr.expression import Budget, Expr, num_or_repr, plain
from quizzer.bank.expr.notation import field_words
from quizzer.bank.generate.per_template import per_template
from quizzer.bank.read.names import PRESET_FIELDS, calculators
from quizzer.bank.read.schema import Template
from quizzer.core.trace import Result, Step


class Tracing(dict[str, Any]):
    """The calculators, recording every result in call order (``results``) and by call (``by_call``).

    Expression evaluation notes each calculator result through ``note``, so a derivation's last row can
    name the result of each call in the answer expression.
    """

    def __init__(self, base: Mapping[str, Callable[..., Result]] | None = None) -> None:
        super().__init__()
        self.base = base if base is not None else calculators()
        self.results: list[Result] = []
        self.by_call: dict[tuple[int, int, int, int], Result] = {}

    def get(self, name: str, default: Any = None) -> Any:
        return self.base.get(name, default)

    def note(self, key: tuple[int, int, int, int], result: Result) -> None:
        """Record ``result`` as the value of the call at ``key``."""
        self.results.append(result)
        self.by_call[key] = result


@per_template
def _labels(template: Template) -> dict[str, str]:
    return variable_labels(template)


def template_labels(template: Template) -> dict[str, str]:
    """``variable_labels(template)``, worked out once per template: a copy, the caller's to change."""
    return dict(_labels(template))


def variable_labels(template: Template) -> dict[str, str]:
    """How formulas name the template's (part 1's) variables in words: a variable's ``label``; the fields
    of its only preset variable as the core's formulas name them (``model_n_layers`` as n_layers), in words
    where the field's name is code (``model_kv_lora_rank`` as KV rank)."""
    labels: dict[str, str] = {}
    variables = template.main.variables
    presets = [v for v in variables if v.kind == "preset"]
    if len(presets) == 1:
        labels.update({f"{presets[0].name}_{f}": field_words(f) for f in PRESET_FIELDS if f != "title"})
    labels.update({v.name: v.label for v in variables if v.label})
    return labels


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


def derive(
    template: Template,
    expr: Expr,
    unit: str,
    env: Mapping[str, Any],
    labels: Mapping[str, str],
    field: str,
    budget: Budget | None = None,
) -> tuple[int | float, tuple[Step, ...]]:
    """The value of ``expr`` (a part's answer in ``unit``) and its derivation; a TemplateError names
    ``field``.

    A single calculator call gives its own steps. Anything else gives the steps of every calculator it
    calls, then an "Answer" row whose formula names each call's result by its last step's label and each
    variable by its label (or name), with the numbers put in: never a calculator call.
    """
    fns = Tracing()
    try:
        raw = expr.evaluate(env, fns, budget)
        value = plain(raw)
    except ExprError as exc:
        raise TemplateError(template.path, template.id, field, str(exc)) from None
    gradable(template, value, field)
    if isinstance(raw, Result):
        return raw.value, raw.steps
    steps = tuple(step for result in fns.results for step in result.steps)
    try:
        formula, substituted = expr.describe(env, fns.base, labels, fns.by_call)
    except ExprError as exc:
        raise TemplateError(template.path, template.id, field, str(exc)) from None
    return value, (*steps, Step("Answer", formula, substituted, value, unit))


__all__ = ["Tracing", "derive", "gradable", "template_labels", "variable_labels"]
