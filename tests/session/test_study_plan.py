"""StudySession with a plan toward a date: today's planned reviews first, each once; no plan, no change."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quizzer.bank.loader import Bank
from quizzer.session.records import CardState
from quizzer.session.srs import Scheduler
from quizzer.session.study import StudySession
from tests.session.test_study import DAY, WALL, Clock, pack, right_answer


def session(
    bank: Bank, cards: dict[str, CardState], plan: Sequence[str] | None, *, new_per_day: int = 10
) -> StudySession:
    return StudySession(
        bank,
        cards,
        template_ids=bank.scanned_ids(),
        seed=1,
        clock=Clock(100.0),
        wall=Clock(WALL),
        new_per_day=new_per_day,
        new_today=0,
        plan=plan,
    )


def _learnt(template_id: str) -> CardState:
    """A card reviewed "good" twice, a day apart, the second time yesterday: not due today."""
    scheduler = Scheduler()
    card = scheduler.review(None, template_id, "good", WALL - 2 * DAY)
    return scheduler.review(card, template_id, "easy", WALL - DAY)


def test_a_planned_card_not_due_is_drawn_first_then_study_goes_on(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    cards = {"mini-product": _learnt("mini-product")}
    assert cards["mini-product"].due > WALL
    s = session(bank, cards, ["mini-product"])
    assert s.instance is not None
    assert s.instance.template_id == "mini-product"
    assert s.planned_left == ["mini-product"]
    s.answer(right_answer(s))
    s.next()
    assert s.planned_left == []
    assert s.instance is not None
    assert s.instance.template_id == "mini-other"  # new, as without a plan
    s.skip()
    s.next()
    assert s.instance is None or s.instance.template_id == "mini-other"  # "again": due in a minute


def test_a_planned_new_template_is_drawn_whatever_the_daily_limit(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    s = session(bank, {}, ["mini-other"], new_per_day=0)
    assert s.instance is not None
    assert s.instance.template_id == "mini-other"
    assert session(bank, {}, None, new_per_day=0).instance is None


def test_undo_puts_the_planned_review_back(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    s = session(bank, {"mini-product": _learnt("mini-product")}, ["mini-product"])
    s.answer(right_answer(s))
    s.next()
    assert s.planned_left == []
    assert s.undo()
    assert s.planned_left == ["mini-product"]
    assert s.instance is not None
    assert s.instance.template_id == "mini-product"


def test_a_suspended_or_unknown_planned_template_is_passed_over(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    cards = {"mini-product": _learnt("mini-product").replace(suspended=WALL - DAY)}
    s = session(bank, cards, ["gone", "mini-product"], new_per_day=0)
    assert s.instance is None
    assert s.planned_left == ["mini-product"]


def test_no_plan_or_an_empty_one_draws_as_before(tmp_path: Path) -> None:
    """After the date the plan is empty: study is plain fsrs study again."""
    bank = pack(tmp_path)
    cards = {"mini-product": Scheduler().review(None, "mini-product", "good", WALL - 3 * DAY)}
    drawn = []
    for plan in (None, []):
        s = session(bank, dict(cards), plan)
        shown = []
        while s.instance is not None and len(shown) < 6:
            shown.append(s.instance.template_id)
            s.answer(right_answer(s))
            s.next()
        drawn.append((shown, s.cards))
    assert drawn[0] == drawn[1]
