"""The slips lint: a classic slip a derivation makes possible that no mistake, written or built in, names.

Each step of a part's derivation names the factors its value is proportional to (``Step.factors``, set by
the core's calculators): a ×2 for K and V, the KV heads, the layers, a dtype's bytes per value, 2 FLOPs per
multiply-add. Each makes a classic slip possible (``slipcover_values``): the ×2 forgotten, the query heads
for the KV heads, one layer for all, a neighbouring dtype, MACs for FLOPs. On every drawn instance, each
such slip whose answer lies outside the band must be named by a mistake: a built-in slip of its family
(the grader makes one from the answer's own factors, its last step's), a written mistake of that family
(``family = "kv-pair"``), or a written mistake that gives the slip's value. Otherwise a student who makes
it gets a bare "wrong": a finding on the part's answer, with the value the slip gives where the lint can
compute it.

A written mistake that gives a family's value on every instance where both apply, but names no family, is
a finding too: tag it, so that Stats and the slip drills count it with its family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quizzer.bank.check.base import Lint
from quizzer.bank.check.lints import part_env
from quizzer.bank.check.slipcover_values import Possible, possible_slips
from quizzer.bank.expr.text import answer_display
from quizzer.bank.generate.render import grade_context
from quizzer.bank.read.names import calculators
from quizzer.grading.bands import is_within
from quizzer.grading.slip_families import FAMILIES
from quizzer.grading.slips import slips

if TYPE_CHECKING:
    from quizzer.bank.errors import TemplateError
    from quizzer.bank.generate.instance import Instance, Part
    from quizzer.bank.read.schema import PartSpec, Template
    from quizzer.grading.slip_families import Slip

#: Families a written mistake is told to name when it gives their value on every instance, in the order
#: of preference. A 1000× or a sibling unit is left out: many slips of a template's own give those.
_ORDER = ("kv-pair", "kv-heads", "per-layer", "macs-flops", "dtype", "gb-gib", "scale-word")
#: Two values that are the same slip: a mistake written as the slip is computed gives it to the last digits.
_SAME = 1e-6


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= _SAME * max(abs(a), abs(b))


class _Tally:
    """How often a written mistake of no family gave a family's value: on how many instances it did and did
    not, and the first seed it did, with the value as shown."""

    __slots__ = ("hits", "misses", "seed", "shown")

    def __init__(self) -> None:
        self.hits = self.misses = 0
        self.seed: int | None = None
        self.shown = ""


class SlipCoverage(Lint):
    """Every classic slip a part's derivation makes possible is named by a mistake, written or built in."""

    name = "slips"
    finds = "a classic slip the derivation makes possible with no mistake, written or built in, to name it"
    sees_repeats = True  # it counts the instances a slip lands on

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.fns = calculators()
        self.families = [{m.name: m.family for m in spec.mistakes} for spec in template.parts]
        self.index = [{m.name: i for i, m in enumerate(spec.mistakes)} for spec in template.parts]
        self.tally: dict[tuple[int, str, str], _Tally] = {}  # (part number, mistake name, family)
        #: Each instance's tallies by the numbers it drew (key, whether it gave the family's value, the value
        #: as shown): a repeat is counted again without being read again; what it misses is reported once.
        self.counts: dict[str, list[tuple[tuple[int, str, str], bool, str]]] = {}

    def visit(self, instance: Instance, seed: int) -> None:
        numbers = repr([part.variables for part in instance.parts])
        counts = self.counts.get(numbers)
        if counts is None:
            counts = self.counts[numbers] = []
            for spec, part in zip(self.template.parts, instance.parts, strict=True):
                self._part(spec, part, instance, seed, counts)
        for key, hit, shown in counts:
            row = self.tally.setdefault(key, _Tally())
            if hit:
                row.hits += 1
                if row.seed is None:
                    row.seed, row.shown = seed, shown
            else:
                row.misses += 1

    def _part(self, spec: PartSpec, part: Part, instance: Instance, seed: int, counts: list[Any]) -> None:
        tolerance = part.tolerance
        builtin = slips(part.value, part.unit, grade_context(part), tolerance=tolerance)
        named = {family for slip in builtin for family in slip.families}
        values: dict[str, list[float]] = {}
        for slip in builtin:
            values.setdefault(slip.family, []).append(slip.value)
        possible = self._possible(spec, part, instance)
        for family, found in possible.items():
            values.setdefault(family, []).extend(p.value for p in found if p.value is not None)
        families = self.families[spec.number - 1]
        tagged = {families[m.name] for m in part.mistakes if not is_within(m.value, part.value, tolerance)}
        for m in part.mistakes:
            if not families[m.name]:
                self._tally(spec, m.name, m.value, values, part, counts)
        written = [m.value for m in part.mistakes]
        for family, found in possible.items():
            for factor in dict.fromkeys(
                p.factor.label for p in found
            ):  # a dtype's slips apart from another's
                slips_of = [p for p in found if p.factor.label == factor]
                if family in tagged or _named(family, factor, named, builtin):
                    continue
                if any(_same(p.value, v) for p in slips_of if p.value is not None for v in written):
                    continue  # a written mistake gives it (the tally asks for its family)
                self._missing(spec, part, seed, slips_of[0])

    def _possible(self, spec: PartSpec, part: Part, instance: Instance) -> dict[str, list[Possible]]:
        """The classic slips the part's derivation makes possible on this instance, outside its band, by
        family; where one of a family has a computed value, those without (a factor further up the same
        calculator, which its last step repeats) are left out."""
        possible: dict[str, list[Possible]] = {}
        if not any(step.factors for step in part.derivation):
            return possible
        env = part_env(self.template, instance, spec.number)
        for slip in possible_slips(part, spec.answer, env, self.fns):
            value = slip.value  # a slip inside the band, or below zero, is none a student can type
            if value is None or (value > 0 and not is_within(value, part.value, part.tolerance)):
                possible.setdefault(slip.family, []).append(slip)
        for family, found in possible.items():
            if any(p.value is not None for p in found):
                possible[family] = [p for p in found if p.value is not None]
        return possible

    def _tally(
        self,
        spec: PartSpec,
        name: str,
        value: float,
        values: dict[str, list[float]],
        part: Part,
        counts: list[Any],
    ) -> None:
        """Count, for each family with values on this instance, whether the written mistake ``name`` (of no
        family) gives one of them: into ``counts``, which ``visit`` adds to the tally."""
        for family, known in values.items():
            if family in _ORDER:
                hit = any(_same(value, v) for v in known)
                counts.append(((spec.number, name, family), hit, _shown(part, value) if hit else ""))

    def _missing(self, spec: PartSpec, part: Part, seed: int, slip: Possible) -> None:
        if slip.value is not None:
            gets = f'gets {_shown(part, slip.value)}, a bare "wrong"'
        else:  # the step is a term of a sum: its slip's value is the template's to write
            gets = 'gets a bare "wrong"'
        self.report(
            spec,
            "answer.expr",
            f"missing:{slip.family}",
            f"seed {seed}: the step '{slip.step}' makes a classic slip possible that no mistake names "
            f"({FAMILIES[slip.family]}): a student {slip.what} {gets}. Write a mistake with family = "
            f'"{slip.family}" that gives it, or name the family on the mistake that does',
        )

    def problems(self) -> list[TemplateError]:
        chosen: dict[tuple[int, str], tuple[str, _Tally]] = {}
        for (number, name, family), row in self.tally.items():
            if row.hits and not row.misses:
                earlier = chosen.get((number, name))
                if earlier is None or _ORDER.index(family) < _ORDER.index(earlier[0]):
                    chosen[(number, name)] = (family, row)
        for (number, name), (family, row) in chosen.items():
            self.report(
                self.template.parts[number - 1],
                f"mistakes[{self.index[number - 1][name]}].family",
                "family",
                f"seed {row.seed}: gives {row.shown}, what {FAMILIES[family]} gives (on every instance "
                f'drawn where both apply), and names no family: add family = "{family}" (so that Stats and '
                'the slip drills count it with its family), or family = "own" if it is a slip of its own '
                "that gives the same",
            )
        return super().problems()


def _named(family: str, dtype: str, named: set[str], builtin: list[Slip]) -> bool:
    """Whether a built-in slip names ``family``: for a dtype's slips, one of that dtype's neighbours."""
    if family != "dtype" or not dtype:
        return family in named
    return any(name.endswith(f"-for-{dtype}") for slip in builtin for name in slip.names)


def _shown(part: Part, value: float | None) -> str:
    """``value`` as the part shows its answer (its display unit, 3 figures)."""
    if value is None:
        return "?"
    try:
        return answer_display(value, part.unit, part.display_unit, 3)
    except (ValueError, ArithmeticError):
        return f"{value:g} {part.unit}"


__all__ = ["SlipCoverage"]
