"""``--set`` values: a text typed on the command line (or in the app) converted to its variable's type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import bounded, num_or_repr
from quizzer.bank.read.schema import Template, Variable
from quizzer.core.record import Record


class Fielded(Record):
    """A chip or model variable given some fields of its own: ``base`` (None: drawn as usual) with ``fields``
    replaced, as ``--set gpu.hbm_bandwidth=2e12`` or ``--set model.n_layers=30`` ask."""

    base: Any
    fields: dict[str, Any]


def is_chip(var: Variable) -> bool:
    """Whether ``var`` names a chip: a choice among the hardware table's accelerators."""
    if var.kind != "choices" or not all(isinstance(c, str) for c in var.spec):
        return False
    from quizzer.core.accelerators import ACCELERATORS

    return all(c in ACCELERATORS for c in var.spec)


def settable(template: Template) -> dict[str, tuple[int, Variable]]:
    """Every variable ``--set`` reaches, by name: its part's number and the variable."""
    return {v.name: (part.number, v) for part in template.parts for v in part.variables}


def split_overrides(template: Template, given: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """``--set`` values by part number, each converted to its variable's type; ``NAME.FIELD`` values (a chip's
    or a model's own figures) gathered into a ``Fielded`` per variable. A TemplateError names the first that
    is not a variable, not a field, or not of its type."""
    names = settable(template)
    by_part: dict[int, dict[str, Any]] = {}
    fielded: dict[str, dict[str, Any]] = {}
    for key, value in given.items():
        name, dot, field = key.partition(".")
        if name not in names:
            from quizzer.core.checks import did_you_mean

            close = did_you_mean(name, names)
            raise TemplateError(template.path, template.id, "variables", f"no variable {name!r}{close}")
        number, var = names[name]
        if dot:
            fielded.setdefault(name, {})[field] = parse_field(var, field, value, template)
        else:
            by_part.setdefault(number, {})[name] = parse_override(var, value, template)
    for name, fields in fielded.items():
        number, _ = names[name]
        part = by_part.setdefault(number, {})
        part[name] = Fielded(part.get(name), fields)
        _check_fielded(names[name][1], part[name], template)
    return by_part


def parse_field(var: Variable, field: str, value: Any, template: Template) -> Any:
    """One field of a chip's or a model's own figures, checked against the fields it has."""

    def fail(message: str) -> TemplateError:
        return TemplateError(template.path, template.id, f"variables.{var.name}.{field}", message)

    from quizzer.core.errors import QuizzerError

    if is_chip(var):
        from quizzer.core.chips import field_value

        try:
            return field_value(field, _number(value) or value)
        except QuizzerError as exc:
            raise fail(str(exc)) from None
    if var.kind == "preset":
        from quizzer.bank.read.names import preset_field_kinds

        kinds = preset_field_kinds()
        if field not in kinds or field == "title":
            from quizzer.core.checks import did_you_mean

            raise fail(f"a model has no field {field!r}{did_you_mean(field, kinds)}")
        text = value.strip() if isinstance(value, str) else value
        if "bool" in kinds[field]:
            lowered = str(text).lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise fail(f"{value!r} is not true or false")
            return lowered in ("true", "1", "yes")
        if "str" in kinds[field]:
            return str(text)
        number = _number(text)
        if number is None or (isinstance(number, float) and not number.is_integer()):
            raise fail(f"{value!r} is not a whole number")
        return int(number)
    raise fail(f"{var.name!r} is not a chip or a model: it has no fields to set")


def _check_fielded(var: Variable, value: Fielded, template: Template) -> None:
    """A chip or model with its own fields must be one quizzer can build (when its base is known)."""
    if value.base is None:
        return
    from quizzer.core.errors import QuizzerError

    try:
        apply_fields(var, value.base, value.fields)
    except QuizzerError as exc:
        raise TemplateError(template.path, template.id, f"variables.{var.name}", str(exc)) from None


def apply_fields(var: Variable, base: Any, fields: Mapping[str, Any]) -> str:
    """The name of chip or model ``base`` with ``fields`` replaced (the core builds and checks it)."""
    if is_chip(var):
        from quizzer.core.chips import chip_spec, own_chip

        name = chip_spec(str(base), fields)
        own_chip(name)
        return name
    from quizzer.core.presets import model_spec_text, preset

    name = model_spec_text(base, fields)
    preset(name)
    return name


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
    if is_chip(var):
        from quizzer.core.errors import QuizzerError
        from quizzer.core.hardware import accelerator

        try:
            return accelerator(str(text)).name
        except QuizzerError as exc:
            raise fail(str(exc)) from None
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


def settable_rows(template: Template) -> list[dict[str, Any]]:
    """What ``show ID --vars`` lists: every variable ``--set`` reaches, with its part, kind, unit and the
    values it is drawn from; a chip's and a model's own fields (``gpu.bf16``, ``model.n_layers``)."""
    rows: list[dict[str, Any]] = []
    for name, (number, var) in settable(template).items():
        if var.kind == "expr":
            continue
        row: dict[str, Any] = {"name": name, "part": number, "kind": var.kind, "unit": var.unit or ""}
        if is_chip(var):
            from quizzer.core.chips import CHIP_FIELDS

            row["kind"] = "chip"
            row["values"] = [*var.spec, "custom"]
            row["fields"] = {f"{name}.{f}": f"{what} ({unit})" for f, (what, unit) in CHIP_FIELDS.items()}
        elif var.kind == "preset":
            row["kind"] = "model"
            row["values"] = list(var.spec)
            row["fields"] = {f"{name}.FIELD": "any model spec field (quizzer count MODEL --json lists them)"}
            row["note"] = "any preset (quizzer count --list) or a config.json path"
        elif var.kind in ("range", "log2"):
            lo, hi = var.spec
            row["range"] = [lo, hi]
            row["step"] = var.step if var.kind == "range" else "powers of two"
        elif var.kind == "bool":
            row["values"] = [True, False]
        else:
            row["values"] = list(var.spec)
        rows.append(row)
    return rows


__all__ = [
    "Fielded",
    "apply_fields",
    "is_chip",
    "parse_field",
    "parse_override",
    "settable",
    "settable_rows",
    "split_overrides",
]
