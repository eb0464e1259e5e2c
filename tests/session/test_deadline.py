"""The plan toward an interview date: the window's coverage, the daily budget, what to drop, today's load."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.session.deadline import DeadlinePlan, deadline_plan, plan_summary, study_plan, window_days
from quizzer.session.records import CardState
from quizzer.session.srs import Scheduler
from tests.session.test_study import pack

DAY = 86_400.0
START = 1_780_000_000.0


def _studied(ids: list[str], at: float, rating: str = "good") -> list[CardState]:
    """Cards of ``ids`` learnt at ``at``: two reviews a day apart, so they are in fsrs's review state."""
    scheduler = Scheduler()
    cards = []
    for template_id in ids:
        card = scheduler.review(None, template_id, rating, at)
        cards.append(scheduler.review(card, template_id, rating, at + DAY))
    return cards


def _plan(cards: list[CardState], new: list[str], days: float, budget: float, **kw: object) -> DeadlinePlan:
    minutes = {c.template_id: 2.0 for c in cards} | dict.fromkeys(new, 2.0)
    return deadline_plan(
        cards, new, now=START, date=START + days * DAY, daily_minutes=budget, minutes=minutes, **kw
    )  # type: ignore[arg-type]


def test_the_window_is_the_last_quarter_and_at_least_two_days() -> None:
    assert [window_days(n) for n in (1, 2, 3, 8, 12, 30, 60)] == [1, 2, 2, 2, 3, 8, 15]
    plan = _plan(_studied([f"s{n}" for n in range(20)], START - 40 * DAY), [], 30, 60, begun=START)
    assert plan.days_left == 30
    assert plan.window_start == 22


def test_every_studied_template_is_reviewed_in_the_window_and_recalled_on_the_day() -> None:
    ids = [f"s{n}" for n in range(30)]
    plan = _plan(_studied(ids, START - 40 * DAY), [f"n{n}" for n in range(10)], 20, 60)
    assert plan.fits
    assert plan.drop == ()
    for template_id in [*ids, *(f"n{n}" for n in range(10))]:
        assert plan.covered(template_id), template_id
    assert all(r >= 0.9 for _, r in plan.recall)


def test_new_templates_are_introduced_early_and_seen_several_times() -> None:
    new = [f"n{n}" for n in range(12)]
    plan = _plan([], new, 24, 60)
    first_seen = {t: next(d.index for d in plan.days if t in d.template_ids) for t in new}
    assert max(first_seen.values()) < plan.window_start // 2 + 1
    for template_id in new:
        assert sum(template_id in d.template_ids for d in plan.days) >= 3


def test_every_day_keeps_to_the_budget_and_today_is_the_first_day() -> None:
    plan = _plan(
        _studied([f"s{n}" for n in range(40)], START - 20 * DAY), [f"n{n}" for n in range(40)], 10, 9
    )
    assert all(day.minutes <= 9 for day in plan.days)
    assert all(day.minutes == 2.0 * day.reviews for day in plan.days)
    assert plan.today == plan.days[0]
    assert plan.today.start == START


def test_over_budget_the_plan_says_what_to_drop() -> None:
    ids = [f"s{n}" for n in range(40)]
    new = [f"n{n}" for n in range(40)]
    plan = _plan(_studied(ids, START - 20 * DAY), new, 4, 6)
    assert not plan.fits
    assert plan.missing_minutes > 0
    assert plan.drop
    assert set(plan.drop) <= {*ids, *new}
    assert len(set(plan.drop)) == len(plan.drop)
    summary = plan_summary(plan)
    assert summary.startswith("4 days left: today 3 reviews, 6 of 6 min; over budget by ")
    assert ": drop " in summary


def test_what_to_drop_gains_least_per_minute() -> None:
    """Strong cards (learnt long ago, rated easy) gain little from a review before the date; weak ones
    (rated hard yesterday) gain much: the strong ones are dropped."""
    strong = _studied([f"strong{n}" for n in range(10)], START - 30 * DAY, "easy")
    weak = _studied([f"weak{n}" for n in range(10)], START - 2 * DAY, "hard")
    plan = _plan([*strong, *weak], [], 3, 8, begun=START)
    assert not plan.fits
    dropped = [t for t in plan.drop if t.startswith(("strong", "weak"))]
    assert dropped
    assert all(t.startswith("strong") for t in dropped)


def test_once_the_date_has_come_there_is_no_plan() -> None:
    cards = _studied(["a"], START - 10 * DAY)
    plan = deadline_plan(cards, ["b"], now=START, date=START - 1, daily_minutes=30, minutes={})
    assert plan.days_left == 0
    assert plan.today.template_ids == ()
    assert plan.fits
    assert plan_summary(plan) == "the date has come: study follows fsrs again"


def test_a_card_reviewed_in_the_window_already_counts_as_covered() -> None:
    """Planned again each day from ``begun``, the window stays where it was: a card reviewed in it is not
    asked again only for coverage."""
    cards = _studied(["a", "b"], START - 10 * DAY)
    scheduler = Scheduler()
    a = scheduler.review(cards[0], "a", "easy", START - 1 * DAY)
    plan = deadline_plan(
        [a, cards[1]],
        [],
        now=START,
        date=START + 3 * DAY,
        daily_minutes=30,
        minutes={},
        begun=START - 13 * DAY,
    )
    assert plan.window_start == 0
    assert plan.covered("b")
    assert "a" not in {t for day in plan.days for t in day.template_ids}


def test_suspended_cards_are_left_out() -> None:
    cards = _studied(["a", "b"], START - 10 * DAY)
    plan = _plan([cards[0].replace(suspended=START - DAY), cards[1]], [], 5, 30)
    assert {t for t, _ in plan.recall} == {"b"}


@pytest.mark.parametrize("days", [1, 2, 3])
def test_a_date_a_few_days_away_reviews_everything_before_it(days: int) -> None:
    ids = [f"s{n}" for n in range(6)]
    plan = _plan(_studied(ids, START - 30 * DAY), ["n"], days, 60)
    assert plan.fits
    assert {t for day in plan.days for t in day.template_ids} == {*ids, "n"}


def test_without_begun_the_window_counts_from_the_first_card_or_eight_weeks_before() -> None:
    """Studied since 13 days ago, 3 days to go: the window is the last 4 of 16 days (all 3 left); the
    first card introduced a year ago, 40 days to go: the window is the last quarter of 56 days; 60 days to
    go, of the 60 days (study toward the date begins now)."""
    recent = _studied(["a"], START - 13 * DAY)
    assert _plan(recent, [], 3, 30).window_start == 0
    assert _plan(recent, [], 3, 30, begun=START).window_start == 1
    old = _studied(["a"], START - 365 * DAY)
    assert _plan(old, [], 40, 30).window_start == 40 - 14
    assert _plan(old, [], 60, 30).window_start == 60 - 15
    assert _plan([], ["n"], 60, 30).window_start == 60 - 15


def test_study_plan_takes_the_sessions_templates_and_their_minutes(tmp_path: Path) -> None:
    bank = pack(tmp_path, bad=True)
    cards = [*_studied(["mini-product", "elsewhere"], START - 5 * DAY)]
    plan = study_plan(
        bank, cards, bank.scanned_ids(), now=START, date=START + 4 * DAY, daily_minutes=30, begun=START
    )
    assert {t for t, _ in plan.recall} == {"mini-product", "mini-other"}
    assert plan.today.minutes == sum(bank.get(t).minutes for t in plan.today.template_ids)
    assert plan.fits
