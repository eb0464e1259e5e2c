"""Part 1's names as a draw leaves them: drawn values set, derived ones evaluated on first read."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from operator import itemgetter
from typing import Any

from quizzer.bank.errors import ExprError, TemplateError
from quizzer.bank.expr.expression import Budget
from quizzer.bank.generate.per_template import per_template
from quizzer.bank.read.schema import Template
from quizzer.bank.read.variables import Variable


class Pending(dict[str, Any]):
    """A draw's env whose derived variables (``later``, in order) are evaluated when first read: a
    constraint, the prompt or the answer reading one evaluates it (and what it reads), so a rejected draw
    or a question shown before its teaching text never computes what it does not show.

    Reading a name (``env[name]``, ``get``, ``in``) sees every variable, evaluated or not. Anything that
    reads them all (iteration, ``len``, ``keys``/``items``/``values``, ``copy``, ``dict(env)``) evaluates
    the rest first; ``settled`` gives them as a plain dict in the order an eager draw sets them. An
    evaluation that fails raises the TemplateError naming the variable's expression, when it is read.
    """

    __slots__ = ("budget", "fns", "later", "template")

    def __init__(self, template: Template, fns: Mapping[str, Any], budget: Budget) -> None:
        super().__init__()
        self.template, self.fns, self.budget = template, fns, budget
        self.later: dict[str, Variable] = {}

    def __missing__(self, name: str) -> Any:
        var = self.later.pop(name, None)
        if var is None:
            raise KeyError(name)
        try:
            value = var.expr.remembered(self, self.fns, self.budget)  # type: ignore[union-attr]
        except ExprError as exc:
            self.later[name] = var  # read again, it fails again
            template = self.template
            raise TemplateError(template.path, template.id, f"variables.{name}.expr", str(exc)) from None
        self[name] = value
        return value

    def get(self, name: str, default: Any = None) -> Any:
        if dict.__contains__(self, name):  # told without raising a KeyError (a name most envs lack)
            return dict.__getitem__(self, name)
        return self[name] if name in self.later else default

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in self.later

    def settle(self) -> None:
        """Evaluate every derived variable not read yet, in the template's order."""
        later = self.later
        for name in list(later):
            if name in later:  # not read meanwhile by one evaluated before it
                self.__missing__(name)

    def settled(self) -> dict[str, Any]:
        """Every name, as a plain dict in the order an eager draw sets them (variables in order, a
        preset's fields after it)."""
        self.settle()
        names, values = names_in_order(self.template)
        return dict(zip(names, values(self), strict=True))

    # Reading every name: the rest evaluated first.
    def __iter__(self) -> Iterator[str]:
        self.settle()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self.settle()
        return dict.__len__(self)

    def keys(self) -> Any:
        self.settle()
        return dict.keys(self)

    def items(self) -> Any:
        self.settle()
        return dict.items(self)

    def values(self) -> Any:
        self.settle()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        return self.settled()

    def __eq__(self, other: object) -> bool:
        self.settle()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self.settled())

    def __reduce__(self) -> Any:
        return (dict, (self.settled(),))


@per_template
def names_in_order(
    template: Template,
) -> tuple[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]]:
    """Part 1's names in the order an eager draw sets them (each variable, a preset's fields after it),
    and a function reading their values from a mapping that has them all."""
    from quizzer.bank.read.names import PRESET_FIELDS

    found: dict[str, None] = {}
    for var in template.main.variables:
        found[var.name] = None
        if var.kind == "preset":
            found.update(dict.fromkeys(f"{var.name}_{field}" for field in PRESET_FIELDS))
    names = tuple(found)
    if len(names) == 1:
        (only,) = names
        return names, lambda env: (env[only],)
    return names, (itemgetter(*names) if names else lambda env: ())


@per_template
def layer_names(template: Template) -> tuple[str, ...]:
    """Part 1's names ending in ``_n_layers``, in that order (``n_layers_in`` reads the first)."""
    return tuple(name for name in names_in_order(template)[0] if name.endswith("_n_layers"))


@per_template
def later_part_has_layers(template: Template) -> bool:
    """Whether a later part has a name ending in ``_n_layers`` (a variable, or a preset's field)."""
    from quizzer.bank.read.names import PRESET_FIELDS

    return any(
        name.endswith("_n_layers")
        for spec in template.parts[1:]
        for var in spec.variables
        for name in (var.name, *(f"{var.name}_{f}" for f in PRESET_FIELDS if var.kind == "preset"))
    )


__all__ = ["Pending", "later_part_has_layers", "layer_names", "names_in_order"]
