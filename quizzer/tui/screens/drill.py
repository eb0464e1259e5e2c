"""DrillScreen: a question, an answer read as you type, then the verdict and the worked explanation."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Collapsible, Footer, Header, Input, Markdown, Static

from quizzer.bank.render import Instance
from quizzer.grading.grade import Verdict
from quizzer.session.drill import DrillSession
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.lines import dim, hint_lines, meta_line, plain, verdict_line

#: Characters that, typed outside the answer box, jump into it (the start of a number).
_ANSWER_START = set("0123456789.~≈")

READING_HINT = dim("enter grades · esc leaves the box: then h hint, s skip, n next, q back")


def question_markdown(instance: Instance) -> str:
    """The prompt and its conventions."""
    text = instance.prompt.strip()
    if instance.conventions:
        text += "\n\n**Conventions**\n\n" + "\n".join(f"- {c}" for c in instance.conventions)
    return text


def teaching_markdown(instance: Instance) -> str:
    """The answer, worked explanation, TL;DR, memory aid and references."""
    parts = [
        f"### Answer: {instance.display}",
        instance.explanation.strip(),
        f"**TL;DR** {instance.tldr.strip()}",
    ]
    if instance.memory_aid:
        parts.append(f"**Memory aid** {instance.memory_aid.strip()}")
    if instance.references:
        parts.append("**References**\n\n" + "\n".join(f"- [{t}]({u})" for t, u in instance.references))
    return "\n\n".join(parts)


class DrillScreen(Screen[None]):
    """One drill: the session decides; the screen shows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next", "Next", id="drill-next"),
        Binding("r", "repeat", "Again", id="drill-repeat"),
        Binding("h", "hint", "Hint", id="drill-hint"),
        Binding("s", "skip", "Skip", id="drill-skip"),
        Binding("slash", "answer", "Answer", show=False, id="drill-answer"),
        Binding("question_mark", "app.help", "Help", id="drill-help"),
        Binding("q", "back", "Back", id="drill-back"),
        Binding("escape", "escape", "Back", show=False, id="drill-escape"),
    ]

    score = reactive("", layout=True)

    def __init__(self, session: DrillSession) -> None:
        super().__init__()
        self.session = session
        #: The instance whose explanation is laid out (hidden) in #feedback.
        self._prepared: Instance | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="drill-status"):
            yield Static(id="question-meta")
            yield Static(id="score")
        with VerticalScroll(id="drill-body", can_focus=True):
            yield Markdown(id="prompt")
            yield Static(id="hints")
            with Vertical(id="feedback"):
                # One Static rendering rich's Markdown: Textual's Markdown widget builds a widget per block
                # and table cell, and laying those out made Enter-to-feedback take over half a second.
                yield Static(id="teaching")
                yield Vertical(id="follow-ups")
        with Vertical(id="answer-bar"):
            yield Static(id="verdict")
            yield Static(READING_HINT, id="reading")
            yield AnswerInput(
                placeholder="your answer, e.g. 16.4M · 1.6e7 · 15.6 GiB · 2.1 ms", id="answer-input"
            )
        yield Footer()

    def on_mount(self) -> None:
        self.show_question()

    # --- display ---------------------------------------------------------------------------------------

    def show_question(self) -> None:
        instance = self.session.instance
        self.query_one("#question-meta", Static).update(meta_line(instance))
        self.query_one("#prompt", Markdown).update(question_markdown(instance))
        self.query_one("#hints", Static).update("")
        self.query_one("#hints").display = False
        self.query_one("#feedback").display = False
        self._prepared = None
        self.call_after_refresh(self.prepare_feedback)  # after the question is painted
        verdict = self.query_one("#verdict", Static)
        verdict.update("")
        verdict.set_classes("")
        verdict.display = False
        self.query_one("#reading", Static).update(READING_HINT)
        answer = self.query_one("#answer-input", Input)
        answer.value = ""
        answer.disabled = False
        answer.focus()
        self.query_one("#drill-body", VerticalScroll).scroll_home(animate=False)
        self.update_score()

    def update_score(self) -> None:
        s = self.session
        self.score = f"{s.right}/{s.answered} right · streak {s.streak} · best {s.best_streak}"

    def watch_score(self, score: str) -> None:
        self.query_one("#score", Static).update(score)

    def show_verdict(self, verdict: Verdict) -> None:
        widget = self.query_one("#verdict", Static)
        widget.display = True
        widget.set_classes(f"is-{verdict.kind}")
        widget.update(verdict_line(verdict.kind, verdict.summary, verdict.feedback))

    def prepare_feedback(self) -> None:
        """Render the explanation while the question is read, so Enter only has to reveal it."""
        instance = self.session.instance
        if self._prepared is instance:
            return
        self._prepared = instance
        # rich's Markdown pulls in pygments: imported here, after the first question is painted
        from rich.markdown import Markdown as RichMarkdown

        teaching = CachedRenderable(RichMarkdown(teaching_markdown(instance), hyperlinks=False))
        body = self.query_one("#drill-body", VerticalScroll)
        width = body.region.width - body.styles.gutter.width
        # the width it will have: the body's, less a scrollbar once the explanation makes it scroll
        options = self.app.console_options.update(highlight=False)
        teaching.warm(self.app.console, options, {width, width - body.styles.scrollbar_size_vertical})
        self.query_one("#teaching", Static).update(teaching)
        follow_ups = self.query_one("#follow-ups", Vertical)
        follow_ups.remove_children()
        follow_ups.mount_all(
            Collapsible(Static(plain(answer)), title=plain(f"Follow-up: {question}"), collapsed=True)  # type: ignore[arg-type]
            for question, answer in instance.follow_ups
        )

    def show_feedback(self) -> None:
        self.prepare_feedback()  # a no-op unless Enter came before the first refresh
        self.query_one("#feedback").display = True
        self.query_one("#answer-input", Input).disabled = True
        self.query_one("#reading", Static).update(
            dim("↑↓ scroll · n next · r again · h hint · ? help · q back")
        )
        self.query_one("#drill-body", VerticalScroll).focus()
        self.call_after_refresh(self.scroll_feedback_into_view)  # once the explanation is laid out

    def scroll_feedback_into_view(self) -> None:
        """Scroll the explanation to the top of the body (the question stays above it)."""
        body = self.query_one("#drill-body", VerticalScroll)
        body.scroll_to_widget(self.query_one("#feedback"), animate=False, top=True)

    # --- input -----------------------------------------------------------------------------------------

    @on(Input.Changed, "#answer-input")
    def read_as_typed(self, event: Input.Changed) -> None:
        if not self.session.done:
            reading = self.session.preview(event.value)
            self.query_one("#reading", Static).update(plain(reading) if reading else READING_HINT)

    @on(Input.Submitted, "#answer-input")
    def grade_answer(self, event: Input.Submitted) -> None:
        event.stop()
        if self.session.done or not event.value.strip():
            return
        verdict = self.session.answer(event.value)
        self.show_verdict(verdict)
        if verdict.kind != "unparsed":
            self.update_score()
            self.show_feedback()

    def on_key(self, event: Key) -> None:
        answer = self.query_one("#answer-input", Input)
        if not answer.has_focus and not self.session.done and event.character in _ANSWER_START:
            answer.focus()
            answer.insert_text_at_cursor(event.character)  # type: ignore[arg-type]
            event.stop()

    # --- actions ---------------------------------------------------------------------------------------

    def action_next(self) -> None:
        self.session.next()
        self.show_question()

    def action_repeat(self) -> None:
        self.session.repeat()
        self.show_question()

    def action_skip(self) -> None:
        done = self.session.done
        instance = self.session.instance
        self.session.skip()
        self.show_question()
        if not done:
            self.notify(f"Skipped. The answer was {instance.display}.", title="Skipped", markup=False)

    def action_hint(self) -> None:
        if self.session.done:
            return
        step = self.session.hint()
        hints = self.query_one("#hints", Static)
        if step is None:
            self.notify("Every step is shown; the next one is the answer.")
            return
        hints.update(hint_lines(self.session.revealed))
        hints.display = True

    def action_answer(self) -> None:
        if not self.session.done:
            self.query_one("#answer-input", Input).focus()

    def action_escape(self) -> None:
        if self.query_one("#answer-input", Input).has_focus:
            self.query_one("#drill-body", VerticalScroll).focus()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.app.back()  # type: ignore[attr-defined]
