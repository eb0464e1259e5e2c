"""MockScreen: timed questions under a countdown, answers revisable until submitted, feedback at the end."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Markdown, Static

from quizzer.session.drill import read_answer
from quizzer.session.mock import MockExam
from quizzer.tui.screens.drill import question_markdown
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.lines import dim, line, md_escape, plain

MOCK_HINT = dim("enter saves and moves on · ↑↓ other questions · ctrl+s submits · no feedback until the end")


def clock_text(seconds: float) -> str:
    """Seconds as m:ss (h:mm:ss from an hour)."""
    whole = max(int(seconds), 0)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class MockScreen(Screen[None]):
    """One mock interview: the exam decides; the screen shows and ticks the clock."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous", id="mock-previous"),
        Binding("down", "move(1)", "Next", id="mock-next"),
        Binding("ctrl+s", "submit", "Submit", id="mock-submit", priority=True),
        Binding("escape", "submit", "Submit and leave", show=False, id="mock-escape"),
    ]

    def __init__(self, exam: MockExam) -> None:
        super().__init__()
        self.exam = exam
        #: A first ctrl+s with questions unanswered only warns; the second submits.
        self._confirming = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="status-bar"):
            yield Static(id="mock-position", classes="status-main")
            yield Static(id="mock-clock", classes="status-side")
        yield Static(id="mock-strip", classes="mock-strip")
        with VerticalScroll(id="mock-body", classes="screen-body"):
            yield Markdown(id="mock-prompt")
        with Vertical(classes="answer-bar"):
            yield Static(MOCK_HINT, id="mock-reading", classes="reading")
            yield AnswerInput(placeholder="your answer (you can change it until you submit)", id="mock-input")
        yield Footer()

    def on_mount(self) -> None:
        self.show_question()
        self.set_interval(0.25, self.tick)

    # --- display ---------------------------------------------------------------------------------------

    def show_question(self) -> None:
        exam = self.exam
        instance = exam.instances[exam.current]
        self.query_one("#mock-prompt", Markdown).update(
            f"**{md_escape(instance.title)}** · {instance.topic} · ~{instance.minutes:g} min\n\n"
            + question_markdown(instance)
        )
        answer = self.query_one("#mock-input", Input)
        answer.value = exam.answers[exam.current]
        answer.focus()
        self.query_one("#mock-body", VerticalScroll).scroll_home(animate=False)
        self.update_status()

    def update_status(self) -> None:
        exam = self.exam
        instance = exam.instances[exam.current]
        self.query_one("#mock-position", Static).update(
            line(
                ("Mock", "bold"),
                f" · question {exam.current + 1} of {exam.total} · {exam.answered()} answered",
            )
        )
        remaining = exam.remaining()
        self.query_one("#mock-clock", Static).update(
            line(
                f"this one {clock_text(exam.seconds_on(exam.current))}",
                f" / ~{clock_text(instance.minutes * 60)}  ·  ",
                (clock_text(remaining), "bold $warning" if remaining < 60 else "bold"),
                " left",
            )
        )
        marks: list[str | tuple[str, str]] = []
        for i, text in enumerate(exam.answers):
            mark = f" {i + 1}{'●' if text else '○'} "
            marks.append((mark, "reverse") if i == exam.current else mark)
        self.query_one("#mock-strip", Static).update(line(*marks))

    def tick(self) -> None:
        if self.exam.finished:
            return
        if self.exam.tick():
            self.show_report()
            return
        self.update_status()

    def show_report(self) -> None:
        from quizzer.tui.screens.mock_report import MockReportScreen

        report = self.exam.finish()
        self.app.clear_notifications()  # "Submit?" is answered
        self.app.switch_screen(MockReportScreen(report))

    # --- input -----------------------------------------------------------------------------------------

    @on(Input.Changed, "#mock-input")
    def read_as_typed(self, event: Input.Changed) -> None:
        instance = self.exam.instances[self.exam.current]
        reading = read_answer(instance, event.value)
        self.query_one("#mock-reading", Static).update(plain(reading) if reading else MOCK_HINT)

    @on(Input.Submitted, "#mock-input")
    def save_answer(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.exam.answer(event.value.strip())
        if problem is not None:
            self.query_one("#mock-reading", Static).update(plain(f"✗ {problem}"))
            return
        self._confirming = False
        unanswered = [i for i, text in enumerate(self.exam.answers) if not text]
        later = [i for i in unanswered if i > self.exam.current] or unanswered
        if later:
            self.exam.go(later[0])
            self.show_question()
        else:
            self.update_status()
            self.notify("Every question has an answer: ctrl+s submits.", title="All answered")

    def action_move(self, step: int) -> None:
        self.exam.answer(
            self.query_one("#mock-input", Input).value.strip()
        )  # keep what was typed, if readable
        self.exam.go((self.exam.current + step) % self.exam.total)
        self.show_question()

    def action_submit(self) -> None:
        self.exam.answer(self.query_one("#mock-input", Input).value.strip())
        unanswered = self.exam.total - self.exam.answered()
        if unanswered and not self._confirming:
            self._confirming = True
            self.notify(
                f"{unanswered} question(s) unanswered: they count as skipped. Press ctrl+s (or esc) again to "
                "submit.",
                title="Submit?",
                severity="warning",
            )
            return
        self.show_report()
