"""MockExam: N questions under a countdown, answers revisable until submitted, graded only at the end."""
# A chain (a question of several parts) is one question whose parts share its expected minutes: saving a
# part's answer locks it and asks the next part, whose prompt shows the true earlier values (as in the
# drill); the last part stays revisable. Every part is graded at the end, with carried credit.

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from quizzer.bank.generate.render import Instance
from quizzer.bank.read.schema import Template
from quizzer.core.record import Record
from quizzer.grading.grade import Verdict
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.chain import grade_part, part_of
from quizzer.session.records import RIGHT, Attempt, SessionMark
from quizzer.session.turn import attempt_for_part

#: What answer() returns once the mock is over.
OVER = "the mock is over: answers can no longer change"


def expected_seconds(instances: Sequence[Instance]) -> float:
    """The time the questions are expected to take: the sum of their templates' minutes, in seconds."""
    return sum(i.minutes for i in instances) * 60.0


class PartOutcome(Record):
    """A follow-up part (2, 3, ...) of a chain in a finished mock: its attempt and verdict (None when
    unanswered)."""

    number: int
    attempt: Attempt
    verdict: Verdict | None


class MockResult(Record):
    """One question of a finished mock: its attempt, its verdict (None when unanswered) and expected time;
    for a chain, ``attempt`` and ``verdict`` are part 1's and ``parts`` holds the others."""

    index: int
    instance: Instance
    attempt: Attempt
    verdict: Verdict | None
    expected_seconds: float
    parts: tuple[PartOutcome, ...] = ()

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        """Every part's attempt, part 1 first."""
        return (self.attempt, *(p.attempt for p in self.parts))

    @property
    def verdicts(self) -> tuple[Verdict | None, ...]:
        return (self.verdict, *(p.verdict for p in self.parts))

    @property
    def right(self) -> bool:
        """Every part right (a question of one part: its answer)."""
        return all(a.verdict in RIGHT for a in self.attempts)

    @property
    def parts_right(self) -> int:
        return sum(a.verdict in RIGHT for a in self.attempts)


class Saved(Record):
    """What enter did in a mock (``MockExam.save``): refused (``problem`` says why; nothing saved), or saved
    and ``moved`` to another part or question, or saved with ``all_answered``."""

    problem: str | None = None
    moved: bool = False
    all_answered: bool = False


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
    parts_right: int = 0
    """Parts right over every question (a question of one part is one part)."""
    parts_total: int = 0


class MockExam:
    """A timed mock: question 0 is current; the countdown starts at construction, or, with ``start=False``,
    at ``start()`` (the app calls it when the first question is painted: time starts when it is on screen).

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
        templates: Callable[[str], Template | None] | None = None,
        start: bool = True,
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
        self._templates = templates or (lambda _id: None)
        self._answers = [[""] * i.part_count for i in self.instances]  # per question, per part
        self._locked = [0] * self.total  # parts of a chain answered and locked (the next one is asked)
        # Typed in the box, not saved yet, per question: (the part it was typed for, the text). Kept if the
        # time runs out; tied to its part, so a part's text never becomes a later part's answer.
        self._drafts: list[tuple[int, str]] = [(1, "")] * self.total
        self._spent = [[0.0] * i.part_count for i in self.instances]
        self.started = False
        """The countdown runs (from construction, or from ``start()``)."""
        self._deadline = self._seen = self._since = 0.0
        self._results: list[MockResult] = []
        self._pending: MockResult | None = None  # graded, its attempts being handed over
        self._handed = 0  # attempts of the pending result handed over
        self._on_mark = on_mark
        self._mark = SessionMark(
            session_id, "mock", self._wall(), self.total, minutes=self.total_seconds / 60
        )
        if on_mark is not None:  # in the history from the start: a mock a crash ends is seen as unfinished
            on_mark(self._mark)
        if start:
            self.start()

    def start(self) -> None:
        """Start the countdown now (the first question is on screen); once only: later calls do nothing.
        Anything done before (an answer, a move) starts it too."""
        if self.started:
            return
        self.started = True
        now = self._clock()
        self._deadline = now + self.total_seconds
        self._seen = self._since = now  # the latest reading, capped at the deadline; the current's start

    def _now(self) -> float:
        """The monotonic time, capped at the deadline, never earlier than before; frozen once finished."""
        self.start()
        if not self.finished:
            self._seen = max(self._seen, min(self._clock(), self._deadline))
        return self._seen

    def _close_current(self) -> None:
        now = self._now()
        self._spent[self.current][self.part_on(self.current) - 1] += now - self._since
        self._since = now

    def remaining(self) -> float:
        """Seconds left (0 when the time is up; all of them before the start); never rises, and stops when
        the mock is submitted."""
        if not self.started:
            return self.total_seconds
        return max(self._deadline - self._now(), 0.0)

    def tick(self) -> bool:
        """Finish (timed out) if the time is up; returns whether the mock is over."""
        if not self.finished and self.started and self.remaining() <= 0:
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
        """The answer of the part being asked of each question ('' for none); a copy. For a question of
        one part this is its answer; a chain whose parts are all answered shows its last part's."""
        return [a[self.part_on(i) - 1] for i, a in enumerate(self._answers)]

    def part_answers(self, index: int) -> list[str]:
        """Every part's answer of question ``index`` ('' for none), part 1 first; a copy."""
        return list(self._answers[index])

    def part_on(self, index: int) -> int:
        """The part asked of question ``index``: the first not locked (the last once all are)."""
        return min(self._locked[index] + 1, self.instances[index].part_count)

    def complete(self, index: int) -> bool:
        """Every part of question ``index`` has an answer."""
        return all(self._answers[index])

    def answered(self) -> int:
        """Questions whose every part has an answer."""
        return sum(self.complete(i) for i in range(self.total))

    def box_text(self, index: int) -> str:
        """What the answer box shows for question ``index``: what was typed for the part asked and not
        saved (never lost), else that part's saved answer."""
        number = self.part_on(index)
        part, typed = self._drafts[index]
        return typed if part == number and typed else self._answers[index][number - 1]

    def draft(self, text: str) -> None:
        """What the answer box holds for the part being asked, saved or not: when the time runs out (or the
        mock is left), a draft never saved is graded if it reads, else kept as typed with the time-out."""
        if not self.finished:
            self._drafts[self.current] = (self.part_on(self.current), text)

    def answer(self, text: str) -> str | None:
        """Set, revise or ('' clears) the answer of the part being asked: None if accepted, else why not
        (answer kept). A chain's part other than the last is locked once answered, and the next is asked.
        Text given once the time is up is kept as the draft the time-out grades."""
        self.draft(text)
        if self.tick():
            return OVER
        index, number = self.current, self.part_on(self.current)
        if not text.strip():
            self._answers[index][number - 1] = ""
            self._drafts[index] = (number, "")
            return None
        question = part_of(self.instances[index], number)
        try:
            parse_answer(text, question.unit, question.display_unit)
        except ParseError as exc:
            return exc.message
        self._answers[index][number - 1] = text
        self._drafts[index] = (number, "")
        if number < self.instances[index].part_count:
            self._close_current()  # the time so far goes to this part
            self._locked[index] += 1
            self._drafts[index] = (number + 1, "")
        return None

    def save(self, text: str) -> Saved:
        """Enter: save ``text`` as the answer of the part asked (see ``answer``), then move on: a chain asks
        its next part; otherwise the next question without every answer after this one, else the first
        from the start; if every question has its answers, stay."""
        number = self.part_on(self.current)
        problem = self.answer(text.strip())
        if problem is not None:
            return Saved(problem=problem)
        if self.part_on(self.current) > number:
            return Saved(moved=True)
        target = self.next_unanswered()
        if target is None:
            return Saved(all_answered=True)
        if target == self.current:
            return Saved()
        self.go(target)
        return Saved(moved=True)

    def next_unanswered(self) -> int | None:
        """The question enter moves to: the first after the current whose part asked has no answer, else
        the first such from the start (the current one included); None when every one has its answers."""
        unanswered = [i for i, text in enumerate(self.answers) if not text]
        later = [i for i in unanswered if i > self.current]
        return (later or unanswered)[0] if unanswered else None

    def keep(self, text: str) -> None:
        """Leaving the box without enter (↑↓, ctrl+s, leaving the mock): a readable answer of the last (or
        only) part is saved, revisable, as enter would save it but without moving on; blank clears it. A
        chain's earlier part is never locked this way; text not saved stays that part's draft."""
        self.draft(text)
        if self.tick():
            return
        index, number = self.current, self.part_on(self.current)
        if number == self.instances[index].part_count or not text.strip():
            self.answer(text.strip())

    def move(self, step: int, text: str) -> None:
        """↑↓: keep what the box holds (see ``keep``), then make the question ``step`` away current, wrapping
        around."""
        self.keep(text)
        if not self.finished:
            self.go((self.current + step) % self.total)

    def seconds_on(self, index: int) -> float:
        """Seconds spent on question ``index`` so far (every part)."""
        spent = sum(self._spent[index])
        if index == self.current and self.started and not self.finished:
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
            if self._pending is None:
                self._pending, self._handed = self._grade(len(self._results)), 0
            attempts = self._pending.attempts
            while self._handed < len(attempts):
                if self._on_attempt is not None:
                    self._on_attempt(attempts[self._handed])
                self._handed += 1
            self._results.append(self._pending)
            self._pending = None
        self.report = self._report(tuple(self._results))
        if self._on_mark is not None:
            self._on_mark(self._mark.replace(finished=self._wall()))
        return self.report

    def _grade(self, index: int) -> MockResult:
        instance = self.instances[index]
        template = self._templates(instance.template_id) if instance.part_count > 1 else None
        earlier: dict[int, int | float | None] = {}
        outcomes: list[PartOutcome] = []
        for number in range(1, instance.part_count + 1):
            text = self._answers[index][number - 1]
            part, draft = self._drafts[index]
            if not text and draft.strip() and part == number == self.part_on(index):
                text = draft.strip()  # typed, never saved: the time ran out or the mock was left
            graded = grade_part(template, instance, number, text, earlier) if text else None
            verdict = graded.verdict if graded is not None else None
            if verdict is not None and verdict.kind == "unparsed":  # a draft that does not read: kept
                verdict = None
            earlier[number] = verdict.given.value if verdict is not None and verdict.given else None
            attempt = attempt_for_part(
                instance,
                number,
                text,
                verdict,
                carried=graded.carried if graded is not None and verdict is not None else None,
                unanswered="timed-out" if self.timed_out else "skipped",
                seconds=self._spent[index][number - 1],
                hints=0,
                mode="mock",
                at=self._wall(),
                session=self.session_id,
            )
            outcomes.append(PartOutcome(number, attempt, verdict))
        first = outcomes[0]
        return MockResult(
            index, instance, first.attempt, first.verdict, instance.minutes * 60.0, tuple(outcomes[1:])
        )

    def _report(self, results: tuple[MockResult, ...]) -> MockReport:
        return build_report(
            results,
            total=self.total,
            seconds_used=sum(sum(spent) for spent in self._spent),
            timed_out=self.timed_out,
            total_seconds=self.total_seconds,
        )


def build_report(
    results: tuple[MockResult, ...], *, total: int, seconds_used: float, timed_out: bool, total_seconds: float
) -> MockReport:
    """The report of a mock's graded ``results`` (a finished mock's, or one rebuilt from the history): the
    score, the topics and mistakes to work on (see MockReport)."""
    topics: dict[str, list[int]] = {}
    mistakes: dict[object, list[Any]] = {}  # key -> [title, feedback, count]
    for r in results:
        tally = topics.setdefault(r.instance.topic, [0, 0])
        tally[0] += r.right
        tally[1] += 1
        for number, v in enumerate(r.verdicts, 1):
            if v is None or v.mistake is None:
                continue
            own = any(m.name == v.mistake for m in part_of(r.instance, number).mistakes)
            key = (r.instance.template_id, number, v.mistake) if own else v.mistake
            title = v.mistake_title or v.mistake
            mistakes.setdefault(key, [title, v.feedback or "", 0])[2] += 1
    weak = [(topic, right, total) for topic, (right, total) in topics.items() if right < total]
    weak.sort(key=lambda t: (t[1] / t[2], t[1] - t[2], t[0]))
    common = sorted(mistakes.values(), key=lambda m: -m[2])  # stable: first seen breaks ties
    return MockReport(
        results=results,
        score=sum(r.right for r in results),
        answered=sum(r.verdict is not None for r in results),
        total=total,
        seconds_used=seconds_used,
        timed_out=timed_out,
        topics_to_work_on=tuple(weak),
        mistakes_to_work_on=tuple((name, feedback, n) for name, feedback, n in common),
        total_seconds=total_seconds,
        parts_right=sum(r.parts_right for r in results),
        parts_total=sum(len(r.attempts) for r in results),
    )
