"""Properties of every template in questions/, over arbitrary seeds: generation, rendering, grading, text."""

from __future__ import annotations

import io
import math
import re
from decimal import Decimal
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.bank.generate.render import Instance, generate
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.cli import main
from quizzer.commands.plain import _drill
from quizzer.core import CALCULATORS
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
from quizzer.session.drill import DrillSession, grade_instance
from tests.builtin_bank import builtin_bank, builtin_instance
from tests.sampling import sampled


def per_template(count: int) -> int:
    """Examples per template and property: ``count`` under the ci profile (CI runs them all), 40% of it in
    the dev profile, so that ``make test`` stays within its time as the bank grows. The dev run also takes
    the properties below on today's third of the templates (tests/sampling.py: ``sampled``), another third
    each day; every template loads, renders (tests/bank/test_formula.py, test_hints.py, test_own_numbers.py)
    and has seeds that vary (below) in every run."""
    return count if settings.default.max_examples >= 400 else max(count * 2 // 5, 4)


COUNT_UNITS = {Unit.PARAMS, Unit.TOKENS, Unit.PATCHES, Unit.COUNT, Unit.FLOPS, Unit.MACS, Unit.GPU_HOURS}
EXACT_INT_UNITS = {Unit.PARAMS, Unit.PATCHES}
RIGHT = {"exact", "correct"}
seeds = st.integers(min_value=0, max_value=2**32)


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def template_ids() -> list[str]:
    return bank().ids()


def test_the_built_in_bank_loads_cleanly() -> None:
    assert bank().problems() == []
    assert len(bank()) >= 10


def written_forms(instance: Instance) -> list[str]:
    """The answer as people write it: all digits, a suffix, scientific, and with its unit; rounded to 4
    and 5 figures, or to the figures the question asks for when it asks for more (16,384 GPUs, an exact
    count, is 16.384k: "16.38k" is a rounding, graded imprecise)."""
    value, unit = instance.value, instance.unit
    four, five = max(4, instance.needed_figures or 0), max(5, instance.needed_figures or 0)
    if unit == Unit.RATIO:
        percent = [f"{format_sig(100 * value, five)}%", f"{format_sig(100 * value, four)} %"]
        if instance.display_unit == "%":  # a bare number means percent here
            return [*percent, format_sig(100 * value, five)]
        return [*percent, format_sig(value, max(6, five)), format_sci(value, five), format_sig(value, four)]
    # every digit of a float, in plain decimal (six decimals would drop the figures of a 10.49 µs answer)
    plain = format(Decimal(repr(value)), ",f")
    digits = (
        format_count(value)
        if isinstance(value, int)
        else (plain.rstrip("0").rstrip(".") if "." in plain else plain)
    )
    forms = [
        f"{digits} {unit}",
        f"{format_sci(value, five)} {unit}",
        format_quantity(value, unit, digits=four),
    ]
    if unit in COUNT_UNITS:
        forms.append(format_si(value, four))
    elif unit == Unit.BYTES:
        forms.append(format_bytes(value, binary=False, digits=four))
    elif unit == Unit.SECONDS:
        forms.append(format_seconds(value, digits=four))
    elif unit in (Unit.FLOP_PER_S, Unit.BYTES_PER_S):
        forms.append(format_rate(value, unit, digits=four))
    return forms


def written(instance: Instance, value: float) -> str:
    """``value`` written precisely (ten significant figures, trailing zeros kept: 1370 is "1.370000000e3",
    not the three figures of "1.37e3") with an explicit unit; a ratio as a percentage."""
    shown = 100 * value if instance.unit == Unit.RATIO else value
    mantissa, _, exponent = f"{shown:.9e}".partition("e")
    return f"{mantissa}e{int(exponent)}" + ("%" if instance.unit == Unit.RATIO else f" {instance.unit}")


def far_away(instance: Instance) -> float:
    """A value three tolerance bands above the answer."""
    tol = instance.tolerance
    if tol.kind == "factor":
        return instance.value * tol.value**3
    if tol.kind == "abs":
        return instance.value + 3 * tol.value + 1e-9
    return instance.value * (1 + 3 * tol.value) * 1.0001


@pytest.mark.parametrize("template_id", sampled(template_ids()))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=per_template(25))
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
    for var in template.main.variables:
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
        for v in template.main.variables
    ):
        pytest.fail(f"{template_id}: every variable is fixed, so every instance is the same")
    first = builtin_instance(template_id, 0).prompt
    # two differing prompts among seeds 0..29, as a set of all thirty would show, stopping at the first
    assert any(builtin_instance(template_id, seed).prompt != first for seed in range(1, 30))


@pytest.mark.parametrize("template_id", sampled(template_ids()))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=per_template(15))
@given(seed=seeds)
def test_written_forms_grade_right_and_far_answers_do_not(template_id: str, seed: int) -> None:
    instance = generate(bank().get(template_id), seed)
    for form in written_forms(instance):
        verdict = grade_instance(instance, form)
        assert verdict.kind in RIGHT, (form, verdict.message)
    far = grade_instance(instance, written(instance, far_away(instance)))
    assert far.kind not in RIGHT, far.message


def shown_forms(display: str) -> list[str]:
    """The answer as the student reads it: "44.3 days"; "16,384,000 params (16.4M)" gives both forms;
    "N bytes (15.6 GiB = 16.8 GB)" gives the bytes and each prefixed form."""
    whole, _, inside = display.partition(" (")
    return [whole, *(part.strip() for part in inside.rstrip(")").split(" = ") if part.strip())]


@pytest.mark.parametrize("template_id", sampled(template_ids()))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=per_template(15))
@given(seed=seeds)
def test_the_answer_as_shown_grades_right_when_typed(template_id: str, seed: int) -> None:
    """What the Answer line shows is never short of the figures the question needs (no "19 GFLOPs" for
    18.95 on a four-figure question): typed back, every form of it grades right."""
    instance = generate(bank().get(template_id), seed)
    for form in shown_forms(instance.display):
        verdict = grade_instance(instance, form)
        assert verdict.kind in ("exact", "correct"), (instance.id, instance.display, form, verdict.message)


@pytest.mark.parametrize("template_id", sampled(template_ids()))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=per_template(15))
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


@pytest.mark.parametrize("template_id", sampled(template_ids()))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=per_template(15))
@given(seed=seeds)
def test_every_instance_states_its_tolerance(template_id: str, seed: int) -> None:
    instance = generate(bank().get(template_id), seed)
    stated = instance.conventions[-1]
    assert stated == instance.tolerance_text
    tol = instance.tolerance
    if tol.kind == "factor":
        assert f"within a factor of {tol.value:g}" in stated
        assert instance.needed_figures is None
    elif tol.kind == "rel":
        assert f"within {100 * tol.value:g}%" in stated
    elif tol.value < 1 and float(instance.value).is_integer() and instance.display_unit is None:
        assert "Only the exact whole number is correct." in stated  # ±0.5 of a whole count
    else:
        assert "within ±" in stated
    exact_whole = stated.startswith("Only the exact whole number")  # every figure of it: none to count
    if instance.needed_figures is not None and instance.needed_figures > 1 and not exact_whole:
        assert "significant figures" in stated  # one figure goes without saying
    assert sum("correct" in c for c in instance.conventions) == 1, "stated once, by the generated sentence"
    for part in instance.parts:  # a % answer says how a bare number reads (52 or 0.52?), once
        shown = list(instance.conventions) if part.number == 1 else [part.tolerance_text]
        if part.display_unit == "%":
            said = [c for c in shown if "bare number" in c.lower() and "percent" in c.lower()]
            assert len(said) == 1, (template_id, seed, part.number, shown)


CALL = re.compile(r"\b(" + "|".join(sorted(CALCULATORS, key=len, reverse=True)) + r")\(")


def assert_plain(text: str, where: str) -> None:
    """No Markdown markers and no calculator call in text meant for a terminal."""
    assert "**" not in text, where
    assert "`" not in text, where
    assert not CALL.search(text), (where, CALL.search(text))
    assert not re.search(r"^#+ ", text, re.MULTILINE), where
    assert "|---" not in text, where


@pytest.mark.usefixtures("validated_once")  # the template validated once per process (tests/conftest.py)
@pytest.mark.parametrize("template_id", sampled(template_ids()))
def test_show_and_plain_print_plain_text(
    template_id: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in (1, 2):
        assert main(["show", f"{template_id}#{seed}"]) == 0
        assert_plain(capsys.readouterr().out, f"show {template_id}#{seed}")
    session = DrillSession(bank(), seed=3, clock=lambda: 0.0, template_id=template_id)
    answers = [written(session.instance, m.value) for m in session.instance.mistakes[:1]] or ["1"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join([*answers, "1", "", ""]) + "\n"))
    _drill(session, 3, 2)
    assert_plain(capsys.readouterr().out, f"plain {template_id}")
