"""Static checks of a chain's parts: each uses only names defined before it and the earlier parts' answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr import BUILTIN_NAMES, Expr
from quizzer.bank.names import PRESET_FIELDS, TEXT_NAMES, calculators, preset_field_kinds, variable_kinds
from quizzer.bank.schema import PartSpec, Template
from quizzer.bank.text import PLACEHOLDER_RE, style_problem
from quizzer.bank.variables import PART_NAME_RE
from quizzer.core.checks import did_you_mean

_NUMBER, _TEXT = frozenset({"number"}), frozenset({"text"})


def part_texts(part: PartSpec) -> dict[str, str]:
    """Every text of a part that takes placeholders, by field (without the ``parts[i].`` prefix)."""
    texts = {"prompt": part.prompt}
    for key in ("explanation", "tldr"):
        chosen = getattr(part, f"{key}_parts")
        if len(chosen) == 1 and chosen[0].when is None:
            texts[key] = chosen[0].text
        else:
            texts.update({f"{key}[{i}].text": p.text for i, p in enumerate(chosen)})
    texts.update({f"nudges[{i}]": n for i, n in enumerate(part.nudges)})
    texts.update({f"mistakes[{i}].feedback": m.feedback for i, m in enumerate(part.mistakes)})
    if part.layers_label:
        texts["layers_label"] = part.layers_label
    return texts


def check_part_names(template: Template, defined: set[str], kinds: Mapping[str, frozenset[str]]) -> None:
    """Check every part of ``template`` as ``check_names`` checks the main question: ``defined`` and
    ``kinds`` are the template's names (variables and preset fields) and what each can hold.

    Part ``k`` may use the template's names, the variables of the parts before it and its own (defined
    before use), and ``part1`` .. ``part{k-1}``; a ``partK`` with K >= k is an error that says so.
    """
    known_functions = BUILTIN_NAMES | set(calculators())
    names, name_kinds = set(defined), dict(kinds)
    owners = dict.fromkeys(defined, "the template")
    for index, part in enumerate(template.parts):
        prefix = f"parts[{index}]"

        def fail(field: str, message: str, prefix: str = prefix) -> TemplateError:
            return TemplateError(template.path, template.id, f"{prefix}.{field}", message)

        names.add(f"part{part.number - 1}")
        name_kinds[f"part{part.number - 1}"] = _NUMBER
        check = _checker(part.number, known_functions, fail)
        for var in part.variables:
            field = f"variables.{var.name}"
            if var.name in owners:
                raise fail(
                    field, f"{var.name!r} is already a variable of {owners[var.name]}; pick another name"
                )
            if var.expr is not None:
                check(var.expr, f"{field}.expr", names)
            new = [var.name]
            if var.kind == "preset":
                new += [f"{var.name}_{f}" for f in PRESET_FIELDS]
                name_kinds.update({f"{var.name}_{f}": k for f, k in preset_field_kinds().items()})
            for name in new:
                if name in owners:
                    raise fail(field, f"{name!r} is already a variable of {owners[name]}; pick another name")
                owners[name] = f"part {part.number}"
            names.update(new)
            name_kinds[var.name] = variable_kinds(var.kind, var.spec, var.expr, name_kinds)
        _check_part(part, names, name_kinds, check, fail)


def _checker(
    number: int, known_functions: frozenset[str], fail: Callable[[str, str], TemplateError]
) -> Callable[[Expr, str, set[str]], None]:
    def check(expr: Expr, field: str, allowed: set[str]) -> None:
        for name in sorted(expr.calls - known_functions):
            raise fail(field, f"unknown calculator {name!r}{did_you_mean(name, known_functions)}")
        for name in sorted(expr.names - allowed):
            raise fail(field, unknown_name(name, number, allowed))

    return check


def unknown_name(name: str, number: int, allowed: set[str], what: str = "variable") -> str:
    """Why ``name`` is unknown in part ``number`` (1: the main question), with a close match."""
    match = PART_NAME_RE.match(name)
    if match and int(match.group(1)) >= number:
        earlier = ", ".join(f"part{k}" for k in range(1, number)) or "none"
        if number == 1:
            return f"{name!r}: the main question is part 1 and may use no part's answer"
        return (
            f"{name!r} is not known in part {number}: a part may use only the answers of earlier parts "
            f"({earlier})"
        )
    return f"unknown {what} {name!r}{did_you_mean(name, allowed)}"


def _check_part(
    part: PartSpec,
    names: set[str],
    kinds: Mapping[str, frozenset[str]],
    check: Callable[[Expr, str, set[str]], None],
    fail: Callable[[str, str], TemplateError],
) -> None:
    numeric = [(part.answer, "answer.expr")]
    check(part.answer, "answer.expr", names)
    for i, expr in enumerate(part.constraints):
        check(expr, f"constraints[{i}]", names)
    for i, mistake in enumerate(part.mistakes):
        check(mistake.expr, f"mistakes[{i}].answer", names)
        numeric.append((mistake.expr, f"mistakes[{i}].answer"))
        if mistake.when is not None:
            check(mistake.when, f"mistakes[{i}].when", names)
    for key in ("explanation", "tldr"):
        for i, text in enumerate(getattr(part, f"{key}_parts")):
            if text.when is not None:
                check(text.when, f"{key}[{i}].when", names)
    if part.layers is not None:
        check(part.layers, "layers", names)
        numeric.append((part.layers, "layers"))
    for expr, field in numeric:
        wrong = expr.kinds(kinds) - _NUMBER
        if wrong:
            what = "text" if "text" in wrong else "true/false"
            raise fail(field, f"{expr.source!r} can give {what}; it must give a number")
    if part.dtype is not None:
        check(part.dtype, "dtype", names)
        if part.dtype.kinds(kinds) != _TEXT:
            raise fail("dtype", f"{part.dtype.source!r} must give a dtype name (text), such as 'bf16'")
    for field, text in part_texts(part).items():
        for match in PLACEHOLDER_RE.finditer(text):
            name, style = match.group(1), match.group(2)
            if name not in names and name not in TEXT_NAMES:
                if PART_NAME_RE.match(name):
                    raise fail(field, unknown_name(name, part.number, names, "placeholder"))
                close = did_you_mean(name, names | TEXT_NAMES)
                raise fail(field, f"unknown placeholder {{{name}}}{close}")
            problem = style_problem(style) if style else None
            if problem:
                raise fail(field, f"{{{name}:{style}}}: {problem}")


__all__ = ["check_part_names", "part_texts", "unknown_name"]
