"""DrillSession: one question turn at a time, graded at once, with a score and an in-a-row streak."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.hints import Hint
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.grading.grade import Verdict
from quizzer.session.progress import UNANSWERED, TemplateProgress, time_ratio, with_answer
from quizzer.session.records import RIGHT, Attempt
from quizzer.session.turn import Turn, grade_instance, read_answer

__all__ = ["ORDERS", "DrillSession", "grade_instance", "read_answer"]

#: The orders a drill draws its templates in: uniformly, the weakest by recent accuracy first, or the
#: templates never answered first. None draws the same template twice in a row (unless it is the only one).
ORDERS = ("random", "weakest", "unseen", "slowest")


class DrillSession:
    """A drill over the templates matching the filters; the same seed gives the same questions.

    Templates are validated as they are drawn, not up front, so a drill over a large bank starts at once:
    a candidate that does not match the filters, or is invalid, is dropped when it is first drawn.
    ``seed`` means what it means everywhere: with ``template_id``, the first question is
    ``template_id#seed``; the later ones (and, without a template, the templates) are drawn from a
    ``random.Random(seed)``. ``clock`` returns seconds (monotonic) and times answers; ``wall`` returns
    seconds since the epoch and stamps each attempt; ``on_attempt`` receives each attempt as it is made
    (graded or skipped: the history store commits it there).

    ``order`` is one of ORDERS. "weakest" and "unseen" read ``progress`` (each template's answers so far,
    from the history: ``template_progress(attempts)``), updated by the drill's own answers: "weakest" goes
    through the answered templates by recent accuracy, lowest first (then the unanswered ones), "unseen"
    through the never-answered templates first, "slowest" through the answered ones by their median time
    against expected minutes, slowest first; each ranks again once it has been through them all.
    ``plan`` lists templates asked first, in that order (a placement drill); the order takes over after.
    ``only`` (when not empty) keeps just those templates among the ones the filters match (a cram session's
    weakest, the leeches); ``mode`` is what the attempts record ("drill", "cram").
    """

    def __init__(
        self,
        bank: Bank,
        *,
        seed: int,
        clock: Callable[[], float],
        topic: str | None = None,
        difficulty: str | None = None,
        template_id: str | None = None,
        wall: Callable[[], float] | None = None,
        session_id: str = "",
        on_attempt: Callable[[Attempt], None] | None = None,
        mode: str = "drill",
        order: str = "random",
        progress: Mapping[str, TemplateProgress] | None = None,
        plan: Sequence[str] = (),
        only: Sequence[str] = (),
        lazy: bool = False,
    ) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r}: one of {', '.join(ORDERS)}")
        if template_id is not None:
            bank.get(template_id)  # KeyError or TemplateError now, not at the first draw
        self._bank = bank
        self.topic, self.difficulty, self.template_id = topic, difficulty, template_id
        self._candidates: list[str] = (
            [template_id]
            if template_id is not None
            else bank.matching_ids(topic=topic, difficulty=difficulty)
        )
        if only:
            kept = set(only)
            self._candidates = [t for t in self._candidates if t in kept]
        self.seed = seed
        self.lazy = lazy
        """Questions are drawn lazily (``Bank.generate``): the caller makes the rest (``completed``)."""
        self._rng = random.Random(seed)
        self._clock = clock
        self._wall = wall or (lambda: 0.0)
        self.session_id = session_id
        self._on_attempt = on_attempt
        self.mode = mode
        self.order = order
        self._progress: dict[str, TemplateProgress] = dict(progress or {})
        self._queue: list[str] = []
        """The templates still to draw in this round of a "weakest" or "unseen" order, next last."""
        self._last: str | None = None
        self.plan: tuple[str, ...] = tuple(t for t in plan if t in self._candidates)
        """The planned templates (those the filters keep), asked first in this order."""
        self._planned = list(reversed(self.plan))
        self.attempts: list[Attempt] = []
        """Every attempt of the drill, skips included (a skip has the verdict "skipped")."""
        self.streak = 0
        """Right answers in a row (a wrong answer or a skip ends it)."""
        self.best_streak = 0
        self.turn: Turn = self._turn(self._draw(first_seed=seed if template_id is not None else None))

    def _template(self, template_id: str) -> Template | None:
        """The template if it is valid (the filters were applied to the tables as written)."""
        try:
            return self._bank.get(template_id)
        except (KeyError, TemplateError):
            return None

    def _ranked(self) -> list[str]:
        """A round of the "weakest" or "unseen" order, the first to draw last (so pop() takes it)."""
        keyed: list[tuple[tuple[float, ...], str]] = []
        for template_id in self._candidates:
            progress = self._progress.get(template_id)
            tiebreak = self._rng.random()
            if self.order == "unseen":
                keyed.append(((progress is not None, tiebreak), template_id))
            elif self.order == "slowest":  # slowest against its expected minutes first, never timed last
                slowness = None if progress is None else progress.slowness
                keyed.append(((slowness is None, -(slowness or 0.0), tiebreak), template_id))
            else:
                accuracy = None if progress is None else progress.recent_accuracy
                keyed.append(((accuracy is None, accuracy or 0.0, tiebreak), template_id))
        keyed.sort(reverse=True)
        return [template_id for _, template_id in keyed]

    def _choose(self) -> str:
        """The next template in the drill's order; never the last one drawn while another remains."""
        while self._planned:
            template_id = self._planned.pop()
            if template_id in self._candidates:
                return template_id
        others = [t for t in self._candidates if t != self._last] or self._candidates
        if self.order == "random":
            return self._rng.choice(others)
        while True:
            if not self._queue:
                self._queue = self._ranked()
                if len(self._queue) > 1 and self._queue[-1] == self._last:
                    self._queue.insert(-1, self._queue.pop())  # the next in rank first
            template_id = self._queue.pop()
            if template_id in others:
                return template_id

    def _draw(self, first_seed: int | None = None) -> Instance:
        while self._candidates:
            template_id = self._choose() if first_seed is None else self._rng.choice(self._candidates)
            if self._template(template_id) is None:
                self._candidates.remove(template_id)
                continue
            seed = self._rng.randrange(1_000_000) if first_seed is None else first_seed
            try:
                instance = self._bank.generate(template_id, seed, lazy=self.lazy)
                self._last = template_id
                return instance
            except TemplateError:  # no instance can be made of it; the bank keeps the problem
                if len(self._candidates) == 1:
                    raise
                self._candidates.remove(template_id)
        raise ValueError("no template matches these filters")

    def _turn(self, instance: Instance) -> Turn:
        return Turn(
            instance,
            clock=self._clock,
            wall=self._wall,
            mode=self.mode,
            session_id=self.session_id,
            on_attempt=self._recorded,
            template=self._template(instance.template_id),
        )

    def _recorded(self, attempt: Attempt) -> None:
        """Keep the attempt the turn made, count it, and hand it to on_attempt."""
        self.attempts.append(attempt)
        if attempt.verdict not in UNANSWERED:
            template_id = attempt.template_id
            self._progress[template_id] = with_answer(
                self._progress.get(template_id), template_id, attempt.right, time_ratio(attempt)
            )
        if attempt.right:
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
        else:
            self.streak = 0
        if self._on_attempt is not None:
            self._on_attempt(attempt)

    # --- the current turn ----------------------------------------------------------------------------

    @property
    def instance(self) -> Instance:
        return self.turn.instance

    @property
    def verdict(self) -> Verdict | None:
        return self.turn.verdict

    @property
    def hints(self) -> int:
        return self.turn.hints

    @property
    def done(self) -> bool:
        """The current question has been graded or skipped."""
        return self.turn.done

    def preview(self, answer: str) -> str:
        """How ``answer`` reads, before it is graded."""
        return self.turn.preview(answer)

    def answer(self, text: str) -> Verdict:
        """Grade ``text``. Unreadable text grades nothing (the verdict says why); a grade is final."""
        return self.turn.answer(text)

    def hint(self) -> Hint | None:
        """Reveal the next hint (nudges, then the derivation but its answer); each one is counted."""
        return self.turn.hint()

    @property
    def revealed(self) -> tuple[Hint, ...]:
        """The hints revealed so far."""
        return self.turn.revealed

    def skip(self) -> Instance:
        """Give up on the part being asked (recorded as a skip; it ends the streak) and stay on the
        question: the screen shows that part's answer (and the next part of a chain, or the explanation),
        and ``next`` moves on."""
        self.turn.skip()
        return self.instance

    def completed(self) -> TemplateError | None:
        """Make the rest of the current question (a lazy one's later parts and teaching texts): None once
        made; else the error, its template dropped from this drill (when another remains: then the caller
        asks ``next``; the only one's error is for the caller to show)."""
        try:
            self._bank.completed(self.instance)
        except TemplateError as exc:
            template_id = self.instance.template_id
            if len(self._candidates) > 1 and template_id in self._candidates:
                self._candidates.remove(template_id)
            return exc
        return None

    @property
    def has_others(self) -> bool:
        """Another template than the current question's can be drawn."""
        return any(t != self.instance.template_id for t in self._candidates)

    def next(self) -> Instance:
        """A fresh question (the parts of an open one not yet answered are left unrecorded)."""
        self.turn = self._turn(self._draw())
        return self.instance

    def repeat(self) -> Instance:
        """The same question again, ungraded."""
        self.turn = self._turn(self.instance)
        return self.instance

    @property
    def plan_done(self) -> bool:
        """Every planned template has been answered or skipped (False without a plan)."""
        return bool(self.plan) and {a.template_id for a in self.attempts} >= set(self.plan)

    # --- the score -----------------------------------------------------------------------------------

    @property
    def answered(self) -> int:
        """Questions graded (skips are not answers: they are counted apart)."""
        return sum(a.verdict != "skipped" for a in self.attempts)

    @property
    def skipped(self) -> int:
        return sum(a.verdict == "skipped" for a in self.attempts)

    @property
    def right(self) -> int:
        return sum(a.verdict in RIGHT for a in self.attempts)
