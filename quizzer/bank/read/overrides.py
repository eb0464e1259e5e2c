"""``--set`` values: a text typed on the command line (or in the app) converted to its variable's type."""

from __future__ import annotations

from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import bounded, num_or_repr
from quizzer.bank.read.schema import Template, Variable


def parse_override(var: Variable, value: Any, template: Template) -> Any:
    """A --set value converted to the variable's type; any value of the right type is allowed."""

    def fail(message: str) -> TemplateError:
        return TemplateError(template.path, template.id, f"variables.{var.name}", message)

    if var.kind == "expr":
        raise fail("is computed from other variables; set those instead")
    text = value.strip() if isinstance(value, str) else value
    if var.kind == "bool" or (var.kind == "choices" and isinstance(var.spec[0], bool)):
        if isinstance(text, bool):
            return text
        lowered = str(text).lower()
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise fail(f"{value!r} is not true or false")
    if var.kind == "preset" or (var.kind == "choices" and isinstance(var.spec[0], str)):
        if var.kind == "preset":
            from quizzer.core.errors import UnknownNameError
            from quizzer.core.presets import preset

            try:
                return preset(str(text)).name
            except UnknownNameError as exc:
                raise fail(str(exc)) from None
        return str(text)
    number = _number(text)
    if number is None:
        raise fail(f"{value!r} is not a number")
    problem = bounded(number)
    if problem:
        raise fail(f"{num_or_repr(value)}: {problem}")
    wants_int = var.kind in ("range", "log2") or (
        var.kind == "choices" and all(isinstance(c, int) for c in var.spec)
    )
    if wants_int:
        if isinstance(number, float) and not number.is_integer():
            raise fail(f"{value!r} must be a whole number")
        return int(number)
    return float(number)


def _number(text: Any) -> int | float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return text
    cleaned = str(text).replace(",", "").replace("_", "")
    if len(cleaned) > 400:  # int() of a long text is slow and beyond the size limit anyway
        return None
    try:
        return int(cleaned)
    except ValueError:
        try:
            return float(cleaned)
        except ValueError:
            return None


__all__ = ["parse_override"]
