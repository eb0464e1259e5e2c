"""The dead-text lint: a comparison with a text its variable can never hold, so its branch never runs.

``topology == '3D torus'`` where ``topology`` is ``'a 3D torus' if links >= 6 else 'a 2D torus'`` is
always false: the constraint it sits in holds for one branch only and the draws it meant to allow never
come. The texts an ``expr`` variable can hold are read from its expression when it can give only texts
written in it (a text, or ``a if c else b`` of such); a drawn variable is left alone, since ``--set``
gives it any value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.chip_names import part_expressions

if TYPE_CHECKING:
    from quizzer.bank.expr.expression import Expr
    from quizzer.bank.read.schema import Template


def compared_texts(expr: Expr) -> list[tuple[str, str]]:
    """(variable, text) for each ``name == 'text'`` or ``name != 'text'`` in ``expr``.

    >>> from quizzer.bank.expr.expression import Expr
    >>> compared_texts(Expr("1 if topology == '3D torus' or 'fp8' != dtype else 0"))
    [('topology', '3D torus'), ('dtype', 'fp8')]
    """
    import _ast

    from quizzer.bank.expr.syntax import walk

    found: list[tuple[str, str]] = []
    for node in walk(expr.tree, expr.source):
        if not isinstance(node, _ast.Compare) or len(node.comparators) != 1:
            continue
        if not isinstance(node.ops[0], _ast.Eq | _ast.NotEq):
            continue
        pair = (node.left, node.comparators[0])
        for a, b in (pair, pair[::-1]):
            if isinstance(a, _ast.Name) and isinstance(b, _ast.Constant) and isinstance(b.value, str):
                found.append((a.id, b.value))
    return found


def possible_texts(expr: Expr) -> set[str] | None:
    """The texts ``expr`` can give, when it gives only texts written in it (None otherwise).

    >>> from quizzer.bank.expr.expression import Expr
    >>> sorted(possible_texts(Expr("'a 3D torus' if links >= 6 else 'a 2D torus'")))
    ['a 2D torus', 'a 3D torus']
    >>> possible_texts(Expr("chip_title(gpu)")) is None
    True
    """
    import _ast

    def texts(node: object) -> set[str] | None:
        if isinstance(node, _ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, _ast.IfExp):
            body, orelse = texts(node.body), texts(node.orelse)
            return None if body is None or orelse is None else body | orelse
        return None

    return texts(expr.tree)


class DeadText(Lint):
    """A comparison with a text its variable can never hold (always false, or always true with !=)."""

    name = "dead-text"
    finds = "a comparison with a text its variable can never hold: the branch it guards never runs"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        possible = {
            v.name: texts
            for part in template.parts
            for v in part.variables
            if v.expr is not None and (texts := possible_texts(v.expr)) is not None
        }
        for index, part in enumerate(template.parts):
            for field, expr in part_expressions(template, part):
                for name, text in compared_texts(expr):
                    if name in possible and text not in possible[name]:
                        self._dead(index, field, name, text, sorted(possible[name]))

    def _dead(self, index: int, field: str, name: str, text: str, takes: list[str]) -> None:
        shown = ", ".join(repr(t) for t in takes[:6]) + (", ..." if len(takes) > 6 else "")
        self.report(
            self.template.parts[index],
            field,
            f"dead text {name}",
            f"compares {name!r} with {text!r}, a text it can never hold (its expression gives {shown}): "
            "the comparison is always false (!=: always true), so the branch it guards never runs",
        )


__all__ = ["DeadText", "compared_texts", "possible_texts"]
