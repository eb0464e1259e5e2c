"""Two slips at once: pairs of an instance's slips, each a factor off the answer, their factors multiplied.

A slip's value is the answer times its factor (fp32's bytes for bf16: ×2; a GB figure labelled GiB: ×0.93);
two slips made together give the answer times both factors. A pair is two built-in slips, or a template's
mistake and a built-in slip, of two families: two slips of one family (two dtypes, 1000× up and down) make
no pair, and how two of a template's own mistakes combine is the template's to say (one may add where the
other multiplies), so they make none either. A pair is tried only when it is separable: outside the
tolerance of the answer and of every single slip (``pair_clashes`` lists the others, for the authoring
check).
"""

from __future__ import annotations

import bisect
import itertools
import math
from typing import TYPE_CHECKING

from quizzer.core.trace import Number, num
from quizzer.grading.bands import Mistake, Tolerance, is_within
from quizzer.grading.slip_families import Slip

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

#: A slip, written (``Mistake``) or built in (``Slip``).
AnySlip = Mistake | Slip


def _times(value: Number, expected: Number) -> str:
    """How far a slip is from the answer: "×2", "÷2", "×1.074"."""
    ratio = value / expected
    if ratio >= 1:
        return f"×{num(round(ratio, 3))}"
    return f"÷{num(round(1 / ratio, 3))}"


def _pairs(expected: Number, candidates: Sequence[AnySlip]) -> Iterator[tuple[AnySlip, AnySlip, Number]]:
    """Every pair of slips of two families, not both the template's own, and the value the two give
    together."""
    for a, b in itertools.combinations(candidates, 2):
        if a.family == b.family or a.name == b.name:
            continue
        if isinstance(a, Mistake) and isinstance(b, Mistake):
            continue  # two of the template's own: how they combine is the template's to say
        yield a, b, a.value * b.value / expected


class _Singles:
    """The single slips by value, to find those within a tolerance of a value without trying each: a
    window is cut from the sorted values by bisection, then each inside it is tried exactly."""

    def __init__(self, candidates: Sequence[AnySlip], tolerance: Tolerance) -> None:
        self.tolerance = tolerance
        ordered = sorted(range(len(candidates)), key=lambda i: candidates[i].value)
        self.values = [candidates[i].value for i in ordered]
        self.slips = [candidates[i] for i in ordered]

    def _window(self, value: Number) -> tuple[float, float]:
        kind, t = self.tolerance.kind, self.tolerance.value
        if kind == "abs":
            return value - 2 * t - 1e-9 * abs(value), value + 2 * t + 1e-9 * abs(value)
        if value <= 0 or (kind == "rel" and t >= 0.5):
            return -math.inf, math.inf
        if kind == "rel":
            return value / (1 + t) * (1 - 1e-9), value / (1 - t) * (1 + 1e-9)
        return value / t * (1 - 1e-9), value * t * (1 + 1e-9)

    def near(self, value: Number, *skip: AnySlip) -> AnySlip | None:
        """The first single slip (by value) ``value`` is within the tolerance of, other than ``skip``."""
        lo, hi = self._window(value)
        start = bisect.bisect_left(self.values, lo)
        end = bisect.bisect_right(self.values, hi)
        for k in range(start, end):
            slip = self.slips[k]
            if all(slip is not s for s in skip) and is_within(value, slip.value, self.tolerance):
                return slip
        return None


class PairSlip(Slip):
    """Two slips made at once, as one slip named by both ("a+b"); ``note`` is the sentence that says so
    with each one's factor ("Two slips at once: A (×2) and B (÷1.074)."), which opens its feedback;
    ``own``: one of the two is the template's own mistake."""

    __slots__ = ("note", "own")

    def __init__(self, a: AnySlip, b: AnySlip, value: Number, expected: Number) -> None:
        self.own = isinstance(a, Mistake) or isinstance(b, Mistake)
        self.note = (
            f"Two slips at once: {a.label} ({_times(a.value, expected)}) and {b.label} "
            f"({_times(b.value, expected)})."
        )

        def feedback() -> str:  # written when shown, as a built-in slip's is
            return f"{self.note} {a.feedback} {b.feedback}"

        super().__init__(f"{a.name}+{b.name}", value, f"{a.label} + {b.label}", feedback, a.family)


def slip_pairs(expected: Number, tolerance: Tolerance, candidates: Sequence[AnySlip]) -> list[PairSlip]:
    """The separable pairs of ``candidates`` as slips, named by both ("dtype-x+gb-vs-gib").

    >>> gib = Slip("gb-vs-gib", 0.931, "GB read as GiB", "A GB figure labelled GiB.", "gb-gib")
    >>> fp32 = Mistake("fp32-for-bf16", 2, "fp32's 4 bytes for bf16's 2.", "fp32 bytes for bf16", "dtype")
    >>> [(p.name, round(p.value, 3), p.title) for p in slip_pairs(1, Tolerance("rel", 0.01), [gib, fp32])]
    [('gb-vs-gib+fp32-for-bf16', 1.862, 'GB read as GiB + fp32 bytes for bf16')]
    """
    if not expected:
        return []
    singles = _Singles(candidates, tolerance)
    out = []
    for a, b, value in _pairs(expected, candidates):
        if is_within(value, expected, tolerance) or singles.near(value) is not None:
            continue
        out.append(PairSlip(a, b, value, expected))
    return out


def pair_clashes(
    expected: Number, tolerance: Tolerance, candidates: Sequence[AnySlip]
) -> list[tuple[AnySlip, AnySlip, Number, str]]:
    """The pairs that cannot be told apart: (a, b, their value, what they land on: "the answer" or a
    single slip's title), for pairs with at least one of a template's own mistakes."""
    if not expected:
        return []
    out = []
    singles = _Singles(candidates, tolerance)
    for a, b, value in _pairs(expected, candidates):
        if not isinstance(a, Mistake) and not isinstance(b, Mistake):
            continue  # two built-in slips: the grader's own, not the template's to separate
        if is_within(value, expected, tolerance):
            out.append((a, b, value, "the answer"))
            continue
        single = singles.near(value, a, b)
        if single is not None:
            out.append((a, b, value, single.label))
    return out


__all__ = ["PairSlip", "pair_clashes", "slip_pairs"]
