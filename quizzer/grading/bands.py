"""Tolerances, known mistakes and the bands around a value: what counts as correct and what matches a slip."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

from quizzer.core.errors import SpecError
from quizzer.core.record import Record
from quizzer.core.trace import Number

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol, TypeVar

    class Valued(Protocol):
        """Anything with a value to match: a Mistake, a built-in slip."""

        @property
        def value(self) -> Number: ...

    M = TypeVar("M", bound=Valued)

#: The relative slack of comparisons: decimal edges ("0.33" against 0.3 ± 10 %) survive binary rounding.
SLACK = 1e-12


def plainly_finite(value: object) -> bool:
    """Whether ``value`` is a float that is finite or an int well within a float's range: a number that
    ``finite`` (and a float conversion) takes, told without building a message."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return kind is int and value.bit_length() < 1000  # type: ignore[attr-defined]


def finite(name: str, value: object) -> None:
    """Raise a SpecError naming ``name`` unless ``value`` is a finite int or float (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SpecError(f"{name} ({value!r}) must be a finite number")


class Tolerance(Record, slots=True):
    """How far from the expected value an answer may be and still be correct.

    Attributes:
        kind: "rel" (fraction of the expected value), "abs" (in the answer's unit) or "factor" (an estimate:
            within ×/÷ ``value``).
        value: the fraction (>= 0), the amount (>= 0) or the factor (> 1).
    """

    kind: str
    value: float

    def __post_init__(self) -> None:
        if self.kind not in ("rel", "abs", "factor"):
            raise SpecError(f"tolerance kind ({self.kind!r}) must be one of rel, abs, factor")
        finite("tolerance value", self.value)
        if self.kind == "factor" and self.value <= 1:
            raise SpecError(f"a factor tolerance ({self.value!r}) must be greater than 1")
        if self.value < 0:
            raise SpecError(f"a {self.kind} tolerance ({self.value!r}) must be >= 0")


class Mistake(Record):
    """A known wrong answer.

    Attributes:
        name: a stable kebab-case id ("untied-head-left-out"), kept in the history.
        value: the value the slip gives, in the answer's base unit.
        feedback: what to tell the student (a full sentence).
        title: a short name for people ("Untied head left out"); empty means one made from ``name``.
        family: the slip family it belongs to (``quizzer.grading.slip_families.FAMILIES``): "own" for a
            template's mistake unless it names one ("kv-pair" for a written "×2 for K and V forgotten").
    """

    name: str
    value: Number
    feedback: str
    title: str = ""
    family: str = "own"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"mistake name ({self.name!r}) must be a non-empty string")
        if not plainly_finite(self.value):  # the message made only for a value ``finite`` may refuse
            finite(f"mistake {self.name!r} value", self.value)

    @property
    def label(self) -> str:
        """The title for people: ``title``, or one made from the name ("Untied head left out")."""
        return self.title or title_from_name(self.name)


#: Words a title keeps in their usual spelling (dtype names stay lower case: "bf16", "int4").
_SPELLED = {
    w.lower(): w
    for w in "KV QKV GQA MQA MLP FFN MoE LoRA QLoRA MFU HFU GPU GPUs TP PP DP SP EP FLOPs MACs ViT RoPE "
    "GB GiB MB MiB KB KiB TB TiB PB PiB SGD AdamW Adam ZeRO FSDP NVLink PCIe HBM SRAM".split()
}
_DTYPES = frozenset("fp32 tf32 fp16 bf16 fp8 fp4 int8 int4 nf4 mxfp4 nvfp4 e4m3 e5m2".split())


@lru_cache(maxsize=4096)  # a template's mistakes are named again for each instance
def title_from_name(name: str) -> str:
    """A title for a mistake that has none: its kebab-case id as words, the first one capitalised.

    >>> title_from_name("untied-head-left-out"), title_from_name("kv_heads-for-n_heads"), title_from_name("bf16-as-fp32")
    ('Untied head left out', 'KV heads for n heads', 'bf16 as fp32')
    """  # noqa: E501
    words = [_SPELLED.get(w.lower(), w) for w in name.replace("_", "-").split("-") if w]
    if words and words[0].islower() and words[0] not in _DTYPES:
        words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words)


def tolerance_band(expected: Number, tolerance: Tolerance) -> tuple[float, float]:
    """The band [lo, hi] of correct values.

    >>> tolerance_band(100, Tolerance("rel", 0.05)), tolerance_band(100, Tolerance("factor", 2))
    ((95.0, 105.0), (50.0, 200.0))
    """
    e, t = float(expected), tolerance.value
    if tolerance.kind == "rel":
        return e - t * abs(e), e + t * abs(e)
    if tolerance.kind == "abs":
        return e - t, e + t
    return (e / t, e * t) if e >= 0 else (e * t, e / t)


def is_within(value: Number, expected: Number, tolerance: Tolerance) -> bool:
    """Whether ``value`` is inside the tolerance around ``expected`` (edges included).

    >>> is_within(16_400_000, 16_384_000, Tolerance("rel", 0.001)), is_within(3, 1, Tolerance("factor", 2))
    (True, False)
    """
    slack = SLACK * abs(expected)
    if tolerance.kind == "rel":
        return abs(value - expected) <= tolerance.value * abs(expected) + slack
    if tolerance.kind == "abs":
        return abs(value - expected) <= tolerance.value + slack
    if expected == 0 or value == 0 or (value < 0) != (expected < 0):
        return value == expected
    return log_ratio(value, expected) <= math.log(tolerance.value) + SLACK


def log_ratio(value: Number, target: Number) -> float:
    """|ln(value / target)| for values of one sign, as a difference (the quotient may under- or overflow)."""
    return abs(math.log(abs(value)) - math.log(abs(target)))


def close_band(expected: Number, tolerance: Tolerance) -> Tolerance:
    """The band of "close": 5 tolerances with a 1 % floor (rel, abs), or the factor squared."""
    if tolerance.kind == "rel":
        return Tolerance("rel", max(5 * tolerance.value, 0.01))
    if tolerance.kind == "abs":
        return Tolerance("abs", max(5 * tolerance.value, 0.01 * abs(expected)))
    return Tolerance("factor", tolerance.value**2)


def distance(value: Number, target: Number, tolerance: Tolerance) -> float:
    """How far ``value`` is from ``target``: the difference, or the log ratio for factor tolerances."""
    if tolerance.kind == "factor":
        return log_ratio(value, target) if value > 0 and target > 0 else math.inf
    return float(abs(value - target))


def match_mistake(value: Number, expected: Number, tolerance: Tolerance, candidates: Sequence[M]) -> M | None:
    """The nearest candidate ``value`` matches: within tolerance of it, and nearer to it than to expected.

    >>> slips = [Mistake("doubled", 200, "Twice the answer."), Mistake("halved", 50, "Half the answer.")]
    >>> match_mistake(199, 100, Tolerance("rel", 0.01), slips).name, match_mistake(150, 100, Tolerance("rel", 0.01), slips)
    ('doubled', None)
    """  # noqa: E501
    at = nearest_value(value, expected, tolerance, [m.value for m in candidates])
    return candidates[at] if at is not None else None


def nearest_value(
    value: Number, expected: Number, tolerance: Tolerance, values: Sequence[Number]
) -> int | None:
    """The index of the nearest of ``values`` that ``value`` matches (``match_mistake`` of values)."""
    away = distance(value, expected, tolerance)
    best: tuple[float, int] | None = None
    for i, target in enumerate(values):
        if is_within(value, target, tolerance):
            near = distance(value, target, tolerance)
            if near < away and (best is None or near < best[0]):
                best = (near, i)
    return best[1] if best else None
