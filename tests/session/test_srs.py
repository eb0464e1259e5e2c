"""Spaced repetition: the rating table, fsrs scheduling of card states, due and introduced counts."""

from __future__ import annotations

import json

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from quizzer.session.records import CardState
from quizzer.session.srs import (
    RATINGS,
    Scheduler,
    due,
    interval_days,
    introduced_since,
    last_review,
    preview_intervals,
    rating_for,
    rating_for_parts,
    rating_reason,
    short_interval,
)

T0 = 1_700_000_000.0  # 2023-11-14, epoch seconds
MINUTE, DAY = 60.0, 86_400.0


@pytest.mark.parametrize(
    ("verdict", "seconds", "minutes", "hints", "expected"),
    [
        ("skipped", 1.0, 1.0, 0, "again"),
        ("timed-out", 600.0, 1.0, 0, "again"),
        ("wrong", 1.0, 1.0, 0, "again"),
        ("wrong", 200.0, 1.0, 3, "again"),
        ("close", 1.0, 1.0, 0, "hard"),
        ("close", 60.0, 1.0, 2, "hard"),
        ("exact", 10.0, 1.0, 1, "hard"),  # fast, but a hint was used
        ("correct", 10.0, 1.0, 1, "hard"),
        ("exact", 10.0, 1.0, 0, "easy"),
        ("correct", 100.0, 4.0, 0, "easy"),  # 100 s of 240 s expected
        ("exact", 60.0, 1.0, 0, "good"),
        ("correct", 300.0, 4.0, 0, "good"),
        ("exact", 100.0, 1.0, 0, "hard"),  # slower than 1.5 x 60 s
        ("correct", 400.0, 4.0, 0, "hard"),
    ],
)
def test_rating_table(verdict: str, seconds: float, minutes: float, hints: int, expected: str) -> None:
    assert rating_for(verdict, seconds, minutes, hints) == expected


@pytest.mark.parametrize("verdict", ["exact", "correct"])
def test_rating_boundaries(verdict: str) -> None:
    # two minutes expected: 60 s is the easy boundary, 180 s the good one; both are inclusive
    assert rating_for(verdict, 60.0, 2.0, 0) == "easy"
    assert rating_for(verdict, 60.001, 2.0, 0) == "good"
    assert rating_for(verdict, 180.0, 2.0, 0) == "good"
    assert rating_for(verdict, 180.001, 2.0, 0) == "hard"


def test_unparsed_has_no_rating() -> None:
    with pytest.raises(ValueError, match="unparsed"):
        rating_for("unparsed", 1.0, 1.0, 0)


def test_a_new_card_is_introduced_and_due_later() -> None:
    scheduler = Scheduler()
    for rating in RATINGS:
        state = scheduler.review(None, "t", rating, T0)
        assert state.template_id == "t"
        assert state.introduced == T0
        assert state.due > T0
        assert last_review(state) == T0
        assert json.loads(state.card_json)["last_review"].startswith("2023-11-14T22:13:20")
    # fsrs's first learning step is one minute; "easy" skips learning and schedules whole days
    assert scheduler.review(None, "t", "again", T0).due == T0 + MINUTE
    easy = scheduler.review(None, "t", "easy", T0)
    assert easy.due >= T0 + DAY
    assert (easy.due - T0) % DAY == 0
    assert interval_days(easy) == (easy.due - T0) / DAY


def test_review_keeps_introduced_and_checks_the_template() -> None:
    scheduler = Scheduler()
    first = scheduler.review(None, "t", "good", T0)
    second = scheduler.review(first, "t", "good", first.due)
    assert second.introduced == T0
    assert second.due > first.due
    with pytest.raises(ValueError, match="reviewed as"):
        scheduler.review(first, "u", "good", first.due)
    with pytest.raises(ValueError, match="unknown rating"):
        scheduler.review(first, "t", "meh", first.due)


def test_schedules_are_reproducible() -> None:
    def run() -> list[CardState]:
        scheduler, state, out = Scheduler(), None, []
        for i, rating in enumerate(["good", "good", "hard", "good", "again", "good", "easy"]):
            state = scheduler.review(state, "t", rating, T0 if state is None else state.due + i * 3600)
            out.append(state)
        return out

    assert run() == run()


def card(template_id: str, due_at: float, introduced: float = 0.0) -> CardState:
    return CardState(template_id, "{}", introduced, due_at)


def test_due_is_earliest_first() -> None:
    cards = [card("c", 300.0), card("a", 100.0), card("late", 500.0), card("b", 100.0), card("d", 200.0)]
    assert [c.template_id for c in due(cards, 300.0)] == ["a", "b", "d", "c"]
    assert due(cards, 99.0) == []
    assert [c.template_id for c in due(iter(cards), 1e9)] == ["a", "b", "d", "c", "late"]


def test_introduced_since() -> None:
    cards = [card("a", 0.0, introduced=T0 - DAY), card("b", 0.0, introduced=T0), card("c", 0.0, T0 + 5)]
    assert introduced_since(cards, T0) == 2
    assert introduced_since(cards, T0 + 6) == 0
    assert introduced_since(iter(cards), 0.0) == 3
    assert introduced_since([], 0.0) == 0


#: Time steps: minutes to a couple of months, so cards are seen both before and after their due dates.
STEPS = st.one_of(
    st.just("due"),
    st.floats(0, 30 * MINUTE),
    st.floats(0, 2 * DAY),
    st.floats(0, 60 * DAY),
)


class SchedulerMachine(RuleBasedStateMachine):
    """Reviews at a clock that only moves forward; a "steady" card is rated good exactly at each due date."""

    def __init__(self) -> None:
        super().__init__()
        self.scheduler = Scheduler()
        self.now = T0
        self.cards: dict[str, CardState] = {}
        self.last_reviewed: tuple[float, CardState] | None = None
        self.steady: CardState | None = None
        self.chain = 0  # which steady card (a new one when the clock has passed the old one's due)
        self.intervals: list[tuple[float, str]] = []  # (seconds, fsrs state after) of the steady card

    @rule(template=st.sampled_from(["a", "b", "c"]), rating=st.sampled_from(RATINGS), step=STEPS)
    def review(self, template: str, rating: str, step: str | float) -> None:
        before = self.cards.get(template)
        if step == "due":
            self.now = max(self.now, before.due if before is not None else self.now)
        else:
            assert isinstance(step, float)
            self.now += step
        after = self.scheduler.review(before, template, rating, self.now)
        assert after.introduced == (before.introduced if before is not None else self.now)
        self.cards[template] = after
        self.last_reviewed = (self.now, after)

    @precondition(
        lambda self: self.steady is None or (self.steady.due >= self.now and len(self.intervals) < 12)
    )
    @rule()
    def review_steady_at_its_due(self) -> None:
        if self.steady is not None:
            self.now = self.steady.due
        self.steady = self.scheduler.review(self.steady, f"steady-{self.chain}", "good", self.now)
        # to the millisecond: datetimes keep microseconds, so a float clock is rounded
        self.intervals.append(
            (round(self.steady.due - self.now, 3), json.loads(self.steady.card_json)["state"])
        )
        self.last_reviewed = (self.now, self.steady)

    @precondition(
        lambda self: self.steady is not None and (self.steady.due < self.now or len(self.intervals) >= 12)
    )
    @rule()
    def start_another_steady_card(self) -> None:
        self.steady, self.chain, self.intervals = None, self.chain + 1, []

    @invariant()
    def due_is_never_before_the_review(self) -> None:
        if self.last_reviewed is not None:
            at, state = self.last_reviewed
            assert state.due > at
            assert last_review(state) == pytest.approx(at, abs=1e-6)

    @invariant()
    def steady_intervals_never_shrink_and_grow_in_review(self) -> None:
        review_state = 2  # fsrs.State.Review
        maximum_seconds = self.scheduler.maximum_interval_days * DAY
        for (previous, _), (current, state) in zip(self.intervals, self.intervals[1:], strict=False):
            assert current >= previous
            if state == review_state and previous < maximum_seconds:
                assert current > previous
        if self.intervals:
            # the first review of a new card, rated good, is fsrs's second learning step: ten minutes
            assert self.intervals[0][0] == 10 * MINUTE

    @invariant()
    def due_lists_what_is_due(self) -> None:
        listed = due(self.cards.values(), self.now)
        assert {c.template_id for c in listed} == {t for t, c in self.cards.items() if c.due <= self.now}
        assert [c.due for c in listed] == sorted(c.due for c in listed)


TestSchedulerMachine = SchedulerMachine.TestCase
TestSchedulerMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_good_at_each_due_date_grows_the_interval() -> None:
    scheduler, state, now = Scheduler(), None, T0
    intervals = []
    for _ in range(14):
        state = scheduler.review(state, "t", "good", now)
        intervals.append(state.due - now)
        now = state.due
    # learning: one minute, then ten; good on a new card goes to the second step, then to Review in days
    assert intervals[0] == 10 * MINUTE
    assert all(i % DAY == 0 for i in intervals[1:])
    capped = [i for i in intervals if i == scheduler.maximum_interval_days * DAY]
    growing = intervals[: len(intervals) - len(capped)]
    assert growing == sorted(set(growing))  # strictly increasing until fsrs's maximum interval
    assert capped  # 14 good reviews at the default retention do reach it (100 years)


# --- interval preview, the reason for a rating, the review duration ---------------------------------------


def test_preview_intervals_do_not_change_the_card_and_match_each_review() -> None:
    scheduler = Scheduler()
    state = scheduler.review(None, "t", "good", T0)
    state = scheduler.review(state, "t", "good", state.due)
    now = state.due + 2 * DAY
    kept = state.card_json
    preview = preview_intervals(state, "t", now)
    assert state.card_json == kept
    for rating in RATINGS:
        assert preview[rating] == scheduler.review(state, "t", rating, now).due - now
    assert preview["again"] < preview["hard"] < preview["good"] < preview["easy"]


def test_preview_of_a_new_card_is_fsrs_learning_steps() -> None:
    preview = preview_intervals(None, "t", T0)
    # fsrs's defaults: learning steps of 1 and 10 minutes; hard on a new card is their mean (5.5 minutes)
    assert (preview["again"], preview["hard"], preview["good"]) == (MINUTE, 5.5 * MINUTE, 10 * MINUTE)
    assert preview["easy"] % DAY == 0
    assert preview["easy"] >= DAY


def test_a_lower_desired_retention_gives_longer_intervals() -> None:
    state = Scheduler().review(None, "t", "good", T0)
    state = Scheduler().review(state, "t", "good", state.due)
    now = state.due
    low = preview_intervals(state, "t", now, Scheduler(desired_retention=0.75))
    high = preview_intervals(state, "t", now, Scheduler(desired_retention=0.97))
    assert low["good"] > preview_intervals(state, "t", now)["good"] > high["good"]


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (1, "1m"),
        (90, "2m"),
        (59 * MINUTE, "59m"),
        (3600, "1h"),
        (23 * 3600, "23h"),
        (DAY, "1d"),
        (29 * DAY, "29d"),
        (30 * DAY, "1mo"),
        (75 * DAY, "2.5mo"),
        (300 * DAY, "10mo"),
        (365 * DAY, "1y"),
        (3650 * DAY, "10y"),
    ],
)
def test_short_interval(seconds: float, shown: str) -> None:
    assert short_interval(seconds) == shown


@pytest.mark.parametrize(
    ("verdicts", "seconds", "minutes", "hints", "expected"),
    [
        (["wrong"], 10, 1, 0, ("again", "again: wrong")),
        (["timed-out"], 10, 1, 0, ("again", "again: timed out")),
        (["skipped", "exact"], 10, 1, 0, ("again", "again: part 1 skipped")),
        (["exact", "wrong", "skipped"], 10, 1, 0, ("again", "again: 2 of 3 parts wrong or skipped")),
        (["close"], 10, 1, 0, ("hard", "hard: close")),
        (["exact", "imprecise"], 10, 1, 0, ("hard", "hard: part 2 imprecise")),
        (["exact", "wrong"], 10, 1, 0, ("hard", "hard: part 2 wrong")),  # half failed is not more than half
        (["exact"], 10, 1, 2, ("hard", "hard: right, but 2 hints")),
        (["exact"], 10, 1, 1, ("hard", "hard: right, but 1 hint")),
        (["exact"], 40, 3, 0, ("easy", "easy: right in 40 s of 3 min")),
        (["correct", "consistent"], 150, 3, 0, ("good", "good: right in 2.5 min of 3 min")),
        (["exact"], 300, 3, 0, ("hard", "hard: right, but slow (5 min of 3 min)")),
    ],
)
def test_rating_reason_says_why(
    verdicts: list[str], seconds: float, minutes: float, hints: int, expected: tuple[str, str]
) -> None:
    assert rating_reason(verdicts, seconds, minutes, hints) == expected
    assert rating_for_parts(verdicts, seconds, minutes, hints) == expected[0]


def test_rating_reason_refuses_what_rating_for_parts_refuses() -> None:
    with pytest.raises(ValueError, match="no verdicts"):
        rating_reason([], 1, 1, 0)
    with pytest.raises(ValueError, match="unparsed"):
        rating_reason(["unparsed"], 1, 1, 0)


def test_the_review_duration_goes_into_fsrs(monkeypatch: pytest.MonkeyPatch) -> None:
    import fsrs

    seen: list[int | None] = []
    review = fsrs.Scheduler.review_card

    def spy(self, card, rating, review_datetime=None, review_duration=None):  # type: ignore[no-untyped-def]
        seen.append(review_duration)
        return review(self, card, rating, review_datetime, review_duration)

    monkeypatch.setattr(fsrs.Scheduler, "review_card", spy)
    Scheduler().review(None, "t", "good", T0, seconds=12.3456)
    Scheduler().review(None, "t", "good", T0)
    assert seen == [12346, None]
