"""The "Common mistakes" section: read after answering, every title with its whole feedback; never before
(a feedback gives the working away and no mask keeps it readable; a title names the method: issue 25)."""

from __future__ import annotations

from functools import cache

import pytest

from quizzer.bank.generate.common_mistakes import common_mistakes
from quizzer.bank.loader import Bank
from quizzer.commands.show import question_only_json
from quizzer.grading.grade import is_within
from tests.builtin_bank import builtin_bank, builtin_instance


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def test_after_answering_the_walkthrough_shows_its_working_whole() -> None:
    """walkthrough-dense-gqa#8178 part 3 is ⌊71,239,838,720 / 102,400⌋ tokens: its feedback gives both
    (66.3 GiB free, 102,400 bytes a token), whole once the question is answered."""
    after = "\n".join(f for _, f in common_mistakes(builtin_instance("walkthrough-dense-gqa", 8178)))
    assert "66.3 GiB" in after
    assert "…" not in after


def test_the_question_view_has_no_common_mistakes() -> None:
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    assert common_mistakes(instance)
    assert "common_mistakes" not in question_only_json(instance, bank().get("walkthrough-dense-gqa"))


SAMPLE = [(t.id, seed) for t in bank().templates() for seed in (3, 41)]


@pytest.mark.parametrize(("template_id", "seed"), SAMPLE)
def test_the_section_lists_each_slip_of_the_instance_once(template_id: str, seed: int) -> None:
    """Every mistake of every part that is a slip here (not inside the band of the right answer), in
    order, a part's title prefixed in a chain."""
    instance = builtin_instance(template_id, seed)
    slips = [
        (q.number, m)
        for q in instance.parts
        for m in q.mistakes
        if not is_within(m.value, q.value, q.tolerance)
    ]
    rows = common_mistakes(instance)
    prefix = instance.part_count > 1
    assert rows == tuple(((f"Part {n}: " if prefix else "") + m.title, m.feedback) for n, m in slips)
