"""StudyScreen: spaced repetition, a fresh variant each review, rated from verdict and time (overridable)."""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Markdown, Static

from quizzer.session.srs import RATINGS
from quizzer.session.study import StudySession
from quizzer.tui.screens.drill import question_markdown, teaching_markdown
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.lines import dim, hint_lines, line, meta_line, plain, verdict_line

STUDY_HINT = dim("enter grades · esc leaves the box: then h hint, s skip, q back")
#: Typed outside the answer box before grading, these start an answer.
_ANSWER_START = set("0123456789.~≈")


class StudyScreen(Screen[None]):
    """One study session: the session schedules; the screen shows and lets you change the rating."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next", "Next", id="study-next"),
        Binding("h", "hint", "Hint", id="study-hint"),
        Binding("s", "skip", "Skip", id="study-skip"),
        Binding("1", "rate('again')", "Again", show=False, id="study-again"),
        Binding("2", "rate('hard')", "Hard", show=False, id="study-hard"),
        Binding("3", "rate('good')", "Good", show=False, id="study-good"),
        Binding("4", "rate('easy')", "Easy", show=False, id="study-easy"),
        Binding("question_mark", "app.help", "Help", id="study-help"),
        Binding("q", "back", "Back", id="study-back"),
        Binding("escape", "escape", "Back", show=False, id="study-escape"),
    ]

    def __init__(self, session: StudySession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="status-bar"):
            yield Static(id="study-meta", classes="status-main")
            yield Static(id="study-counts", classes="status-side")
        with VerticalScroll(id="study-body", classes="screen-body", can_focus=True):
            yield Markdown(id="study-prompt")
            yield Static(id="study-hints", classes="hints")
            yield Static(id="study-teaching")
        with Vertical(classes="answer-bar"):
            yield Static(id="study-verdict", classes="verdict")
            yield Static(id="study-rating", classes="rating")
            yield Static(STUDY_HINT, id="study-reading", classes="reading")
            yield AnswerInput(
                placeholder="your answer, e.g. 16.4M · 1.6e7 · 15.6 GiB · 2.1 ms", id="study-input"
            )
        yield Footer()

    def on_mount(self) -> None:
        self.show_question()

    @property
    def graded(self) -> bool:
        return self.session.rating is not None

    # --- display ---------------------------------------------------------------------------------------

    def update_counts(self) -> None:
        s = self.session
        self.query_one("#study-counts", Static).update(
            f"{s.due_count} due · {s.new_count} new left today · {s.right}/{s.reviewed} right"
        )

    def show_question(self) -> None:
        instance = self.session.instance
        self.update_counts()
        for selector in ("#study-hints", "#study-teaching", "#study-verdict", "#study-rating"):
            self.query_one(selector).display = False
        answer = self.query_one("#study-input", Input)
        answer.value = ""
        if instance is None:
            self.show_nothing_due()
            return
        self.query_one("#study-meta", Static).update(meta_line(instance))
        self.query_one("#study-prompt", Markdown).update(question_markdown(instance))
        self.query_one("#study-reading", Static).update(STUDY_HINT)
        answer.disabled = False
        answer.display = True
        answer.focus()
        self.query_one("#study-body", VerticalScroll).scroll_home(animate=False)

    def show_nothing_due(self) -> None:
        store = self.app.store  # type: ignore[attr-defined]
        upcoming = [c.due for c in store.cards()]
        when = (
            f"The next review is due {time.strftime('%a %d %b at %H:%M', time.localtime(min(upcoming)))}."
            if upcoming
            else ""
        )
        self.query_one("#study-meta", Static).update(line(("Study", "bold")))
        self.query_one("#study-prompt", Markdown).update(
            "## Nothing to study right now\n\n"
            "Every template you have studied is scheduled later, and today's new templates are used up. "
            f"{when}\n\n"
            "A drill (`d` on Home) practises anything without touching the schedule."
        )
        answer = self.query_one("#study-input", Input)
        answer.display = False
        self.query_one("#study-reading", Static).update(dim("q back"))
        self.query_one("#study-body", VerticalScroll).focus()

    def show_graded(self) -> None:
        s = self.session
        instance = s.instance
        assert instance is not None
        verdict_widget = self.query_one("#study-verdict", Static)
        if s.verdict is not None:
            text = verdict_line(s.verdict.kind, s.verdict.summary, s.verdict.feedback)
            verdict_widget.set_classes(f"verdict is-{s.verdict.kind}")
        else:
            text = verdict_line("skipped", f"The answer: {instance.display}")
            verdict_widget.set_classes("verdict is-skipped")
        verdict_widget.update(text)
        verdict_widget.display = True
        from rich.markdown import Markdown as RichMarkdown

        teaching = self.query_one("#study-teaching", Static)
        teaching.update(CachedRenderable(RichMarkdown(teaching_markdown(instance), hyperlinks=False)))
        teaching.display = True
        self.show_rating()
        self.query_one("#study-input", Input).disabled = True
        self.query_one("#study-reading", Static).update(dim("1-4 change the rating · n next · q back"))
        self.query_one("#study-body", VerticalScroll).focus()
        self.update_counts()
        self.call_after_refresh(
            self.query_one("#study-body", VerticalScroll).scroll_to_widget, teaching, animate=False, top=True
        )

    def show_rating(self) -> None:
        s = self.session
        choices: list[str | tuple[str, str]] = ["Rating  "]
        for key, rating in enumerate(RATINGS, 1):
            label = f" {key} {rating} "
            choices += [(label, "reverse bold") if rating == s.rating else label, " "]
        why = (
            f"proposed: {s.proposed}"
            if s.rating == s.proposed
            else f"you chose {s.rating} (proposed {s.proposed})"
        )
        widget = self.query_one("#study-rating", Static)
        widget.update(line(*choices, "  ", (why, "dim")))
        widget.display = True

    # --- input -----------------------------------------------------------------------------------------

    @on(Input.Changed, "#study-input")
    def read_as_typed(self, event: Input.Changed) -> None:
        if not self.graded and self.session.instance is not None:
            reading = self.session.preview(event.value)
            self.query_one("#study-reading", Static).update(plain(reading) if reading else STUDY_HINT)

    @on(Input.Submitted, "#study-input")
    def grade_answer(self, event: Input.Submitted) -> None:
        event.stop()
        if self.graded or self.session.instance is None or not event.value.strip():
            return
        verdict = self.session.answer(event.value)
        if verdict.kind == "unparsed":
            widget = self.query_one("#study-verdict", Static)
            widget.set_classes("verdict is-unparsed")
            widget.update(verdict_line("unparsed", verdict.message))
            widget.display = True
            return
        self.show_graded()

    def on_key(self, event: Key) -> None:
        answer = self.query_one("#study-input", Input)
        if (
            not answer.has_focus
            and not self.graded
            and self.session.instance is not None
            and event.character in _ANSWER_START
        ):
            answer.focus()
            answer.insert_text_at_cursor(event.character)  # type: ignore[arg-type]
            event.stop()

    # --- actions ---------------------------------------------------------------------------------------

    def action_rate(self, rating: str) -> None:
        if self.graded:
            self.session.override(rating)
            self.show_rating()

    def action_next(self) -> None:
        if not self.graded:
            if self.session.instance is not None:
                self.notify("Answer or skip (s) first: the rating comes from the answer.")
            return
        self.session.next()
        self.show_question()

    def action_skip(self) -> None:
        if self.graded or self.session.instance is None:
            return
        self.session.skip()
        self.show_graded()

    def action_hint(self) -> None:
        if self.graded or self.session.instance is None:
            return
        step = self.session.hint()
        if step is None:
            self.notify("Every step is shown; the next one is the answer.")
            return
        hints = self.query_one("#study-hints", Static)
        hints.update(hint_lines(self.session.revealed))
        hints.display = True

    def action_escape(self) -> None:
        if self.query_one("#study-input", Input).has_focus:
            self.query_one("#study-body", VerticalScroll).focus()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.session.finish()  # a graded review is committed when you leave, as when you move on
        self.app.back()  # type: ignore[attr-defined]
