"""Derivations: every calculator returns its value together with the steps that produced it."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from quizzer.core.record import Record

if TYPE_CHECKING:
    from fractions import Fraction

Number = int | float

#: The roles a step's factors may have, and what each is. A grader builds its classic slips from them
#: (``quizzer.grading.slip_families``): the ×2 for K and V forgotten, one layer for all, the query heads for
#: the KV heads, a neighbouring dtype's bytes, MACs for FLOPs.
ROLES: dict[str, str] = {
    "kv": "K and V: one key and one value per head (2)",
    "layers": "layers",
    "heads": "query heads",
    "kv_heads": "key/value heads",
    "head_dim": "the width of a head",
    "d_model": "the residual width",
    "bytes_per_value": "bytes per stored value (the dtype's size)",
    "tokens": "tokens",
    "batch": "sequences in the batch",
    "params": "parameters",
    "flops_per_mac": "FLOPs per multiply-add (2)",
    "passes": "forward-pass costs per token (training: 1 forward + 2 backward = 3)",
}


class Factor(Record):
    """One named factor of a step's value: the value is proportional to it (value = the named factors × the
    rest; a product of whole bytes is rounded up once, as the step rounds it).

    Attributes:
        role: what the factor is, a key of ``ROLES`` ("kv_heads").
        value: its value in this step (8).
        instead: the value a classic slip puts in its place, where the calculator knows it (the query heads,
            32, for ``kv_heads``); None otherwise.
        label: its name here when the role alone does not say it: the dtype of ``bytes_per_value`` ("bf16").
    """

    role: str
    value: Number
    instead: Number | None = None
    label: str = ""

    def __init__(self, role: str, value: Number, instead: Number | None = None, label: str = "") -> None:
        # Record's own __init__, written out: a calculator makes thousands (tests/core/test_record.py
        # holds the signature to the fields)
        own = self.__dict__
        own["role"], own["value"], own["instead"], own["label"] = role, value, instead, label


def tags(**values: Number | tuple[Number, Number]) -> tuple[Factor, ...]:
    """The factors of a step, by role, in the order given (a role of ``ROLES``, else a ValueError); a pair
    gives a factor and what a classic slip puts in its place (``kv_heads=(8, 32)``: the query heads).

    >>> [(f.role, f.value, f.instead) for f in tags(kv=2, kv_heads=(8, 32))]
    [('kv', 2, None), ('kv_heads', 8, 32)]
    """
    out = []
    for role, value in values.items():
        if role not in ROLES:
            raise ValueError(f"{role!r} is not a factor role; the roles: {', '.join(ROLES)}")
        out.append(Factor(role, *value, "") if isinstance(value, tuple) else Factor(role, value, None, ""))
    return tuple(out)


class Step(Record):
    """One line of a worked derivation.

    Attributes:
        label: what the step computes, in words ("Embedding table").
        formula: the symbolic formula ("vocab_size × d_model").
        substituted: the formula with the numbers put in ("32,000 × 512").
        value: the result of the step.
        unit: the unit of ``value`` (see ``quizzer.core.units.Unit``).
        factors: the named factors ``value`` is proportional to (``Factor``), set by the calculators whose
            step is a product of them: the KV cache's 2 × layers × KV heads × head_dim × bytes, weights'
            N × bytes, FLOPs' 2 per multiply-add. A step's factors include those of an earlier step it
            multiplies (the KV cache of a batch carries the per-token cache's), so a calculator's last step
            names every factor its result is proportional to. () for a step that is no such product.
    """

    label: str
    formula: str
    substituted: str
    value: Number
    unit: str
    factors: tuple[Factor, ...] = ()

    def __init__(
        self,
        label: str,
        formula: str,
        substituted: str,
        value: Number,
        unit: str,
        factors: tuple[Factor, ...] = (),
    ) -> None:
        # Record's own __init__, written out: every calculator step makes one (see Factor's)
        own = self.__dict__
        own["label"], own["formula"], own["substituted"] = label, formula, substituted
        own["value"], own["unit"], own["factors"] = value, unit, factors

    def factor(self, role: str) -> Factor | None:
        """The factor of ``role``, if the step has one.

        >>> Step("KV", "2 × L", "2 × 32", 64, "count", tags(kv=2, layers=32)).factor("layers").value
        32
        """
        return next((f for f in self.factors if f.role == role), None)


class Result(Record):
    """A calculator's answer: the value, its unit, the derivation and the convention it assumes.

    The last step's value always equals ``value`` (``Trace.done`` enforces it).
    """

    value: Number
    unit: str
    steps: tuple[Step, ...]
    convention: str = ""

    def __init__(self, value: Number, unit: str, steps: tuple[Step, ...], convention: str = "") -> None:
        # Record's own __init__, written out: every calculator call makes one (see Factor's)
        own = self.__dict__
        own["value"], own["unit"], own["steps"], own["convention"] = value, unit, steps, convention

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    @property
    def factors(self) -> tuple[Factor, ...]:
        """The named factors the value is proportional to: its last step's (``Step.factors``)."""
        return self.steps[-1].factors if self.steps else ()


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
    >>> num(341116.4), num(1234.5678), num(2048.5), num(999.25)
    ('341,116', '1,234.57', '2,048.5', '999.25')
    """
    if type(value) is int:  # most: no isinstance of a union
        return f"{value:,}"
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
    if abs(value) >= 1000:  # six figures, grouped as the ints are: 341,116 (not 341116), 1,234.57
        text = f"{value:,.{max(0, 6 - len(str(int(abs(value)))))}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{value:.6g}"


class Trace:
    """Collects the steps of one calculation; ``done`` seals them into a ``Result``."""

    __slots__ = ("_steps",)

    def __init__(self) -> None:
        self._steps: list[Step] = []

    # An int step stays an int (parameter counts are exact), a float one a float: the overloads say so.
    @overload
    def step(
        self,
        label: str,
        formula: str,
        substituted: str,
        value: int,
        unit: str,
        factors: tuple[Factor, ...] = (),
    ) -> int: ...
    @overload
    def step(
        self,
        label: str,
        formula: str,
        substituted: str,
        value: float,
        unit: str,
        factors: tuple[Factor, ...] = (),
    ) -> float: ...
    @overload
    def step(
        self,
        label: str,
        formula: str,
        substituted: str,
        value: Number | Fraction,
        unit: str,
        factors: tuple[Factor, ...] = (),
    ) -> Number: ...
    def step(
        self,
        label: str,
        formula: str,
        substituted: str,
        value: Number | Fraction,
        unit: str,
        factors: tuple[Factor, ...] = (),
    ) -> Number:
        """Record a step and return its value (Fractions that are whole become ``int``); ``factors`` names
        the factors the value is proportional to (``tags``)."""
        value = exact(value)
        self._steps.append(Step(label, formula, substituted, value, unit, factors))
        return value

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps recorded so far."""
        return tuple(self._steps)

    def use(self, result: Result, factors: tuple[Factor, ...] | None = None) -> Number:
        """Append another calculator's steps and return its value; ``factors``, when given, name what its
        last step is proportional to (the time of a compute, the compute's factors), which it could not."""
        self._steps.extend(result.steps)
        if factors is not None and self._steps:
            self._steps[-1] = self._steps[-1].replace(factors=factors)
        return result.value

    def done(self, value: Number | Fraction, unit: str, convention: str = "") -> Result:
        """Seal the trace. The last step must carry ``value`` and ``unit``."""
        value = exact(value)
        if not self._steps or self._steps[-1].value != value or self._steps[-1].unit != unit:
            raise AssertionError(f"derivation does not end in its result {value!r} {unit}")
        return Result(value, unit, tuple(self._steps), convention)
