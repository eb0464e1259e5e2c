"""Hints teach before they tell: nudges first, then the derivation, and no hint prints the answer."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.generate.hints import hint_steps
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import Bank, load_bank
from quizzer.core.trace import Step, num
from quizzer.grading.grade import is_within
from tests.builtin_bank import builtin_bank, builtin_instance

DATA = Path(__file__).resolve().parent.parent / "data"


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def shown(hint: str | Step) -> str:
    return (
        hint if isinstance(hint, str) else f"{hint.label} {hint.formula} {hint.substituted} {num(hint.value)}"
    )


@pytest.mark.parametrize("template_id", bank().ids())
def test_no_hint_gives_the_answer_away(template_id: str) -> None:
    for seed in range(6):
        inst = builtin_instance(template_id, seed)
        hints = hint_steps(inst)
        assert hints, "every instance has a hint"
        for hint in hints:
            if isinstance(hint, Step):
                assert not is_within(hint.value, inst.value, inst.tolerance), hint
                assert hint in inst.derivation[:-1]
            assert num(inst.value) not in shown(hint), hint
        assert isinstance(hints[-1], str)  # the last step's formula in words, never its result


def test_nudges_come_first_then_the_steps_then_the_formula() -> None:
    template = load_bank([str(DATA / "teaching" / "teaching.toml")]).get("teaching-cache")
    inst = generate(template, 4)
    hints = hint_steps(inst)
    assert hints[: len(inst.nudges)] == inst.nudges
    last = inst.derivation[-1]
    assert hints[len(inst.nudges) :] == (*inst.derivation[:-1], f"{last.label}: {last.formula}")


def test_a_one_step_question_gets_its_formula_without_numbers() -> None:
    inst = generate(bank().get("embedding-table-params"), 7)
    assert len(inst.derivation) == 1
    (step,) = inst.derivation
    assert hint_steps(inst)[-1] == f"{step.label}: {step.formula}"
    assert step.substituted not in hint_steps(inst)[-1]


def test_a_step_that_would_grade_correct_is_given_as_its_formula() -> None:
    inst = generate(bank().get("chinchilla-params-for-compute"), 2)
    unrounded = inst.derivation[-2]
    assert is_within(unrounded.value, inst.value, inst.tolerance)
    assert f"{unrounded.label}: {unrounded.formula}" in hint_steps(inst)
    assert unrounded not in hint_steps(inst)
