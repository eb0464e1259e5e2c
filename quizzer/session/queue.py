"""What a study session would ask now: cards due, new templates left today (no scheduler needed to count)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from quizzer.core.record import Record
from quizzer.session.records import CardState


def study_counts(
    cards: Mapping[str, CardState],
    template_ids: Iterable[str],
    now: float,
    new_left_today: int,
    fresh_ids: Iterable[str] | None = None,
) -> tuple[int, int]:
    """(cards due at ``now`` among ``template_ids``, new templates a session may still introduce today).

    ``new_left_today`` is the daily limit less those introduced since local midnight; the new ones are the
    templates without a card (``fresh_ids`` when given, in the session's order), capped by it. A card
    suspended as a leech is never due.

    >>> card = CardState("a", "{}", introduced=0.0, due=50.0)
    >>> study_counts({"a": card}, ["a", "b", "c"], now=100.0, new_left_today=1)
    (1, 1)
    >>> study_counts({"a": card}, ["a", "b", "c"], now=10.0, new_left_today=5)
    (0, 2)
    >>> study_counts({"a": card.replace(suspended=60.0)}, ["a"], now=100.0, new_left_today=0)
    (0, 0)
    """
    ids = list(dict.fromkeys(template_ids))
    due_now = sum(1 for t in ids if t in cards and cards[t].due <= now and cards[t].suspended is None)
    fresh = [t for t in (ids if fresh_ids is None else fresh_ids) if t not in cards]
    return due_now, min(max(new_left_today, 0), len(fresh))


def new_left_today(cards: Iterable[CardState], midnight: float, new_per_day: int) -> int:
    """The daily limit of new templates less those introduced since ``midnight`` (local), at least 0.

    >>> new_left_today([CardState("a", "{}", introduced=100.0, due=0.0)], midnight=50.0, new_per_day=10)
    9
    """
    return max(new_per_day - sum(1 for c in cards if c.introduced >= midnight), 0)


class StudyStatus(Record):
    """What Home says of study: cards due now, new templates left today (and the limit), the history."""

    due: int
    new_left: int
    new_per_day: int
    attempts: int


def study_status(
    cards: Iterable[CardState],
    template_ids: Iterable[str],
    *,
    now: float,
    midnight: float,
    new_per_day: int,
    attempts: int,
) -> StudyStatus:
    """Home's study line: the cards of the bank's templates due at ``now``, and how many new templates a
    session may still introduce today (the limit less those introduced since local ``midnight``).

    >>> cards = [CardState("a", "{}", introduced=90.0, due=50.0), CardState("gone", "{}", 90.0, 0.0)]
    >>> study_status(cards, ["a", "b", "c"], now=100.0, midnight=80.0, new_per_day=2, attempts=7)
    StudyStatus(due=1, new_left=1, new_per_day=2, attempts=7)
    """
    ids = list(dict.fromkeys(template_ids))
    known = set(ids)
    mine = {c.template_id: c for c in cards if c.template_id in known}
    left = new_left_today(mine.values(), midnight, new_per_day)
    due_now, new = study_counts(mine, ids, now, left)
    return StudyStatus(due_now, new, new_per_day, attempts)
