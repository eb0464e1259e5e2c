"""What an instance holds beyond its own fields: a mistake's value, and each follow-up part of a chain."""

from __future__ import annotations

from typing import Any

from quizzer.core.record import Record
from quizzer.core.trace import Step
from quizzer.grading.grade import Tolerance


class MistakeValue(Record):
    """A template mistake evaluated for one instance."""

    name: str
    value: int | float
    feedback: str
    title: str = ""
    """For people ("Untied head left out"): the template's title, else one made from the name."""


class PartInstance(Record):
    """One follow-up part of a generated chain (``Instance.parts``): part 2, 3, ...

    Its fields mean what the same fields of ``Instance`` mean, for this part: ``value`` is computed from
    the true values of the earlier parts, ``prompt`` shows them (``{part1}`` in its display form), and
    ``masked_prompt`` is the prompt with each earlier answer hidden, for a reader who has not answered yet.
    """

    number: int
    prompt: str
    value: int | float
    unit: str
    display: str
    display_unit: str | None
    tolerance: Tolerance
    tolerance_text: str
    needed_figures: int | None
    mistakes: tuple[MistakeValue, ...]
    derivation: tuple[Step, ...]
    explanation: str
    tldr: str
    nudges: tuple[str, ...]
    carry: bool
    """Graded against the chain recomputed from the user's own earlier answers too (``bank.chain``)."""
    variables: dict[str, Any]
    """The part's own variables (drawn or derived), by name."""
    dtype: str | None = None
    layers: int | None = None
    layers_label: str | None = None
    per_layer: bool = False
    masked_prompt: str = ""
    """The prompt with every ``{partK}`` shown as "(your part K answer)": nothing of an earlier answer."""


__all__ = ["MistakeValue", "PartInstance"]
