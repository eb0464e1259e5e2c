"""Leeches: templates failed so often in study that they are suspended from it, listed and returned."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from quizzer.core.record import Record
from quizzer.session import review_log
from quizzer.session.records import CardState


class Leech(Record):
    """A template suspended from study as a leech."""

    template_id: str
    title: str
    lapses: int
    """Its study reviews rated "again", in all."""
    suspended: float
    """When it was suspended (epoch seconds)."""


def leeches(cards: Iterable[CardState], title_of: Callable[[str], str] = str) -> list[Leech]:
    """The suspended cards as leeches, the most lapses first (then the latest suspended, then by id).

    >>> from quizzer.session.records import CardState
    >>> cards = [CardState("a", "{}", 0.0, 0.0, 8, 50.0), CardState("b", "{}", 0.0, 0.0, 3), \
CardState("c", "{}", 0.0, 0.0, 9, 10.0)]
    >>> [(x.template_id, x.lapses) for x in leeches(cards, str.upper)], leeches(cards, str.upper)[0].title
    ([('c', 9), ('a', 8)], 'C')
    """
    found = [
        Leech(c.template_id, title_of(c.template_id), c.lapses, c.suspended)
        for c in cards
        if c.suspended is not None
    ]
    return sorted(found, key=lambda x: (-x.lapses, -x.suspended, x.template_id))


def returned_to_study(card: CardState, now: float) -> CardState:
    """The card back in study at ``now`` (epoch seconds): no longer suspended, its schedule and lapses kept
    (it is a leech again at every half threshold more lapses, ``is_leech_lapse``); its review log says when.

    >>> back = returned_to_study(CardState("a", "{}", 0.0, 5.0, 8, 50.0, "[]"), 60.0)
    >>> back.suspended, back.lapses, back.review_log
    (None, 8, '[{"at":60.0,"returned":true}]')
    """
    return card.replace(suspended=None, review_log=review_log.appended(card, review_log.returned(now)))
