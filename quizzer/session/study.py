"""StudySession: due templates first, then new ones within a daily limit, scheduled by fsrs."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.hints import Hint
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.record import Record
from quizzer.grading.grade import Verdict
from quizzer.session.queue import study_counts
from quizzer.session.records import RIGHT, Attempt, CardState
from quizzer.session.srs import LEECH_LAPSES, RATINGS, Scheduler, due, is_leech_review, rating_reason
from quizzer.session.turn import Turn


class StudySession:
    """A spaced-repetition session over ``template_ids``; the same seed and clocks give the same session.

    ``cards`` maps template ids to their stored state (the session keeps its own copy and updates it).
    A question is the earliest due card, else a new template (in a seeded random order) while the daily
    limit allows (``new_per_day - new_today``), else nothing (``instance`` is None). Invalid or unknown ids
    are dropped when drawn. Grading every part proposes a rating (``rating_for_parts``); the user may
    ``override`` it; ``next`` commits the review at ``wall()`` and draws the next question.
    ``clock`` (monotonic seconds) times answers; ``wall`` (epoch seconds, UTC) stamps attempts, schedules
    reviews and decides what is due; ``on_attempt`` and ``on_review`` receive what the store persists, and
    ``on_remove`` the template whose card an undo drops (it was new). A review rated "again" that is the
    card's ``leech_lapses``-th lapse (``is_leech_lapse``) suspends it: ``leech`` names it until the next
    question, and a suspended card is never drawn.

    ``plan`` (studying toward a date: ``deadline_plan(...).today.template_ids``) is today's planned
    reviews: they are drawn first, in order, each once, due or not, a new one whatever the daily limit
    (the plan introduces its own); then the session goes on as without one. None: no plan.
    """

    def __init__(
        self,
        bank: Bank,
        cards: dict[str, CardState],
        *,
        template_ids: list[str],
        seed: int,
        clock: Callable[[], float],
        wall: Callable[[], float],
        new_per_day: int,
        new_today: int,
        scheduler: Scheduler | None = None,
        session_id: str = "",
        on_attempt: Callable[[Attempt], None] | None = None,
        on_review: Callable[[CardState], None] | None = None,
        on_remove: Callable[[str], None] | None = None,
        leech_lapses: int = LEECH_LAPSES,
        plan: Sequence[str] | None = None,
    ) -> None:
        self._bank = bank
        self._cards = dict(cards)
        self._candidates = list(dict.fromkeys(template_ids))
        self._rng = random.Random(seed)
        self._new_order = [t for t in self._candidates if t not in self._cards]
        self._rng.shuffle(self._new_order)
        self._new_left = max(new_per_day - new_today, 0)
        self._clock, self._wall = clock, wall
        self._scheduler = scheduler or Scheduler()
        self._on_attempt, self._on_review, self._on_remove = on_attempt, on_review, on_remove
        self._leech_lapses = leech_lapses
        self._planned = list(dict.fromkeys(plan or ()))
        self._planned_done: list[str] = []
        self.leech: str | None = None
        """The template the last commit suspended as a leech; None when it suspended none."""
        self.leeches: list[str] = []
        """Every template this session suspended as a leech, in order."""
        self.session_id = session_id
        self.attempts: list[Attempt] = []
        self.reviewed = 0
        """Reviews committed."""
        self.right = 0
        """Committed reviews whose answer was right."""
        self.introduced = 0
        """Committed reviews of templates new to the schedule."""
        self.proposed: str | None = None
        self.rating: str | None = None
        self.reason = ""
        """Why the proposed rating ("hard: right, but 2 hints"); '' before it is proposed."""
        self._undo: list[_Committed] = []
        self.turn: Turn | None = self._turn(self._draw())

    def title(self, template_id: str) -> str:
        """The template's title, or its id if it is not valid."""
        template = self._template_of(template_id)
        return template.title if template is not None else template_id

    @property
    def cards(self) -> dict[str, CardState]:
        """The session's card states (a copy), updated by every commit."""
        return dict(self._cards)

    @property
    def due_count(self) -> int:
        """Cards due now among the candidates (the current question's included until it is committed)."""
        return self.counts()[0]

    @property
    def new_count(self) -> int:
        """New templates still allowed today (the current one included until it is committed).

        An invalid template not drawn yet is counted: templates are checked only when drawn.
        """
        return self.counts()[1]

    def counts(self) -> tuple[int, int]:
        """(due now, new still allowed today): what Home and the status line show."""
        fresh = [t for t in self._new_order if t not in self._cards]
        return study_counts(self._cards, self._candidates, self._wall(), self._new_left, fresh)

    @property
    def instance(self) -> Instance | None:
        """The question being studied; None when nothing is due and no new template is left today."""
        return self.turn.instance if self.turn is not None else None

    @property
    def verdict(self) -> Verdict | None:
        return self.turn.verdict if self.turn is not None else None

    @property
    def hints(self) -> int:
        return self.turn.hints if self.turn is not None else 0

    @property
    def done(self) -> bool:
        """The current question has been graded or skipped (it has a rating to commit)."""
        return self.proposed is not None

    def _generate(self, template_id: str) -> Instance | None:
        try:
            return self._bank.generate(template_id, self._rng.randrange(1_000_000))
        except (KeyError, TemplateError):
            self._candidates.remove(template_id)
            if template_id in self._new_order:
                self._new_order.remove(template_id)
            return None

    @property
    def planned_left(self) -> list[str]:
        """Today's planned reviews not yet committed (the current question's included), in order."""
        return [t for t in self._planned if t not in self._planned_done and t in self._candidates]

    def _draw(self) -> Instance | None:
        for template_id in self.planned_left:
            card = self._cards.get(template_id)
            if card is not None and card.suspended is not None:
                continue
            instance = self._generate(template_id)
            if instance is not None:
                return instance
        candidates = set(self._candidates)
        for card in due((c for t, c in self._cards.items() if t in candidates), self._wall()):
            instance = self._generate(card.template_id)
            if instance is not None:
                return instance
        while self._new_left > 0:
            fresh = [t for t in self._new_order if t not in self._cards]
            if not fresh:
                break
            instance = self._generate(fresh[0])
            if instance is not None:
                return instance
        return None

    def _turn(self, instance: Instance | None) -> Turn | None:
        if instance is None:
            return None
        return Turn(
            instance,
            clock=self._clock,
            wall=self._wall,
            mode="study",
            session_id=self.session_id,
            on_attempt=self._recorded,
            template=self._template_of(instance.template_id),
        )

    def _template_of(self, template_id: str) -> Template | None:
        try:
            return self._bank.get(template_id)
        except (KeyError, TemplateError):
            return None

    def _recorded(self, attempt: Attempt) -> None:
        """The turn made an attempt at a part (graded or skipped): keep it, hand it on, and once every
        part is done propose the question's rating from all of them (``rating_for_parts``)."""
        self.attempts.append(attempt)
        turn = self.turn
        if turn is not None and turn.done:
            parts = turn.attempts
            self.proposed, self.reason = rating_reason(
                [a.verdict for a in parts],
                sum(a.seconds for a in parts),
                turn.instance.minutes,
                sum(a.hints for a in parts),
            )
            self.rating = self.proposed
        if self._on_attempt is not None:
            self._on_attempt(attempt)

    def preview(self, text: str) -> str:
        """How ``text`` reads, before it is graded ('' when there is no question)."""
        return self.turn.preview(text) if self.turn is not None else ""

    def answer(self, text: str) -> Verdict:
        """Grade ``text``. Unreadable text grades nothing (the verdict says why); a grade is final."""
        if self.turn is None:
            raise ValueError("nothing to study now")
        return self.turn.answer(text)  # a readable answer is recorded, and rated, by _recorded

    def hint(self) -> Hint | None:
        """Reveal the next hint (nudges, then the derivation but its answer; None when all are shown, or no
        question); each is counted."""
        return self.turn.hint() if self.turn is not None else None

    @property
    def revealed(self) -> tuple[Hint, ...]:
        """The hints revealed so far."""
        return self.turn.revealed if self.turn is not None else ()

    def skip(self) -> None:
        """Give up on the part being asked: a skipped attempt (nothing once every part is done). Skipping
        part 1 rates the question "again"; a later part's skip counts as that part not right."""
        if self.turn is None or self.done:
            return
        self.turn.skip()  # rated by _recorded once every part is done

    def override(self, rating: str) -> None:
        """Replace the proposed rating with the user's (one of RATINGS), once graded or skipped."""
        if rating not in RATINGS:
            raise ValueError(f"unknown rating {rating!r}; expected one of {', '.join(RATINGS)}")
        if not self.done:
            raise ValueError("grade or skip the question before rating it")
        self.rating = rating

    def finish(self) -> None:
        """Leave: commit the current question's review if it was graded or skipped, and drop the question."""
        self._commit()
        self.turn = None
        self._undo.clear()  # a session left is over: nothing to undo

    def intervals(self) -> dict[str, float]:
        """Each rating's next interval for the current question's card (seconds from now; the card is not
        changed); empty when there is no question."""
        if self.instance is None:
            return {}
        template_id = self.instance.template_id
        return self._scheduler.preview(self._cards.get(template_id), template_id, self._wall())

    def _commit(self) -> None:
        if self.instance is None or self.rating is None or self.turn is None:
            return
        template_id = self.instance.template_id
        before = self._cards.get(template_id)
        seconds = sum(a.seconds for a in self.turn.attempts)
        now = self._wall()
        state = self._scheduler.review(before, template_id, self.rating, now, seconds=seconds)
        self.leech = None
        if is_leech_review(state, self.rating, self._leech_lapses):
            state = state.replace(suspended=now)
            self.leech = template_id
            self.leeches.append(template_id)
        self._cards[template_id] = state
        right = all(a.verdict in RIGHT for a in self.turn.attempts)
        planned = template_id in self._planned and template_id not in self._planned_done
        if planned:
            self._planned_done.append(template_id)
        self._undo.append(
            _Committed(
                self.turn, before, self.rating, self.proposed or self.rating, self.reason, right, planned
            )
        )
        if before is None:
            self._new_left = max(self._new_left - 1, 0)
            self.introduced += 1
        self.reviewed += 1
        self.right += right
        if self._on_review is not None:
            self._on_review(state)
        self.proposed = self.rating = None
        self.reason = ""

    @property
    def can_undo(self) -> bool:
        """A committed review can be undone: there is one, and the current question is not started."""
        return bool(self._undo) and (self.turn is None or not self.turn.results)

    def undo(self) -> bool:
        """Undo the last committed review: its card goes back exactly to its state before (written through
        ``on_review``; a card that was new is dropped through ``on_remove``: its template is new again) and
        its question is current again, graded, with the rating that was committed, to rate again. The current
        question, not started, is put back (it is drawn again). Attempts stay: the history keeps both.
        False (nothing done) when ``can_undo`` is not."""
        if not self.can_undo:
            return False
        last = self._undo.pop()
        template_id = last.turn.instance.template_id
        if (
            self.leeches
            and self.leeches[-1] == template_id
            and self._cards[template_id].suspended is not None
        ):
            self.leeches.pop()
        self.leech = None
        if last.planned:
            self._planned_done.remove(template_id)
        if last.before is None:
            del self._cards[template_id]
            self._new_left += 1
            self.introduced -= 1
            if self._on_remove is not None:
                self._on_remove(template_id)
        else:
            self._cards[template_id] = last.before
            if self._on_review is not None:
                self._on_review(last.before)
        self.reviewed -= 1
        self.right -= last.right
        self.turn = last.turn
        self.proposed, self.rating, self.reason = last.proposed, last.rating, last.reason
        return True

    def summary(self) -> StudySummary:
        """What this session did so far (``study_summary`` of its counts and its candidates' due dates)."""
        candidates = set(self._candidates)
        dues = [c.due for t, c in self._cards.items() if t in candidates and c.suspended is None]
        return study_summary(self.reviewed, self.right, self.introduced, dues).replace(
            leeches=len(self.leeches)
        )

    def next(self) -> Instance | None:
        """Commit the review (an ungraded question is skipped first), then draw the next question.

        With no question (nothing was due), draw again: a card may have fallen due since.
        """
        self.leech = None
        if self.turn is not None:
            self.turn.skip_rest()  # rated by _recorded
            self._commit()
        self.turn = self._turn(self._draw())
        self.proposed = self.rating = None
        self.reason = ""
        return self.instance


class _Committed(Record):
    """A committed review, as ``undo`` needs it: the question's turn, the card before, the proposal."""

    turn: Turn
    before: CardState | None
    rating: str
    proposed: str
    reason: str
    right: bool
    planned: bool = False
    """It was the first review of a template in today's plan."""


class StudySummary(Record):
    """The end of a study session: reviews committed, how many right and new, when the next card is due
    (epoch seconds; None when no card is scheduled) and this session's retention (right / reviewed; None
    before any review)."""

    reviewed: int
    right: int
    new: int
    next_due: float | None
    retention: float | None
    leeches: int = 0
    """Templates the session suspended as leeches."""


def study_summary(reviewed: int, right: int, new: int, dues: Iterable[float]) -> StudySummary:
    """The summary of a session of ``reviewed`` reviews (``right`` of them right, ``new`` of templates new
    to the schedule), its cards due at ``dues``.

    >>> study_summary(4, 3, 1, [30.0, 10.0])
    StudySummary(reviewed=4, right=3, new=1, next_due=10.0, retention=0.75, leeches=0)
    """
    upcoming = list(dues)
    return StudySummary(
        reviewed,
        right,
        new,
        min(upcoming) if upcoming else None,
        right / reviewed if reviewed else None,
    )
