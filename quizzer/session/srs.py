"""Spaced repetition: a verdict's rating, and fsrs scheduling of CardState values."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

import fsrs

from quizzer.session.records import CardState

#: fsrs's four ratings, worst first.
RATINGS = ("again", "hard", "good", "easy")
_FSRS_RATINGS = {
    "again": fsrs.Rating.Again,
    "hard": fsrs.Rating.Hard,
    "good": fsrs.Rating.Good,
    "easy": fsrs.Rating.Easy,
}
_SECONDS_PER_DAY = 86_400.0
_RIGHT = frozenset({"exact", "correct", "consistent"})
_FAILED = frozenset({"skipped", "timed-out", "wrong"})
_RATED = _RIGHT | _FAILED | {"close", "imprecise"}


def rating_for(verdict: str, seconds: float, expected_minutes: float, hints: int) -> str:
    """The rating proposed for an attempt, from its verdict, its time and the hints it used.

    ``expected`` is the template's expected time (``minutes`` × 60 seconds):

    ============================  ====================================  ======
    verdict                       condition                             rating
    ============================  ====================================  ======
    skipped, timed-out, wrong     (any)                                 again
    close, imprecise              (any)                                 hard
    exact, correct, consistent    a hint was used                       hard
    exact, correct, consistent    seconds <= 0.5 × expected             easy
    exact, correct, consistent    seconds <= 1.5 × expected             good
    exact, correct, consistent    slower                                hard
    ============================  ====================================  ======

    Raises ValueError for any other verdict (an unparsed answer grades nothing, so it has no rating).
    """
    return rating_for_parts((verdict,), seconds, expected_minutes, hints)


def rating_for_parts(verdicts: Sequence[str], seconds: float, expected_minutes: float, hints: int) -> str:
    """The rating proposed for a question of one or more parts (a chain), from every part's verdict, the
    seconds and hints of all parts together, and the template's expected minutes (shared by its parts).

    - **again**: part 1 (the main question) was wrong, skipped or timed out, or more than half the
      parts were;
    - **hard**: some part was not right (close, imprecise, a later part wrong or skipped), a hint was used,
      or the whole took more than 1.5 × the expected time;
    - **easy**: every part right, no hint, within 0.5 × the expected time;
    - **good**: every part right, no hint, within 1.5 × the expected time.

    "consistent" (a later part right against the user's own earlier answer) counts as right, as it does
    everywhere. For one part this is the table of ``rating_for``.
    """
    if not verdicts:
        raise ValueError("no verdicts to rate")
    for verdict in verdicts:
        if verdict not in _RATED:
            raise ValueError(f"no rating for the verdict {verdict!r}")
    not_right = [v for v in verdicts if v not in _RIGHT]
    failed = [v for v in verdicts if v in _FAILED]
    if verdicts[0] in _FAILED or 2 * len(failed) > len(verdicts):
        return "again"
    if not_right:
        return "hard"
    expected_seconds = expected_minutes * 60.0
    if hints > 0:
        return "hard"
    if seconds <= 0.5 * expected_seconds:
        return "easy"
    if seconds <= 1.5 * expected_seconds:
        return "good"
    return "hard"


def _utc(epoch_seconds: float) -> datetime:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC)


class Scheduler:
    """fsrs's scheduler without fuzzing, so the same reviews always give the same schedule."""

    def __init__(self, *, desired_retention: float = 0.9) -> None:
        self._fsrs = fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)
        #: The longest interval fsrs schedules, in days.
        self.maximum_interval_days: int = self._fsrs.maximum_interval

    def review(self, state: CardState | None, template_id: str, rating: str, now: float) -> CardState:
        """The card after a review rated ``rating`` at ``now`` (epoch seconds, UTC).

        ``state`` None is a template studied for the first time: its card is created, introduced at ``now``.
        """
        if rating not in _FSRS_RATINGS:
            raise ValueError(f"unknown rating {rating!r}; expected one of {', '.join(RATINGS)}")
        if state is None:
            # an explicit id (fsrs would otherwise read the clock and sleep 1 ms), stable per template
            card = fsrs.Card(card_id=zlib.crc32(template_id.encode()), due=_utc(now))
            introduced = now
        else:
            if state.template_id != template_id:
                raise ValueError(f"the card of {state.template_id!r} reviewed as {template_id!r}")
            card = fsrs.Card.from_json(state.card_json)
            introduced = state.introduced
        card, _log = self._fsrs.review_card(card, _FSRS_RATINGS[rating], review_datetime=_utc(now))
        return CardState(template_id, card.to_json(), introduced, card.due.timestamp())


def last_review(state: CardState) -> float | None:
    """When the card was last reviewed (epoch seconds), None if never."""
    card = fsrs.Card.from_json(state.card_json)
    return card.last_review.timestamp() if card.last_review is not None else None


def interval_days(state: CardState) -> float:
    """Days from the card's last review to its due date (0 for a card never reviewed)."""
    reviewed = last_review(state)
    return 0.0 if reviewed is None else (state.due - reviewed) / _SECONDS_PER_DAY


def due(cards: Iterable[CardState], now: float) -> list[CardState]:
    """The cards due at ``now`` (due <= now), earliest first (ties by template id)."""
    return sorted((c for c in cards if c.due <= now), key=lambda c: (c.due, c.template_id))


def introduced_since(cards: Iterable[CardState], since: float) -> int:
    """How many cards were introduced at or after ``since`` (for the daily limit of new templates)."""
    return sum(1 for c in cards if c.introduced >= since)
