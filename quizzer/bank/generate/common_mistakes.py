"""The "Common mistakes" section of a question: its mistakes' titles and feedback, answers hidden."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

from quizzer.bank.generate.giveaway_numbers import Reader, computations, read_number
from quizzer.grading.bands import Tolerance, is_within

if TYPE_CHECKING:
    from quizzer.bank.generate.giveaway_numbers import Question
    from quizzer.bank.generate.instance import Instance, Part

#: What stands where a number would give an answer away.
HIDDEN = "…"
#: How near a number must be to one a step from an answer (``key_numbers``) to be hidden with it.
_KEY_BAND = Tolerance("rel", 0.01)


def key_numbers(question: Part) -> list[SimpleNamespace]:
    """The numbers one step from ``question``'s answer, as questions (``Reader``): those its last
    derivation step puts into its formula ("⌊71,239,838,720 / 102,400⌋"), but the constants the formula
    writes itself (3,600 seconds an hour)."""
    if not question.derivation:
        return []
    last = question.derivation[-1]
    constants = {n.key for c in computations(last.formula) for n in c.numbers}
    numbers = [n for c in computations(last.substituted) for n in c.numbers]
    return [
        SimpleNamespace(value=read_number(n, None, None), unit=None, display_unit=None, tolerance=_KEY_BAND)
        for n in numbers
        if not n.plain and n.key not in constants and n.key.strip() != last.substituted.strip()
    ]


def hide_answers(text: str, questions: Sequence[Question], givens: Sequence[frozenset[str]] = ()) -> str:
    """``text`` with each computation (a number, or numbers joined by ×, /, =) that reads as an answer of
    ``questions`` (within its band, or 5% for an estimate, in any unit; a product written out counts)
    replaced by ``HIDDEN`` whole, its unit word with it; never a number in a name ("8-bit"), nor one the
    question stated before (``givens[i]`` for ``questions[i]``: "the 128 × 128 blocks").

    >>> from types import SimpleNamespace as NS
    >>> q = NS(value=144, unit="count", display_unit=None, tolerance=Tolerance("rel", 0.01))
    >>> hide_answers("a 12 × 12 grid: 144 patches of 8-bit values", [q])
    'a … grid: … of 8-bit values'
    """
    given = [*givens, *[frozenset[str]()] * len(questions)]
    return _hidden(text, [Reader(question, given[i]) for i, question in enumerate(questions)])


def _hidden(text: str, readers: Sequence[Reader]) -> str:
    """``text`` with what any of ``readers`` reads as its answer hidden (``hide_answers``)."""
    for computation in reversed(computations(text)):
        if any(read(computation) for read in readers):
            text = text[: computation.start] + HIDDEN + text[computation.end :]
    return text.replace(f"{HIDDEN} ({HIDDEN})", HIDDEN)  # "16.4M (16,384,000)" is one number


def shown_numbers(instance: Instance) -> list[frozenset[str]]:
    """For each part, the numbers the prompts state by the time it is asked (part 1's prompt, then each
    later part's, earlier answers hidden), as ``Number.key`` writes them: its givens."""
    out: list[frozenset[str]] = []
    seen: set[str] = set()
    for part in instance.parts:
        seen.update(n.key for c in computations(part.masked_prompt or part.prompt) for n in c.numbers)
        out.append(frozenset(seen))
    return out


class Row(NamedTuple):
    """A row of the section: the part's number, the mistake's name, its title for people, its feedback."""

    part: int
    name: str
    title: str
    text: str


def mistake_rows(instance: Instance, *, hidden: bool = True) -> Iterator[Row]:
    """The section's rows: each mistake of each part that is a slip on this instance (not inside the band
    of the right answer), its feedback with the answers of every part and the numbers one step from them
    (``key_numbers``) hidden if ``hidden``."""
    readers: list[Reader] = []
    for part, given in zip(instance.parts, shown_numbers(instance), strict=True) if hidden else ():
        readers += [Reader(part, given), *(Reader(key, given) for key in key_numbers(part))]
    for question in instance.parts:
        prefix = f"Part {question.number}: " if instance.part_count > 1 else ""
        for mistake in question.mistakes:
            if is_within(mistake.value, question.value, question.tolerance):
                continue  # the right answer on this instance (batch 1, one token...): no slip here
            text = _hidden(mistake.feedback, readers) if hidden else mistake.feedback
            yield Row(question.number, mistake.name, prefix + mistake.title, text)


def common_mistakes(instance: Instance, *, hidden: bool = True) -> tuple[tuple[str, str], ...]:
    """(title, feedback) for each mistake of the question and of its parts ("Part 2: " before a part's
    title) that is a slip on this instance, each number of the feedback that reads as an answer of the
    chain hidden (``mistake_rows``): a student reads it before answering (``hidden`` False: after)."""
    return tuple((row.title, row.text) for row in mistake_rows(instance, hidden=hidden))


__all__ = ["HIDDEN", "Row", "common_mistakes", "hide_answers", "key_numbers", "mistake_rows", "shown_numbers"]
