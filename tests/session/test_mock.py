"""MockExam: countdown, revisable answers, grading at the end, time-outs, the report (fake clocks)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank, load_bank
from quizzer.session.drill import read_answer
from quizzer.session.mock import MockExam, MockReport, expected_seconds
from quizzer.session.records import Attempt

DATA = Path(__file__).resolve().parent.parent / "data" / "good"
HOUR = 3600.0


class FakeClock:
    """A clock moved by hand (used both as the monotonic clock and as the wall clock)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@cache
def mini_bank() -> Bank:
    return load_bank([str(DATA)])


@cache
def real_bank() -> Bank:
    from quizzer.paths import question_paths

    return load_bank(question_paths())


def minis(*seeds: int) -> list[Instance]:
    return [mini_bank().generate("mini-product", s) for s in seeds]


def right(instance: Instance) -> str:
    return str(instance.value)


def added(instance: Instance) -> str:
    """The mini template's known mistake: a + b instead of a × b."""
    return str(instance.variables["a"] + instance.variables["b"])


class Setup:
    def __init__(self, instances: list[Instance], total_seconds: float = 600.0, session_id: str = "m1"):
        self.clock = FakeClock(1000.0)
        self.wall = FakeClock(1_700_000_000.0)
        self.attempts: list[Attempt] = []
        self.mock = MockExam(
            instances,
            total_seconds=total_seconds,
            clock=self.clock,
            wall=self.wall,
            session_id=session_id,
            on_attempt=self.attempts.append,
        )

    def spend(self, seconds: float) -> None:
        self.clock.now += seconds


def test_a_whole_mock_right_wrong_and_unanswered() -> None:
    qs = minis(1, 2, 3)
    t = Setup(qs)
    assert (t.mock.current, t.mock.total, t.mock.finished) == (0, 3, False)
    t.spend(10)
    assert t.mock.answer(right(qs[0])) is None
    t.mock.go(1)
    t.spend(20)
    assert t.mock.answer(added(qs[1])) is None
    t.mock.go(2)
    t.spend(5)
    assert t.mock.answers == [right(qs[0]), added(qs[1]), ""]
    assert t.mock.answered() == 2
    assert t.attempts == []  # nothing graded before the end
    report = t.mock.finish()
    assert t.mock.finished
    assert not t.mock.timed_out
    assert t.mock.report is report
    assert (report.score, report.answered, report.total, report.timed_out) == (1, 2, 3, False)
    assert report.seconds_used == 35
    assert report.total_seconds == 600
    kinds = [r.verdict.kind if r.verdict else None for r in report.results]
    assert kinds == ["exact", "wrong", None]
    assert [r.attempt.verdict for r in report.results] == ["exact", "wrong", "skipped"]
    assert [r.attempt.seconds for r in report.results] == [10, 20, 5]
    assert [r.expected_seconds for r in report.results] == [60, 60, 60]  # mini.toml: minutes = 1
    assert [r.index for r in report.results] == [0, 1, 2]
    assert report.results[1].instance is qs[1]
    assert "Multiply." in report.results[1].instance.explanation
    a, b = qs[1].variables["a"], qs[1].variables["b"]
    assert report.results[1].verdict.feedback == f"You added {a} and {b}."
    assert report.topics_to_work_on == (("testing", 1, 3),)
    assert report.mistakes_to_work_on == (("Mistake 1", f"You added {a} and {b}.", 1),)  # its title


def test_a_perfect_mock_has_nothing_to_work_on() -> None:
    qs = minis(4, 5)
    t = Setup(qs)
    t.mock.answer(right(qs[0]))
    t.mock.go(1)
    t.mock.answer(right(qs[1]))
    report = t.mock.finish()
    assert (report.score, report.answered) == (2, 2)
    assert report.topics_to_work_on == ()
    assert report.mistakes_to_work_on == ()


def test_mistakes_are_counted_most_frequent_first() -> None:
    qs = minis(1, 2, 3, 4)
    t = Setup(qs)
    texts = [str(qs[0].value * 1000), added(qs[1]), added(qs[2]), right(qs[3])]
    for i, text in enumerate(texts):
        t.mock.go(i)
        assert t.mock.answer(text) is None
    report = t.mock.finish()
    names = [(name, n) for name, _, n in report.mistakes_to_work_on]
    assert names == [("Mistake 1", 2), ("1000× off", 1)]  # titles, not ids
    a, b = qs[1].variables["a"], qs[1].variables["b"]
    assert report.mistakes_to_work_on[0][1] == f"You added {a} and {b}."  # the first one seen
    assert "1000" in report.mistakes_to_work_on[1][1]


def test_topics_to_work_on_worst_first_over_the_real_bank() -> None:
    bank = real_bank()
    by_topic: dict[str, list[str]] = {}
    for template_id in bank.scanned_ids():
        by_topic.setdefault(bank.get(template_id).topic, []).append(template_id)
    (t1, t2, t3) = sorted(by_topic)[:3]
    ids = [by_topic[t1][0], by_topic[t1][1], by_topic[t2][0], by_topic[t2][1], by_topic[t3][0]]
    qs = [bank.generate(template_id, 7) for template_id in ids]
    t = Setup(qs, total_seconds=expected_seconds(qs))
    assert t.mock.remaining() == sum(q.minutes for q in qs) * 60

    # topic 1: one right, one left blank; topic 2: both wrong (1000x too big); topic 3: right
    # (a chain is right when every part is: its parts are answered in turn, each as shown)
    def every_part(q):  # type: ignore[no-untyped-def]
        return [q.display.split(" (")[0], *(p.display.split(" (")[0] for p in q.later_parts)]

    plan = {0: every_part(qs[0]), 2: [f"{qs[2].value * 1000!r} {qs[2].unit}"]}
    plan[3] = [f"{qs[3].value * 1000!r} {qs[3].unit}"]
    plan[4] = every_part(qs[4])
    for i, texts in plan.items():
        t.mock.go(i)
        for text in texts:
            assert t.mock.answer(text) is None, text
    report = t.mock.finish()
    assert [r.attempt.verdict for r in report.results][1] == "skipped"
    assert report.score == 2
    assert report.topics_to_work_on == ((t2, 0, 2), (t1, 1, 2))
    assert [r.expected_seconds for r in report.results] == [q.minutes * 60 for q in qs]


def test_an_answer_can_be_revised_until_submitted() -> None:
    qs = minis(1)
    t = Setup(qs)
    t.mock.answer(added(qs[0]))
    t.mock.answer(right(qs[0]))
    assert t.mock.answers == [right(qs[0])]
    assert t.mock.answer("") is None
    assert t.mock.answers == [""]
    assert t.mock.answered() == 0
    t.mock.answer(right(qs[0]))
    report = t.mock.finish()
    assert report.results[0].attempt.verdict == "exact"
    assert report.results[0].attempt.answer == right(qs[0])


def test_an_unreadable_answer_is_refused_and_the_previous_one_kept() -> None:
    qs = minis(1)
    t = Setup(qs)
    t.mock.answer("12")
    why = t.mock.answer("lots")
    assert isinstance(why, str)
    assert why
    assert read_answer(qs[0], "lots") == f"✗ {why}"
    assert t.mock.answers == ["12"]
    assert t.mock.answer("   ") is None  # blank clears
    assert t.mock.answers == [""]


def test_time_out_finishes_and_marks_unanswered_questions() -> None:
    qs = minis(1, 2, 3)
    t = Setup(qs, total_seconds=60)
    t.spend(30)
    t.mock.answer(right(qs[0]))
    t.mock.go(1)
    t.spend(29)
    assert not t.mock.tick()
    assert t.mock.remaining() == pytest.approx(1)
    t.spend(100)
    assert t.mock.remaining() == 0
    assert t.attempts == []
    assert t.mock.tick()
    assert t.mock.finished
    assert t.mock.timed_out
    report = t.mock.report
    assert isinstance(report, MockReport)
    assert report.timed_out
    assert [r.attempt.verdict for r in report.results] == ["exact", "timed-out", "timed-out"]
    assert [r.attempt.seconds for r in report.results] == [30, pytest.approx(30), 0]  # stops at the deadline
    assert report.seconds_used == pytest.approx(60)
    assert (report.score, report.answered) == (1, 1)
    assert report.topics_to_work_on == (("testing", 1, 3),)
    assert len(t.attempts) == 3


def test_an_answer_after_the_deadline_ends_the_mock_even_before_a_tick_and_is_kept_as_typed() -> None:
    qs = minis(1, 2)
    t = Setup(qs, total_seconds=60)
    t.spend(61)
    assert t.mock.answer(right(qs[0])) is not None  # refused as a saved answer: the mock is over
    assert t.mock.finished
    assert t.mock.timed_out
    assert t.mock.answers == ["", ""]
    # what was typed survives the time-out, as it would had a tick seen the box first: graded as a draft
    assert [a.verdict for a in t.attempts] == ["exact", "timed-out"]
    assert [a.answer for a in t.attempts] == [right(qs[0]), ""]


def test_submitting_after_the_deadline_counts_as_timed_out() -> None:
    qs = minis(1)
    t = Setup(qs, total_seconds=60)
    t.spend(75)
    report = t.mock.finish()
    assert report.timed_out
    assert report.results[0].attempt.verdict == "timed-out"


def test_attempts_reach_on_attempt_with_per_question_seconds() -> None:
    qs = minis(1, 2, 3)
    t = Setup(qs, session_id="mock-42")
    t.spend(5)
    t.mock.go(1)
    t.spend(7)
    t.mock.answer(right(qs[1]))
    t.mock.go(0)
    t.spend(3)
    t.mock.answer(added(qs[0]))
    assert t.mock.seconds_on(0) == 8
    assert t.mock.seconds_on(1) == 7
    assert t.mock.seconds_on(2) == 0
    t.wall.now += 123.0
    report = t.mock.finish()
    assert len(t.attempts) == 3
    assert [a.template_id for a in t.attempts] == ["mini-product"] * 3
    assert [a.seed for a in t.attempts] == [q.seed for q in qs]
    assert [a.seconds for a in t.attempts] == [8, 7, 0]
    assert [a.verdict for a in t.attempts] == ["wrong", "exact", "skipped"]
    assert t.attempts[0].mistake == "mistake-1"
    assert t.attempts[0].value == qs[0].variables["a"] + qs[0].variables["b"]
    assert t.attempts[2].value is None
    assert t.attempts[2].answer == ""
    for a in t.attempts:
        assert (a.mode, a.session, a.hints, a.topic, a.minutes) == ("mock", "mock-42", 0, "testing", 1)
        assert a.at == 1_700_000_123.0
        assert a.expected in {q.value for q in qs}
    assert [r.attempt for r in report.results] == t.attempts
    assert t.mock.finish() is report
    assert len(t.attempts) == 3  # graded once


@pytest.mark.parametrize("jump", [-5 * HOUR, 5 * HOUR, -HOUR, 24 * HOUR])
def test_moving_the_wall_clock_changes_nothing(jump: float) -> None:
    qs = minis(1, 2)
    t = Setup(qs, total_seconds=120)
    t.spend(20)
    before = t.mock.remaining()
    t.wall.now += jump
    assert t.mock.remaining() == before == 100
    assert not t.mock.tick()
    assert t.mock.seconds_on(0) == 20
    t.spend(30)
    t.wall.now -= jump
    assert t.mock.remaining() == 70
    assert not t.mock.tick()


def test_remaining_never_rises_even_if_the_clock_goes_back() -> None:
    t = Setup(minis(1), total_seconds=100)
    t.spend(40)
    assert t.mock.remaining() == 60
    t.spend(-30)
    assert t.mock.remaining() == 60
    assert t.mock.seconds_on(0) == 40
    t.spend(50)
    assert t.mock.remaining() == 40


def test_nothing_is_accepted_after_the_end() -> None:
    qs = minis(1, 2)
    t = Setup(qs)
    t.mock.answer(added(qs[0]))
    t.spend(12)
    report = t.mock.finish()
    left = t.mock.remaining()
    assert left == 588
    assert t.mock.answer(right(qs[0])) is not None
    assert t.mock.answer("") is not None
    t.mock.go(1)
    t.spend(500)
    assert (t.mock.current, t.mock.answers) == (0, [added(qs[0]), ""])
    assert t.mock.remaining() == left  # the countdown stopped at the submission
    assert t.mock.seconds_on(0) == 12
    assert t.mock.tick()
    assert t.mock.finish() is report
    assert not report.timed_out
    assert len(t.attempts) == 2


def test_go_refuses_a_question_not_in_the_mock() -> None:
    t = Setup(minis(1, 2))
    with pytest.raises(IndexError):
        t.mock.go(2)
    with pytest.raises(IndexError):
        t.mock.go(-1)
    assert t.mock.current == 0


@pytest.mark.parametrize("total_seconds", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_totals_are_refused(total_seconds: float) -> None:
    with pytest.raises(ValueError, match="total_seconds"):
        MockExam(minis(1), total_seconds=total_seconds, clock=FakeClock(0.0))


def test_an_empty_mock_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one question"):
        MockExam([], total_seconds=60, clock=FakeClock(0.0))


def test_a_failing_on_attempt_is_resumed_without_duplicates() -> None:
    qs = minis(1, 2, 3)
    seen: list[Attempt] = []
    failures = [OSError("disk full")]  # the second attempt fails once

    def store(attempt: Attempt) -> None:
        if len(seen) == 1 and failures:
            raise failures.pop()
        seen.append(attempt)

    mock = MockExam(qs, total_seconds=60, clock=FakeClock(0.0), on_attempt=store)
    with pytest.raises(OSError, match="disk full"):
        mock.finish()
    assert mock.finished
    assert mock.report is None
    assert len(seen) == 1
    report = mock.finish()
    assert [a.seed for a in seen] == [q.seed for q in qs]
    assert [r.attempt for r in report.results] == seen


class MockMachine(RuleBasedStateMachine):
    """The mock against a model: answers, current question, time per question, deadline, verdicts."""

    @initialize(
        seeds=st.lists(st.integers(0, 10_000), min_size=1, max_size=5),
        total_seconds=st.floats(10, 600),
    )
    def start(self, seeds: list[int], total_seconds: float) -> None:
        self.qs = minis(*seeds)
        self.clock = FakeClock(50.0)
        self.attempts: list[Attempt] = []
        self.mock = MockExam(
            self.qs,
            total_seconds=total_seconds,
            clock=self.clock,
            wall=FakeClock(1e9),
            on_attempt=self.attempts.append,
        )
        self.deadline = 50.0 + total_seconds
        self.t = 50.0  # model time (capped at the deadline)
        self.answers = [""] * len(self.qs)
        self.kinds = [""] * len(self.qs)  # "right" / "wrong" / ""
        self.drafted = [False] * len(self.qs)  # graded from the box's text at the time-out, never saved
        self.spent = [0.0] * len(self.qs)
        self.current = 0
        self.over = False
        self.timed_out = False
        self.last_remaining = self.mock.remaining()
        self.report: MockReport | None = None
        self.frozen: float | None = None

    def _text(self, kind: str) -> str:
        q = self.qs[self.current]
        return {"right": right(q), "wrong": str(q.value * 3), "mistake": added(q), "unreadable": "lots"}.get(
            kind, ""
        )

    def _answer(self, kind: str) -> None:
        before = self.mock.answers
        timed_out_now = not self.over and self.clock.now >= self.deadline
        why = self.mock.answer(self._text(kind))
        if self.over or timed_out_now:
            if timed_out_now and not self.over and not self.answers[self.current] and kind != "unreadable":
                # typed as the time ran out: not saved, but graded at the time-out as the box's draft
                self.drafted[self.current] = bool(self._text(kind))
                self.kinds[self.current] = {"right": "right", "empty": ""}.get(kind, "wrong")
            self.over = True
            self.timed_out = self.timed_out or timed_out_now
            assert why is not None
            assert self.mock.answers == before
        elif kind == "unreadable":
            assert why is not None
            assert self.mock.answers == before
        else:
            assert why is None
            self.answers[self.current] = self._text(kind)
            self.kinds[self.current] = {"right": "right", "empty": ""}.get(kind, "wrong")

    @rule(kind=st.sampled_from(["right", "wrong", "mistake", "unreadable", "empty"]))
    def answer(self, kind: str) -> None:
        self._answer(kind)

    @rule(first=st.sampled_from(["right", "wrong", "mistake"]), then=st.sampled_from(["right", "wrong"]))
    def revise(self, first: str, then: str) -> None:
        self._answer(first)
        self._answer(then)

    @rule(data=st.data())
    def go(self, data: st.DataObject) -> None:
        index = data.draw(st.integers(0, len(self.qs) - 1))
        if not self.over and self.clock.now >= self.deadline:
            self.over = self.timed_out = True
        self.mock.go(index)
        if not self.over:
            self.current = index
        assert self.mock.current == self.current

    @rule(seconds=st.one_of(st.floats(0, 200), st.just(700.0)))
    def wait(self, seconds: float) -> None:
        """Time passes with no tick (the user types between two of the screen's ticks); 700 s is past
        every deadline, so what an answer does as the time runs out is tried often."""
        self.clock.now += seconds
        if not self.over:
            now = min(self.clock.now, self.deadline)
            self.spent[self.current] += now - self.t
            self.t = now

    @rule(seconds=st.floats(0, 200))
    def advance(self, seconds: float) -> None:
        self.wait(seconds)
        finished = self.mock.tick()
        if not self.over and self.clock.now >= self.deadline:
            self.over = self.timed_out = True
        assert finished == self.over

    @rule()
    def finish(self) -> None:
        if not self.over and self.clock.now >= self.deadline:
            self.timed_out = True
        self.over = True
        report = self.mock.finish()
        if self.report is not None:
            assert report is self.report
        self.report = report

    @invariant()
    def matches_the_model(self) -> None:
        m = self.mock
        assert m.finished == self.over
        assert m.timed_out == self.timed_out
        assert m.answers == self.answers
        assert m.current == self.current
        assert 0 <= m.answered() <= m.total
        remaining = m.remaining()
        assert 0 <= remaining <= self.last_remaining
        if self.over:  # the countdown stops at the submission (or at the deadline)
            assert remaining == self.last_remaining or self.frozen is None
            self.frozen = remaining
        self.last_remaining = remaining
        for i, spent in enumerate(self.spent):
            assert m.seconds_on(i) == pytest.approx(spent, abs=1e-6)
        assert len(self.attempts) == (len(self.qs) if self.over else 0)

    @invariant()
    def report_matches_the_model(self) -> None:
        if not self.over:
            assert self.mock.report is None
            return
        report = self.mock.report
        assert report is not None
        if self.report is None:
            self.report = report
        assert self.mock.finish() is self.report is report
        assert 0 <= report.score <= report.answered <= report.total == len(self.qs)
        assert report.score == self.kinds.count("right")
        assert report.answered == sum(bool(a) or d for a, d in zip(self.answers, self.drafted, strict=True))
        blank = "timed-out" if self.timed_out else "skipped"
        for r, kind, spent in zip(report.results, self.kinds, self.spent, strict=True):
            verdict = r.attempt.verdict
            if kind == "right":
                assert verdict in ("exact", "correct")
            elif kind == "wrong":
                assert verdict in ("close", "wrong")
            else:
                assert verdict == blank
                assert r.verdict is None
            assert r.attempt.mode == "mock"
            assert r.attempt.seconds == pytest.approx(spent, abs=1e-6)
        assert [r.attempt for r in report.results] == self.attempts
        assert report.seconds_used <= report.total_seconds + 1e-6


MockMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None)
TestMockMachine = MockMachine.TestCase


def test_a_mock_marks_its_start_and_its_end_so_a_crash_leaves_it_unfinished() -> None:
    from quizzer.session.records import SessionMark
    from quizzer.session.stats import compute_stats

    marks: list[SessionMark] = []
    clock, wall = [100.0], [5000.0]
    mock = MockExam(
        minis(1, 2),
        total_seconds=600,
        clock=lambda: clock[0],
        wall=lambda: wall[0],
        session_id="m1",
        on_mark=marks.append,
    )
    # in the history before any question, with its time limit (a past mock's report says how much was used)
    assert marks == [SessionMark("m1", "mock", 5000.0, 2, minutes=10.0)]  # 600 s
    assert compute_stats([], now=wall[0], sessions=marks).unfinished_mocks == 1  # if it crashed now
    wall[0] += 60
    mock.finish()
    assert marks[-1] == SessionMark("m1", "mock", 5000.0, 2, finished=5060.0, minutes=10.0)
    mock.finish()
    assert len(marks) == 2  # a report is made once
    assert compute_stats([], now=wall[0], sessions=marks[-1:]).unfinished_mocks == 0
