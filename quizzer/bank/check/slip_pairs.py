"""The slip-pairs lint: a written mistake that, with a built-in slip, never lands apart from the rest.

The grader names two slips made at once (``quizzer.grading.pairs``): a template's mistake or a built-in
slip, with a built-in slip of another family; each is a factor off the answer, and the two factors
multiply. It tries a pair only where it can be told apart: outside the band of the answer and of every
single slip. A pair that lands inside one of those bands on some draws is a coincidence of the numbers
drawn, and the grader stays silent there. A pair that does so on every instance drawn (at least
``MIN_DRAWS``) is the template's, unless it is arithmetic: a mistake that is a fixed factor off the answer
(÷2 for K and V) lands on the answer with the slip of the inverse factor (×2 for fp32) by arithmetic, and
a single slip that is exactly the two made together (GPU-hours read as days: GPU-days and hours read as
days) names them both. What is left lands near a target by the template's own numbers on every draw, so
the grader can never name the two. The finding names the mistake, the slip and where the pair lands, with
the first seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.generate.render import grade_context
from quizzer.grading.bands import Mistake, Tolerance, is_within
from quizzer.grading.pairs import AnySlip, pair_clashes
from quizzer.grading.slips import slips

if TYPE_CHECKING:
    from quizzer.bank.errors import TemplateError
    from quizzer.bank.generate.instance import Instance, Part
    from quizzer.bank.read.schema import Template

#: Instances a pair must clash on, every one it was drawn on, before it is the template's and not chance.
MIN_DRAWS = 3


class _Tally:
    """How often a (part, mistake, slip) pair was drawn and clashed, and the first clash."""

    __slots__ = ("clashes", "draws", "exact", "first", "ratios")

    def __init__(self) -> None:
        self.draws = self.clashes = 0
        self.first: tuple[int, str] | None = None  # (seed, where it landed)
        self.ratios: set[float] = set()  # the mistake's value ÷ the answer on the instances drawn
        self.exact = True  # every clash lands exactly on its target: the target is the pair itself


def _one_factor(ratios: set[float], tolerance: Tolerance) -> bool:
    """Whether a mistake is one factor off the answer on every instance: its ratios to the answer agree
    within the question's tolerance (fp8's peak over bf16's is 2 on one chip, 1.98 on another)."""
    low, high = min(ratios), max(ratios)
    if low <= 0 or high <= 0:
        return low == high
    return is_within(high, low, tolerance) or high <= low * (1 + 1e-9)


#: What one instance adds to a pair's tally: its key (part, mistake, slip), the mistake's ratio to the
#: answer, where the pair lands when it clashes (else None), and whether it lands exactly on that.
_Count = tuple[tuple[int, str, str], float, "str | None", bool]


def _counts(part: Part) -> list[_Count]:
    """What one part of an instance adds to the tallies: each written mistake outside the band with each
    built-in slip of another family."""
    written = [Mistake(m.name, m.value, m.feedback, m.title, m.family) for m in part.mistakes]
    written = [m for m in written if not is_within(m.value, part.value, part.tolerance)]
    if not written or not part.value:
        return []
    builtin = slips(part.value, part.unit, grade_context(part), tolerance=part.tolerance)
    candidates: list[AnySlip] = [*written, *builtin]
    targets = {c.label: c.value for c in candidates} | {"the answer": part.value}
    clashes = {
        (mine.name, other.label): (lands, value)
        for a, b, value, lands in pair_clashes(part.value, part.tolerance, candidates)
        for mine, other in ((a, b) if isinstance(a, Mistake) else (b, a),)
    }
    out: list[_Count] = []
    for m in written:
        for slip in builtin:
            if slip.family == m.family:
                continue
            clash = clashes.get((m.name, slip.label))
            lands, exact = None, True
            if clash is not None:
                lands, value = clash
                target = targets.get(lands, part.value)
                exact = abs(value - target) <= 1e-9 * abs(target)
            out.append(((part.number, m.name, slip.label), m.value / part.value, lands, exact))
    return out


class SlipPairs(Lint):
    """Every written mistake, with each built-in slip, lands apart from the answer and every single slip on
    some instance drawn."""

    name = "slip-pairs"
    finds = "a written mistake that, with a built-in slip, always lands on the answer or on a single slip"
    sees_repeats = True  # it counts the instances a slip lands on

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.tally: dict[tuple[int, str, str], _Tally] = {}
        self.bands = [spec.tolerance for spec in template.parts]
        #: Each instance's counts by the numbers it drew: a repeat counts again without being read again.
        self.counts: dict[str, list[_Count]] = {}

    def visit(self, instance: Instance, seed: int) -> None:
        numbers = repr([part.variables for part in instance.parts])
        counts = self.counts.get(numbers)
        if counts is None:
            counts = self.counts[numbers] = [c for part in instance.parts for c in _counts(part)]
        for key, ratio, lands, exact in counts:
            row = self.tally.setdefault(key, _Tally())
            row.draws += 1
            row.ratios.add(ratio)
            if lands is not None:
                row.clashes += 1
                row.first = row.first or (seed, lands)
                row.exact = row.exact and exact

    def problems(self) -> list[TemplateError]:
        for (number, name, slip), row in self.tally.items():
            if row.draws < MIN_DRAWS or row.clashes < row.draws or row.first is None:
                continue
            if _one_factor(row.ratios, self.bands[number - 1]) or row.exact:
                continue  # arithmetic, not the template: a factor slip of its own (÷2 for K and V with ×2 is
                # the answer), or a single slip that is the two slips made together
            spec = self.template.parts[number - 1]
            index = next(i for i, m in enumerate(spec.mistakes) if m.name == name)
            seed, lands = row.first
            self.report(
                spec,
                f"mistakes[{index}]",
                f"pair-{slip}",
                f"the mistake {name!r} together with the slip {slip!r} lands on {lands} on every instance "
                f"drawn ({row.draws}; first seed {seed}): the grader can never name the two; make the "
                f"mistake's value its own, or give it the family of the slip it is",
            )
        return super().problems()


__all__ = ["SlipPairs"]
