"""The omission lint: the answer with each step of its derivation left out, and how that grades.

A step is a factor of a product (set to 1), a divisor (set to 1), a term of a sum (set to 0), an exponent
(set to 1), or a number argument of a calculator call, given or left at its default (set to 1, and to 0),
in the answer expression and in every derived (``expr``) variable it uses that the question does not give.
Each variant is parsed once per template, from the source with the step's text replaced, and evaluated for
every instance the check draws; a variant that fails to evaluate (a calculator refusing 0) or gives the
answer unchanged is no omission.
"""

from __future__ import annotations

import _ast  # the C node classes; the `ast` module would cost ~14 ms of cold start
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from quizzer.bank.errors import ExprError
from quizzer.bank.expr.expression import Budget, Expr
from quizzer.bank.expr.syntax import BUILTIN_NAMES, value_kinds
from quizzer.bank.expr.text import PLACEHOLDER_RE
from quizzer.bank.limits import MAX_OMISSION_CHARS
from quizzer.bank.read.names import calculators, name_kinds
from quizzer.bank.read.texts import OmissionOk
from quizzer.bank.read.variables import Variable
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record

_NUMBER = frozenset({"number"})


class Scope(Record):
    """What the omission lint reads of one part of a template (``lints.scope``): its answer, every variable
    in scope in order (an earlier part's answer, ``part1``..., as a plain number: the student is shown its
    true value), the texts the student has read by then (their placeholders are givens), and the omissions
    the part accepts."""

    answer: Expr
    variables: tuple[Variable, ...]
    shown: tuple[str, ...]
    omissions_ok: tuple[OmissionOk, ...] = ()


class Omission(Record):
    """One step left out: its text as written, what it is, and the expression without it.

    ``target`` is None when ``variant`` replaces the answer expression, else the name of the derived
    variable whose expression it replaces (the variables after it are recomputed, then the answer).
    """

    step: str
    how: str
    variant: Expr
    target: str | None = None


class _Default:
    """A number parameter a calculator call leaves at its default: the call's span, the parameter's name."""

    __slots__ = ("call", "param")

    def __init__(self, call: Any, param: str) -> None:
        self.call, self.param = call, param


def _span(source: bytes, starts: list[int], node: Any) -> tuple[int, int]:
    node = node.call if isinstance(node, _Default) else node
    return starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset


def _product(node: Any) -> list[tuple[Any, str]]:
    """The factors of a product or quotient: (node, "a factor" | "a divisor")."""
    if isinstance(node, _ast.BinOp) and isinstance(node.op, _ast.Mult):
        return _product(node.left) + _product(node.right)
    if isinstance(node, _ast.BinOp) and isinstance(node.op, _ast.Div):
        divisors = [(n, "a divisor") for n, _ in _product(node.right)]
        return _product(node.left) + divisors
    return [(node, "a factor")]


def _is_calculator_call(node: Any) -> bool:
    # check_node admits calls of a plain name only
    return isinstance(node, _ast.Call) and cast("_ast.Name", node.func).id not in BUILTIN_NAMES


def _defaults(call: Any) -> list[tuple[str, int | float]]:
    """The number parameters of a calculator that ``call`` leaves at their defaults (``overhead=1.2``): a
    factor or term inside the calculator that the template's expression does not show. Read from the
    function's code object (``inspect`` would cost the command line its start-up time)."""
    fn = calculators().get(call.func.id)
    fn = getattr(fn, "__wrapped__", fn)  # the calculator under its memo (quizzer.core)
    code = getattr(fn, "__code__", None)
    if fn is None or code is None:  # (None has no __code__: the first test is for mypy)
        return []
    positional = code.co_varnames[: code.co_argcount]
    defaults = dict(
        zip(positional[len(positional) - len(fn.__defaults__ or ()) :], fn.__defaults__ or (), strict=True)
    )
    defaults.update(fn.__kwdefaults__ or {})
    given = set(positional[: len(call.args)]) | {k.arg for k in call.keywords}
    return [
        (param, value)
        for param, value in defaults.items()
        if param not in given
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and value not in (0, 1)
    ]


def _terms(node: Any) -> list[Any]:
    if isinstance(node, _ast.BinOp) and isinstance(node.op, _ast.Add | _ast.Sub):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _steps(node: Any, kinds: Mapping[str, frozenset[str]], out: list[tuple[Any, str, str]]) -> None:
    """Append (node, what it is, the neutral value) for every step under ``node``."""
    if isinstance(node, _ast.BinOp):
        if isinstance(node.op, _ast.Mult | _ast.Div):  # a calculator's result is the quantity, not a step
            parts = [(n, how, "1") for n, how in _product(node) if not _is_calculator_call(n)]
        elif isinstance(node.op, _ast.Add | _ast.Sub):
            parts = [(n, "a term", "0") for n in _terms(node)]
        elif isinstance(node.op, _ast.Pow):
            parts = [(node.right, "an exponent", "1")]
            _steps(node.left, kinds, out)
        elif isinstance(node.op, _ast.FloorDiv):
            parts = [(node.right, "a divisor", "1")]
            _steps(node.left, kinds, out)
        else:
            parts = []
            _steps(node.left, kinds, out)
            _steps(node.right, kinds, out)
        for part in parts:
            out.append(part)
            _steps(part[0], kinds, out)
    elif isinstance(node, _ast.Call):
        name = cast("_ast.Name", node.func).id  # check_node admits calls of a plain name only
        named = [(a, f"argument {i + 1} of {name}") for i, a in enumerate(node.args)]
        named += [(k.value, f"argument {k.arg} of {name}") for k in node.keywords]
        for arg, how in named:
            if name not in BUILTIN_NAMES and value_kinds(arg, kinds) == _NUMBER:
                out += [(arg, how, "1"), (arg, how, "0")]
            _steps(arg, kinds, out)
        if name not in BUILTIN_NAMES:
            for param, default in _defaults(node):
                how = f"the default {param} = {default!r} of {name}"
                out += [(_Default(node, param), how, "1"), (_Default(node, param), how, "0")]
    elif isinstance(node, _ast.IfExp):
        _steps(node.body, kinds, out)
        _steps(node.orelse, kinds, out)
    elif isinstance(node, _ast.UnaryOp):
        _steps(node.operand, kinds, out)


def _variants(
    expr: Expr, kinds: Mapping[str, frozenset[str]], target: str | None, room: list[int]
) -> list[Omission]:
    """The omissions of one expression; ``room`` holds the characters of variants left to parse (once it
    is spent, no more are made)."""
    source = expr.source.encode("utf-8")
    starts = [0]
    for line in source.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)
    found: list[tuple[Any, str, str]] = []
    _steps(expr.tree, kinds, found)
    out: list[Omission] = []
    seen: set[str] = set()
    for node, how, neutral in found:
        start, end = _span(source, starts, node)
        if isinstance(node, _Default):  # a default left out: pass it, set to the neutral value
            comma = ", " if node.call.args or node.call.keywords else ""
            text = node.param
            variant_source = (
                source[: end - 1] + f"{comma}{text}={neutral}".encode() + source[end - 1 :]
            ).decode()
        else:
            text = " ".join(source[start:end].decode("utf-8").split())
            if text == neutral:
                continue
            variant_source = (source[:start] + f"({neutral})".encode() + source[end:]).decode("utf-8")
        if variant_source in seen:
            continue
        seen.add(variant_source)
        room[0] -= len(variant_source)
        if room[0] < 0:
            break
        try:
            variant = Expr(variant_source)
        except ExprError:  # cannot happen for a valid expression; never the lint's crash
            continue
        where = "" if target is None else f" in variables.{target}"
        out.append(Omission(text, f"{how}{where}, set to {neutral}", variant, target))
    return out


def givens(scope: Scope) -> set[str]:
    """The variables the question shows (placeholders of the prompts and conventions read so far)."""
    return {m.group(1) for text in scope.shown for m in PLACEHOLDER_RE.finditer(text)}


def used_variables(scope: Scope) -> list[Variable]:
    """The derived variables the answer uses, directly or through others, in declaration order.

    A variable the question shows (``{name}`` in the prompt or a convention) is given to the student, not
    worked out: the lint does not look inside it.
    """
    given = givens(scope)
    derived = {v.name: v.expr for v in scope.variables if v.expr is not None and v.name not in given}
    used: set[str] = set()
    stack = list(scope.answer.names)
    while stack:
        name = stack.pop()
        if name in derived and name not in used:
            used.add(name)
            stack.extend(derived[name].names)
    return [v for v in scope.variables if v.name in used]


def omissions(scope: Scope) -> list[Omission]:
    """Every step of the answer's derivation that can be left out, once per template (at most
    ``MAX_OMISSION_CHARS`` characters of variants: see ``omissions_within``)."""
    return omissions_within(scope)[0]


def omissions_within(scope: Scope, limit: int = MAX_OMISSION_CHARS) -> tuple[list[Omission], bool]:
    """The omissions whose variant expressions fit in ``limit`` characters in all (each is parsed), and
    whether that is all of them."""
    kinds, room = name_kinds(scope.variables), [limit]
    found = _variants(scope.answer, kinds, None, room)
    for var in used_variables(scope):
        if room[0] >= 0:
            found += _variants(cast(Expr, var.expr), kinds, var.name, room)  # used: derived, so an expr
    return found, room[0] >= 0


def _downstream(scope: Scope, name: str, given: set[str]) -> list[Variable]:
    """The derived variables after ``name`` that depend on it, in order (to recompute after a change); the
    ones the question shows stay as shown."""
    changed, out = {name}, []
    for var in scope.variables:
        if var.expr is not None and var.name not in given and var.expr.names & changed:
            changed.add(var.name)
            out.append(var)
    return out


def omitted_values(
    scope: Scope,
    env: Mapping[str, Any],
    found: list[Omission],
    fns: Mapping[str, Callable[..., Any]],
    budget: Budget | None = None,
) -> Iterator[tuple[Omission, int | float]]:
    """(omission, the answer without that step) for each omission that evaluates to another number.

    Every evaluation is charged to ``budget``; once it is spent, the remaining omissions are not tried.
    ``fns`` must be pure (the calculators): a value is remembered by the values of the names it reads.
    """
    answer = scope.answer.remembered(env, fns, budget)
    later: dict[str, list[Variable]] = {}
    for omission in found:
        if budget is not None and budget.left <= 0:
            return
        try:
            if omission.target is None:
                value = omission.variant.remembered(env, fns, budget)
            else:
                changed = dict(env)
                changed[omission.target] = omission.variant.remembered(env, fns, budget)
                if omission.target not in later:
                    later[omission.target] = _downstream(scope, omission.target, givens(scope))
                for var in later[omission.target]:
                    derived = cast(Expr, var.expr)  # _downstream gives derived variables only
                    changed[var.name] = derived.remembered(changed, fns, budget)
                value = scope.answer.remembered(changed, fns, budget)
        except (QuizzerError, ArithmeticError, TypeError, ValueError):
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value == answer:
            continue
        if value != value or abs(value) == float("inf"):
            continue
        yield omission, value


def written(value: int | float, unit: str, figures: int = 10) -> str:
    """``value`` typed with ``figures`` significant figures (trailing zeros kept) and its unit; a ratio as
    a percentage.

    >>> written(1370, "patches"), written(0.5, "ratio", 3)
    ('1.370000000e3 patches', '5.00e1%')
    """
    shown = 100 * value if unit == "ratio" else value
    mantissa, _, exponent = f"{shown:.{figures - 1}e}".partition("e")
    text = f"{mantissa}e{int(exponent)}"
    return f"{text}%" if unit == "ratio" else f"{text} {unit}"


def grade_omission(instance: Any, value: int | float) -> tuple[str, str | None] | None:
    """(verdict, the name of the mistake it matches) for the answer without a step, as the grader sees it
    typed with ten figures; None when it is wrong (outside the close band: the grader is not asked)."""
    from quizzer.grading.bands import close_band, is_within
    from quizzer.grading.grade import Mistake, grade

    if not is_within(value, instance.value, close_band(instance.value, instance.tolerance)):
        return None  # wrong: outside even the close band
    from quizzer.bank.generate.render import grade_context

    mistakes = [Mistake(m.name, m.value, m.feedback, m.title, m.family) for m in instance.mistakes]
    verdict = grade(
        written(value, instance.unit),
        instance.value,
        instance.unit,
        instance.tolerance,
        mistakes,
        context=grade_context(instance),
    )
    return verdict.kind, verdict.mistake


__all__ = [
    "Omission",
    "Scope",
    "grade_omission",
    "omissions",
    "omissions_within",
    "omitted_values",
    "used_variables",
    "written",
]
