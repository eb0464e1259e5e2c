"""Turn: one question turn (an instance and its parts: clock, hints, answers, skips) and its Attempts."""

from __future__ import annotations

from collections.abc import Callable

from quizzer.bank.generate.hints import Hint, hint_steps
from quizzer.bank.generate.render import Instance
from quizzer.bank.read.schema import Template
from quizzer.core.record import Record
from quizzer.grading.grade import Verdict
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.chain import Question, grade_part, grade_question, part_of
from quizzer.session.records import Attempt, attempt_for


def grade_instance(instance: Instance, answer: str) -> Verdict:
    """Grade ``answer`` against an instance (its main question, part 1): its tolerance, its mistakes, then
    the built-in ones that fit it (its dtype, the layers in scope, the unit a bare number means)."""
    return grade_question(instance.main, answer)


def read_answer(instance: Question, answer: str) -> str:
    """How ``answer`` would be read, for live feedback while typing ('' for empty input)."""
    if not answer.strip():
        return ""
    try:
        parsed = parse_answer(answer, instance.unit, instance.display_unit)
    except ParseError as exc:
        return f"✗ {exc.message}"
    return f"= {parsed.reading}"


class Turn:
    """One question, of one part or a chain of several, each part answered once (a grade is final) or
    skipped, in order; hints counted per part; each part timed on ``clock`` from when it is asked.

    ``clock`` (monotonic seconds) times the turn from construction, each part from when ``shown`` says it is
    on screen (or from the part before's answer, if it never says); ``wall`` (epoch seconds) stamps the
    attempts; ``on_attempt`` receives each the moment it is made (one per part, graded or skipped). An
    unreadable answer grades nothing and records nothing: the verdict says what was understood.
    ``template`` (the instance's) lets a later part be graded against the user's own wrong earlier answers
    (``session.chain.grade_part``); without it every part is graded against the true values only.
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
        template: Template | None = None,
    ) -> None:
        self.instance = instance
        self.template = template
        self.mode = mode
        self.session_id = session_id
        self._clock, self._wall, self._on_attempt = clock, wall, on_attempt
        self.started = clock()
        """When the turn began (monotonic seconds)."""
        self._part_started = self.started
        self._shown = 0  # the last part said to be on screen
        self.number = 1
        """The part being asked (1 is the main question); past the last part once the turn is done."""
        self.hints = 0
        """Hints revealed so far for the part being asked (each is counted in its attempt)."""
        self.results: list[PartResult] = []
        """Each part answered or skipped so far, in order."""

    # --- where the turn is -----------------------------------------------------------------------------

    @property
    def part_count(self) -> int:
        return self.instance.part_count

    @property
    def chain(self) -> bool:
        """The question has follow-up parts."""
        return self.instance.part_count > 1

    @property
    def question(self) -> Question:
        """The part being asked (the last part once the turn is done)."""
        return part_of(self.instance, min(self.number, self.part_count))

    @property
    def done(self) -> bool:
        """Every part answered or skipped: nothing more can change the turn."""
        return len(self.results) >= self.part_count

    @property
    def verdict(self) -> Verdict | None:
        """The grade of the last part answered (None before any, or when it was skipped)."""
        return self.results[-1].verdict if self.results else None

    @property
    def attempt(self) -> Attempt | None:
        """The attempt of the last part answered or skipped; None before any."""
        return self.results[-1].attempt if self.results else None

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        return tuple(r.attempt for r in self.results)

    @property
    def skipped(self) -> bool:
        """The last part done was skipped."""
        return bool(self.results) and self.results[-1].verdict is None

    def seconds(self) -> float:
        """Seconds on this question so far, every part (or until it was done)."""
        if self.done:
            return sum(r.attempt.seconds for r in self.results)
        return max(self._clock() - self.started, 0.0)

    def preview(self, text: str) -> str:
        """How ``text`` reads for the part being asked ('' for nothing typed)."""
        return read_answer(self.question, text)

    # --- what the user does ----------------------------------------------------------------------------

    def shown(self) -> None:
        """The part being asked is on screen: its time starts now (the question's too, for part 1). Once per
        part, before anything is done with it; later calls change nothing."""
        if self.done or self._shown >= self.number or self.hints:
            return
        self._shown = self.number
        self._part_started = self._clock()
        if self.number == 1:
            self.started = self._part_started

    def answer(self, text: str) -> Verdict:
        """Grade ``text`` as the answer to the part being asked and record it, then ask the next part;
        unreadable text grades nothing. Once the turn is done, the last grade is final."""
        if self.done:
            return self.verdict if self.verdict is not None else grade_question(self.question, text)
        earlier = {r.number: r.value for r in self.results}
        graded = grade_part(self.template, self.instance, self.number, text, earlier)
        if graded.verdict.kind == "unparsed":
            return graded.verdict
        self._record(text, graded.verdict, graded.carried)
        return graded.verdict

    def skip(self) -> Attempt | None:
        """Give up on the part being asked: a skipped attempt (None if the turn was already done)."""
        if self.done:
            return None
        return self._record("", None, None)

    def skip_rest(self) -> tuple[Attempt, ...]:
        """Skip every part not yet answered (leaving a study card, say); their attempts."""
        out = []
        while not self.done:
            attempt = self.skip()
            assert attempt is not None
            out.append(attempt)
        return tuple(out)

    def hint(self) -> Hint | None:
        """Reveal the next hint of the part being asked: its nudges, then its derivation but the answer;
        None when all are shown (or the turn is done)."""
        hints = hint_steps(self.question)
        if self.done or self.hints >= len(hints):
            return None
        self.hints += 1
        return hints[self.hints - 1]

    @property
    def revealed(self) -> tuple[Hint, ...]:
        """The hints revealed so far for the part being asked."""
        return () if self.done else hint_steps(self.question)[: self.hints]

    def _record(self, text: str, verdict: Verdict | None, carried: dict[str, int | float] | None) -> Attempt:
        now = self._clock()
        attempt = attempt_for_part(
            self.instance,
            self.number,
            text,
            verdict,
            carried=carried,
            seconds=max(now - self._part_started, 0.0),
            hints=self.hints,
            mode=self.mode,
            at=self._wall(),
            session=self.session_id,
        )
        value = verdict.given.value if verdict is not None and verdict.given is not None else None
        self.results.append(PartResult(self.number, verdict, attempt, value))
        self.number += 1
        self.hints = 0
        self._part_started = now
        if self._on_attempt is not None:
            self._on_attempt(attempt)
        return attempt


class PartResult(Record):
    """One part of a turn, answered (``verdict``) or skipped (None), and what the user gave (``value``)."""

    number: int
    verdict: Verdict | None
    attempt: Attempt
    value: int | float | None = None


def attempt_for_part(
    instance: Instance,
    number: int,
    answer: str,
    verdict: Verdict | None,
    *,
    carried: dict[str, int | float] | None = None,
    unanswered: str = "skipped",
    seconds: float,
    hints: int,
    mode: str,
    at: float,
    session: str,
) -> Attempt:
    """The Attempt at part ``number`` of ``instance``: as ``attempt_for``, with the part's expected value,
    unit and variables (the instance's and its own), and its share of the expected minutes (the parts
    share the template's); ``part`` is None for a question of one part."""
    attempt = attempt_for(
        instance,
        answer,
        verdict,
        unanswered=unanswered,
        seconds=seconds,
        hints=hints,
        mode=mode,
        at=at,
        session=session,
    )
    if instance.part_count == 1:
        return attempt
    question = part_of(instance, number)
    variables = instance.variables if number == 1 else {**instance.variables, **question.variables}
    return attempt.replace(
        part=number,
        carried=carried,
        expected=question.value,
        unit=question.unit,
        variables=variables,
        minutes=instance.minutes / instance.part_count,
    )
