"""One card from two machines' reviews: the logs merged, then replayed in time order through fsrs.

A template's card is what study would have made of every review of it, in the order they happened: the
fsrs schedule, its lapses (reviews rated "again"), and a leech's suspension by this machine's threshold
(``is_leech_review``), undone by a return to study at its time. A card from before logs were kept has a base
(its state when logging began); with several, the one last reviewed is where the replay starts, and only
what happened after it is replayed on it (what came before is in it, or cannot be placed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

import fsrs

from quizzer.core.record import Record
from quizzer.session import review_log
from quizzer.session.records import CardState
from quizzer.session.review_log import Entry
from quizzer.session.srs import LEECH_LAPSES, Scheduler, is_leech_review, last_review


class Merged(Record):
    """A card's merged log: its entries in canonical order, and how many the other machine added."""

    entries: tuple[Entry, ...]
    added: int
    """Entries (reviews, returns, bases) this machine's log lacked."""
    reviews: int
    """Of them, reviews."""


def merge(local: CardState | None, incoming: Iterable[Entry]) -> Merged:
    """The log of ``local`` (None: no card here) and ``incoming``, each entry once (by its text).

    >>> r = review_log.review
    >>> here = Scheduler().review(None, "t", "good", 10.0)
    >>> m = merge(here, [r(10.0, "good", None), r(5.0, "again", 3.0)])
    >>> [e["at"] for e in m.entries], m.added, m.reviews
    ([5.0, 10.0], 1, 1)
    """
    mine = review_log.entries_of(local)
    known = {review_log.dumps(e) for e in mine}
    new = {review_log.dumps(e): e for e in incoming if review_log.dumps(e) not in known}
    return Merged(
        tuple(review_log.canonical([*mine, *new.values()])),
        len(new),
        sum("rating" in e for e in new.values()),
    )


def replay(
    template_id: str,
    entries: Iterable[Entry],
    scheduler: Scheduler,
    *,
    leech_lapses: int = LEECH_LAPSES,
) -> CardState | None:
    """The card of ``template_id`` after its log ``entries``, replayed in canonical order; its review log
    is those entries. None when nothing in them makes a card (returns only)."""
    ordered = review_log.canonical(entries)
    bases = [e for e in ordered if "base" in e]
    state: CardState | None = None
    since = -math.inf
    if bases:
        states = [review_log.base_state(template_id, e) for e in bases]
        state = max(states, key=lambda s: (_reviewed_at(s), json.dumps(review_log.base(s))))
        since = _reviewed_at(state)
    for e in ordered:
        if "base" in e or e["at"] <= since:
            continue
        if "rating" in e:
            state = scheduler.review(state, template_id, e["rating"], e["at"], seconds=e["seconds"])
            if is_leech_review(state, e["rating"], leech_lapses):
                state = state.replace(suspended=e["at"])
        elif state is not None:
            state = state.replace(suspended=None)
    return None if state is None else state.replace(review_log=review_log.text(ordered))


def _reviewed_at(state: CardState) -> float:
    """When a base card was last reviewed; -inf if never (or its card cannot say)."""
    try:
        reviewed = last_review(state)
    except (ValueError, KeyError, TypeError):
        return -math.inf
    return -math.inf if reviewed is None else reviewed


def check_card_json(card_json: str) -> None:
    """ValueError unless ``card_json`` is a card fsrs reads (a base's card, from another machine's file)."""
    try:
        fsrs.Card.from_json(card_json)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"a base's card_json is not an fsrs card ({type(exc).__name__}: {exc})") from None
