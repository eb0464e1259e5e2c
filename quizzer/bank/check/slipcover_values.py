"""The slips lint's values: what a part's answer becomes when one named factor of its derivation slips.

A factor on the last step of the derivation scales the answer itself. A factor on the last step of a
calculator call the answer uses (``part1 * kv_cache_bytes(...)``, ``floor(free / kv_per_token(...))``)
scales that call's result: the answer is evaluated again with it (``rescaled``), so a slip inside a sum, a
quotient or a rounding gets its true value. A factor on any other step (a term of a sum inside the
calculator) has no value the lint can compute: None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from quizzer.bank.errors import ExprError
from quizzer.bank.expr.expression import Budget, Expr, plain
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.trace import Factor, Number, Result, Step
from quizzer.core.words import counted
from quizzer.grading.slip_families import ROLE_FAMILIES, dtype_slips

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Part


class Possible(Record):
    """A slip one named factor of the derivation makes possible on an instance.

    Attributes:
        family: its family ("kv-pair").
        step: the label of the step the factor is on.
        factor: the factor.
        ratio: what the slip multiplies the factor's step by (1/2 for the ×2 of K and V forgotten).
        value: the answer with the slip (None: the step is no factor of the answer, nor of a call it uses).
        what: the slip in words, for a message ("forgetting the ×2 for K and V").
    """

    family: str
    step: str
    factor: Factor
    ratio: float
    value: Number | None
    what: str


class _Calls(dict[str, Any]):
    """The calculators, recording each call's result in call order, or scaling the result of call ``at``."""

    def __init__(self, base: Mapping[str, Callable[..., Result]], at: int = -1, ratio: float = 1.0) -> None:
        super().__init__()
        self.base, self.at, self.ratio = base, at, ratio
        self.results: list[Result] = []

    def get(self, name: str, default: Any = None) -> Any:
        fn = self.base.get(name)
        if fn is None:
            return default

        def call(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if isinstance(result, Result):
                if len(self.results) == self.at:
                    result = Result(result.value * self.ratio, result.unit, result.steps, result.convention)
                self.results.append(result)
            return result

        return call


def call_results(
    expr: Expr, env: Mapping[str, Any], fns: Mapping[str, Callable[..., Result]]
) -> list[Result]:
    """The results of the calculator calls ``expr`` makes, in call order ([] when it fails)."""
    calls = _Calls(fns)
    try:
        expr.evaluate(env, calls, Budget())
    except (ExprError, QuizzerError, ArithmeticError, TypeError, ValueError):
        return []
    return calls.results


def rescaled(
    expr: Expr,
    env: Mapping[str, Any],
    fns: Mapping[str, Callable[..., Result]],
    at: int,
    ratio: float,
) -> Number | None:
    """``expr`` with the result of its call number ``at`` multiplied by ``ratio`` (None when it fails). Each
    evaluation has a budget of its own: it is bounded by the expression's size."""
    try:
        value = plain(expr.evaluate(env, _Calls(fns, at, ratio), Budget()))
    except (ExprError, QuizzerError, ArithmeticError, TypeError, ValueError):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def heads_in(env: Mapping[str, Any]) -> int | None:
    """The query heads among the variables: ``n_heads``, else the only ``*_n_heads`` (None: none, or two
    models' heads)."""
    value = env.get("n_heads")
    if value is None:
        found = {v for k, v in env.items() if k.endswith("_n_heads") and not k.endswith("_kv_heads")}
        value = found.pop() if len(found) == 1 else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def slipped(factor: Factor, env: Mapping[str, Any]) -> Iterator[tuple[str, float, str]]:
    """(family, ratio, the slip in words) for each classic slip of ``factor``: its step times ``ratio``."""
    family, value = ROLE_FAMILIES.get(factor.role), factor.value
    if family is None or not value:
        return
    if factor.role == "kv" and value == 2:
        yield family, 0.5, "forgetting the ×2 for K and V"
    elif factor.role == "layers" and value >= 2:
        yield family, 1 / value, f"counting one layer of {value:g}"
    elif factor.role == "flops_per_mac" and value == 2:
        yield family, 0.5, "counting multiply-adds (MACs) as FLOPs"
    elif factor.role == "kv_heads":
        heads = factor.instead if factor.instead is not None else heads_in(env)
        if heads is not None and heads != value:
            yield (
                family,
                heads / value,
                f"using the {heads:g} query heads for the {counted(value, 'KV head')}",
            )
    elif factor.role == "bytes_per_value" and factor.label:
        for slip in dtype_slips(1, factor.label):
            yield family, float(slip.value), f"taking {slip.title}"


def possible_slips(
    part: Part,
    expr: Expr,
    env: Mapping[str, Any],
    fns: Mapping[str, Callable[..., Result]],
) -> list[Possible]:
    """Every classic slip a named factor of ``part``'s derivation makes possible, with the answer it gives
    where the lint can compute it."""
    steps = part.derivation
    if not any(step.factors for step in steps):
        return []
    last: Step = steps[-1]
    results: list[Result] | None = None
    found: list[Possible] = []
    for step in steps:
        for factor in step.factors:
            for family, ratio, what in slipped(factor, env):
                value: Number | None = None
                if step is last:
                    value = part.value * ratio
                else:
                    if results is None:
                        results = call_results(expr, env, fns)
                    at = next((i for i, r in enumerate(results) if r.steps and r.steps[-1] == step), None)
                    if at is not None:
                        value = rescaled(expr, env, fns, at, ratio)
                found.append(Possible(family, step.label, factor, ratio, value, what))
    return found


__all__ = ["Possible", "call_results", "heads_in", "possible_slips", "rescaled", "slipped"]
