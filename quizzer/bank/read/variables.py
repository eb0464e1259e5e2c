"""Template variables: how each is drawn (choices, range, log2, bool, preset, expr) and shown, validated."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from quizzer.bank.expr.expression import Expr
from quizzer.bank.expr.syntax import BUILTIN_NAMES
from quizzer.bank.expr.text import style_problem
from quizzer.bank.limits import MAX_INT_BITS
from quizzer.bank.read.reader import Reader
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record

if TYPE_CHECKING:
    from typing import TypedDict

    class _Shown(TypedDict):
        """The optional display fields of a Variable, read once and passed to each kind's constructor."""

        unit: str | None
        format: str | None
        label: str | None


VARIABLE_KINDS = ("choices", "range", "log2", "preset", "bool", "expr")
VARIABLE_KEYS = {*VARIABLE_KINDS, "step", "unit", "format", "label"}
NAME_RE = re.compile(r"^[a-z_][a-z0-9_]*$")
#: ``part1``, ``part2``...: the true answer of a part of a chain; no variable may take such a name.
PART_NAME_RE = re.compile(r"^part([0-9]+)$")


class Variable(Record, slots=True):
    """One template variable: how it is drawn (``kind`` and ``spec``) and how it is shown."""

    name: str
    kind: str
    spec: Any
    step: int = 1
    unit: str | None = None
    format: str | None = None
    expr: Expr | None = None
    label: str | None = None
    """How derivation formulas name the variable in words ("KV cache per token"); default: its name."""


def parse_variables(r: Reader) -> tuple[Variable, ...]:
    table = r.get(r.raw, "variables", dict, "variables", required=False, default={})
    out: list[Variable] = []
    for name, spec in table.items():
        field = f"variables.{name}"
        if not NAME_RE.match(name) or name in BUILTIN_NAMES:
            raise r.error(field, f"{name!r} must be a lower-case identifier that is not a function name")
        if PART_NAME_RE.match(name):
            raise r.error(field, f"{name!r} is reserved: part1, part2... name the answers of a chain's parts")
        if not isinstance(spec, dict):
            raise r.error(field, "expected a table such as { choices = [...] } or { range = [lo, hi] }")
        r.unknown_keys(spec, VARIABLE_KEYS, f"{field}.")
        kinds = [k for k in VARIABLE_KINDS if k in spec]
        if len(kinds) != 1:
            raise r.error(field, f"needs exactly one of: {', '.join(VARIABLE_KINDS)}")
        out.append(_variable(r, name, kinds[0], spec, field))
    return tuple(out)


def _variable(r: Reader, name: str, kind: str, spec: dict[str, Any], field: str) -> Variable:
    value = spec[kind]
    step = r.get(spec, "step", int, f"{field}.step", required=False, default=1)
    extras: _Shown = {
        "unit": r.get(spec, "unit", str, f"{field}.unit", required=False),
        "format": r.get(spec, "format", str, f"{field}.format", required=False),
        "label": r.get(spec, "label", str, f"{field}.label", required=False),
    }
    problem = None if extras["format"] is None else style_problem(extras["format"])
    if problem:
        raise r.error(f"{field}.format", problem)
    if step <= 0 or (step != 1 and kind != "range"):
        raise r.error(f"{field}.step", "step must be a positive integer, and only ranges take one")
    if kind == "expr":
        return Variable(name, kind, value, expr=r.expr(value, f"{field}.expr"), **extras)
    if kind == "bool":
        if value is not True:
            raise r.error(f"{field}.bool", "write bool = true for a variable drawn as true or false")
        return Variable(name, kind, value, **extras)
    if not isinstance(value, list) or not value:
        raise r.error(f"{field}.{kind}", "expected a non-empty list")
    if kind == "choices":
        types = {type(v) for v in value}
        if len(types) > 1 and types != {int, float}:
            raise r.error(
                f"{field}.choices", f"choices must share one type, got {sorted(t.__name__ for t in types)}"
            )
        if not types <= {int, float, str, bool}:
            raise r.error(f"{field}.choices", "choices must be numbers, text or booleans")
        for i, item in enumerate(value):
            _check_number(r, item, f"{field}.choices[{i}]")
        return Variable(name, kind, tuple(value), **extras)
    if kind == "preset":
        from quizzer.core.presets import preset

        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise r.error(f"{field}.preset[{i}]", "expected a preset name")
            try:
                preset(item)
            except QuizzerError as exc:
                raise r.error(f"{field}.preset[{i}]", str(exc)) from None
        return Variable(name, kind, tuple(value), **extras)
    if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise r.error(f"{field}.{kind}", "expected [lo, hi], two integers")
    lo, hi = value
    _check_number(r, lo, f"{field}.{kind}[0]")
    _check_number(r, hi, f"{field}.{kind}[1]")
    if not 0 < lo <= hi if kind == "log2" else not lo <= hi:
        raise r.error(
            f"{field}.{kind}", f"[{lo}, {hi}] is empty" + (" or not positive" if kind == "log2" else "")
        )
    if kind == "log2" and (lo & (lo - 1) or hi & (hi - 1)):
        raise r.error(f"{field}.log2", f"[{lo}, {hi}]: both ends must be powers of two")
    return Variable(name, kind, (lo, hi), step=step, **extras)


def _check_number(r: Reader, value: Any, field: str) -> None:
    """A number written in the file is finite and within the evaluator's size limit."""
    if isinstance(value, float) and not math.isfinite(value):
        raise r.error(field, f"{value!r} is not a finite number")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise r.error(field, f"the number has more than {MAX_INT_BITS:,} bits")


__all__ = ["NAME_RE", "PART_NAME_RE", "VARIABLE_KEYS", "VARIABLE_KINDS", "Variable", "parse_variables"]
