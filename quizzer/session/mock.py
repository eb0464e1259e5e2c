"""MockExam: N questions under a countdown, answers revisable until submitted, graded only at the end."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from quizzer.bank.render import Instance
from quizzer.core.record import Record
from quizzer.grading.grade import Verdict
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.records import RIGHT, Attempt, SessionMark, attempt_for
from quizzer.session.turn import grade_instance

#: What answer() returns once the mock is over.
OVER = "the mock is over: answers can no longer change"


def expected_seconds(instances: Sequence[Instance]) -> float:
    """The time the questions are expected to take: the sum of their templates' minutes, in seconds."""
    return sum(i.minutes for i in instances) * 60.0


class MockResult(Record):
    """One question of a finished mock: its attempt, its verdict (None when unanswered) and expected time."""

    index: int
    instance: Instance
    attempt: Attempt
    verdict: Verdict | None
    expected_seconds: float

    @property
    def right(self) -> bool:
        return self.attempt.verdict in RIGHT


class MockReport(Record):
    """The end of a mock: the score, each question's result, and what to work on.

    ``topics_to_work_on`` holds (topic, right, total) for every topic with an answer that was not right
    (unanswered included), worst first: lowest share right, then most not right, then by name.
    ``mistakes_to_work_on`` holds (mistake title, feedback, count), most frequent first (first seen breaks
    ties); a template's own mistakes are counted per template, the built-in ones across templates.
    """

    results: tuple[MockResult, ...]
    score: int
    answered: int
    total: int
    seconds_used: float
    timed_out: bool
    topics_to_work_on: tuple[tuple[str, int, int], ...]
    mistakes_to_work_on: tuple[tuple[str, str, int], ...]
    total_seconds: float = 0.0


class MockExam:
    """A timed mock: the countdown starts at construction, question 0 is current.

    ``clock`` returns seconds (monotonic) and alone decides the time left: the wall clock (``wall``, seconds
    since the epoch) only stamps the attempts. Time is counted per question while it is current, and stops
    at the deadline. Answers are read (never graded) as they are typed; ``finish`` grades each once, hands
    each attempt to ``on_attempt`` and returns the report. When the time runs out (seen by ``tick``, or by
    ``answer``/``go``), the mock finishes by itself and unanswered questions are recorded as timed out.
    """

    def __init__(
        self,
        instances: list[Instance],
        *,
        total_seconds: float,
        clock: Callable[[], float],
        wall: Callable[[], float] | None = None,
        session_id: str = "",
        on_attempt: Callable[[Attempt], None] | None = None,
        on_mark: Callable[[SessionMark], None] | None = None,
    ) -> None:
        if not instances:
            raise ValueError("a mock needs at least one question")
        if not math.isfinite(total_seconds) or total_seconds <= 0:
            raise ValueError(f"total_seconds ({total_seconds!r}) must be a positive number")
        self.instances = list(instances)
        self.total = len(self.instances)
        self.total_seconds = float(total_seconds)
        self.current = 0
        self.finished = False
        self.timed_out = False
        self.report: MockReport | None = None
        self.session_id = session_id
        self._clock = clock
        self._wall = wall or (lambda: 0.0)
        self._on_attempt = on_attempt
        self._answers = [""] * self.total
        self._drafts = [""] * self.total  # typed in the box, not saved yet: kept if the time runs out
        self._spent = [0.0] * self.total
        self._started = clock()
        self._deadline = self._started + self.total_seconds
        self._seen = self._started  # the latest clock reading, capped at the deadline: never goes back
        self._since = self._started  # when the current question became current
        self._results: list[MockResult] = []
        self._on_mark = on_mark
        self._mark = SessionMark(session_id, "mock", self._wall(), self.total)
        if on_mark is not None:  # in the history from the start: a mock a crash ends is seen as unfinished
            on_mark(self._mark)

    def _now(self) -> float:
        """The monotonic time, capped at the deadline, never earlier than before; frozen once finished."""
        if not self.finished:
            self._seen = max(self._seen, min(self._clock(), self._deadline))
        return self._seen

    def _close_current(self) -> None:
        now = self._now()
        self._spent[self.current] += now - self._since
        self._since = now

    def remaining(self) -> float:
        """Seconds left (0 when the time is up); never rises, and stops when the mock is submitted."""
        return max(self._deadline - self._now(), 0.0)

    def tick(self) -> bool:
        """Finish (timed out) if the time is up; returns whether the mock is over."""
        if not self.finished and self.remaining() <= 0:
            self.timed_out = True
            self.finish()
        return self.finished

    def go(self, index: int) -> None:
        """Make question ``index`` current; the time since the last change goes to the question left."""
        if self.tick():
            return
        if not 0 <= index < self.total:
            raise IndexError(f"question {index} is not in this mock (0 to {self.total - 1})")
        self._close_current()
        self.current = index

    @property
    def answers(self) -> list[str]:
        """The answers so far, one per question ('' for none); a copy."""
        return list(self._answers)

    def answered(self) -> int:
        return sum(bool(a) for a in self._answers)

    def draft(self, text: str) -> None:
        """What the answer box of the current question holds, saved or not: when the time runs out (or the
        mock is left), a draft never saved is graded if it reads, else kept as typed with the time-out."""
        if not self.finished:
            self._drafts[self.current] = text

    def answer(self, text: str) -> str | None:
        """Set, revise or ('' clears) the current answer: None if accepted, else why not (answer kept)."""
        if self.tick():
            return OVER
        if not text.strip():
            self._answers[self.current] = ""
            return None
        instance = self.instances[self.current]
        try:
            parse_answer(text, instance.unit, instance.display_unit)
        except ParseError as exc:
            return exc.message
        self._answers[self.current] = text
        return None

    def seconds_on(self, index: int) -> float:
        """Seconds spent on question ``index`` so far."""
        spent = self._spent[index]
        if index == self.current and not self.finished:
            spent += self._now() - self._since
        return spent

    def finish(self) -> MockReport:
        """Submit: grade every answer once, hand each attempt to ``on_attempt``, and report.

        A second call returns the same report. If ``on_attempt`` raises, the questions already handed over
        stay done and a later call carries on with the rest.
        """
        if self.report is not None:
            return self.report
        if not self.finished:
            self._close_current()
            self.timed_out = self.timed_out or self.remaining() <= 0
            self.finished = True
        while len(self._results) < self.total:
            result = self._grade(len(self._results))
            if self._on_attempt is not None:
                self._on_attempt(result.attempt)
            self._results.append(result)
        self.report = self._report(tuple(self._results))
        if self._on_mark is not None:
            self._on_mark(self._mark.replace(finished=self._wall()))
        return self.report

    def _grade(self, index: int) -> MockResult:
        instance, text = self.instances[index], self._answers[index]
        if (
            not text and self._drafts[index].strip()
        ):  # typed, never saved: the time ran out or the mock was left
            text = self._drafts[index].strip()
        verdict = grade_instance(instance, text) if text else None
        if verdict is not None and verdict.kind == "unparsed":  # a draft that does not read: kept as typed
            verdict = None
        attempt = attempt_for(
            instance,
            text,
            verdict,
            unanswered="timed-out" if self.timed_out else "skipped",
            seconds=self._spent[index],
            hints=0,
            mode="mock",
            at=self._wall(),
            session=self.session_id,
        )
        return MockResult(index, instance, attempt, verdict, instance.minutes * 60.0)

    def _report(self, results: tuple[MockResult, ...]) -> MockReport:
        topics: dict[str, list[int]] = {}
        mistakes: dict[object, list[Any]] = {}  # key -> [title, feedback, count]
        for r in results:
            tally = topics.setdefault(r.instance.topic, [0, 0])
            tally[0] += r.right
            tally[1] += 1
            v = r.verdict
            if v is not None and v.mistake is not None:
                own = any(m.name == v.mistake for m in r.instance.mistakes)
                key = (r.instance.template_id, v.mistake) if own else v.mistake
                title = v.mistake_title or v.mistake
                mistakes.setdefault(key, [title, v.feedback or "", 0])[2] += 1
        weak = [(topic, right, total) for topic, (right, total) in topics.items() if right < total]
        weak.sort(key=lambda t: (t[1] / t[2], t[1] - t[2], t[0]))
        common = sorted(mistakes.values(), key=lambda m: -m[2])  # stable: first seen breaks ties
        return MockReport(
            results=results,
            score=sum(r.right for r in results),
            answered=sum(r.verdict is not None for r in results),
            total=self.total,
            seconds_used=sum(self._spent),
            timed_out=self.timed_out,
            topics_to_work_on=tuple(weak),
            mistakes_to_work_on=tuple((name, feedback, n) for name, feedback, n in common),
            total_seconds=self.total_seconds,
        )
