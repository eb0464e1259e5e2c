"""Template schema: the records a questions/*.toml file becomes, and their strict validation."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError, short_repr
from quizzer.bank.expr import BUILTIN_NAMES, Expr, ExprError
from quizzer.bank.limits import MAX_INT_BITS
from quizzer.bank.text import style_problem
from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.units import Unit
from quizzer.grading.grade import Tolerance

DIFFICULTIES = ("easy", "medium", "hard")
KINDS = ("exact", "estimate")
VARIABLE_KINDS = ("choices", "range", "log2", "preset", "bool", "expr")
#: Default tolerance per kind: 1% for computed values, a factor of 2 for estimates.
DEFAULT_TOLERANCE = {"exact": Tolerance("rel", 0.01), "estimate": Tolerance("factor", 2.0)}
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NAME_RE = re.compile(r"^[a-z_][a-z0-9_]*$")

TEMPLATE_KEYS = {
    "id": True,
    "title": True,
    "topic": True,
    "difficulty": True,
    "minutes": True,
    "kind": True,
    "prompt": True,
    "answer": True,
    "explanation": True,
    "tldr": True,
    "tags": False,
    "asked_at": False,
    "variables": False,
    "constraints": False,
    "conventions": False,
    "mistakes": False,
    "memory_aid": False,
    "follow_ups": False,
    "references": False,
}
VARIABLE_KEYS = {*VARIABLE_KINDS, "step", "unit", "format"}
ANSWER_KEYS = {"expr", "unit", "tolerance", "display"}
MISTAKE_KEYS = {"answer", "feedback", "name", "when"}


class Variable(Record):
    """One template variable: how it is drawn (``kind`` and ``spec``) and how it is shown."""

    name: str
    kind: str
    spec: Any
    step: int = 1
    unit: str | None = None
    format: str | None = None
    expr: Expr | None = None


class MistakeSpec(Record):
    """A known wrong answer (an expression) and the feedback a student who gives it gets."""

    name: str
    expr: Expr
    feedback: str
    when: Expr | None = None
    """Optional condition: the mistake applies only to instances where it holds."""


class FollowUp(Record):
    question: str
    answer: str


class Reference(Record):
    title: str
    url: str


class Template(Record):
    """A validated template; expressions are parsed once, here."""

    id: str
    title: str
    topic: str
    difficulty: str
    minutes: float
    kind: str
    prompt: str
    answer: Expr
    unit: str
    tolerance: Tolerance
    display: str | None
    explanation: str
    tldr: str
    path: str
    tags: tuple[str, ...] = ()
    asked_at: tuple[str, ...] = ()
    variables: tuple[Variable, ...] = ()
    constraints: tuple[Expr, ...] = ()
    conventions: tuple[str, ...] = ()
    mistakes: tuple[MistakeSpec, ...] = ()
    memory_aid: str = ""
    follow_ups: tuple[FollowUp, ...] = ()
    references: tuple[Reference, ...] = ()


class _Reader:
    """Reads one raw template table, raising TemplateError that names file, template and field."""

    def __init__(self, path: str, raw: Mapping[str, Any]) -> None:
        self.path, self.raw = path, raw
        tid = raw.get("id")
        self.tid = tid if isinstance(tid, str) else None

    def error(self, field: str | None, message: str) -> TemplateError:
        return TemplateError(self.path, self.tid, field, message)

    def unknown_keys(self, table: Mapping[str, Any], allowed: set[str] | dict[str, bool], where: str) -> None:
        for key in table:
            if key not in allowed:
                if where and key in TEMPLATE_KEYS:
                    raise self.error(
                        f"{where}{key}",
                        (
                            f"{key!r} is a template field, but it sits inside [{where.rstrip('.')}]: in TOML "
                            "every key after a [table] header belongs to that table; move it above the first "
                            "[table] header"
                        ),
                    )
                close = did_you_mean(key, allowed)
                expected = ", ".join(sorted(allowed))
                raise self.error(f"{where}{key}", f"unknown key{close}; expected one of: {expected}")

    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        field: str,
        required: bool = True,
        default: Any = None,
    ) -> Any:
        if key not in table:
            if required:
                raise self.error(field, "is required" + self._misplaced(key))
            return default
        value = table[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.error(field, f"expected {_type_name(kind)}, got a boolean ({value})")
        if not isinstance(value, kind):
            raise self.error(
                field, f"expected {_type_name(kind)}, got {type(value).__name__} ({short_repr(value)})"
            )
        return value

    def _misplaced(self, key: str) -> str:
        """A hint when a template-level key sits inside a sub-table (TOML's most common trap)."""
        for name, value in self.raw.items():
            tables = value if isinstance(value, list) else [value]
            for table in tables:
                if isinstance(table, dict) and key in table and name != key:
                    return (
                        f" (found {key!r} inside [{name}]: in TOML every key after a [table] header "
                        "belongs to that table; move it above the template's first [table] header)"
                    )
        return ""

    def text(self, key: str, required: bool = True) -> str:
        value = self.get(self.raw, key, str, key, required, "")
        if required and not value.strip():
            raise self.error(key, "must not be empty")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.get(self.raw, key, (list, str), key, required=False, default=[])
        items = [value] if isinstance(value, str) else value
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(f"{key}[{i}]", f"expected text, got {type(item).__name__}")
        return tuple(items)

    def expr(self, source: Any, field: str) -> Expr:
        if not isinstance(source, str):
            raise self.error(field, f"expected an expression (text), got {type(source).__name__}")
        try:
            return Expr(source)
        except ExprError as exc:
            raise self.error(field, str(exc)) from None

    def table_list(self, key: str, allowed: set[str]) -> list[tuple[str, Mapping[str, Any]]]:
        items = self.get(self.raw, key, list, key, required=False, default=[])
        out = []
        for i, item in enumerate(items):
            field = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.error(field, f"expected a table, got {type(item).__name__}")
            self.unknown_keys(item, allowed, f"{field}.")
            out.append((field, item))
        return out


def _type_name(kind: type | tuple[type, ...]) -> str:
    names = {
        str: "text",
        int: "an integer",
        float: "a number",
        list: "a list",
        dict: "a table",
        bool: "true/false",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def parse_template(raw: Mapping[str, Any], path: str) -> Template:
    """Validate one raw template table; the first problem raises TemplateError."""
    r = _Reader(path, raw)
    r.unknown_keys(raw, TEMPLATE_KEYS, "")
    tid = r.text("id")
    if not ID_RE.match(tid):
        raise r.error("id", f"{tid!r} must be kebab-case (lower-case letters, digits and single dashes)")
    difficulty, kind = r.text("difficulty"), r.text("kind")
    if difficulty not in DIFFICULTIES:
        raise r.error("difficulty", f"{difficulty!r} must be one of {', '.join(DIFFICULTIES)}")
    if kind not in KINDS:
        raise r.error("kind", f"{kind!r} must be one of {', '.join(KINDS)}")
    minutes = r.get(raw, "minutes", (int, float), "minutes")
    if not 0 < minutes <= 120:
        raise r.error("minutes", f"{minutes!r} must be between 0 and 120")
    answer = r.get(raw, "answer", dict, "answer")
    r.unknown_keys(answer, ANSWER_KEYS, "answer.")
    unit = r.get(answer, "unit", str, "answer.unit")
    if unit not in {u.value for u in Unit}:
        raise r.error("answer.unit", f"{unit!r} is not a unit; one of: {', '.join(u.value for u in Unit)}")
    return Template(
        id=tid,
        title=r.text("title"),
        topic=r.text("topic"),
        difficulty=difficulty,
        minutes=minutes,
        kind=kind,
        prompt=r.text("prompt"),
        answer=r.expr(answer.get("expr"), "answer.expr"),
        unit=unit,
        tolerance=_tolerance(r, answer.get("tolerance"), kind),
        display=_display(r, answer, unit),
        explanation=r.text("explanation"),
        tldr=r.text("tldr"),
        path=path,
        tags=r.texts("tags"),
        asked_at=r.texts("asked_at"),
        variables=_variables(r),
        conventions=r.texts("conventions"),
        constraints=tuple(r.expr(c, f"constraints[{i}]") for i, c in enumerate(r.texts("constraints"))),
        mistakes=_unique_mistake_names(
            r,
            tuple(
                MistakeSpec(
                    name=r.get(m, "name", str, f"{f}.name", required=False, default=f"mistake-{i + 1}"),
                    expr=r.expr(m.get("answer"), f"{f}.answer"),
                    feedback=r.get(m, "feedback", str, f"{f}.feedback"),
                    when=r.expr(m["when"], f"{f}.when") if "when" in m else None,
                )
                for i, (f, m) in enumerate(r.table_list("mistakes", MISTAKE_KEYS))
            ),
        ),
        memory_aid=r.text("memory_aid", required=False),
        follow_ups=tuple(
            FollowUp(r.get(t, "question", str, f"{f}.question"), r.get(t, "answer", str, f"{f}.answer"))
            for f, t in r.table_list("follow_ups", {"question", "answer"})
        ),
        references=tuple(
            Reference(r.get(t, "title", str, f"{f}.title"), r.get(t, "url", str, f"{f}.url"))
            for f, t in r.table_list("references", {"title", "url"})
        ),
    )


def _display(r: _Reader, answer: Mapping[str, Any], unit: str) -> str | None:
    """The display unit, checked now: the answer is shown and answers are read in it."""
    display = r.get(answer, "display", str, "answer.display", required=False)
    if display is None:
        return None
    from quizzer.grading.parse import parse_answer

    try:
        scale = parse_answer(f"1 {display}", unit).value
    except (QuizzerError, ValueError, ArithmeticError) as exc:
        raise r.error("answer.display", f"{display!r} cannot be read as a unit of {unit!r}: {exc}") from None
    if not 0 < scale < float("inf"):
        raise r.error("answer.display", f"{display!r} is not a positive size of {unit!r}")
    return display


def _unique_mistake_names(r: _Reader, mistakes: tuple[MistakeSpec, ...]) -> tuple[MistakeSpec, ...]:
    seen: set[str] = set()
    for i, mistake in enumerate(mistakes):
        if mistake.name in seen:
            raise r.error(f"mistakes[{i}].name", f"{mistake.name!r} is used twice; mistake names are unique")
        seen.add(mistake.name)
    return mistakes


def _tolerance(r: _Reader, raw: Any, kind: str) -> Tolerance:
    if raw is None:
        return DEFAULT_TOLERANCE[kind]
    if not isinstance(raw, dict) or len(raw) != 1:
        raise r.error("answer.tolerance", "expected a table with exactly one of rel, abs, factor")
    ((key, value),) = raw.items()
    if key not in ("rel", "abs", "factor"):
        raise r.error(f"answer.tolerance.{key}", "unknown key; expected one of: abs, factor, rel")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise r.error(f"answer.tolerance.{key}", f"expected a number, got {short_repr(value)}")
    if kind == "estimate" and key != "factor":
        raise r.error("answer.tolerance", "an estimate is graded by a factor: use { factor = 2 } or similar")
    try:
        return Tolerance(key, float(value))
    except (ValueError, OverflowError) as exc:
        raise r.error(f"answer.tolerance.{key}", str(exc)) from None


def _variables(r: _Reader) -> tuple[Variable, ...]:
    table = r.get(r.raw, "variables", dict, "variables", required=False, default={})
    out: list[Variable] = []
    for name, spec in table.items():
        field = f"variables.{name}"
        if not NAME_RE.match(name) or name in BUILTIN_NAMES:
            raise r.error(field, f"{name!r} must be a lower-case identifier that is not a function name")
        if not isinstance(spec, dict):
            raise r.error(field, "expected a table such as { choices = [...] } or { range = [lo, hi] }")
        r.unknown_keys(spec, VARIABLE_KEYS, f"{field}.")
        kinds = [k for k in VARIABLE_KINDS if k in spec]
        if len(kinds) != 1:
            raise r.error(field, f"needs exactly one of: {', '.join(VARIABLE_KINDS)}")
        out.append(_variable(r, name, kinds[0], spec, field))
    return tuple(out)


def _variable(r: _Reader, name: str, kind: str, spec: dict[str, Any], field: str) -> Variable:
    value = spec[kind]
    step = r.get(spec, "step", int, f"{field}.step", required=False, default=1)
    extras = {
        "unit": r.get(spec, "unit", str, f"{field}.unit", required=False),
        "format": r.get(spec, "format", str, f"{field}.format", required=False),
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


def _check_number(r: _Reader, value: Any, field: str) -> None:
    """A number written in the file is finite and within the evaluator's size limit."""
    if isinstance(value, float) and not math.isfinite(value):
        raise r.error(field, f"{value!r} is not a finite number")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise r.error(field, f"the number has more than {MAX_INT_BITS:,} bits")
