"""Your slips: the families of the mistakes your history recorded, and the templates where they can happen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from quizzer.bank.generate.instance import Instance
from quizzer.bank.generate.render import grade_context
from quizzer.bank.read.schema import Template
from quizzer.grading.slip_families import FAMILIES, family_of
from quizzer.grading.slips import builtin_mistakes
from quizzer.session.records import Attempt

#: How many of your most frequent families a slips drill aims at.
TOP_FAMILIES = 2


def slip_family(attempt: Attempt, template: Template | None) -> str | None:
    """The family of the mistake ``attempt`` matched (None when it matched none): a built-in slip's by its
    name, a template's own by what the template says of it ("own" when it says nothing or is gone)."""
    name = attempt.mistake
    if not name:
        return None
    built_in = family_of(name)
    if built_in is not None:
        return built_in
    if template is None:
        return "own"
    part = (
        template.parts[(attempt.part or 1) - 1]
        if attempt.part and attempt.part <= len(template.parts)
        else template.main
    )
    return next((m.family or "own" for m in part.mistakes if m.name == name), "own")


def slip_counts(attempts: Iterable[Attempt], template_of: Callable[[str], Template | None]) -> Counter[str]:
    """How often each classic family was recorded (a template's own mistakes, "own", are left out: they are
    not one slip across templates)."""
    counts: Counter[str] = Counter()
    for attempt in attempts:
        if not attempt.mistake:
            continue  # no slip: its template is not read (reading one validates it)
        built_in = family_of(attempt.mistake)
        family = built_in if built_in is not None else slip_family(attempt, template_of(attempt.template_id))
        if family is not None and family != "own":
            counts[family] += 1
    return counts


def top_slips(counts: Counter[str], top: int = TOP_FAMILIES) -> list[str]:
    """Your most frequent families, most frequent first (ties by the order of FAMILIES)."""
    order = list(FAMILIES)
    ranked = sorted(counts, key=lambda f: (-counts[f], order.index(f) if f in order else len(order)))
    return ranked[:top]


def families_of(instance: Instance) -> set[str]:
    """The classic families an instance builds in: its template's mistakes' and the built-in slips that fit
    each part (from the derivation's factors, its unit and dtype)."""
    found: set[str] = set()
    for part in instance.parts:
        found |= {m.family for m in part.mistakes}
        context = grade_context(part)
        found |= {
            m.family for m in builtin_mistakes(part.value, part.unit, context, tolerance=part.tolerance)
        }
    return found - {"own"}


def templates_for(
    families: Sequence[str], template_ids: Iterable[str], generate: Callable[[str], Instance | None]
) -> list[str]:
    """The templates (of ``template_ids``, in order) where any of ``families`` can happen, answered or not:
    ``generate`` gives one instance of each (None when it cannot)."""
    wanted = set(families)
    chosen = []
    for template_id in template_ids:
        instance = generate(template_id)
        if instance is not None and families_of(instance) & wanted:
            chosen.append(template_id)
    return chosen


def top_slip(
    attempts: Iterable[Attempt], template_of: Callable[[str], Template | None]
) -> tuple[str, int] | None:
    """Your most frequent slip family in words, and how often it was recorded; None when none was."""
    counts = slip_counts(attempts, template_of)
    top = top_slips(counts, 1)
    return (family_words(top[0]), counts[top[0]]) if top else None


def family_words(family: str) -> str:
    """A family for people: "GB for GiB, or bytes for a prefixed unit"."""
    return FAMILIES.get(family, family)


__all__ = [
    "TOP_FAMILIES",
    "families_of",
    "family_words",
    "slip_counts",
    "slip_family",
    "templates_for",
    "top_slip",
    "top_slips",
]
