"""The identifiers lint on a derivation: names of code in its rows, symbols that show another value."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from quizzer.bank.check.identifiers_names import code_names
from quizzer.bank.read.names import PRESET_FIELDS
from quizzer.bank.read.schema import PartSpec, Template
from quizzer.core.record import Record
from quizzer.core.trace import Step

#: A formula's symbols: words of letters, digits and underscores.
_SYMBOL_RE = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9_]*(?![\w(])")
#: The numbers of a substituted formula, as ``num`` writes them (16,384; 0.4; 3.12e14).
_SHOWN_RE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
#: Symbols the core's formulas write for a model field under another name: the top-k of routing.
SYNONYMS = {"k": "experts_per_token"}
#: The fields of a model (the core's ModelSpec), which a calculator's formula names by these names.
MODEL_FIELDS = frozenset(f for f in PRESET_FIELDS if f != "title")


class Owner(Record):
    """Where a variable is defined: its part, and the variable as the template names it (a preset's field
    is owned by the preset variable)."""

    part: PartSpec
    variable: str


def owners(template: Template) -> dict[str, Owner]:
    """Every variable name of every part (a preset variable's fields under their full names, e.g.
    ``model_n_layers``), with where it is defined."""
    out: dict[str, Owner] = {}
    for part in template.parts:
        for var in part.variables:
            out[var.name] = Owner(part, var.name)
            if var.kind == "preset":
                out.update({f"{var.name}_{f}": Owner(part, var.name) for f in PRESET_FIELDS})
    return out


def preset_prefix(template: Template) -> str | None:
    """The name of the template's only preset variable (its fields are what the core's symbols name)."""
    presets = [v.name for p in template.parts for v in p.variables if v.kind == "preset"]
    return presets[0] if len(presets) == 1 else None


def step_names(step: Step) -> list[str]:
    """The names of code in a step's label and formula (its numbers are numbers).

    >>> step_names(Step("Compute-optimal tokens", "tokens_per_param × N", "20 × 7e10", 1.4e12, "tokens"))
    ['tokens_per_param']
    """
    return code_names(f"{step.label}\n{step.formula}")


def mislabels(step: Step, env: Mapping[str, Any], prefix: str | None) -> Iterator[tuple[str, str, Any]]:
    """(symbol, field, its value) for each symbol of a calculator step's formula that names a field of the
    model (of the template's preset, ``prefix``, else a variable of the field's own name) or its synonym
    (``k``, the experts per token), while the numbers the step shows hold no such value: the formula says
    one count and shows another ("router + (k + shared) × expert" on the row of all experts shows the expert
    count under the name k).

    >>> row = Step("MoE MLP, all experts", "router + (k + shared) × expert", "16,384 + (8) × 25", 0, "params")
    >>> list(mislabels(row, {"m_experts_per_token": 2, "m_n_experts": 8}, "m"))
    [('k', 'experts_per_token', 2)]
    >>> list(mislabels(row, {"experts_per_token": 2}, None)), list(mislabels(row, {"k": 2}, None))
    ([('k', 'experts_per_token', 2)], [])
    """
    if step.label == "Answer":
        return
    shown = {_number(n) for n in _SHOWN_RE.findall(step.substituted)}
    seen: set[str] = set()
    for symbol in _SYMBOL_RE.findall(step.formula):
        field = SYNONYMS.get(symbol, symbol)
        if symbol in seen or field not in MODEL_FIELDS:
            continue
        seen.add(symbol)
        value = env.get(f"{prefix}_{field}") if prefix else env.get(field)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 1:
            continue
        if value not in shown:
            yield symbol, field, value


def _number(text: str) -> int | float:
    number = float(text.replace(",", ""))
    return int(number) if number.is_integer() else number


__all__ = ["MODEL_FIELDS", "SYNONYMS", "Owner", "mislabels", "owners", "preset_prefix", "step_names"]
