"""MockScreen: timed questions under a countdown, answers revisable until submitted, feedback at the end."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Header

from quizzer.core.words import counted
from quizzer.session.mock import MockExam
from quizzer.tui.clock import clock_text
from quizzer.tui.messages import OpenReport
from quizzer.tui.screens.confirm import ConfirmModal
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import dim, instance_label, line, plain
from quizzer.tui.widgets.question_panel import QuestionPanel

MOCK_HINT = dim("enter saves and moves on · ↑↓ other questions · ctrl+s submits · no feedback until the end")
#: In a chain, enter locks a part and asks the next (its prompt shows the true earlier values).


class MockScreen(Screen[None]):
    """One mock interview: the exam decides; the screen shows and ticks the clock."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous", id="mock-previous"),
        Binding("down", "move(1)", "Next", id="mock-next"),
        Binding("ctrl+s", "submit", "Submit", id="mock-submit", priority=True),
        # esc never submits (drill users press it to leave the box): it leaves the box, as in the drill
        Binding("escape", "leave_box", "Leave the answer box", show=False, id="mock-escape"),
    ]

    def __init__(self, exam: MockExam) -> None:
        super().__init__()
        self.exam = exam
        #: A first ctrl+s with questions unanswered only warns; the second submits.
        self._confirming = False

    @property
    def instance_id(self) -> str:
        return self.exam.instances[self.exam.current].id

    @property
    def running(self) -> bool:
        """The clock runs: leaving now needs a confirmation (the answered questions are recorded)."""
        return not self.exam.finished

    @property
    def panel(self) -> QuestionPanel:
        return self.query_one(QuestionPanel)

    def compose(self) -> ComposeResult:
        yield Header()
        yield QuestionPanel(
            id="mock",
            grades=False,
            hint=MOCK_HINT,
            placeholder="your answer (you can change it until you submit)",
        )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_question()
        self.set_interval(0.25, self.tick)

    @on(QuestionPanel.Painted)
    def start_clock(self) -> None:
        """The question is on screen: the countdown starts with the first (the exam ignores later calls)."""
        self.exam.start()
        self.update_status()

    def show_question(self) -> None:
        exam = self.exam
        i = exam.current
        locked = tuple(exam.part_answers(i)[: exam.part_on(i) - 1])  # a chain's parts answered so far
        self.panel.show(None, exam.instances[i], text=exam.box_text(i), locked=locked)
        self.update_status()

    def update_status(self) -> None:
        exam = self.exam
        instance = exam.instances[exam.current]
        remaining = exam.remaining()
        self.panel.set_side(
            line(
                (instance_label(instance.id, self.size.width), "dim"),
                f"  {exam.current + 1}/{exam.total} · {exam.answered()} answered · this one "
                f"{clock_text(exam.seconds_on(exam.current))} / ~{clock_text(instance.minutes * 60)}  ·  ",
                (clock_text(remaining), "bold $warning" if remaining < 60 else "bold"),
                " left",
            )
        )
        marks: list[str | tuple[str, str]] = []
        for i in range(exam.total):
            started = any(exam.part_answers(i)) or bool(exam.box_text(i).strip())
            mark = f" {i + 1}{'●' if exam.complete(i) else '◐' if started else '○'} "
            marks.append((mark, "reverse") if i == exam.current else mark)
        self.panel.set_strip(line(*marks))

    def tick(self) -> None:
        if self.exam.finished:
            return
        self.exam.draft(self.panel.answer_box.value)  # what is typed is kept if the time runs out now
        if self.exam.tick():
            self.show_report()
            return
        self.update_status()

    def show_report(self) -> None:
        report = self.exam.finish()
        self.app.clear_notifications()  # "Submit?" is answered
        self.app.post_message(OpenReport(report))  # the report takes the mock's place
        self.dismiss()

    # --- input -----------------------------------------------------------------------------------------

    @on(QuestionPanel.Submitted)
    def save_answer(self, event: QuestionPanel.Submitted) -> None:
        saved = self.exam.save(event.text)
        if self.exam.finished:  # the time ran out: what was typed is graded with the rest
            self.show_report()
            return
        if saved.problem is not None:
            self.panel.set_reading(plain(f"✗ {saved.problem}"))
            return
        self._confirming = False
        if saved.moved:
            self.show_question()
            return
        self.update_status()
        if saved.all_answered:
            self.notify("Every question has an answer: ctrl+s submits.", title="All answered")

    def action_move(self, step: int) -> None:
        self.exam.move(step, self.panel.answer_box.value)
        if self.exam.finished:
            self.show_report()
            return
        self.show_question()

    def action_leave_box(self) -> None:
        """esc: leave the answer box (single keys then work, a digit jumps back in); never submits."""
        if self.panel.answer_box.has_focus:
            self.panel.body.focus()

    def action_submit(self) -> None:
        self.exam.keep(self.panel.answer_box.value)  # never locks a part: the question stays as shown
        unanswered = self.exam.total - self.exam.answered()
        if unanswered and not self._confirming and not self.exam.finished:
            self._confirming = True
            self.notify(
                f"{counted(unanswered, 'question')} unanswered: they count as skipped. "
                "Press ctrl+s again to submit.",
                title="Submit?",
                severity="warning",
            )
            self.update_status()
            return
        self.show_report()

    def confirm_leave(self, then: str | Callable[[], object]) -> None:
        """Ask before leaving a running mock (``then``: "quit" the app, "back", or what to run once it is
        left, a palette's mode); yes finishes it first."""

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            self.exam.draft(self.panel.answer_box.value)
            self.exam.finish()
            if then == "quit":
                self.app.exit()
                return
            self.dismiss()
            if callable(then):
                self.app.call_later(then)

        self.app.push_screen(
            ConfirmModal(
                "Leave the mock?",
                f"The clock is still running ({clock_text(self.exam.remaining())} left). Leaving submits it: "
                "the questions answered so far are graded and recorded, the others count as unanswered.",
                yes="Leave and submit",
                no="Stay",
            ),
            answered,
        )
