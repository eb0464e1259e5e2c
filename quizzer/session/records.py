"""Attempt and CardState: what the history store persists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quizzer.core.record import Record

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance
    from quizzer.grading.grade import Verdict

#: Verdicts an attempt can have: the grader's five, "consistent" (a part of a chain right against the
#: user's own wrong earlier answers), a skip, and a mock question left unanswered when its time ran out.
#: "imprecise" (the right value rounded to too few figures) is not right.
VERDICTS = ("exact", "correct", "consistent", "imprecise", "close", "wrong", "skipped", "timed-out")
#: Verdicts that count as right.
RIGHT = frozenset({"exact", "correct", "consistent"})
#: Where an attempt was made.
MODES = ("drill", "mock", "study", "plain", "cram")


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
    mistake_title: str | None = None
    """The matched mistake's human title ("Untied head left out"), shown where its id would be."""
    part: int | None = None
    """The part of a multi-part question (1 is the main question); None for a question of one part."""
    carried: dict[str, Any] | None = None
    """The earlier answers ({"1": value}) this part was graded against when they were wrong and it was
    consistent with them; None otherwise."""

    @property
    def right(self) -> bool:
        return self.verdict in RIGHT


def attempt_for(
    instance: Instance,
    answer: str,
    verdict: Verdict | None,
    *,
    unanswered: str = "skipped",
    seconds: float,
    hints: int,
    mode: str,
    at: float,
    session: str,
) -> Attempt:
    """The Attempt at ``instance``: graded by ``verdict``, or, with no verdict, recorded as ``unanswered``
    ("skipped" or "timed-out"), keeping ``answer`` (what was typed, if anything: a mock's unread text)."""
    if verdict is None:
        value, kind, rel_error, mistake, title = None, unanswered, None, None, None
    else:
        value = verdict.given.value if verdict.given else None
        kind, rel_error, mistake = verdict.kind, verdict.rel_error, verdict.mistake
        title = verdict.mistake_title
    return Attempt(
        instance.template_id,
        instance.seed,
        instance.variables,
        answer,
        value,
        instance.value,
        instance.unit,
        kind,
        rel_error,
        mistake,
        seconds,
        hints,
        mode,
        at,
        session,
        instance.topic,
        instance.minutes,
        title,
    )


class CardState(Record):
    """A template's spaced-repetition state: fsrs's card, as JSON, and when the template was introduced."""

    template_id: str
    card_json: str
    introduced: float
    """Seconds since the epoch when the template was first studied (for the daily limit of new ones)."""
    due: float
    """Seconds since the epoch when it is next due (a copy of the card's due, for queries)."""
    lapses: int = 0
    """Study reviews of it rated "again" (fsrs's card does not count them): a leech past a threshold."""
    suspended: float | None = None
    """When it was suspended from study as a leech (epoch seconds); None while it is studied."""
    review_log: str | None = None
    """Every review of the card (when, rated what, in how many seconds) and every return to study, as
    JSON text (quizzer.session.review_log): what a merge of two machines' histories replays. None: a card
    from before logs were kept, its earlier reviews unknown (its state is where a replay starts)."""


class CardRemoved(Record):
    """The card of a template is dropped from the schedule (the undo of its first review): the template is
    new again."""

    template_id: str


class SessionMark(Record):
    """A timed session's start and end in the history: a mock whose ``finished`` stays None was left
    unfinished (the app crashed or was killed), and Stats says so."""

    session: str
    mode: str
    started: float
    """Seconds since the epoch (wall clock)."""
    planned: int
    """The questions it was to ask."""
    finished: float | None = None
    plan: tuple[str, ...] = ()
    """The template ids it was to ask, in order (a placement drill: what resuming it asks)."""
    minutes: float | None = None
    """Its time limit (a mock's), None when it had none or was recorded before limits were kept."""


#: What the store persists, one at a time.
Item = Attempt | CardState | CardRemoved | SessionMark
