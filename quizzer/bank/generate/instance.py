"""An instance of a template: its parts (part 1, the main question, first), and a mistake's value."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar, overload

from quizzer.core.record import Record
from quizzer.core.trace import Step
from quizzer.grading.grade import Tolerance

T = TypeVar("T")


class MistakeValue(Record):
    """A template mistake evaluated for one instance."""

    name: str
    value: int | float
    feedback: str
    title: str = ""
    """For people ("Untied head left out"): the template's title, else one made from the name."""
    family: str = "own"
    """The slip family it is ("kv-pair", "dtype", ...): the template's, else "own"."""


class Part(Record):
    """One part of a generated question: what it asks, its answer and how it is graded and explained.

    Part 1 is the main question. A later part's ``value`` is computed from the true values of the earlier
    parts, its ``prompt`` shows them (``{part1}`` in its display form), and ``masked_prompt`` is the prompt
    with each earlier answer hidden, for a reader who has not answered yet (part 1's is its prompt).
    """

    number: int
    prompt: str
    value: int | float
    unit: str
    display: str
    display_unit: str | None
    tolerance: Tolerance
    tolerance_text: str
    """The sentence stating the tolerance ("Answers within 1% are correct (give at least ...)")."""
    needed_figures: int | None
    """The fewest significant figures that tell the answer from the part's mistakes (None: estimate)."""
    mistakes: tuple[MistakeValue, ...]
    derivation: tuple[Step, ...]
    explanation: str
    tldr: str
    nudges: tuple[str, ...]
    """Questions that point the way without numbers: the first hints (see ``hints.hint_steps``)."""
    carry: bool
    """Graded against the chain recomputed from the user's own earlier answers too (never part 1)."""
    variables: dict[str, Any]
    """The part's own variables (drawn or derived), by name (part 1's are the template's)."""
    dtype: str | None = None
    """The dtype the answer counts bytes of (the part's ``dtype``, else the ``dtype`` variable)."""
    layers: int | None = None
    """The layers a per-layer step is multiplied by (the part's ``layers``, else ``n_layers``)."""
    layers_label: str | None = None
    """Those layers in words, rendered ("the 3 layers one GPU holds"); None: the grader words it."""
    per_layer: bool = False
    """The question asks for one layer."""
    masked_prompt: str = ""
    """The prompt with every ``{partK}`` shown as "(your answer to part K)": nothing of an earlier answer."""


class _PartOne(Generic[T]):
    """A field of part 1 read through its instance: ``instance.value`` is ``instance.parts[0].value``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> _PartOne[T]: ...
    @overload
    def __get__(self, instance: Instance, owner: type) -> T: ...
    def __get__(self, instance: Instance | None, owner: type) -> Any:
        return self if instance is None else getattr(instance.parts[0], self.name)


class Instance(Record):
    """One generated question: everything needed to ask it, grade it and explain it.

    ``parts`` holds every part, part 1 first; the main question's fields are read through the instance
    (``instance.value`` is ``instance.parts[0].value``), as ``quizzer show --json`` puts them at its top.
    ``conventions`` ends with part 1's ``tolerance_text``.
    """

    id: str
    template_id: str
    seed: int
    title: str
    topic: str
    difficulty: str
    kind: str
    minutes: float
    variables: dict[str, Any]
    """The template's variables (part 1's), by name."""
    conventions: tuple[str, ...]
    memory_aid: str
    follow_ups: tuple[tuple[str, str], ...]
    references: tuple[tuple[str, str], ...]
    n_layers: int | None
    parts: tuple[Part, ...]
    """Every part, part 1 (the main question) first."""
    warnings: tuple[str, ...] = ()
    """One line per constraint a user's own numbers break ("outside this template's usual range: ...")."""

    @property
    def part_count(self) -> int:
        """How many parts the question has (1 for a question of one part)."""
        return len(self.parts)

    @property
    def main(self) -> Part:
        """Part 1: the main question."""
        return self.parts[0]

    @property
    def later_parts(self) -> tuple[Part, ...]:
        """The parts after the main question (a chain's follow-ups); () for a question of one part."""
        return self.parts[1:]

    # Part 1's fields, read through (the public face of an instance, and the top of `show --json`).
    prompt: ClassVar[_PartOne[str]] = _PartOne()
    value: ClassVar[_PartOne[int | float]] = _PartOne()
    unit: ClassVar[_PartOne[str]] = _PartOne()
    display: ClassVar[_PartOne[str]] = _PartOne()
    display_unit: ClassVar[_PartOne[str | None]] = _PartOne()
    tolerance: ClassVar[_PartOne[Tolerance]] = _PartOne()
    tolerance_text: ClassVar[_PartOne[str]] = _PartOne()
    needed_figures: ClassVar[_PartOne[int | None]] = _PartOne()
    mistakes: ClassVar[_PartOne[tuple[MistakeValue, ...]]] = _PartOne()
    derivation: ClassVar[_PartOne[tuple[Step, ...]]] = _PartOne()
    explanation: ClassVar[_PartOne[str]] = _PartOne()
    tldr: ClassVar[_PartOne[str]] = _PartOne()
    nudges: ClassVar[_PartOne[tuple[str, ...]]] = _PartOne()
    dtype: ClassVar[_PartOne[str | None]] = _PartOne()
    layers: ClassVar[_PartOne[int | None]] = _PartOne()
    layers_label: ClassVar[_PartOne[str | None]] = _PartOne()
    per_layer: ClassVar[_PartOne[bool]] = _PartOne()


__all__ = ["Instance", "MistakeValue", "Part"]
