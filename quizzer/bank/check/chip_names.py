"""The by-name lint: an expression that compares a chip or a model variable with a table key or preset name.

A chip variable may hold a chip with its user's own figures ("tpu-v5e{bf16=...}") or a custom one
("custom{...}"); a model variable a preset with its own fields ("llama-3-8b{n_layers=30}") or a user's
config.json ("config-1a2b3c4d5e"). An expression such as ``gpu == 'h100-sxm'`` or ``model == 'llama-3-8b'``
(a title chain, "does it run fp8", a published fact looked up by name) is then false for a chip or model it
should hold for, and a title falls through to its last branch: the text names the wrong part or model.
The chip calculators answer from the chip itself: ``chip_title(gpu)``, ``chip_has_rate(gpu, dtype)``,
``chip_sheet_sparse(gpu)``, ``chip_is_tpu(gpu)``; a remark about one table chip compares ``chip_base(gpu)``.
A model's name in words is ``model_title``, its shape the ``model_*`` fields; a fact that belongs to one
preset (its training tokens, its price) is a settable variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.read.names import part_conditions
from quizzer.bank.read.overrides import is_chip

if TYPE_CHECKING:
    from quizzer.bank.expr.expression import Expr
    from quizzer.bank.read.schema import PartSpec, Template


def named_chips(expr: Expr, chips: set[str]) -> list[str]:
    """The chip variables ``expr`` compares with a text (``gpu == 'h100-sxm'``, ``'b200' != gpu``).

    >>> from quizzer.bank.expr.expression import Expr
    >>> named_chips(Expr("'H100' if gpu == 'h100-sxm' else 'other'"), {"gpu"})
    ['gpu']
    >>> named_chips(Expr("chip_base(gpu) == 'h100-sxm' or dtype == 'fp8'"), {"gpu"})
    []
    """
    import _ast

    from quizzer.bank.expr.syntax import walk

    found: list[str] = []
    for node in walk(expr.tree, expr.source):
        if not isinstance(node, _ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        texts = any(isinstance(o, _ast.Constant) and isinstance(o.value, str) for o in operands)
        names = [o.id for o in operands if isinstance(o, _ast.Name) and o.id in chips]
        if texts:
            found += [n for n in names if n not in found]
    return found


def part_expressions(template: Template, part: PartSpec) -> list[tuple[str, Expr]]:
    """Every expression of ``part``, by field."""
    found: list[tuple[str, Expr]] = [("answer.expr", part.answer)]
    found += [(f"variables.{v.name}.expr", v.expr) for v in part.variables if v.expr is not None]
    found += [(f"constraints[{i}]", c) for i, c in enumerate(part.constraints)]
    for i, mistake in enumerate(part.mistakes):
        found.append((f"mistakes[{i}].answer", mistake.expr))
        if mistake.when is not None:
            found.append((f"mistakes[{i}].when", mistake.when))
    found += list(part_conditions(template, part).items())
    found += [(f"needs[{i}].holds", n.holds) for i, n in enumerate(part.needs)]
    return found


class ChipNames(Lint):
    """An expression that tells chips or models apart by name, which one with own figures is not."""

    name = "by-name"
    finds = "an expression comparing a chip or model variable with a name (false for own figures or a config)"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        chips = {v.name for part in template.parts for v in part.variables if is_chip(v)}
        models = {v.name for part in template.parts for v in part.variables if v.kind == "preset"}
        if not chips and not models:
            return
        for part in template.parts:
            for field, expr in part_expressions(template, part):
                for name in named_chips(expr, chips):
                    self.report(
                        part,
                        field,
                        "chip by name",
                        f"compares the chip {name!r} with a table key: a chip given its own figures "
                        f"(--set {name}.bf16=...) or a custom one never equals it; use chip_title({name}), "
                        f"chip_has_rate({name}, dtype), chip_sheet_sparse({name}), chip_is_tpu({name}), or "
                        f"chip_base({name}) for a remark about one table chip",
                    )
                for name in named_chips(expr, models):
                    self.report(
                        part,
                        field,
                        "model by name",
                        f"compares the model {name!r} with a preset name: a model given its own fields "
                        f"(--set {name}.n_layers=...) or a user's config.json (--model) never equals it; use "
                        f"{name}_title for its name, the {name}_* fields for its shape, and a settable "
                        "variable for a fact that belongs to one preset",
                    )


__all__ = ["ChipNames", "named_chips", "part_expressions"]
