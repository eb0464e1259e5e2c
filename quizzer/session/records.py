"""Attempt and CardState: what the history store persists."""

from __future__ import annotations

from typing import Any

from quizzer.core.record import Record

#: Verdicts an attempt can have: the grader's four, plus a skip, plus a mock question left unanswered
#: when its time ran out.
VERDICTS = ("exact", "correct", "close", "wrong", "skipped", "timed-out")
#: Verdicts that count as right.
RIGHT = frozenset({"exact", "correct"})
#: Where an attempt was made.
MODES = ("drill", "mock", "study", "plain")


class Attempt(Record):
    """A graded attempt at one instance."""

    template_id: str
    seed: int
    variables: dict[str, Any]
    answer: str
    """The answer as typed ('' for a skip or a time-out)."""
    value: int | float | None
    """The value read from the answer (None when skipped or timed out)."""
    expected: int | float
    unit: str
    verdict: str
    """One of VERDICTS."""
    rel_error: float | None
    mistake: str | None
    seconds: float
    """Time spent on the question (monotonic clock)."""
    hints: int
    mode: str = "drill"
    """One of MODES."""
    at: float = 0.0
    """When it was graded: seconds since the epoch (wall clock, UTC)."""
    session: str = ""
    """The id of the drill, mock or study session it belongs to."""
    topic: str = ""
    """The template's topic when it was answered (stats group by it)."""
    minutes: float = 0.0
    """The template's expected minutes when it was answered."""

    @property
    def right(self) -> bool:
        return self.verdict in RIGHT


class CardState(Record):
    """A template's spaced-repetition state: fsrs's card, as JSON, and when the template was introduced."""

    template_id: str
    card_json: str
    introduced: float
    """Seconds since the epoch when the template was first studied (for the daily limit of new ones)."""
    due: float
    """Seconds since the epoch when it is next due (a copy of the card's due, for queries)."""
