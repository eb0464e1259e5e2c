"""Static checks of a parsed template: names defined before use, placeholder styles, kinds of answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import BUILTIN_NAMES, Expr
from quizzer.bank.schema import Template
from quizzer.bank.text import PLACEHOLDER_RE, style_problem
from quizzer.bank.variables import PART_NAME_RE
from quizzer.core.checks import did_you_mean
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result

#: Names every text may use besides the variables.
TEXT_NAMES = frozenset({"answer", "derivation"})
PRESET_FIELDS = (*ModelSpec._fields, "title")
_NUMBER, _TEXT, _BOOL = frozenset({"number"}), frozenset({"text"}), frozenset({"bool"})


def calculators() -> Mapping[str, Callable[..., Result]]:
    """The core's calculators by name (imported on first use)."""
    import quizzer.core

    return quizzer.core.CALCULATORS


def variable_names(template: Template) -> set[str]:
    """Names a template's expressions and texts may use: variables and the fields of preset variables."""
    names: set[str] = set()
    for var in template.variables:
        names.add(var.name)
        if var.kind == "preset":
            names.update(f"{var.name}_{f}" for f in PRESET_FIELDS)
    return names


def preset_field_kinds() -> dict[str, frozenset[str]]:
    """The kind of each preset field, from ModelSpec's annotations ("str", "bool", "int | None"...)."""
    kinds = {"title": _TEXT}
    for field in ModelSpec._fields:
        annotation = str(ModelSpec.__annotations__.get(field, "int"))
        kinds[field] = _TEXT if annotation == "str" else _BOOL if annotation == "bool" else _NUMBER
    return kinds


def template_texts(template: Template) -> dict[str, str]:
    """Every text of a template that takes placeholders, by field."""
    texts = {"prompt": template.prompt}
    for key in ("explanation", "tldr", "memory_aid"):
        parts = getattr(template, f"{key}_parts")
        if len(parts) == 1 and parts[0].when is None:
            texts[key] = parts[0].text
        else:
            texts.update({f"{key}[{i}].text": p.text for i, p in enumerate(parts)})
    for i, f in enumerate(template.follow_ups):
        texts[f"follow_ups[{i}].question"] = f.question
        texts[f"follow_ups[{i}].answer"] = f.answer
    texts.update({f"conventions[{i}]": c for i, c in enumerate(template.conventions)})
    texts.update({f"nudges[{i}]": c for i, c in enumerate(template.nudges)})
    texts.update({f"mistakes[{i}].feedback": m.feedback for i, m in enumerate(template.mistakes)})
    if template.layers_label:
        texts["answer.layers_label"] = template.layers_label
    return texts


def template_conditions(template: Template) -> dict[str, Expr]:
    """Every ``when`` of a template's text parts and follow-ups, by field (mistakes' are checked apart)."""
    conditions: dict[str, Expr] = {}
    for key in ("explanation", "tldr", "memory_aid"):
        for i, part in enumerate(getattr(template, f"{key}_parts")):
            if part.when is not None:
                conditions[f"{key}[{i}].when"] = part.when
    for i, follow_up in enumerate(template.follow_ups):
        if follow_up.when is not None:
            conditions[f"follow_ups[{i}].when"] = follow_up.when
    return conditions


def name_kinds(template: Template) -> dict[str, frozenset[str]]:
    """What each name of a template can hold: some of "number", "text", "bool" (see ``Expr.kinds``)."""
    kinds: dict[str, frozenset[str]] = {}
    for var in template.variables:
        if var.kind == "preset":
            kinds.update({f"{var.name}_{f}": k for f, k in preset_field_kinds().items()})
        kinds[var.name] = variable_kinds(var.kind, var.spec, var.expr, kinds)
    return kinds


def check_names(template: Template) -> None:
    """Every expression names known variables (defined before use) and functions; placeholders resolve to
    a name and a known style; the answer and the mistakes can only give numbers (not text or true/false).
    """
    known_functions = BUILTIN_NAMES | set(calculators())

    def fail(field: str, message: str) -> TemplateError:
        return TemplateError(template.path, template.id, field, message)

    def check(expr: Expr, field: str, allowed: set[str]) -> None:
        for name in sorted(expr.calls - known_functions):
            raise fail(field, f"unknown calculator {name!r}{did_you_mean(name, known_functions)}")
        for name in sorted(expr.names - allowed):
            if PART_NAME_RE.match(name):
                raise fail(field, f"{name!r}: the main question is part 1 and may use no part's answer")
            raise fail(field, f"unknown variable {name!r}{did_you_mean(name, allowed)}")

    defined: set[str] = set()
    kinds: dict[str, frozenset[str]] = {}
    preset_kinds: dict[str, frozenset[str]] | None = None
    for var in template.variables:
        if var.expr is not None:
            check(var.expr, f"variables.{var.name}.expr", defined)
        defined.add(var.name)
        if var.kind == "preset":
            preset_kinds = preset_kinds or preset_field_kinds()
            defined.update(f"{var.name}_{f}" for f in PRESET_FIELDS)
            kinds.update({f"{var.name}_{f}": k for f, k in preset_kinds.items()})
        kinds[var.name] = variable_kinds(var.kind, var.spec, var.expr, kinds)
    numeric = [(template.answer, "answer.expr")]
    check(template.answer, "answer.expr", defined)
    for i, expr in enumerate(template.constraints):
        check(expr, f"constraints[{i}]", defined)
    for i, mistake in enumerate(template.mistakes):
        check(mistake.expr, f"mistakes[{i}].answer", defined)
        numeric.append((mistake.expr, f"mistakes[{i}].answer"))
        if mistake.when is not None:
            check(mistake.when, f"mistakes[{i}].when", defined)
    for field, expr in template_conditions(template).items():
        check(expr, field, defined)
    if template.layers is not None:
        check(template.layers, "answer.layers", defined)
        numeric.append((template.layers, "answer.layers"))
    for expr, field in numeric:
        wrong = expr.kinds(kinds) - _NUMBER
        if wrong:
            what = "text" if "text" in wrong else "true/false"
            raise fail(field, f"{expr.source!r} can give {what}; it must give a number")
    if template.dtype is not None:
        check(template.dtype, "answer.dtype", defined)
        if template.dtype.kinds(kinds) != _TEXT:
            raise fail(
                "answer.dtype", f"{template.dtype.source!r} must give a dtype name (text), such as 'bf16'"
            )
    for field, text in template_texts(template).items():
        for match in PLACEHOLDER_RE.finditer(text):
            name, style = match.group(1), match.group(2)
            if name not in defined and name not in TEXT_NAMES:
                raise fail(field, f"unknown placeholder {{{name}}}{did_you_mean(name, defined | TEXT_NAMES)}")
            problem = style_problem(style) if style else None
            if problem:
                raise fail(field, f"{{{name}:{style}}}: {problem}")
    if template.parts:
        from quizzer.bank.chain_names import check_part_names

        check_part_names(template, defined, kinds)


def variable_kinds(
    kind: str, spec: object, expr: Expr | None, known: Mapping[str, frozenset[str]]
) -> frozenset[str]:
    """What a variable can hold: a preset or text choices hold text, bool variables true/false."""
    if expr is not None:
        return expr.kinds(known)
    if kind == "preset":
        return _TEXT
    if kind == "bool":
        return _BOOL
    if kind == "choices" and isinstance(spec, tuple):
        return frozenset(
            "bool" if isinstance(c, bool) else "text" if isinstance(c, str) else "number" for c in spec
        )
    return _NUMBER
