"""Properties of every template in questions/, over arbitrary seeds: generation, rendering and grading."""

from __future__ import annotations

import math
import re
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.bank.loader import Bank, load_bank
from quizzer.bank.render import Instance, generate
from quizzer.bank.schema import Template
from quizzer.core.trace import num
from quizzer.core.units import (
    Unit,
    format_bytes,
    format_count,
    format_quantity,
    format_rate,
    format_sci,
    format_seconds,
    format_si,
    format_sig,
)
from quizzer.paths import questions_dir
from quizzer.session.drill import grade_instance

COUNT_UNITS = {Unit.PARAMS, Unit.TOKENS, Unit.PATCHES, Unit.COUNT, Unit.FLOPS, Unit.MACS, Unit.GPU_HOURS}
EXACT_INT_UNITS = {Unit.PARAMS, Unit.PATCHES}
RIGHT = {"exact", "correct"}
seeds = st.integers(min_value=0, max_value=2**32)


@cache
def bank() -> Bank:
    return load_bank([questions_dir()])


def template_ids() -> list[str]:
    return bank().ids()


def test_the_built_in_bank_loads_cleanly() -> None:
    assert bank().problems() == []
    assert len(bank()) >= 10


def written_forms(instance: Instance) -> list[str]:
    """The answer as people write it: all digits, a 4-figure suffix, scientific, and with its unit."""
    value, unit = instance.value, instance.unit
    if unit == Unit.RATIO:
        percent = [f"{format_sig(100 * value, 5)}%", f"{format_sig(100 * value, 4)} %"]
        if instance.display_unit == "%":  # a bare number means percent here
            return [*percent, format_sig(100 * value, 5)]
        return [*percent, format_sig(value, 6), format_sci(value, 5), format_sig(value, 4)]
    digits = format_count(value) if isinstance(value, int) else f"{value:,.6f}".rstrip("0").rstrip(".")
    forms = [f"{digits} {unit}", f"{format_sci(value, 5)} {unit}", format_quantity(value, unit, digits=4)]
    if unit in COUNT_UNITS:
        forms.append(format_si(value, 4))
    elif unit == Unit.BYTES:
        forms.append(format_bytes(value, binary=False, digits=4))
    elif unit == Unit.SECONDS:
        forms.append(format_seconds(value, digits=4))
    elif unit in (Unit.FLOP_PER_S, Unit.BYTES_PER_S):
        forms.append(format_rate(value, unit, digits=4))
    return forms


def written(instance: Instance, value: float) -> str:
    """``value`` written precisely with an explicit unit (a ratio as a percentage)."""
    if instance.unit == Unit.RATIO:
        return f"{format_sig(100 * value, 10)}%"
    return f"{format_sci(value, 10)} {instance.unit}"


def far_away(instance: Instance) -> float:
    """A value three tolerance bands above the answer."""
    tol = instance.tolerance
    if tol.kind == "factor":
        return instance.value * tol.value**3
    if tol.kind == "abs":
        return instance.value + 3 * tol.value + 1e-9
    return instance.value * (1 + 3 * tol.value) * 1.0001


@pytest.mark.parametrize("template_id", template_ids())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=25)
@given(seed=seeds)
def test_generation_is_deterministic_and_well_formed(template_id: str, seed: int) -> None:
    template = bank().get(template_id)
    instance = generate(template, seed)
    assert generate(template, seed) == instance
    _check_domains(template, instance)
    value = instance.value
    assert math.isfinite(value)
    assert value > 0
    if instance.unit in EXACT_INT_UNITS:
        assert isinstance(value, int)
    for text in (
        instance.prompt,
        instance.explanation,
        instance.tldr,
        instance.memory_aid,
        *instance.conventions,
        *(q + a for q, a in instance.follow_ups),
    ):
        assert not re.search(r"\{[a-z_][a-z0-9_]*(:[a-z-]+)?\}", text), text
    assert instance.derivation[-1].value == value
    assert instance.derivation[-1].unit == instance.unit
    table_rows = [line for line in instance.explanation.splitlines() if line.startswith("|")]
    assert any(num(value) in row for row in table_rows), "the derivation table shows the answer"


def _check_domains(template: Template, instance: Instance) -> None:
    for var in template.variables:
        value = instance.variables[var.name]
        if var.kind in ("choices", "preset"):
            assert value in var.spec
        elif var.kind == "range":
            lo, hi = var.spec
            assert lo <= value <= hi
            assert (value - lo) % var.step == 0
        elif var.kind == "log2":
            lo, hi = var.spec
            assert lo <= value <= hi
            assert value & (value - 1) == 0
        elif var.kind == "bool":
            assert isinstance(value, bool)


@pytest.mark.parametrize("template_id", template_ids())
def test_seeds_vary_the_instance(template_id: str) -> None:
    template = bank().get(template_id)
    if not any(
        v.kind != "expr" and (v.kind == "bool" or len(v.spec) > 1 or v.spec[0] != v.spec[-1])
        for v in template.variables
    ):
        pytest.fail(f"{template_id}: every variable is fixed, so every instance is the same")
    prompts = {generate(template, seed).prompt for seed in range(30)}
    assert len(prompts) > 1


@pytest.mark.parametrize("template_id", template_ids())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=15)
@given(seed=seeds)
def test_written_forms_grade_right_and_far_answers_do_not(template_id: str, seed: int) -> None:
    instance = generate(bank().get(template_id), seed)
    for form in written_forms(instance):
        verdict = grade_instance(instance, form)
        assert verdict.kind in RIGHT, (form, verdict.message)
    far = grade_instance(instance, written(instance, far_away(instance)))
    assert far.kind not in RIGHT, far.message


@pytest.mark.parametrize("template_id", template_ids())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=15)
@given(seed=seeds)
def test_each_mistake_grades_as_that_mistake(template_id: str, seed: int) -> None:
    instance = generate(bank().get(template_id), seed)
    for mistake in instance.mistakes:
        if any(m.value == mistake.value for m in instance.mistakes[: instance.mistakes.index(mistake)]):
            continue  # an earlier mistake with the same value wins
        verdict = grade_instance(instance, written(instance, mistake.value))
        assert verdict.kind not in RIGHT
        assert verdict.mistake == mistake.name, (mistake, verdict.message)
        assert verdict.feedback == mistake.feedback
