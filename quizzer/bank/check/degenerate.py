"""The degenerate lint: parts whose answers lie within each other's band, or a draw that breaks a `needs`.

Two parts of one instance with answers in the same unit, one inside the other's band, leave a student
unable to tell whether the later part asks anything new or whether to carry the earlier answer. A part's
``needs = [{ holds = "<expr>", why = "..." }]`` says what a draw must satisfy for its text to make sense
(more than one GPU beside a text about sharding, a window shorter than the sequence it should bind); each
is evaluated on every drawn instance with the part's names, and a draw where it is false is a finding. A
part's ``same_as_ok = [{ part = K, why = "..." }]`` says its answer may equal part K's by design.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from quizzer.bank.check.base import Lint
from quizzer.bank.check.lints import part_env
from quizzer.bank.expr.expression import Budget, plain
from quizzer.bank.read.names import calculators
from quizzer.core.errors import QuizzerError
from quizzer.grading.grade import is_within

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import Template
    from quizzer.grading.grade import Tolerance


class Answer(Protocol):
    """What ``same_answer`` reads of a part: its answer, unit, display unit and band."""

    @property
    def value(self) -> int | float: ...
    @property
    def unit(self) -> str: ...
    @property
    def display_unit(self) -> str | None: ...
    @property
    def tolerance(self) -> Tolerance: ...


class Degenerate(Lint):
    """Parts that come to the same answer on an instance, and ``needs`` a draw breaks."""

    name = "degenerate"
    finds = "parts whose answers lie within each other's band, or a draw that breaks a `needs`"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.fns = calculators()

    def visit(self, instance: Instance, seed: int) -> None:
        self._same_answers(instance, seed)
        self._needs(instance, seed)

    def _same_answers(self, instance: Instance, seed: int) -> None:
        """A later part whose answer lies within the band of an earlier one's, or the earlier's within its."""
        for k, later in enumerate(instance.parts[1:], start=2):
            allowed = {ok.part for ok in self.template.parts[k - 1].same_as_ok}
            for earlier in instance.parts[: k - 1]:
                if earlier.number in allowed or not same_answer(earlier, later):
                    continue
                self.report(
                    self.template.parts[k - 1],
                    "answer.expr",
                    f"same as part {earlier.number}",
                    f"seed {seed}: part {k}'s answer ({later.display}) lies within the band of part "
                    f"{earlier.number}'s ({earlier.display}): a student cannot tell whether to carry the "
                    f"earlier answer; change the draw (a constraint, or a `needs` that says why they must "
                    "differ) so that the parts differ",
                )
                break

    def _needs(self, instance: Instance, seed: int) -> None:
        """Each declared need of each part, evaluated with the part's names on ``instance``."""
        budget = Budget()
        for spec in self.template.parts:
            if not spec.needs:
                continue
            env = part_env(self.template, instance, spec.number)
            for i, need in enumerate(spec.needs):
                field = f"needs[{i}].holds"
                try:
                    holds = plain(need.holds.evaluate(env, self.fns, budget))
                except (QuizzerError, ArithmeticError, TypeError, ValueError) as exc:
                    self.report(
                        spec, field, "error", f"seed {seed}: {need.holds.source!r} cannot be evaluated: {exc}"
                    )
                    continue
                if not holds:
                    self.report(
                        spec,
                        field,
                        "broken",
                        f"seed {seed}: {need.holds.source!r} is false on this draw ({need.why}): add a "
                        "constraint that keeps it, or a `when` on the text that needs it",
                    )


def same_answer(earlier: Answer, later: Answer) -> bool:
    """Whether two parts' answers, in one unit shown in one display unit, lie within the band of either
    (different units: never; nor 4.99× and 470%, whose typed numbers differ).

    >>> from types import SimpleNamespace
    >>> from quizzer.grading.grade import Tolerance
    >>> def part(value, unit="ratio", rel=0.01):
    ...     return SimpleNamespace(value=value, unit=unit, display_unit=None, tolerance=Tolerance("rel", rel))
    >>> same_answer(part(0.000368), part(0.0003677)), same_answer(part(2.0), part(2.1))
    (True, False)
    >>> same_answer(part(8, "count"), part(8, "s"))
    False
    """
    if (earlier.unit, earlier.display_unit) != (later.unit, later.display_unit):
        return False
    return is_within(later.value, earlier.value, earlier.tolerance) or is_within(
        earlier.value, later.value, later.tolerance
    )


__all__ = ["Answer", "Degenerate", "same_answer"]
