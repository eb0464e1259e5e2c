"""Static checks of a template, part by part: names defined before use, placeholders, kinds of answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import quizzer.core  # imported already with its submodules below: CALCULATORS is read from it
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import Expr
from quizzer.bank.expr.syntax import BUILTIN_NAMES
from quizzer.bank.expr.text import PLACEHOLDER_RE, style_problem
from quizzer.bank.read.schema import PartSpec, Template
from quizzer.bank.read.texts import TextPart
from quizzer.bank.read.variables import PART_NAME_RE, Variable
from quizzer.core.checks import did_you_mean
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result

#: Names every text may use besides the variables.
TEXT_NAMES = frozenset({"answer", "derivation"})
PRESET_FIELDS = (*ModelSpec._fields, "title")
_NUMBER, _TEXT, _BOOL = frozenset({"number"}), frozenset({"text"}), frozenset({"bool"})


def calculators() -> Mapping[str, Callable[..., Result]]:
    """The core's calculators by name (each imported on first use)."""
    return quizzer.core.CALCULATORS  # made on first read (the package's __getattr__), then a global


def preset_field_kinds() -> dict[str, frozenset[str]]:
    """The kind of each preset field, from ModelSpec's annotations ("str", "bool", "int | None"...)."""
    kinds = {"title": _TEXT}
    for field in ModelSpec._fields:
        annotation = str(ModelSpec.__annotations__.get(field, "int"))
        kinds[field] = _TEXT if annotation == "str" else _BOOL if annotation == "bool" else _NUMBER
    return kinds


def _text_fields(key: str, parts: tuple[TextPart, ...]) -> dict[str, str]:
    """A text field's texts by field: ``key`` itself for one unconditional text, else ``key[i].text``."""
    if len(parts) == 1 and parts[0].when is None:
        return {key: parts[0].text}
    return {f"{key}[{i}].text": p.text for i, p in enumerate(parts)}


def part_texts(template: Template, part: PartSpec) -> dict[str, str]:
    """Every text of ``part`` that takes placeholders, by field as written in the part (no ``parts[i].``
    prefix); part 1's include the template's memory aid, follow-ups and conventions, rendered with its
    names."""
    texts = {"prompt": part.prompt}
    texts.update(_text_fields("explanation", part.explanation_parts))
    if part.tldr_parts:
        texts.update(_text_fields("tldr", part.tldr_parts))
    if part.number == 1:
        if template.memory_aid_parts:
            texts.update(_text_fields("memory_aid", template.memory_aid_parts))
        for i, f in enumerate(template.follow_ups):
            texts[f"follow_ups[{i}].question"] = f.question
            texts[f"follow_ups[{i}].answer"] = f.answer
        texts.update({f"conventions[{i}]": c for i, c in enumerate(template.conventions)})
    texts.update({f"nudges[{i}]": n for i, n in enumerate(part.nudges)})
    texts.update({f"mistakes[{i}].feedback": m.feedback for i, m in enumerate(part.mistakes)})
    if part.layers_label:
        texts[part.context_key("layers_label")] = part.layers_label
    return texts


def part_conditions(template: Template, part: PartSpec) -> dict[str, Expr]:
    """Every ``when`` of ``part``'s text parts (and, for part 1, of the template's memory aid and
    follow-ups), by field; mistakes' conditions are checked with the mistakes."""
    conditions: dict[str, Expr] = {}
    for key, texts in (("explanation", part.explanation_parts), ("tldr", part.tldr_parts)):
        for i, text in enumerate(texts):
            if text.when is not None:
                conditions[f"{key}[{i}].when"] = text.when
    if part.number == 1:
        for i, text in enumerate(template.memory_aid_parts):
            if text.when is not None:
                conditions[f"memory_aid[{i}].when"] = text.when
        for i, follow_up in enumerate(template.follow_ups):
            if follow_up.when is not None:
                conditions[f"follow_ups[{i}].when"] = follow_up.when
    return conditions


def name_kinds(variables: Iterable[Variable]) -> dict[str, frozenset[str]]:
    """What each name of ``variables`` can hold: some of "number", "text", "bool" (see ``Expr.kinds``)."""
    kinds: dict[str, frozenset[str]] = {}
    for var in variables:
        if var.kind == "preset":
            kinds.update({f"{var.name}_{f}": k for f, k in preset_field_kinds().items()})
        kinds[var.name] = variable_kinds(var.kind, var.spec, var.expr, kinds)
    return kinds


def unknown_name(name: str, number: int, allowed: set[str], what: str = "variable") -> str:
    """Why ``name`` is unknown in part ``number`` (1: the main question), with a close match."""
    match = PART_NAME_RE.match(name)
    if match and int(match.group(1)) >= number:
        if number == 1:
            return f"{name!r}: the main question is part 1 and may use no part's answer"
        earlier = ", ".join(f"part{k}" for k in range(1, number))
        return (
            f"{name!r} is not known in part {number}: a part may use only the answers of earlier parts "
            f"({earlier})"
        )
    return f"unknown {what} {name!r}{did_you_mean(name, allowed)}"


def check_names(template: Template) -> None:
    """Check every part in order: each expression names known functions and names defined before it (the
    variables of the parts up to it and the earlier parts' answers ``part1``...); each placeholder a name
    and a known style; the answer and the mistakes can give only numbers (not text or true/false); a later
    part's variable never takes a name already used. A problem names ``parts[i].`` for a later part."""
    known_functions = BUILTIN_NAMES | set(calculators())
    names: set[str] = set()
    kinds: dict[str, frozenset[str]] = {}
    owners: dict[str, str] = {}
    for part in template.parts:

        def fail(field: str, message: str, part: PartSpec = part) -> TemplateError:
            return TemplateError(template.path, template.id, part.field(field), message)

        def check(expr: Expr, field: str, allowed: set[str], number: int = part.number) -> None:
            for name in sorted(expr.calls - known_functions):
                raise fail(field, f"unknown calculator {name!r}{did_you_mean(name, known_functions)}")
            for name in sorted(expr.names - allowed):
                raise fail(field, unknown_name(name, number, allowed))

        if part.number > 1:
            names.add(f"part{part.number - 1}")
            kinds[f"part{part.number - 1}"] = _NUMBER
        for var in part.variables:
            _define(var, part, names, kinds, owners, check, fail)
        _check_part(template, part, names, kinds, check, fail)


def _define(
    var: Variable,
    part: PartSpec,
    names: set[str],
    kinds: dict[str, frozenset[str]],
    owners: dict[str, str],
    check: Callable[[Expr, str, set[str]], None],
    fail: Callable[[str, str], TemplateError],
) -> None:
    """Check ``var``'s expression against the names defined so far, then define it (and its preset fields)."""
    field = f"variables.{var.name}"
    if var.name in owners:  # a later part's; part 1's names are unique (parse_variables)
        raise fail(field, f"{var.name!r} is already a variable of {owners[var.name]}; pick another name")
    if var.expr is not None:
        check(var.expr, f"{field}.expr", names)
    new = [var.name]
    if var.kind == "preset":
        new += [f"{var.name}_{f}" for f in PRESET_FIELDS]
        kinds.update({f"{var.name}_{f}": k for f, k in preset_field_kinds().items()})
    owner = "the template" if part.number == 1 else f"part {part.number}"
    for name in new:
        if name in owners:
            raise fail(field, f"{name!r} is already a variable of {owners[name]}; pick another name")
        owners[name] = owner
    names.update(new)
    kinds[var.name] = variable_kinds(var.kind, var.spec, var.expr, kinds)


def _check_part(
    template: Template,
    part: PartSpec,
    names: set[str],
    kinds: Mapping[str, frozenset[str]],
    check: Callable[[Expr, str, set[str]], None],
    fail: Callable[[str, str], TemplateError],
) -> None:
    """The expressions and texts of one part, its variables defined (``names``, ``kinds``)."""
    numeric = [(part.answer, "answer.expr")]
    check(part.answer, "answer.expr", names)
    for i, expr in enumerate(part.constraints):
        check(expr, f"constraints[{i}]", names)
    for i, mistake in enumerate(part.mistakes):
        check(mistake.expr, f"mistakes[{i}].answer", names)
        numeric.append((mistake.expr, f"mistakes[{i}].answer"))
        if mistake.when is not None:
            check(mistake.when, f"mistakes[{i}].when", names)
    for field, expr in part_conditions(template, part).items():
        check(expr, field, names)
    for i, need in enumerate(part.needs):
        check(need.holds, f"needs[{i}].holds", names)
    layers_field, dtype_field = part.context_key("layers"), part.context_key("dtype")
    if part.layers is not None:
        check(part.layers, layers_field, names)
        numeric.append((part.layers, layers_field))
    for expr, field in numeric:
        wrong = expr.kinds(kinds) - _NUMBER
        if wrong:
            what = "text" if "text" in wrong else "true/false"
            raise fail(field, f"{expr.source!r} can give {what}; it must give a number")
    if part.dtype is not None:
        check(part.dtype, dtype_field, names)
        if part.dtype.kinds(kinds) != _TEXT:
            raise fail(dtype_field, f"{part.dtype.source!r} must give a dtype name (text), such as 'bf16'")
    for field, text in part_texts(template, part).items():
        for match in PLACEHOLDER_RE.finditer(text):
            name, style = match.group(1), match.group(2)
            if name not in names and name not in TEXT_NAMES:
                if PART_NAME_RE.match(name):
                    raise fail(field, unknown_name(name, part.number, names, "placeholder"))
                raise fail(field, f"unknown placeholder {{{name}}}{did_you_mean(name, names | TEXT_NAMES)}")
            problem = style_problem(style) if style else None
            if problem:
                raise fail(field, f"{{{name}:{style}}}: {problem}")


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
