"""A template expression as a person reads it: calculator calls by their step labels, variables in words."""

from __future__ import annotations

import _ast  # the C node classes; the `ast` module would cost ~14 ms of cold start
from collections.abc import Callable, Mapping
from typing import Any

from quizzer.bank.expr.syntax import BINOPS, BUILTIN_NAMES, CMPOPS, CONSTANTS
from quizzer.core.trace import Result, num

#: Where a call sits in its expression's source: the key ``Expr`` evaluation notes calculator results under.
CallKey = tuple[int, int, int, int]
_LEVEL = {"+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "unary": 7, "**": 8}
_SHOWN = {"*": "×", "/": "/", "**": "^", "+": "+", "-": "-", "%": "mod"}
_ATOM = 9


def call_key(node: Any) -> CallKey:
    """The key of a call node: its span in the source, unique within one expression."""
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


class Formula:
    """Renders one expression tree twice at once: in words (the formula) and with the numbers put in.

    ``labels`` name variables in words (a variable without one shows as its name); ``results`` are the
    calculator results of this evaluation by ``call_key``: a call shows as its result's last step label
    and value. ``test`` evaluates the condition of ``a if cond else b``, so only the branch taken shows.
    """

    def __init__(
        self,
        env: Mapping[str, Any],
        labels: Mapping[str, str],
        results: Mapping[CallKey, Result],
        test: Callable[[Any], bool],
    ) -> None:
        self.env, self.labels, self.results, self.test = env, labels, results, test

    def render(self, node: Any) -> tuple[str, str]:
        """(formula in words, formula with the numbers) of ``node``."""
        words, numbers, _ = self._node(node)
        return words, numbers

    def _wrap(self, node: Any, parent: int, right: bool = False) -> tuple[str, str]:
        words, numbers, level = self._node(node)
        if level < parent or (right and level == parent):
            return f"({words})", f"({numbers})"
        return words, numbers

    def _node(self, node: Any) -> tuple[str, str, int]:
        if isinstance(node, _ast.Constant):
            shown = _value(node.value)
            return shown, shown, _ATOM
        if isinstance(node, _ast.Name):
            value = self.env.get(node.id, CONSTANTS.get(node.id, node.id))
            return self.labels.get(node.id, node.id), _value(value), _ATOM
        if isinstance(node, _ast.BinOp):
            return self._binop(node)
        if isinstance(node, _ast.UnaryOp):
            if isinstance(node.op, _ast.Not):
                words, numbers = self._wrap(node.operand, 3)
                return f"not {words}", f"not {numbers}", 3
            words, numbers = self._wrap(node.operand, _LEVEL["unary"])
            sign = "-" if isinstance(node.op, _ast.USub) else "+"
            return sign + words, sign + numbers, _LEVEL["unary"]
        if isinstance(node, _ast.IfExp):
            return self._node(node.body if self.test(node.test) else node.orelse)
        if isinstance(node, _ast.Call):
            return self._call(node)
        if isinstance(node, _ast.Compare):
            parts = [self._wrap(node.left, 5)]
            symbols = [CMPOPS[type(op)] for op in node.ops]
            parts += [self._wrap(c, 5) for c in node.comparators]
            words = parts[0][0] + "".join(f" {s} {p[0]}" for s, p in zip(symbols, parts[1:], strict=True))
            numbers = parts[0][1] + "".join(f" {s} {p[1]}" for s, p in zip(symbols, parts[1:], strict=True))
            return words, numbers, 4
        if isinstance(node, _ast.BoolOp):
            word = " and " if isinstance(node.op, _ast.And) else " or "
            parts = [self._wrap(v, 3) for v in node.values]
            return word.join(p[0] for p in parts), word.join(p[1] for p in parts), 2
        return "?", "?", _ATOM

    def _binop(self, node: Any) -> tuple[str, str, int]:
        symbol = BINOPS[type(node.op)]
        if symbol == "//":
            left, right = self._wrap(node.left, 6), self._wrap(node.right, 6, right=True)
            return f"⌊{left[0]} / {right[0]}⌋", f"⌊{left[1]} / {right[1]}⌋", _ATOM
        shown = _SHOWN[symbol]
        level = _LEVEL[symbol]
        power = symbol == "**"
        left = self._wrap(node.left, level + 1 if power else level)
        right = self._wrap(node.right, level, right=not power)
        return f"{left[0]} {shown} {right[0]}", f"{left[1]} {shown} {right[1]}", level

    def _call(self, node: Any) -> tuple[str, str, int]:
        name = node.func.id
        result = self.results.get(call_key(node))
        if result is not None:
            label = result.steps[-1].label if result.steps else name.replace("_", " ")
            return label, num(result.value), _ATOM
        if name not in BUILTIN_NAMES:  # a calculator this evaluation did not reach: its name in words
            words = name.replace("_", " ")
            return words, words, _ATOM
        args = [self.render(a) for a in node.args] + [self.render(k.value) for k in node.keywords]
        if name in ("ceil", "floor") and len(args) == 1:
            left, right = ("⌈", "⌉") if name == "ceil" else ("⌊", "⌋")
            return f"{left}{args[0][0]}{right}", f"{left}{args[0][1]}{right}", _ATOM
        words = ", ".join(a[0] for a in args)
        numbers = ", ".join(a[1] for a in args)
        return f"{name}({words})", f"{name}({numbers})", _ATOM


def _value(value: Any) -> str:
    """A value in a formula: numbers as in a derivation, text without quotes, true/false."""
    if isinstance(value, Result):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) or hasattr(value, "denominator"):
        return num(value)
    return str(value)


__all__ = ["CallKey", "Formula", "call_key"]
