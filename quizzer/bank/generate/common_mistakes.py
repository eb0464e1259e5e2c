"""The "Common mistakes" section (read after answering) and how a text's numbers read as a part's answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.generate.giveaway_numbers import Number, computations, figures, product_value, read_number
from quizzer.grading.bands import SLACK, Tolerance, is_within
from quizzer.grading.figures import round_figures

if TYPE_CHECKING:
    from types import SimpleNamespace

    from quizzer.bank.generate.giveaway_numbers import Computation
    from quizzer.bank.generate.instance import Instance, Part

    #: What a text's numbers are read against: a part (its value, unit, display unit and tolerance), or a
    #: test's stand-in.
    Question = Part | SimpleNamespace

#: The band within which a number reads as an estimate's answer (its own band is wide on purpose).
NEAR = Tolerance("rel", 0.05)
#: How near the rest of 100% must be to a share to give it away: what is left must be said as such.
_REST = Tolerance("rel", 0.005)
#: Constants of every text (a KiB, the seconds of an hour or a day): an answer only where they are it.
_CONSTANTS = frozenset(f"{n:,}" for n in (60, 1000, 3600, 86400, *(2**k for k in range(7, 31))))


def verdict(value: float, digits: str | None, question: Question, *, percent: bool = False) -> str | None:
    """How ``value`` (written as ``digits``; None: worked out) would grade as ``question``'s answer: "exact",
    "correct" (in its band; an estimate's: within 5%, what reads as its answer), "imprecise" (its answer
    rounded to the three figures or more written), "complement" (a ``percent`` whose rest to 100% grades
    right, for a share); None otherwise.

    >>> from types import SimpleNamespace as NS
    >>> share = NS(value=0.75, unit="ratio", display_unit="%", tolerance=Tolerance("rel", 0.0005))
    >>> verdict(0.75, "75", share), verdict(0.7501, "75.01", share), verdict(0.25, "25", share, percent=True)
    ('exact', 'correct', 'complement')
    >>> flops = NS(value=30_755_078_144, unit="FLOPs", display_unit=None, tolerance=Tolerance("rel", 1e-4))
    >>> verdict(30_760_000_000, "30.76", flops), verdict(30_800_000_000, "30.8", flops)
    ('imprecise', 'imprecise')
    """
    expected, tolerance = question.value, question.tolerance
    band = NEAR if tolerance.kind == "factor" else tolerance
    if abs(value - expected) <= SLACK * abs(expected):
        return "exact"
    if is_within(value, expected, band):
        return "correct"
    if digits is not None and tolerance.kind != "factor" and value and figures(digits) >= 3:
        written = float(digits.replace(",", ""))
        if abs(round_figures(expected * written / value, figures(digits)) - written) <= 1e-9 * written:
            return "imprecise"
    if percent and question.display_unit == "%" and 0 < value < 1 and 0 < expected < 1:
        return "complement" if is_within(1 - value, expected, _REST) else None
    return None


class Reader:
    """Reads a computation as one question's answer. A number the question stated (``given``: "7B", or
    "0.5" where it said "50%") does not count alone. ``strict`` (the lint): a count of two
    figures ("34", "80 layers") and a ratio that counts something ("10 requests") are no answers."""

    def __init__(
        self, question: Question, given: frozenset[Number] = frozenset(), strict: bool = False
    ) -> None:
        self.question, self.strict = question, strict
        self.unit, self.display, expected = question.unit, question.display_unit, question.value
        self.keys = {n.key for n in given}
        readings = (read_number(n, self.unit, d) for n in given if not n.plain for d in {None, self.display})
        self.given = [g for g in readings if g]
        tolerance = question.tolerance
        rel = max(0.006, NEAR.value if tolerance.kind == "factor" else tolerance.value)  # 3 figures' rounding
        width = (
            max(tolerance.value, 0.006 * abs(expected)) if tolerance.kind == "abs" else rel * abs(expected)
        )
        self.low, self.high = expected - width * 1.001, expected + width * 1.001  # a quick first test
        self.share = self.display == "%" and 0 < expected < 1

    def _skips(self, number: Number) -> bool:
        if number.plain or number.key in self.keys:
            return True
        bare = not (number.unit or number.suffix or number.prefix)
        short = bare and self.unit == "count" and figures(number.digits) < 3
        return self.strict and (short or (number.label and self.unit == "ratio"))

    def _stated(self, value: float, digits: str) -> bool:
        """Whether ``value`` (written as ``digits``) is a given of the question, to the figures written."""
        written, count = float(digits.replace(",", "")), figures(digits)
        scale = value / written if written else 1.0
        return any(abs(round_figures(g / scale, count) - written) <= 1e-9 * written for g in self.given)

    def worked_out(self, value: float) -> str | None:
        """How a value worked out (a derivation step's, in the question's unit) grades; None: not right."""
        if not self.low <= value <= self.high or (self.strict and self.unit == "count" and value < 100):
            return None
        if any(abs(given - value) <= 1e-9 * abs(value) for given in self.given):
            return None
        return verdict(value, None, self.question)

    def __call__(self, computation: Computation) -> str | None:
        """How the first of its numbers, or of its products ("12 × 12"), that would grade right grades
        (``verdict``); None when none would. A constant (1,024 tokens, 3,600 s) counts only where it is
        the exact answer."""
        for number in computation.numbers:
            if self._skips(number):
                continue
            value = read_number(number, self.unit, self.display)
            percent = self.share and number.unit in ("%", "percent", "pct")
            if value is None or not (self.low <= value <= self.high or percent):
                continue
            digits = number.digits if number.power == 1 else None
            found = verdict(value, digits, self.question, percent=percent)
            if found and digits is not None and self._stated(value, digits):
                continue
            constant = number.power == 1 and not number.suffix and number.digits in _CONSTANTS
            if found and (found == "exact" or not constant):
                return found
        for product in computation.products:
            if all(number.plain for _, number in product):
                continue  # "2 × 2 = 4 times": too plain to tell anything
            value = product_value(product, self.unit)
            if self.strict and self.unit == "count" and value < 100:
                continue
            if self.low <= value <= self.high and (found := verdict(value, None, self.question)):
                return found
        return None


def shown_numbers(instance: Instance) -> list[frozenset[Number]]:
    """For each part, the numbers the prompts state by the time it is asked (part 1's prompt, then each
    later part's, earlier answers hidden): its givens."""
    out: list[frozenset[Number]] = []
    seen: set[Number] = set()
    for part in instance.parts:
        seen.update(n for c in computations(part.masked_prompt or part.prompt) for n in c.numbers)
        out.append(frozenset(seen))
    return out


def common_mistakes(instance: Instance) -> tuple[tuple[str, str], ...]:
    """(title, feedback) for each mistake of the question and of its parts ("Part 2: " before a part's
    title) that is a slip on this instance (not inside the band of the right answer): what a student reads
    after answering."""
    rows = []
    for question in instance.parts:
        prefix = f"Part {question.number}: " if instance.part_count > 1 else ""
        for mistake in question.mistakes:
            if is_within(mistake.value, question.value, question.tolerance):
                continue  # the right answer on this instance (batch 1, one token...): no slip here
            rows.append((prefix + mistake.title, mistake.feedback))
    return tuple(rows)


__all__ = ["NEAR", "Reader", "common_mistakes"]
__all__ += ["shown_numbers", "verdict"]
