"""An instance of a template: its parts (part 1, the main question, first), and a mistake's value."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Self, TypeVar, overload

from quizzer.core.record import Record
from quizzer.core.trace import Step
from quizzer.grading.grade import Tolerance

T = TypeVar("T")


class Later(Record):
    """The base of Part and Instance: some fields may be made on first need (``lazy``).

    A lazy object holds the fields it was made with and a function making the rest; the first read of a
    field it lacks (``_Later``) runs that function once and keeps what it made. Everything that reads
    every field (equality, repr, ``as_dict``, ``replace``) makes them first; ``complete`` does so
    explicitly (and raises what making them raises: a TemplateError naming the field).
    """

    #: The fields a lazy object may be made without.
    LATER: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def lazy(cls, known: Mapping[str, Any], rest: Callable[[], Mapping[str, Any]], lock: Any) -> Self:
        """An object with the fields ``known`` and the others of ``LATER`` from ``rest()`` on first need,
        made under ``lock`` (shared by the objects of one instance: one makes another's fields)."""
        made = cls.__new__(cls)
        made.__dict__.update(known)
        made.__dict__["_rest"] = (rest, lock)
        return made

    def complete(self) -> Self:
        """The object itself, every field made (from now on read as any other's)."""
        self._make_rest()
        return self

    def _make_rest(self) -> None:
        pending = self.__dict__.get("_rest")
        if pending is None:
            return
        with pending[1]:
            pending = self.__dict__.get("_rest")
            if pending is None:  # made meanwhile by another thread
                return
            rest, lock = pending
            if isinstance(rest, Exception):  # it failed before: the state it left is not made again
                raise rest
            try:
                made = rest()
            except Exception as exc:
                self.__dict__["_rest"] = (exc, lock)
                raise
            self.__dict__.update(made)
            del self.__dict__["_rest"]

    @property
    def is_complete(self) -> bool:
        """Whether every field is made (always, for an object made whole)."""
        return "_rest" not in self.__dict__


class _Later:
    """A field of ``LATER`` read on an object that lacks it: the object's other fields made, then read."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, owner_object: Later | None, owner: type) -> Any:
        if owner_object is None:
            return self
        owner_object._make_rest()
        return owner_object.__dict__[self.name]


def _later_fields(cls: type[Later]) -> type[Later]:
    """Install a ``_Later`` for each of ``cls.LATER`` (after the class is made: a class attribute of a
    field's name would be read as its default)."""
    for name in cls.LATER:
        setattr(cls, name, _Later(name))
    return cls


def new_lock() -> Any:
    """The lock the lazy objects of one instance share (reentrant: making the instance makes part 1)."""
    return threading.RLock()


class MistakeValue(Record):
    """A template mistake evaluated for one instance."""

    name: str
    value: int | float
    feedback: str
    title: str = ""
    """For people ("Untied head left out"): the template's title, else one made from the name."""
    family: str = "own"
    """The slip family it is ("kv-pair", "dtype", ...): the template's, else "own"."""

    def __init__(
        self, name: str, value: int | float, feedback: str, title: str = "", family: str = "own"
    ) -> None:
        # Record's own __init__, written out: every full instance makes several (tests/core/test_record.py
        # holds the signature to the fields)
        own = self.__dict__
        own["name"], own["value"], own["feedback"], own["title"], own["family"] = (
            name,
            value,
            feedback,
            title,
            family,
        )


class Part(Later):
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

    LATER: ClassVar[tuple[str, ...]] = (
        "mistakes",
        "derivation",
        "explanation",
        "tldr",
        "nudges",
        "variables",
    )


class _PartOne(Generic[T]):
    """A field of part 1 read through its instance: ``instance.value`` is ``instance.parts[0].value``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> _PartOne[T]: ...
    @overload
    def __get__(self, instance: Instance, owner: type) -> T: ...
    def __get__(self, instance: Instance | None, owner: type) -> Any:
        return self if instance is None else getattr(instance.main, self.name)


class Instance(Later):
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

    LATER: ClassVar[tuple[str, ...]] = ("parts", "memory_aid", "follow_ups", "variables")
    """A lazy instance (``generate(..., lazy=True)``) has part 1 (``main``), its count of parts, the
    conventions and the warnings; the later parts, memory aid, follow-ups and the variables (the derived
    ones a question does not show are evaluated then) are made on first need."""

    @property
    def part_count(self) -> int:
        """How many parts the question has (1 for a question of one part)."""
        count = self.__dict__.get("_count")
        return count if count is not None else len(self.parts)

    @property
    def main(self) -> Part:
        """Part 1: the main question."""
        main = self.__dict__.get("_main")
        return main if main is not None else self.parts[0]

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


_later_fields(Part)
_later_fields(Instance)

__all__ = ["Instance", "Later", "MistakeValue", "Part", "new_lock"]
