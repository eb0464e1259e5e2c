"""PartSheet: what an interviewer sees of one part: the prompt, the expected value, its band and the slips."""

from __future__ import annotations

from collections.abc import Mapping

from quizzer.bank.expr.text import answer_display
from quizzer.bank.generate.instance import Instance, Part
from quizzer.bank.generate.render import grade_context, recompute_part
from quizzer.bank.read.schema import Template
from quizzer.core.record import Record
from quizzer.grading.bands import SLACK, tolerance_band
from quizzer.grading.display import number_text
from quizzer.grading.slips import slips
from quizzer.session.chain import carried_answers, part_of

#: Units whose values are shown as bare numbers (answer_display would write "12.2k count").
_BARE = ("count", "ratio")


class SlipRow(Record):
    """One wrong answer the interviewer may hear: its title, its value (base unit) and that value shown in
    the part's display unit; ``family`` is "own" for a mistake the template wrote."""

    title: str
    value: int | float
    shown: str
    family: str


class PartSheet(Record):
    """Part ``number`` of a question as the interviewer sees it (the candidate sees only ``prompt``)."""

    number: int
    part_count: int
    prompt: str
    """The part's prompt, with the true earlier values (what the candidate is asked)."""
    expected: str
    """The exact answer in its display form ("2 MiB", "12,288 (12.3k)")."""
    band: str
    """The values graded right, shown ("1.98 MiB to 2.02 MiB (±1%)"; "exactly" for no tolerance)."""
    tolerance_text: str
    slips: tuple[SlipRow, ...]
    """The template's written mistakes first, then the built-in slips that fit, one row per value."""
    tldr: str
    carried: str | None = None
    """What this part is from the candidate's own wrong earlier answers ("from their part 1 (4 MiB):
    6,144"), when it carries and they give something else; None otherwise."""


def shown(value: int | float, part: Part, figures: int | None = None) -> str:
    """``value`` (the part's base unit) as the part shows its answer: its display unit, enough figures.

    >>> from quizzer.grading.bands import Tolerance
    >>> p = Part(2, "", 12288, "count", "12,288", None, Tolerance("rel", 0.01), "", 3, (), (), "", "", (), True, {})
    >>> shown(12165.12, p), shown(12288, p)
    ('12,200', '12,288 (12.3k)')
    """  # noqa: E501
    digits = max(figures or part.needed_figures or 3, 3)
    if part.display_unit is None and part.unit in _BARE and not isinstance(value, int):
        return number_text(value, digits)
    return answer_display(value, part.unit, part.display_unit, digits)


def band_text(part: Part) -> str:
    """The band of right answers, shown with one figure more than the part needs, and its tolerance.

    >>> from quizzer.grading.bands import Tolerance
    >>> p = Part(1, "", 2**21, "bytes", "2 MiB", "MiB", Tolerance("rel", 0.01), "", 3, (), (), "", "", (), False, {})
    >>> band_text(p), band_text(p.replace(tolerance=Tolerance("rel", 0)))
    ('1.980 MiB to 2.020 MiB (±1%)', 'exactly 2 MiB')
    """  # noqa: E501
    tolerance = part.tolerance
    figures = max(part.needed_figures or 3, 3) + 1
    if tolerance.value == 0:
        return f"exactly {part.display}"
    low, high = tolerance_band(part.value, tolerance)
    if tolerance.kind == "rel":
        how = f"±{100 * tolerance.value:g}%"
    elif tolerance.kind == "factor":
        how = f"within a factor of {tolerance.value:g}"
    else:
        how = f"±{shown(tolerance.value, part)}"
    return f"{shown(low, part, figures)} to {shown(high, part, figures)} ({how})"


def slip_rows(part: Part) -> tuple[SlipRow, ...]:
    """The part's written mistakes, then the built-in slips that fit it (its units, dtype, layers, factors,
    a prefix too many), each value once: a built-in slip of a value already listed is left out."""
    rows = [SlipRow(m.title or m.name, m.value, shown(m.value, part), m.family) for m in part.mistakes]
    built_in = slips(part.value, part.unit, grade_context(part), tolerance=part.tolerance)
    for slip in built_in:
        if any(abs(slip.value - row.value) <= SLACK * abs(row.value) for row in rows):
            continue
        rows.append(SlipRow(slip.label, slip.value, shown(slip.value, part), slip.family))
    return tuple(rows)


def part_sheet(
    instance: Instance,
    number: int,
    template: Template | None = None,
    earlier: Mapping[int, int | float | None] | None = None,
) -> PartSheet:
    """What the interviewer sees of part ``number`` of ``instance``; with ``template`` and the values the
    candidate gave the earlier parts (``earlier``), also what this part is from those values when it
    carries."""
    part = part_of(instance, number)
    return PartSheet(
        number,
        instance.part_count,
        part.prompt,
        part.display,
        band_text(part),
        part.tolerance_text,
        slip_rows(part),
        part.tldr,
        _carried(instance, number, template, earlier or {}),
    )


def _carried(
    instance: Instance, number: int, template: Template | None, earlier: Mapping[int, int | float | None]
) -> str | None:
    """ "from their part 1 (4 MiB): 6,144": the part recomputed from the candidate's own earlier answers."""
    part = part_of(instance, number)
    if template is None or number == 1 or not part.carry:
        return None
    given = carried_answers(instance, number, earlier)
    if not given:
        return None
    value = recompute_part(template, instance, number, given)
    if value is None:
        return None
    theirs = ", ".join(f"part {k} ({shown(v, part_of(instance, k))})" for k, v in given.items())
    return f"from their {theirs}: {shown(value, part)}"


__all__ = ["PartSheet", "SlipRow", "band_text", "part_sheet", "shown", "slip_rows"]
