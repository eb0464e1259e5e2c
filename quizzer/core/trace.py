"""Derivations: every calculator returns its value together with the steps that produced it."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from quizzer.core.record import Record

if TYPE_CHECKING:
    from fractions import Fraction

Number = int | float


class Step(Record):
    """One line of a worked derivation.

    Attributes:
        label: what the step computes, in words ("Embedding table").
        formula: the symbolic formula ("vocab_size × d_model").
        substituted: the formula with the numbers put in ("32,000 × 512").
        value: the result of the step.
        unit: the unit of ``value`` (see ``quizzer.core.units.Unit``).
    """

    label: str
    formula: str
    substituted: str
    value: Number
    unit: str


class Result(Record):
    """A calculator's answer: the value, its unit, the derivation and the convention it assumes.

    The last step's value always equals ``value`` (``Trace.done`` enforces it).
    """

    value: Number
    unit: str
    steps: tuple[Step, ...]
    convention: str = ""

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)


def exact(value: Fraction | int | float) -> Number:
    """Return an ``int`` when ``value`` is a whole number held exactly, else a ``float``.

    >>> from fractions import Fraction
    >>> exact(Fraction(10, 2)), exact(Fraction(1, 4)), exact(3)
    (5, 0.25, 3)
    """
    if isinstance(value, int | float):
        return value
    # A Fraction; tested by shape so that `fractions` is imported only by code that makes them.
    return value.numerator if value.denominator == 1 else float(value)


def num(value: Number | Fraction) -> str:
    """Format a number for a substituted formula: ints with thousands separators, floats compactly.

    >>> from fractions import Fraction
    >>> num(16384000), num(0.4), num(3.12e14), num(Fraction(1, 3))
    ('16,384,000', '0.4', '3.12e14', '0.333333')
    """
    if not isinstance(value, int | float):
        value = exact(value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if value != 0 and not 1e-3 <= abs(value) < 1e6:
        mantissa, _, exponent = f"{value:.6e}".partition("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.6g}"


class Trace:
    """Collects the steps of one calculation; ``done`` seals them into a ``Result``."""

    __slots__ = ("_steps",)

    def __init__(self) -> None:
        self._steps: list[Step] = []

    # An int step stays an int (parameter counts are exact), a float one a float: the overloads say so.
    @overload
    def step(self, label: str, formula: str, substituted: str, value: int, unit: str) -> int: ...
    @overload
    def step(self, label: str, formula: str, substituted: str, value: float, unit: str) -> float: ...
    @overload
    def step(
        self, label: str, formula: str, substituted: str, value: Number | Fraction, unit: str
    ) -> Number: ...
    def step(self, label: str, formula: str, substituted: str, value: Number | Fraction, unit: str) -> Number:
        """Record a step and return its value (Fractions that are whole become ``int``)."""
        value = exact(value)
        self._steps.append(Step(label, formula, substituted, value, unit))
        return value

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps recorded so far."""
        return tuple(self._steps)

    def use(self, result: Result) -> Number:
        """Append another calculator's steps and return its value."""
        self._steps.extend(result.steps)
        return result.value

    def done(self, value: Number | Fraction, unit: str, convention: str = "") -> Result:
        """Seal the trace. The last step must carry ``value`` and ``unit``."""
        value = exact(value)
        if not self._steps or self._steps[-1].value != value or self._steps[-1].unit != unit:
            raise AssertionError(f"derivation does not end in its result {value!r} {unit}")
        return Result(value, unit, tuple(self._steps), convention)
