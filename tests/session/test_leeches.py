"""Leeches: a template failed N times in study is suspended at the Nth lapse (not before), never drawn, and
returned to study on request; undoing the review that made it a leech takes the suspension back."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.session.leeches import leeches, returned_to_study
from quizzer.session.queue import study_counts
from quizzer.session.records import CardState
from quizzer.session.srs import Scheduler, due, is_leech_lapse
from tests.session.test_study import DAY, WALL, Run, pack, wrong_answer


def fail_and_wait(run: Run) -> None:
    """Answer the current question wrong (rated again), move on, and let a day pass: it is due again."""
    s = run.s
    assert s.instance is not None
    s.answer(wrong_answer(s))
    assert s.proposed == "again"
    assert s.next() is None  # due again in minutes (fsrs's relearning step), not now
    run.wall.now += DAY
    s.next()  # a day later it is drawn again


@pytest.mark.parametrize("threshold", [1, 3, 5])
def test_a_leech_is_suspended_at_the_nth_lapse_and_not_before(tmp_path: Path, threshold: int) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"], leech_lapses=threshold)
    s = run.s
    for lapse in range(1, threshold):
        fail_and_wait(run)
        card = s.cards["mini-product"]
        assert (card.lapses, card.suspended, s.leech) == (lapse, None, None)
        assert s.instance is not None  # still studied
    suspended_at = run.wall.now
    s.answer(wrong_answer(s))
    s.next()
    card = s.cards["mini-product"]
    assert card.lapses == threshold
    assert card.suspended == suspended_at
    assert s.leech == "mini-product"
    assert s.leeches == ["mini-product"]
    assert run.reviews[-1] == card  # the store gets the suspension with the review
    run.wall.now += 400 * DAY
    assert s.next() is None  # long due, but suspended: never drawn
    assert s.counts() == (0, 0)
    assert s.leech is None  # said once
    assert s.summary().leeches == 1


def test_a_right_or_hard_review_is_no_lapse(tmp_path: Path) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"], leech_lapses=1)
    s = run.s
    s.answer(str(s.instance.value) if s.instance else "")
    s.override("hard")
    s.next()
    assert (s.cards["mini-product"].lapses, s.cards["mini-product"].suspended) == (0, None)


def test_undoing_the_review_that_made_a_leech_takes_the_suspension_back(tmp_path: Path) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"], leech_lapses=2)
    s = run.s
    fail_and_wait(run)
    before = s.cards["mini-product"]
    s.answer(wrong_answer(s))
    s.next()
    assert s.cards["mini-product"].suspended is not None
    assert s.undo()
    assert s.cards["mini-product"] == before  # lapses 1, not suspended: exactly as before
    assert run.reviews[-1] == before
    assert (s.leeches, s.leech) == ([], None)


def test_leeches_off_with_a_threshold_of_zero(tmp_path: Path) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"], leech_lapses=0)
    for _ in range(4):
        fail_and_wait(run)
    assert (run.s.cards["mini-product"].lapses, run.s.cards["mini-product"].suspended) == (4, None)


def test_the_thresholds_follow_anki_after_a_return_to_study() -> None:
    # Anki's default: a leech at 8 lapses, then again at every half of that (12, 16, ...) once returned.
    assert [n for n in range(30) if is_leech_lapse(n)] == [8, 12, 16, 20, 24, 28]
    assert [n for n in range(10) if is_leech_lapse(n, 3)] == [3, 4, 5, 6, 7, 8, 9]


def test_a_returned_leech_keeps_its_schedule_and_is_due_again() -> None:
    card = Scheduler().review(None, "a", "again", WALL).replace(lapses=8, suspended=WALL)
    assert due([card], WALL + DAY) == []
    assert study_counts({"a": card}, ["a"], WALL + DAY, 0) == (0, 0)
    back = returned_to_study(card, WALL + DAY)
    assert (back.card_json, back.due, back.lapses, back.suspended) == (card.card_json, card.due, 8, None)
    assert due([back], WALL + DAY) == [back]


def test_leeches_are_listed_most_lapses_first_with_titles() -> None:
    cards = [
        CardState("b", "{}", 0.0, 0.0, lapses=9, suspended=5.0),
        CardState("a", "{}", 0.0, 0.0, lapses=3),  # failed, not a leech
        CardState("c", "{}", 0.0, 0.0, lapses=12, suspended=1.0),
    ]
    listed = leeches(cards, {"b": "Bee", "c": "Sea"}.__getitem__)
    assert [(x.template_id, x.title, x.lapses) for x in listed] == [("c", "Sea", 12), ("b", "Bee", 9)]
