"""Spaced repetition: a verdict's rating, and fsrs scheduling of CardState values."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

import fsrs

from quizzer.core.words import counted
from quizzer.session import review_log
from quizzer.session.records import CardState

#: fsrs's four ratings, worst first (defined with the review log, which records them).
RATINGS = review_log.RATINGS
_FSRS_RATINGS = {
    "again": fsrs.Rating.Again,
    "hard": fsrs.Rating.Hard,
    "good": fsrs.Rating.Good,
    "easy": fsrs.Rating.Easy,
}
_SECONDS_PER_DAY = 86_400.0
#: Study reviews rated "again" at which a card becomes a leech and is suspended (Anki's default).
LEECH_LAPSES = 8
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
    everywhere. For one part this is the table of ``rating_for``. ``rating_reason`` says why.
    """
    return rating_reason(verdicts, seconds, expected_minutes, hints)[0]


def rating_reason(
    verdicts: Sequence[str], seconds: float, expected_minutes: float, hints: int
) -> tuple[str, str]:
    """(rating, why) for a question: the rating of ``rating_for_parts`` and the reason shown beside it,
    led by the rating ("hard: right, but 2 hints", "again: part 1 wrong", "easy: right in 40 s of 3 min").

    >>> rating_reason(["exact", "close"], 50, 3, 0)
    ('hard', 'hard: part 2 close')
    """
    if not verdicts:
        raise ValueError("no verdicts to rate")
    for verdict in verdicts:
        if verdict not in _RATED:
            raise ValueError(f"no rating for the verdict {verdict!r}")
    chain = len(verdicts) > 1
    failed = [v for v in verdicts if v in _FAILED]
    if verdicts[0] in _FAILED:
        return "again", f"again: {'part 1 ' if chain else ''}{_said(verdicts[0])}"
    if 2 * len(failed) > len(verdicts):
        return "again", f"again: {len(failed)} of {len(verdicts)} parts wrong or skipped"
    for number, verdict in enumerate(verdicts, 1):
        if verdict not in _RIGHT:
            return "hard", f"hard: part {number} {_said(verdict)}" if chain else f"hard: {_said(verdict)}"
    if hints > 0:
        return "hard", f"hard: right, but {counted(hints, 'hint')}"
    expected_seconds = expected_minutes * 60.0
    took = f"{_duration(seconds)} of {_duration(expected_seconds)}"
    if seconds <= 0.5 * expected_seconds:
        return "easy", f"easy: right in {took}"
    if seconds <= 1.5 * expected_seconds:
        return "good", f"good: right in {took}"
    return "hard", f"hard: right, but slow ({took})"


def _said(verdict: str) -> str:
    return verdict.replace("-", " ")


def _duration(seconds: float) -> str:
    """``40 s`` below a minute, else minutes with at most one decimal (``3 min``, ``2.5 min``)."""
    if seconds < 59.5:
        return f"{round(seconds)} s"
    return f"{seconds / 60:.1f}".removesuffix(".0") + " min"


def _utc(epoch_seconds: float) -> datetime:
    return datetime.fromtimestamp(epoch_seconds, tz=UTC)


class Scheduler:
    """fsrs's scheduler without fuzzing, so the same reviews always give the same schedule."""

    def __init__(self, *, desired_retention: float = 0.9) -> None:
        self._fsrs = fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)
        #: The longest interval fsrs schedules, in days.
        self.maximum_interval_days: int = self._fsrs.maximum_interval

    def review(
        self,
        state: CardState | None,
        template_id: str,
        rating: str,
        now: float,
        *,
        seconds: float | None = None,
    ) -> CardState:
        """The card after a review rated ``rating`` at ``now`` (epoch seconds, UTC), which took ``seconds``
        (fsrs's review duration, in milliseconds; None: not known).

        ``state`` None is a template studied for the first time: its card is created, introduced at ``now``.
        A rating of "again" counts one more lapse; the card's suspension is kept as it was. The review is
        appended to the card's review log (``review_log``; a card without one starts it with its base).
        """
        if rating not in _FSRS_RATINGS:
            raise ValueError(f"unknown rating {rating!r}; expected one of {', '.join(RATINGS)}")
        lapses, suspended = (0, None) if state is None else (state.lapses, state.suspended)
        if state is None:
            # an explicit id (fsrs would otherwise read the clock and sleep 1 ms), stable per template
            card = fsrs.Card(card_id=zlib.crc32(template_id.encode()), due=_utc(now))
            introduced = now
        else:
            if state.template_id != template_id:
                raise ValueError(f"the card of {state.template_id!r} reviewed as {template_id!r}")
            card = fsrs.Card.from_json(state.card_json)
            introduced = state.introduced
        duration_ms = None if seconds is None else max(round(seconds * 1000), 0)
        card, _log = self._fsrs.review_card(
            card, _FSRS_RATINGS[rating], review_datetime=_utc(now), review_duration=duration_ms
        )
        lapses += rating == "again"
        log = review_log.appended(state, review_log.review(now, rating, seconds))
        return CardState(
            template_id, card.to_json(), introduced, card.due.timestamp(), lapses, suspended, log
        )

    def retrievability(self, state: CardState, now: float) -> float:
        """fsrs's probability, in [0, 1], that the card's template is recalled at ``now`` (epoch seconds);
        0 for a card never reviewed."""
        return float(self._fsrs.get_card_retrievability(fsrs.Card.from_json(state.card_json), _utc(now)))

    def preview(self, state: CardState | None, template_id: str, now: float) -> dict[str, float]:
        """Each rating's next interval (seconds from ``now`` to the due date it would give), the card
        unchanged: every rating is a review of a copy at the same ``now``."""
        return {r: self.review(state, template_id, r, now).due - now for r in RATINGS}


def preview_intervals(
    state: CardState | None, template_id: str, now: float, scheduler: Scheduler | None = None
) -> dict[str, float]:
    """Each rating's next interval in seconds, as Anki shows on its buttons (``Scheduler.preview``; the
    default scheduler unless ``scheduler`` is given). ``state`` None is a new card.

    >>> preview_intervals(None, "x", 1e9)["again"]  # fsrs's first learning step
    60.0
    """
    return (scheduler or Scheduler()).preview(state, template_id, now)


#: (unit, seconds in it), largest first, for ``short_interval``.
_UNITS = (
    ("y", 365 * _SECONDS_PER_DAY),
    ("mo", 30 * _SECONDS_PER_DAY),
    ("d", _SECONDS_PER_DAY),
    ("h", 3600.0),
)


def short_interval(seconds: float) -> str:
    """An interval as Anki writes it on its buttons: minutes, hours, days, months (30 days) or years
    (365 days); whole numbers below 10 units of months and years keep one decimal.

    >>> [short_interval(s) for s in (30, 60, 330, 3 * 3600, 8 * 86_400, 45 * 86_400, 400 * 86_400)]
    ['1m', '1m', '6m', '3h', '8d', '1.5mo', '1.1y']
    """
    for unit, size in _UNITS:
        if seconds >= size:
            value = seconds / size
            if unit in ("mo", "y") and value < 10:
                return f"{value:.1f}".removesuffix(".0") + unit
            return f"{round(value)}{unit}"
    return f"{max(round(seconds / 60), 1)}m"


def last_review(state: CardState) -> float | None:
    """When the card was last reviewed (epoch seconds), None if never."""
    card = fsrs.Card.from_json(state.card_json)
    return card.last_review.timestamp() if card.last_review is not None else None


def interval_days(state: CardState) -> float:
    """Days from the card's last review to its due date (0 for a card never reviewed)."""
    reviewed = last_review(state)
    return 0.0 if reviewed is None else (state.due - reviewed) / _SECONDS_PER_DAY


def due(cards: Iterable[CardState], now: float) -> list[CardState]:
    """The cards due at ``now`` (due <= now), earliest first (ties by template id); a card suspended as a
    leech is never due."""
    return sorted(
        (c for c in cards if c.due <= now and c.suspended is None), key=lambda c: (c.due, c.template_id)
    )


def is_leech_lapse(lapses: int, threshold: int = LEECH_LAPSES) -> bool:
    """Whether a card's ``lapses``-th lapse makes it a leech (suspended from study): at ``threshold``, then,
    for a card returned to study, at every half threshold more, as Anki does. A threshold of 0 turns leeches
    off.

    >>> [n for n in range(1, 20) if is_leech_lapse(n, 8)]
    [8, 12, 16]
    >>> [n for n in range(1, 6) if is_leech_lapse(n, 1)], is_leech_lapse(5, 0)
    ([1, 2, 3, 4, 5], False)
    """
    if threshold <= 0 or lapses < threshold:
        return False
    return (lapses - threshold) % max(threshold // 2, 1) == 0


def is_leech_review(state: CardState, rating: str, threshold: int = LEECH_LAPSES) -> bool:
    """Whether the review rated ``rating`` that gave ``state`` (its lapses counted) makes the card a leech:
    study then suspends it at the review's time.

    >>> is_leech_review(CardState("a", "{}", 0.0, 0.0, lapses=8), "again"), is_leech_review(
    ...     CardState("a", "{}", 0.0, 0.0, lapses=8), "good")
    (True, False)
    """
    return rating == "again" and is_leech_lapse(state.lapses, threshold)


def introduced_since(cards: Iterable[CardState], since: float) -> int:
    """How many cards were introduced at or after ``since`` (for the daily limit of new templates)."""
    return sum(1 for c in cards if c.introduced >= since)
