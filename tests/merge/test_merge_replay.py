"""Replaying two machines' review logs: any interleaving gives the card of one machine that saw them all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quizzer.session import review_log
from quizzer.session.records import CardState
from quizzer.session.replay import merge, replay
from quizzer.session.srs import RATINGS, Scheduler
from tests.merge.machines import DAY, LEECH_LAPSES, WALL, is_leech

Review = tuple[str, str, str, float]  # machine, template, rating, at


def studied(reviews: list[Review]) -> dict[str, CardState]:
    """The cards a machine has after ``reviews`` in time order, committed as a study session commits."""
    cards: dict[str, CardState] = {}
    for _, template_id, rating, at in sorted(reviews, key=lambda r: r[3]):
        state = Scheduler().review(cards.get(template_id), template_id, rating, at, seconds=3.0)
        if rating == "again" and is_leech(state.lapses):
            state = state.replace(suspended=at)
        cards[template_id] = state
    return cards


def merged(here: dict[str, CardState], there: dict[str, CardState]) -> dict[str, CardState]:
    """``here`` after merging ``there``'s logs (what quizzer.store.merge does per card)."""
    out = dict(here)
    for template_id, card in there.items():
        log = merge(here.get(template_id), review_log.entries_of(card))
        if log.added:
            replayed = replay(template_id, log.entries, Scheduler(), leech_lapses=LEECH_LAPSES)
            assert replayed is not None
            out[template_id] = replayed
    return out


@st.composite
def two_machines(draw: st.DrawFn) -> list[Review]:
    """Reviews of two templates on machines A and B at distinct times (minutes to weeks apart)."""
    n = draw(st.integers(1, 14))
    gaps = draw(
        st.lists(st.sampled_from([60.0, 600.0, 3600.0, DAY, 3 * DAY, 20 * DAY]), min_size=n, max_size=n)
    )
    times = [WALL + sum(gaps[: i + 1]) for i in range(n)]
    return [
        (draw(st.sampled_from("AB")), draw(st.sampled_from(["x", "y"])), draw(st.sampled_from(RATINGS)), at)
        for at in times
    ]


@given(two_machines())
def test_merging_either_way_equals_one_machine_that_saw_every_review(reviews: list[Review]) -> None:
    a = studied([r for r in reviews if r[0] == "A"])
    b = studied([r for r in reviews if r[0] == "B"])
    single = studied(reviews)
    assert merged(b, a) == single
    assert merged(a, b) == single


@given(two_machines())
def test_merging_again_adds_nothing(reviews: list[Review]) -> None:
    a = studied([r for r in reviews if r[0] == "A"])
    b = merged(studied([r for r in reviews if r[0] == "B"]), a)
    for template_id, card in a.items():
        assert merge(b[template_id], review_log.entries_of(card)).added == 0
    assert merged(b, a) == b


def test_the_same_review_on_both_sides_counts_once() -> None:
    shared = Scheduler().review(None, "x", "good", WALL, seconds=4.0)
    there = Scheduler().review(shared, "x", "again", WALL + DAY, seconds=5.0)
    log = merge(shared, review_log.entries_of(there))
    assert (log.added, log.reviews) == (1, 1)
    assert [(e["at"], e["rating"]) for e in log.entries] == [(WALL, "good"), (WALL + DAY, "again")]
    card = replay("x", log.entries, Scheduler())
    assert card == there
    assert card is not None
    assert card.lapses == 1


def test_a_leech_returned_on_one_machine_stays_returned_after_the_merge() -> None:
    a = {"x": Scheduler().review(None, "x", "again", WALL)}
    b = studied([("B", "x", "again", WALL + DAY * (1 + i)) for i in range(3)])
    single = merged(b, a)
    assert single["x"].lapses == LEECH_LAPSES
    assert single["x"].suspended == WALL + 3 * DAY
    back = single["x"].replace(
        suspended=None, review_log=review_log.appended(single["x"], review_log.returned(WALL + 4 * DAY))
    )
    assert merged(a, {"x": back})["x"].suspended is None


def test_a_card_from_before_logs_is_replayed_from_its_state() -> None:
    """A card without a log (an older history's) is the base: only what came after it is replayed on it."""
    old = Scheduler().review(None, "x", "good", WALL).replace(review_log=None)
    later = studied([("B", "x", "hard", WALL - DAY), ("B", "x", "easy", WALL + 5 * DAY)])
    card = merged({"x": old}, later)["x"]
    expected = Scheduler().review(old, "x", "easy", WALL + 5 * DAY, seconds=3.0)  # the hard one came before
    assert (card.card_json, card.due, card.introduced, card.lapses) == (
        expected.card_json,
        expected.due,
        expected.introduced,
        expected.lapses,
    )
    assert [next(iter(e)) for e in review_log.entries_of(card)] == ["base", "at", "at"]
