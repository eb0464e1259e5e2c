"""The "Common mistakes" section: before answering the titles alone (a feedback gives the working away,
and no mask keeps it readable: issue 25), after answering every title with its whole feedback."""

from __future__ import annotations

from functools import cache

import pytest

from quizzer.bank.generate.common_mistakes import common_mistakes, mistake_titles
from quizzer.bank.loader import Bank
from quizzer.commands.show import mistake_titles_text, question_only_json
from quizzer.grading.grade import is_within
from tests.builtin_bank import builtin_bank, builtin_instance


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def test_before_answering_the_walkthrough_shows_titles_not_its_working() -> None:
    """walkthrough-dense-gqa#8178 part 3 is ⌊71,239,838,720 / 102,400⌋ tokens: its feedback gives both
    (66.3 GiB free, 102,400 bytes a token). Before answering only the titles are read."""
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    before = mistake_titles_text(instance)
    assert "66.3" not in before
    assert "102,400" not in before
    assert before.startswith("Common mistakes to avoid:\n- Part 1: ")
    after = "\n".join(f for _, f in common_mistakes(instance))
    assert "66.3 GiB" in after  # after answering, whole: no "…" left in it
    assert "…" not in after


def test_the_json_question_view_keeps_the_titles_only() -> None:
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    rows = question_only_json(instance)["common_mistakes"]
    assert rows == [{"title": title} for title in mistake_titles(instance)]
    assert rows


SAMPLE = [(t.id, seed) for t in bank().templates() for seed in (3, 41)]


@pytest.mark.parametrize(("template_id", "seed"), SAMPLE)
def test_the_section_lists_each_slip_of_the_instance_once(template_id: str, seed: int) -> None:
    """Every mistake of every part that is a slip here (not inside the band of the right answer), titles
    and feedback in the same order, a part's title prefixed in a chain."""
    instance = builtin_instance(template_id, seed)
    slips = [
        (q.number, m)
        for q in instance.parts
        for m in q.mistakes
        if not is_within(m.value, q.value, q.tolerance)
    ]
    rows = common_mistakes(instance)
    assert [title for title, _ in rows] == list(mistake_titles(instance))
    prefix = instance.part_count > 1
    assert rows == tuple(((f"Part {n}: " if prefix else "") + m.title, m.feedback) for n, m in slips)
