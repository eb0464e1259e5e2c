"""Properties of the factor reader and of two slips at once, over every template of the bank.

For any instance of any template, and each part whose derivation ends in a product (``factor_sheet``):
its own factors typed as a product, in any order, grade right; one factor typed as another value is named
(it, or twins of its value when the order cannot tell), and no factor of another value is; two of the
instance's slips with at least one written by the template, typed together, are named together.

``make test`` checks today's third of the templates (tests/sampling.py: every template is generated,
validated and graded every run by the cheaper properties); the ci profile, every template.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.bank.expr.text import display_scale
from quizzer.bank.generate.instance import Part
from quizzer.bank.generate.render import generate, grade_context
from quizzer.grading.bands import Mistake, is_within
from quizzer.grading.factor_sheet import Term, factor_sheet, same
from quizzer.grading.figures import round_figures
from quizzer.grading.pairs import slip_pairs
from quizzer.grading.parse import parse_answer
from quizzer.grading.slips import slips
from quizzer.grading.working import working_notes
from quizzer.session.chain import grade_question
from tests.builtin_bank import builtin_bank, builtin_instance
from tests.sampling import sampled

ALL = builtin_bank().ids()
IDS = sampled(ALL)
#: A few examples per template and property: 134 templates × 3 properties.
EXAMPLES = min(settings.default.max_examples, 12)
RIGHT = ("exact", "correct")


def _text(value: int | float) -> str:
    """A number as a person types it out in full: 8192, 3.12e14, 0.9375 (never a rounding)."""
    if isinstance(value, int):
        return str(value)
    return repr(value).replace("e+", "e")


def _typed(part: Part, terms: list[Term]) -> str:
    """``terms`` typed as one product: factors, then each divisor after a /, then ÷ the display unit's size
    so that the bare number is read in the base unit."""
    factors = [_text(t.value) for t in terms if t.power > 0] or ["1"]
    text = "*".join(factors) + "".join(f"/{_text(t.value)}" for t in terms if t.power < 0)
    if part.display_unit:
        text += f"/{_text(display_scale(part.unit, part.display_unit))}"
    return text


def _parts(template_id: str, seed: int) -> list[tuple[Part, tuple[Term, ...]]]:
    instance = generate(builtin_bank().get(template_id), seed)
    out = []
    for part in instance.parts:
        sheet = factor_sheet(part.derivation)
        if sheet and all(t.value > 0 for t in sheet):
            out.append((part, sheet))
    return out


@pytest.mark.parametrize("template_id", IDS)
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(1, 10_000), data=st.data())
def test_the_derivations_own_factors_in_any_order_grade_right(
    template_id: str, seed: int, data: st.DataObject
) -> None:
    for part, sheet in _parts(template_id, seed):
        order = data.draw(st.permutations(list(sheet)), label=f"part {part.number}")
        text = _typed(part, order)
        verdict = grade_question(part, text)
        assert verdict.kind in RIGHT, f"{template_id}#{seed} part {part.number}: {text!r}: {verdict.message}"
        assert verdict.diagnosis == ()


def _changed(sheet: tuple[Term, ...], at: int) -> Term | None:
    """``sheet[at]`` times 3, 5 or 7, whichever is no other factor's value; None if each is."""
    for k in (3, 5, 7):
        value = sheet[at].value * k
        if not any(same(value, t.value) for t in sheet):
            return sheet[at].replace(value=value)
    return None


@pytest.mark.parametrize("template_id", IDS)
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(1, 10_000), data=st.data())
def test_one_factor_changed_is_named_and_no_right_factor_is(
    template_id: str, seed: int, data: st.DataObject
) -> None:
    for part, sheet in _parts(template_id, seed):
        at = data.draw(st.integers(0, len(sheet) - 1), label=f"part {part.number}'s factor")
        changed = _changed(sheet, at)
        if changed is None:
            continue
        terms = [*sheet[:at], changed, *sheet[at + 1 :]]
        text = _typed(part, terms)
        verdict = grade_question(part, text)
        if verdict.kind not in ("close", "wrong"):  # within an estimate's band: nothing to diagnose
            continue
        where = f"{template_id}#{seed} part {part.number}: {text!r}"
        notes = working_notes(parse_answer(text, part.unit, part.display_unit), sheet)
        assert [n.kind for n in notes] == ["substituted"], f"{where}: {[n.text for n in notes]}"
        assert at in notes[0].sheet, f"{where}: {notes[0].text}"
        assert all(same(sheet[k].value, sheet[at].value) for k in notes[0].sheet), f"{where}: {notes[0].text}"
        assert notes[0].text in verdict.diagnosis


def _listed_pairs(part: Part) -> list[tuple[Mistake, object]]:
    """The separable pairs of the part's slips (for a bare number) with at least one written mistake."""
    written = [Mistake(m.name, m.value, m.feedback, m.title, m.family) for m in part.mistakes]
    builtin = slips(part.value, part.unit, grade_context(part), tolerance=part.tolerance)
    names = {m.name for m in written}
    pairs = slip_pairs(part.value, part.tolerance, [*written, *builtin])
    return [p for p in pairs if p.value > 0 and set(p.name.split("+")) & names]  # type: ignore[misc]


@pytest.mark.parametrize("template_id", IDS)
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(1, 10_000), data=st.data())
def test_two_listed_slips_together_are_named_together(
    template_id: str, seed: int, data: st.DataObject
) -> None:
    instance = generate(builtin_bank().get(template_id), seed)
    for part in instance.parts:
        pairs = _listed_pairs(part)
        if not pairs:
            continue
        pair = data.draw(st.sampled_from(pairs), label=f"part {part.number}'s pair")
        per_unit = display_scale(part.unit, part.display_unit) if part.display_unit else 1
        text = _text(pair.value / per_unit)
        verdict = grade_question(part, text)
        if verdict.kind == "imprecise":  # the pair's value is the answer rounded short of its figures (2.5
            # for 2.458 MB, #595): read first as that rounding, by design; only when it is one
            rounded = round_figures(part.value / per_unit, verdict.given.figures)
            assert math.isclose(rounded, pair.value / per_unit, rel_tol=1e-9), f"{template_id}#{seed}: {text}"
            continue
        alike = {p.name for p in pairs if is_within(p.value, pair.value, part.tolerance)}
        where = f"{template_id}#{seed} part {part.number}: {text!r} for {pair.name}"
        assert verdict.mistake in alike, f"{where}: {verdict.message}"
        assert verdict.diagnosis, where
        assert verdict.diagnosis[0].startswith("Two slips at once:"), where


def test_most_templates_have_a_product_to_read_and_pairs_to_name() -> None:
    """The properties above are not vacuous: most templates end a part in a product, many have pairs."""
    products = [i for i in ALL if any(factor_sheet(p.derivation) for p in builtin_instance(i, 1).parts)]
    paired = [i for i in ALL if any(_listed_pairs(p) for p in builtin_instance(i, 1).parts)]
    assert len(products) >= 100, len(products)
    assert len(paired) >= 40, len(paired)
