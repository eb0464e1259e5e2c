"""Past mocks: listed from the history with the score the mock had, and their report rebuilt the same."""

from __future__ import annotations

import random

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.paths import question_paths
from quizzer.session.chain import template_lookup
from quizzer.session.mock import MockExam, MockReport
from quizzer.session.past_mocks import past_mocks, question_groups, rebuild_report
from quizzer.session.picking import pick_instances
from quizzer.session.records import Attempt, SessionMark


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(question_paths())


def take_mock(bank: Bank, seed: int) -> tuple[MockReport, list[Attempt], list[SessionMark]]:
    """A mock of 6 questions, some right, some wrong, some left blank, one chain answered part by part."""
    rng = random.Random(seed)
    instances = pick_instances(bank, count=6, seed=seed)
    clock, attempts, marks = [0.0], [], []
    exam = MockExam(
        instances,
        total_seconds=1200,
        clock=lambda: clock[0],
        wall=lambda: 1_700_000_000.0 + clock[0],
        session_id=f"mock-{seed}",
        on_attempt=attempts.append,
        on_mark=marks.append,
        templates=template_lookup(bank),
    )
    for index, instance in enumerate(instances):
        exam.go(index)
        for number in range(1, instance.part_count + 1):
            clock[0] += rng.uniform(5, 90)
            choice = rng.random()
            part = instance.parts[number - 1]
            if choice < 0.15:
                break  # left blank: this part and the later ones unanswered
            exam.answer(str(part.value) if choice < 0.6 else str(part.value * 3))
    return exam.finish(), attempts, marks


@pytest.mark.parametrize("seed", range(8))
def test_a_past_mock_lists_and_rebuilds_as_it_was(bank: Bank, seed: int) -> None:
    report, attempts, marks = take_mock(bank, seed)
    [past] = past_mocks(attempts, marks)
    assert (past.session, past.questions, past.right) == (f"mock-{seed}", report.total, report.score)
    assert past.answered == report.answered
    assert past.minutes == 20
    assert past.seconds_used == pytest.approx(report.seconds_used)
    rebuilt = rebuild_report(
        attempts, generate=bank.generate, template_of=template_lookup(bank), minutes=past.minutes
    )
    assert rebuilt.left_out == 0
    again = rebuilt.report
    assert (again.score, again.total, again.answered) == (report.score, report.total, report.answered)
    assert (again.parts_right, again.parts_total) == (report.parts_right, report.parts_total)
    assert again.topics_to_work_on == report.topics_to_work_on
    assert again.mistakes_to_work_on == report.mistakes_to_work_on
    assert [r.instance.id for r in again.results] == [r.instance.id for r in report.results]
    assert [r.attempts for r in again.results] == [r.attempts for r in report.results]
    for was, now in zip(report.results, again.results, strict=True):
        assert [v.kind if v else None for v in now.verdicts] == [v.kind if v else None for v in was.verdicts]
    assert again.total_seconds == 1200


def test_a_question_whose_template_is_gone_is_left_out_and_said(bank: Bank) -> None:
    report, attempts, _ = take_mock(bank, 3)
    gone = report.results[0].instance.template_id

    def generate(template_id: str, seed: int):  # the first question's template was removed from the bank
        return None if template_id == gone else bank.generate(template_id, seed)

    rebuilt = rebuild_report(attempts, generate=generate, template_of=template_lookup(bank))
    kept = [r for r in report.results if r.instance.template_id != gone]
    assert rebuilt.left_out == len(report.results) - len(kept) >= 1
    assert rebuilt.report.total == len(kept)


def test_mocks_are_listed_newest_first_and_other_modes_ignored(bank: Bank) -> None:
    first, a1, m1 = take_mock(bank, 1)
    second, a2, m2 = take_mock(bank, 2)
    m2 = [m.replace(started=m.started + 3600) for m in m2]
    drill = [a.replace(mode="drill", session="drill-x") for a in a1]
    listed = past_mocks(a1 + a2 + drill, m1 + m2)
    assert [m.session for m in listed] == ["mock-2", "mock-1"]
    assert [m.right for m in listed] == [second.score, first.score]


def test_chain_parts_are_grouped_into_their_question() -> None:
    a = Attempt("t", 1, {}, "", None, 1, "", "exact", None, None, 1.0, 0, mode="mock")
    seq = [a.replace(part=1), a.replace(part=2), a.replace(part=3), a.replace(template_id="u"), a]
    assert [len(g) for g in question_groups(seq)] == [3, 1, 1]
