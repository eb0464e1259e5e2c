"""A study card's review log: its reviews and returns to study, as the JSON text a CardState keeps.

Three kinds of entry, each a JSON object written with fixed keys in a fixed order (so a log's text is
canonical: the same entries give the same text, and an entry's text is its identity):

- a review: ``{"at": 1700000000.5, "rating": "good", "seconds": 41.2}`` (``seconds`` may be null);
- a return to study of a leech: ``{"at": 1700000000.5, "returned": true}``;
- a base: ``{"base": {"card_json": ..., "introduced": ..., "due": ..., "lapses": ..., "suspended": ...}}``,
  the card as it was when logging began, for a card from before logs were kept (its earlier reviews unknown).

A log is in the order things happened; ``canonical`` puts bases first, then the rest by time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from quizzer.session.records import CardState

#: An entry of a log, as written (its keys in the order above).
Entry = dict[str, Any]
#: The ratings a review may have (srs.RATINGS, worst first; srs imports this module, not the reverse).
RATINGS = ("again", "hard", "good", "easy")
_BASE_FIELDS = ("card_json", "introduced", "due", "lapses", "suspended")
_NUMBER = (int, float)
#: The latest time an entry may have (2100-01-01 UTC): fsrs adds up to a century to it without overflowing.
MAX_EPOCH_SECONDS = 4_102_444_800.0
#: The longest review an entry may say it took (a session left open for years is not one).
MAX_REVIEW_SECONDS = 1e9


def dumps(entry: Entry) -> str:
    """The text of one entry: compact JSON, keys in the order the entry has them."""
    return json.dumps(entry, separators=(",", ":"), allow_nan=False)


def review(at: float, rating: str, seconds: float | None) -> Entry:
    """A review entry (times as floats, so the same review always has the same text)."""
    return {"at": float(at), "rating": rating, "seconds": None if seconds is None else float(seconds)}


def returned(at: float) -> Entry:
    """A return-to-study entry."""
    return {"at": float(at), "returned": True}


def base(state: CardState) -> Entry:
    """The base entry of ``state``: the card as it stands, where a replay of a log without its past starts."""
    return {
        "base": {
            "card_json": state.card_json,
            "introduced": float(state.introduced),
            "due": float(state.due),
            "lapses": int(state.lapses),
            "suspended": None if state.suspended is None else float(state.suspended),
        }
    }


def entries_of(state: CardState | None) -> list[Entry]:
    """The entries of the log of ``state``: none for no card, its base alone for a card without a log."""
    if state is None:
        return []
    if state.review_log is None:
        return [base(state)]
    return [entry(obj) for obj in json.loads(state.review_log)]


def appended(state: CardState | None, added: Entry) -> str:
    """The log text of ``state`` (None: a new card) with ``added`` after its entries.

    >>> appended(None, review(10, "good", None))
    '[{"at":10.0,"rating":"good","seconds":null}]'
    """
    before = "[]" if state is None else state.review_log
    if before is None:  # a card from before logs were kept: its state is the base
        before = text([base(state)]) if state is not None else "[]"
    return f"{before[:-1]}{',' if before != '[]' else ''}{dumps(added)}]"


def text(entries: Iterable[Entry]) -> str:
    """The log text of ``entries``, in the order given."""
    return f"[{','.join(dumps(e) for e in entries)}]"


def canonical(entries: Iterable[Entry]) -> list[Entry]:
    """``entries`` each once (by its text), bases first (by their text), then by time, a review before a
    return at the same time, then by text: the order a merged log is kept and replayed in."""
    unique = {dumps(e): e for e in entries}
    return [unique[t] for t in sorted(unique, key=lambda t: _order(unique[t], t))]


def _order(e: Entry, t: str) -> tuple[int, float, int, str]:
    if "base" in e:
        return 0, 0.0, 0, t
    return 1, e["at"], 0 if "rating" in e else 1, t


def entry(obj: Any) -> Entry:
    """The entry of a decoded JSON value, rebuilt with its keys in order; ValueError naming what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError("an entry is not a JSON object")
    keys = set(obj)
    if keys == {"base"}:
        return _base(obj["base"])
    if keys == {"at", "returned"}:
        if obj["returned"] is not True:
            raise ValueError("a return's 'returned' is true")
        return returned(_time(obj["at"], "at"))
    if keys == {"at", "rating", "seconds"}:
        if obj["rating"] not in RATINGS:
            raise ValueError(f"a review's rating is one of {', '.join(RATINGS)}, not {obj['rating']!r}")
        seconds = obj["seconds"]
        if seconds is not None and not (_is_number(seconds) and 0 <= seconds <= MAX_REVIEW_SECONDS):
            raise ValueError(f"a review's 'seconds' is a number from 0 to {MAX_REVIEW_SECONDS:g}, or null")
        return review(_time(obj["at"], "at"), obj["rating"], seconds)
    raise ValueError(
        "an entry is a review (at, rating, seconds), a return (at, returned) or a base (base); "
        f"this one has {', '.join(sorted(keys)) or 'no keys'}"
    )


def _base(fields: Any) -> Entry:
    if not isinstance(fields, dict) or set(fields) != set(_BASE_FIELDS):
        raise ValueError(f"a base has exactly {', '.join(_BASE_FIELDS)}")
    if not isinstance(fields["card_json"], str):
        raise ValueError("a base's card_json is a string")
    lapses = fields["lapses"]
    if not isinstance(lapses, int) or isinstance(lapses, bool) or lapses < 0:
        raise ValueError("a base's lapses is a whole number, 0 or more")
    suspended = fields["suspended"]
    state = CardState(
        "",
        fields["card_json"],
        _time(fields["introduced"], "introduced"),
        _time(fields["due"], "due"),
        lapses,
        None if suspended is None else _time(suspended, "suspended"),
    )
    return base(state)


def _time(value: Any, name: str) -> float:
    """``value`` as epoch seconds; ValueError unless a number from 0 (1970) to MAX_EPOCH_SECONDS (2100)."""
    if not _is_number(value) or not 0 <= value <= MAX_EPOCH_SECONDS:
        raise ValueError(f"{name!r} is a time in seconds since the epoch, from 1970 to 2100")
    return float(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def base_state(template_id: str, e: Entry) -> CardState:
    """The card a base entry holds, without a log (a replay appends its reviews to it)."""
    fields = e["base"]
    return CardState(template_id, **fields)
