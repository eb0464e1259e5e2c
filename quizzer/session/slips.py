"""Your slips: the families of the mistakes your history recorded, and the templates where they can happen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from quizzer.bank.generate.instance import Instance
from quizzer.bank.generate.render import grade_context
from quizzer.bank.read.schema import Template
from quizzer.grading.slip_families import FAMILIES, family_of
from quizzer.grading.slips import builtin_mistakes
from quizzer.session.records import Attempt

#: How many of your most frequent families a slips drill aims at.
TOP_FAMILIES = 2


#: A template's mistakes by part (index 0 is the main question): name -> family ("own" when it says none).
PartFamilies = tuple[Mapping[str, str], ...]


def mistake_families(template: Template) -> PartFamilies:
    """The families of ``template``'s own mistakes, part by part (the first of a name where two share it):
    plain values a worker thread can read without the template."""
    out = []
    for part in template.parts:
        names: dict[str, str] = {}
        for m in part.mistakes:
            names.setdefault(m.name, m.family or "own")
        out.append(names)
    return tuple(out)


def slip_family(attempt: Attempt, template: Template | None) -> str | None:
    """The family of the mistake ``attempt`` matched (None when it matched none): a built-in slip's by its
    name, a template's own by what the template says of it ("own" when it says nothing or is gone)."""
    if not attempt.mistake:
        return None
    built_in = family_of(attempt.mistake)
    if built_in is not None:
        return built_in
    return own_family(attempt, None if template is None else mistake_families(template))


def own_family(attempt: Attempt, families: PartFamilies | None) -> str:
    """The family ``families`` (its template's ``mistake_families``; None: the template is gone or invalid)
    give the template mistake ``attempt`` matched: that of its part ("own" when none is said)."""
    if not families:
        return "own"
    number = attempt.part
    part = families[number - 1] if number and number <= len(families) else families[0]
    return part.get(attempt.mistake or "", "own")


def slip_counts(attempts: Iterable[Attempt], template_of: Callable[[str], Template | None]) -> Counter[str]:
    """How often each classic family was recorded (a template's own mistakes, "own", are left out: they are
    not one slip across templates)."""
    return _counted(attempts, lambda a: own_family(a, _families(template_of(a.template_id))))


def family_counts(attempts: Iterable[Attempt], families: Mapping[str, PartFamilies]) -> Counter[str]:
    """``slip_counts`` from each valid template's ``mistake_families`` by id (no template is read)."""
    return _counted(attempts, lambda a: own_family(a, families.get(a.template_id)))


def _families(template: Template | None) -> PartFamilies | None:
    return None if template is None else mistake_families(template)


def _counted(attempts: Iterable[Attempt], own: Callable[[Attempt], str]) -> Counter[str]:
    """The families of ``attempts``' slips counted, ``own`` naming a template mistake's (only then called:
    reading a template validates it), "own" left out."""
    counts: Counter[str] = Counter()
    for attempt in attempts:
        if not attempt.mistake:
            continue  # no slip: its template is not read
        built_in = family_of(attempt.mistake)
        family = built_in if built_in is not None else own(attempt)
        if family != "own":
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
    return top_slip_of(slip_counts(attempts, template_of))


def top_slip_of(counts: Counter[str]) -> tuple[str, int] | None:
    """The most frequent family of ``counts`` in words, and its count; None when it is empty."""
    top = top_slips(counts, 1)
    return (family_words(top[0]), counts[top[0]]) if top else None


def family_words(family: str) -> str:
    """A family for people: "GB for GiB, or bytes for a prefixed unit"."""
    return FAMILIES.get(family, family)


__all__ = [
    "TOP_FAMILIES",
    "PartFamilies",
    "families_of",
    "family_counts",
    "family_words",
    "mistake_families",
    "own_family",
    "slip_counts",
    "slip_family",
    "templates_for",
    "top_slip",
    "top_slip_of",
    "top_slips",
]
