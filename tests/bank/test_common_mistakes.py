"""The "Common mistakes" section: every mistake's title and feedback, with the numbers that would give an
answer of the question (or of a part) away hidden, and nothing else hidden."""

from __future__ import annotations

import re
from functools import cache
from types import SimpleNamespace as NS

import pytest

from quizzer.bank.generate.common_mistakes import HIDDEN, common_mistakes, hide_answers
from quizzer.bank.loader import Bank
from quizzer.grading.grade import Tolerance, is_within
from tests.builtin_bank import builtin_bank, builtin_instance


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def question(value: float, unit: str = "bytes", display: str | None = None, rel: float = 0.01) -> NS:
    return NS(value=value, unit=unit, display_unit=display, tolerance=Tolerance("rel", rel))


def test_an_answer_is_hidden_in_any_unit_it_is_written_in() -> None:
    q = question(240 * 2**30, display="GiB")
    text = "That is one sequence (7.5 GiB); all 32 take 240 GiB, or 257.7 GB, or 2.577e11 bytes."
    assert hide_answers(text, [q]) == (
        f"That is one sequence (7.5 GiB); all 32 take {HIDDEN}, or {HIDDEN}, or {HIDDEN} bytes."
    )


def test_only_answers_are_hidden_and_exponents_never() -> None:
    count = question(9, unit="count")
    text = "You read the 70 GiB as 70 × 10^9 bytes; 9 sequences fit, not 10."
    assert (
        hide_answers(text, [count])
        == f"You read the 70 GiB as 70 × 10^9 bytes; {HIDDEN} sequences fit, not 10."
    )


def test_a_bare_number_counts_in_the_display_unit() -> None:
    q = question(1.5e-3, unit="s", display="ms")
    assert hide_answers("a step of 1.5, not 3", [q]) == f"a step of {HIDDEN}, not 3"


SAMPLE = [(t.id, seed) for t in bank().templates() for seed in (3, 41)]


@pytest.mark.parametrize(("template_id", "seed"), SAMPLE)
def test_no_section_prints_an_answer_as_shown(template_id: str, seed: int) -> None:
    instance = builtin_instance(template_id, seed)
    rows = common_mistakes(instance)
    slips = [m for q in instance.parts for m in q.mistakes if not is_within(m.value, q.value, q.tolerance)]
    assert len(rows) == len(slips)
    text = "\n".join(f for _, f in rows)
    for shown in (p.display for p in instance.parts):
        figure = shown.split(" (")[0]  # "240 GiB", "16,384,000 params"
        number = re.match(r"[$~]?([\d,.]+)", figure)
        assert number is not None, shown
        if len(number.group(1).replace(",", "").replace(".", "")) < 3:
            continue  # "8 GPUs": a small count may be a given number too
        assert not re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d])", text), (instance.id, figure)
