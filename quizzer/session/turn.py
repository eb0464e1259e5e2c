"""Turn: one question turn (instance, clock, hints, preview, answer, skip, verdict) and its Attempt."""

from __future__ import annotations

from collections.abc import Callable

from quizzer.bank.hints import Hint, hint_steps
from quizzer.bank.render import Instance, grade_context
from quizzer.grading.grade import Mistake, Verdict, grade
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.records import Attempt, attempt_for


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


class Turn:
    """One question: answered once (a grade is final), or skipped; hints counted; timed on ``clock``.

    ``clock`` (monotonic seconds) times the turn from construction; ``wall`` (epoch seconds) stamps the
    attempt; ``on_attempt`` receives it the moment it is made (graded or skipped). An unreadable answer
    grades nothing and records nothing: the verdict says what was understood.
    """

    def __init__(
        self,
        instance: Instance,
        *,
        clock: Callable[[], float],
        wall: Callable[[], float],
        mode: str,
        session_id: str = "",
        on_attempt: Callable[[Attempt], None] | None = None,
    ) -> None:
        self.instance = instance
        self.mode = mode
        self.session_id = session_id
        self._clock, self._wall, self._on_attempt = clock, wall, on_attempt
        self.started = clock()
        """When the turn began (monotonic seconds)."""
        self.hints = 0
        """Hints revealed so far (each is counted in the attempt)."""
        self.verdict: Verdict | None = None
        """The grade, once answered (never an unparsed one)."""
        self.attempt: Attempt | None = None
        """What was recorded: the graded answer or the skip; None while the turn is open."""

    @property
    def done(self) -> bool:
        """Answered or skipped: nothing more can change the turn."""
        return self.attempt is not None

    @property
    def skipped(self) -> bool:
        return self.attempt is not None and self.verdict is None

    def seconds(self) -> float:
        """Seconds on this question so far (or until it was done)."""
        if self.attempt is not None:
            return self.attempt.seconds
        return max(self._clock() - self.started, 0.0)

    def preview(self, text: str) -> str:
        """How ``text`` reads, before it is graded ('' for nothing typed)."""
        return read_answer(self.instance, text)

    def answer(self, text: str) -> Verdict:
        """Grade ``text`` and record it; unreadable text grades nothing. Once done, the grade is final."""
        if self.verdict is not None:
            return self.verdict
        verdict = grade_instance(self.instance, text)
        if verdict.kind == "unparsed" or self.done:  # unread, or already skipped
            return verdict
        self.verdict = verdict
        self._record(text, verdict)
        return verdict

    def skip(self) -> Attempt | None:
        """Give up on the question: a skipped attempt (None if the turn was already done)."""
        if self.done:
            return None
        return self._record("", None)

    def hint(self) -> Hint | None:
        """Reveal the next hint: the nudges, then the derivation but its answer; None when all are shown
        (or the turn is done)."""
        hints = hint_steps(self.instance)
        if self.done or self.hints >= len(hints):
            return None
        self.hints += 1
        return hints[self.hints - 1]

    @property
    def revealed(self) -> tuple[Hint, ...]:
        """The hints revealed so far."""
        return hint_steps(self.instance)[: self.hints]

    def _record(self, text: str, verdict: Verdict | None) -> Attempt:
        self.attempt = attempt_for(
            self.instance,
            text,
            verdict,
            seconds=max(self._clock() - self.started, 0.0),
            hints=self.hints,
            mode=self.mode,
            at=self._wall(),
            session=self.session_id,
        )
        if self._on_attempt is not None:
            self._on_attempt(self.attempt)
        return self.attempt
