"""DrillSession: one question at a time, graded at once, with hints, skips, a score and a streak."""

from __future__ import annotations

import random
from collections.abc import Callable

from quizzer.bank.errors import TemplateError
from quizzer.bank.hints import Hint, hint_steps
from quizzer.bank.loader import Bank
from quizzer.bank.render import Instance, grade_context
from quizzer.bank.schema import Template
from quizzer.grading.grade import Mistake, Verdict, grade
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.records import RIGHT, Attempt, attempt_for


def grade_instance(instance: Instance, answer: str) -> Verdict:
    """Grade ``answer`` against an instance: its tolerance, its mistakes, then the built-in ones that fit it
    (its dtype, the layers in scope, the unit a bare number means)."""
    mistakes = [Mistake(m.name, m.value, m.feedback, m.title) for m in instance.mistakes]
    return grade(
        answer, instance.value, instance.unit, instance.tolerance, mistakes, context=grade_context(instance)
    )


def read_answer(instance: Instance, answer: str) -> str:
    """How ``answer`` would be read, for live feedback while typing ('' for empty input)."""
    if not answer.strip():
        return ""
    try:
        parsed = parse_answer(answer, instance.unit, instance.display_unit)
    except ParseError as exc:
        return f"✗ {exc.message}"
    return f"= {parsed.reading}"


class DrillSession:
    """A drill over the templates matching the filters; the same seed gives the same questions.

    Templates are validated as they are drawn, not up front, so a drill over a large bank starts at once:
    a candidate that does not match the filters, or is invalid, is dropped when it is first drawn.
    ``clock`` returns seconds (monotonic) and is only read to time answers; ``wall`` returns seconds
    since the epoch and stamps each attempt; ``on_attempt`` receives each attempt as it is graded
    (the history store commits it there).
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
    ) -> None:
        if template_id is not None:
            bank.get(template_id)  # KeyError or TemplateError now, not at the first draw
        self._bank = bank
        self.topic, self.difficulty, self.template_id = topic, difficulty, template_id
        self._filters = {"topic": topic, "difficulty": difficulty}
        self._candidates: list[str] = [template_id] if template_id is not None else bank.scanned_ids()
        self.seed = seed
        self._rng = random.Random(seed)
        self._clock = clock
        self._wall = wall or (lambda: 0.0)
        self.session_id = session_id
        self._on_attempt = on_attempt
        self.mode = mode
        self.attempts: list[Attempt] = []
        self.streak = 0
        self.best_streak = 0
        self.instance: Instance = self._draw()
        self.verdict: Verdict | None = None
        self.hints = 0
        self._started = clock()

    def _template(self, template_id: str) -> Template | None:
        """The template if it is valid and matches the filters (checked on the table as written first)."""
        raw = self._bank.peek(template_id)
        if raw is None or any(v is not None and raw.get(k) != v for k, v in self._filters.items()):
            return None
        try:
            return self._bank.get(template_id)
        except TemplateError:
            return None

    def _draw(self) -> Instance:
        while self._candidates:
            template_id = self._rng.choice(self._candidates)
            if self._template(template_id) is None:
                self._candidates.remove(template_id)
                continue
            try:
                return self._bank.generate(template_id, self._rng.randrange(1_000_000))
            except TemplateError:  # no instance can be made of it; the bank keeps the problem
                if len(self._candidates) == 1:
                    raise
                self._candidates.remove(template_id)
        raise ValueError("no template matches these filters")

    @property
    def answered(self) -> int:
        """Questions graded (skips included)."""
        return len(self.attempts)

    @property
    def right(self) -> int:
        return sum(a.verdict in RIGHT for a in self.attempts)

    @property
    def done(self) -> bool:
        """The current question has been graded or skipped."""
        return self.verdict is not None

    def preview(self, answer: str) -> str:
        """How ``answer`` reads, before it is graded."""
        return read_answer(self.instance, answer)

    def answer(self, text: str) -> Verdict:
        """Grade ``text``. Unreadable text grades nothing (the verdict says why); a grade is final."""
        if self.verdict is not None:
            return self.verdict
        verdict = grade_instance(self.instance, text)
        if verdict.kind == "unparsed":
            return verdict
        self.verdict = verdict
        self._record(text, verdict)
        return verdict

    def _record(self, text: str, verdict: Verdict | None) -> None:
        """Keep the attempt (``verdict`` None: skipped) and hand it to on_attempt."""
        attempt = attempt_for(
            self.instance,
            text,
            verdict,
            seconds=max(self._clock() - self._started, 0.0),
            hints=self.hints,
            mode=self.mode,
            at=self._wall(),
            session=self.session_id,
        )
        self.attempts.append(attempt)
        if self._on_attempt is not None:
            self._on_attempt(attempt)
        if attempt.right:
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
        else:
            self.streak = 0

    def hint(self) -> Hint | None:
        """Reveal the next hint: the nudges, then the derivation but its answer (None when all are shown);
        each one is counted."""
        hints = hint_steps(self.instance)
        if self.hints >= len(hints):
            return None
        self.hints += 1
        return hints[self.hints - 1]

    @property
    def revealed(self) -> tuple[Hint, ...]:
        """The hints revealed so far."""
        return hint_steps(self.instance)[: self.hints]

    def skip(self) -> Instance:
        """Give up on the current question (recorded as skipped) and move to the next."""
        if self.verdict is None:
            self._record("", None)
        return self.next()

    def next(self) -> Instance:
        """A fresh question."""
        self.instance = self._draw()
        return self._reset()

    def repeat(self) -> Instance:
        """The same question again, ungraded."""
        return self._reset()

    def _reset(self) -> Instance:
        self.verdict = None
        self.hints = 0
        self._started = self._clock()
        return self.instance
