"""QuestionPanel: one question turn on screen (status, prompt, hints, verdict, teaching, answer bar)."""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import suppress
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.events import Key
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import Instance
from quizzer.grading.grade import Verdict
from quizzer.session.chain import Question, part_of
from quizzer.session.turn import PartResult, Turn, read_answer
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.lines import dim, hint_lines, md_escape, meta_line, plain, verdict_line
from quizzer.tui.widgets.prompt import QuestionPrompt
from quizzer.tui.widgets.teaching import (
    outcome_markdown,
    part_markdown,
    question_markdown,
    teaching_markdown,
)

if TYPE_CHECKING:
    from rich.markdown import Markdown as RichMarkdown

#: Characters that, typed outside the answer box, jump into it (the start of a number).
ANSWER_START = frozenset("0123456789.~≈")
ANSWER_PLACEHOLDER = "your answer, e.g. 16.4M · 1.6e7 · 15.6 GiB · 2.1 ms"


class QuestionPanel(Vertical):
    """The question of a turn, read as it is typed, and (when ``grades``) graded on enter.

    The screen decides what a turn is and what comes next; the panel shows one and says what happened:
    ``Graded`` after a readable answer was graded, ``Submitted`` when the panel does not grade (a mock
    saves the text). ``side`` is the screen's text at the right of the status line (a score, a countdown);
    ``strip`` a line under it (the mock's questions); ``extra`` a line above the reading (study's rating).
    ``Painted`` says when a question (or a chain's next part) is on screen: its time starts then, and keys
    typed before are dropped. PgUp/PgDn scroll the question while the answer box keeps the focus.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pageup", "scroll_body(-1)", "Scroll", key_display="PgUp/PgDn", id="question-page-up"),
        Binding("pagedown", "scroll_body(1)", "Scroll down", show=False, id="question-page-down"),
    ]

    class Painted(Message):
        """The question asked (a question, or a chain's next part) is on screen: the refresh after its
        prompt was mounted has run."""

    class Unmade(Message):
        """The rest of the question on screen (a lazy instance's later parts and teaching texts, made
        once it is painted) could not be made: ``error`` says why; nothing of it is graded."""

        def __init__(self, error: TemplateError) -> None:
            super().__init__()
            self.error = error

    class Graded(Message):
        """The turn's answer was graded (never sent for an unreadable answer)."""

        def __init__(self, turn: Turn, verdict: Verdict) -> None:
            super().__init__()
            self.turn, self.verdict = turn, verdict

    class Submitted(Message):
        """Enter in a panel that does not grade: ``text`` as typed."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(
        self,
        *,
        grades: bool = True,
        hint: Content | None = None,
        placeholder: str = ANSWER_PLACEHOLDER,
        id: str | None = None,  # Textual's name
    ) -> None:
        super().__init__(id=id, classes="question-panel")
        self.grades = grades
        self.hint_line = hint or dim("enter grades · esc leaves the box: then h hint, s skip, n next, q back")
        self._placeholder = placeholder
        self.turn: Turn | None = None
        self.instance: Instance | None = None
        self.question: Question | None = None
        """The part being asked (the instance itself for part 1 or a question of one part)."""
        self._prepared: Instance | None = None
        self._has_parts = False  # the parts shown later (strip, hints, verdict, explanation...) are mounted
        self._asked = 0  # how many questions or parts were asked: a paint reported late is ignored

    def compose(self) -> ComposeResult:
        with Horizontal(classes="status-bar"):
            yield Static(classes="status-main question-meta")
            yield Static(classes="status-side question-side")
        with VerticalScroll(classes="screen-body question-body", can_focus=True):
            yield QuestionPrompt(classes="question-prompt")
            yield Vertical(classes="chain")  # a chain's parts: each outcome, then the next part asked
        with Vertical(classes="answer-bar"):
            yield Static(self.hint_line, classes="reading")
            yield AnswerInput(placeholder=self._placeholder, id=f"{self.id or 'panel'}-input")

    def _parts(self) -> None:
        """Mount, hidden and once, what a question shows only later: the strip under the status line, the
        hints and the explanation under the prompt, the verdict and the extra line above the reading. The
        first question is painted without them (styling them was 15-20 ms of a drill's launch); they come
        right after its paint, or sooner when asked for."""
        if self._has_parts:
            return
        self._has_parts = True
        strip, hints, verdict, extra = (
            Static(classes=c) for c in ("question-strip", "hints", "verdict", "extra")
        )
        # One Static rendering rich's Markdown: Textual's Markdown widget builds a widget per block, and
        # laying those out made Enter-to-feedback take over half a second.
        feedback = Vertical(Static(classes="teaching"), Vertical(classes="follow-ups"), classes="feedback")
        for widget in (strip, hints, feedback, verdict, extra):
            widget.display = False
        self.mount(strip, after=self.query_one(".status-bar"))
        self.body.mount(hints, feedback, after=self.query_one(".chain"))
        self.query_one(".answer-bar").mount(verdict, extra, before=self.query_one(".reading"))

    def _made(self) -> bool:
        """Make the rest of the question on screen, if it was drawn lazily (a drill's: its prompt is
        painted first); False, having said so (``Unmade``), when it cannot be made."""
        if self.instance is None or self.instance.is_complete:
            return True
        try:
            self.instance.complete()
        except TemplateError as exc:
            self.answer_box.disabled = True  # nothing of it can be graded
            self.post_message(self.Unmade(exc))
            return False
        return True

    def _hide_parts(self) -> None:
        """Hide the hints, the explanation and the verdict (if mounted yet)."""
        if self._has_parts:
            for selector in (".hints", ".feedback", ".verdict"):
                self.query_one(selector).display = False
            self.query_one(".verdict", Static).set_classes("verdict")

    # --- what the screen sets -------------------------------------------------------------------------

    @property
    def answer_box(self) -> AnswerInput:
        return self.query_one(AnswerInput)

    @property
    def body(self) -> VerticalScroll:
        return self.query_one(".question-body", VerticalScroll)

    def set_side(self, content: Content | str) -> None:
        self.query_one(".question-side", Static).update(content)

    def set_strip(self, content: Content | None) -> None:
        if content is None and not self._has_parts:
            return
        self._parts()
        strip = self.query_one(".question-strip", Static)
        strip.display = content is not None
        if content is not None:
            strip.update(content)

    def set_extra(self, content: Content | None) -> None:
        if content is None and not self._has_parts:
            return
        self._parts()
        extra = self.query_one(".extra", Static)
        extra.display = content is not None
        if content is not None:
            extra.update(content)

    def set_reading(self, content: Content) -> None:
        self.query_one(".reading", Static).update(content)

    def show(
        self,
        turn: Turn | None,
        instance: Instance | None = None,
        *,
        text: str = "",
        locked: tuple[str, ...] = (),
    ) -> None:
        """Show a new question: ``turn``'s (graded here), or ``instance`` alone (read here, graded elsewhere);
        ``text`` is what the answer box holds (a mock's saved answer). ``locked`` holds the answers of a
        chain's earlier parts that can no longer change (a mock): they are listed, then the next part."""
        self.turn = turn
        self.instance = instance or (turn.instance if turn is not None else None)
        assert self.instance is not None
        self.question = self.instance.main
        self.query_one(".question-meta", Static).update(meta_line(self.instance))
        prompt = self.query_one(".question-prompt", QuestionPrompt)
        mounted: list[Awaitable[object]] = [prompt.show(question_markdown(self.instance))]
        mounted.append(self.query_one(".chain", Vertical).remove_children())
        self._hide_parts()
        self._prepared = None
        newest: Widget = prompt
        for number, answer in enumerate(locked, 1):
            mounted.append(self._mount_locked(number, answer))
            newest, mount = self._ask(number + 1)
            mounted.append(mount)
        self.set_reading(self.idle_reading())
        self._open_box(text)
        self.body.scroll_home(animate=False)
        self._when_laid_out(mounted, newest if locked else None, painted=True)

    def _open_box(self, text: str) -> None:
        box = self.answer_box
        box.value = text
        box.disabled = False
        box.display = True
        box.arm()
        box.focus()

    def _when_laid_out(
        self, mounted: list[Awaitable[object]], target: Widget | None, *, top: bool = False, painted: bool
    ) -> None:
        """Once ``mounted`` is done and the screen refreshed (laid out), scroll ``target`` into view (at the
        top of the body with ``top``) and, with ``painted``, say the question asked is on screen."""
        self._asked += painted
        asked, done = self._asked, False

        async def laid_out() -> None:
            for mount in mounted:
                await mount
            # on screen in the frame that draws the question's prompt (a prompt drawn here, with no part
            # to scroll to), else after the refresh that lays it out, whichever comes first: a prompt
            # with no cell on screen (a terminal a few rows high) is never drawn
            if target is None and painted:
                with suppress(NoMatches):  # the screen was left: once finds nothing either
                    self.query_one(".question-prompt", QuestionPrompt).when_drawn(once)
            self.call_after_refresh(once)

        def once() -> None:
            nonlocal done
            if not done:
                done = True
                on_screen()

        def on_screen() -> None:
            try:
                body, box = self.body, self.answer_box
            except NoMatches:
                return  # the screen was left (its widgets removed) before its question was painted
            if target is not None and target.is_attached:
                # now, not on the next refresh (Textual's default): the box below takes keys in this call,
                # and a key must never land before the part it answers is in view
                body.scroll_to_widget(target, animate=False, top=top, immediate=True)
            if painted and asked == self._asked:  # not a question already replaced by another
                box.take_keys()
                if self.turn is not None:
                    self.turn.shown()  # its time starts now
                self.post_message(self.Painted())
                if not self._made():
                    return
                self._parts()
                if self.grades:  # after the question is painted and its box takes keys: rich's Markdown
                    self.call_after_refresh(self.prepare_feedback)  # and pygments load here, ~50-90 ms

        self.call_later(laid_out)

    def _ask(self, number: int) -> tuple[Widget, Awaitable[object]]:
        """Ask part ``number`` of the chain: its prompt joins the body, and answers are read in its unit.
        Returns the prompt and its mount."""
        assert self.instance is not None
        self.question = part_of(self.instance, number)
        prompt = Static(_markdown(part_markdown(self.instance, number)), classes="chain-prompt")
        return prompt, self.query_one(".chain", Vertical).mount(prompt)

    def _mount_locked(self, number: int, answer: str) -> Awaitable[object]:
        note = f"**Part {number}** · your answer: {md_escape(answer)} (locked: graded at the end)"
        return self.query_one(".chain", Vertical).mount(Static(_markdown(note), classes="chain-outcome"))

    def _mount_outcome(self, result: PartResult) -> tuple[Widget, Awaitable[object]]:
        """A chain part's verdict and explanation, kept in the body above the next part."""
        assert self.instance is not None
        verdict = result.verdict
        kind = verdict.kind if verdict is not None else "skipped"
        question = part_of(self.instance, result.number)
        said = verdict.summary if verdict is not None else f"The answer: {question.display}"
        feedback = verdict.feedback if verdict is not None else None
        outcome = Vertical(
            Static(
                verdict_line(kind, f"Part {result.number}: {said}", feedback),
                classes=f"chain-verdict is-{kind}",
            ),
            Static(_markdown(outcome_markdown(self.instance, result.number)), classes="chain-explanation"),
            classes="chain-outcome",
        )
        return outcome, self.query_one(".chain", Vertical).mount(outcome)

    def after_part(self, verdict: Verdict | None) -> None:
        """The turn's part was graded (``verdict``) or skipped (None). In a chain its outcome joins the
        body and, until the last part, the next part is asked in the same answer box; once every part
        is done, the verdict and the worked explanation of the whole."""
        self._parts()
        turn = self.turn
        if turn is not None and turn.chain and turn.results:
            outcome, mounted = self._mount_outcome(turn.results[-1])
            if not turn.done:
                self.query_one(".verdict", Static).display = False  # the outcome above says it
                prompt, asked = self._ask(turn.number)
                self.query_one(".hints", Static).display = False
                self._open_box("")
                self.set_reading(self.idle_reading())
                self._when_laid_out([mounted, asked], prompt, painted=True)  # the next part in view
                return
            self.show_verdict(verdict, reveal=False)
            self.show_feedback(scroll=False)
            self._when_laid_out([mounted], outcome, top=True, painted=False)  # the last part's verdict
            return
        self.show_verdict(verdict)

    def show_done(self, turn: Turn) -> None:
        """Show a turn already answered (a study review undone): the question, each part's outcome in order
        with the next part's prompt, then the verdict and worked explanation of the whole."""
        self.show(turn)
        if turn.chain:
            for result in turn.results[:-1]:
                self._mount_outcome(result)
                self._ask(result.number + 1)
        self.after_part(turn.verdict)

    def show_nothing(self, title: str, markdown: str, reading: Content) -> None:
        """An empty state: no question, a message, no answer box (study with nothing due)."""
        self.turn = self.instance = None
        self.query_one(".question-meta", Static).update(plain(title))
        self.query_one(".question-prompt", QuestionPrompt).show(markdown)
        self._hide_parts()
        self.answer_box.display = False
        self.set_reading(reading)
        self.body.focus()

    def show_hints(self) -> None:
        """The hints the turn has revealed so far."""
        if self.turn is None:
            return
        self._parts()
        hints = self.query_one(".hints", Static)
        hints.update(hint_lines(self.turn.revealed))
        hints.display = bool(self.turn.revealed)
        if hints.display:  # below the prompt and conventions: brought into view, or h seems to do nothing
            self._when_laid_out([], hints, painted=False)

    def show_verdict(self, verdict: Verdict | None, reveal: bool = True) -> None:
        """The verdict (None: skipped, with the answer), then, unless unreadable, the worked explanation."""
        self._parts()
        widget = self.query_one(".verdict", Static)
        widget.display = True
        if verdict is None:
            assert self.question is not None
            widget.set_classes("verdict is-skipped")
            widget.update(verdict_line("skipped", f"The answer: {self.question.display}"))
        else:
            widget.set_classes(f"verdict is-{verdict.kind}")
            widget.update(verdict_line(verdict.kind, verdict.summary, verdict.feedback))
        if verdict is not None and verdict.kind == "unparsed":
            return
        if reveal:
            self.show_feedback()

    def prepare_feedback(self) -> None:
        """Render the explanation while the question is read, so Enter only has to reveal it."""
        instance = self.instance
        if instance is None or self._prepared is instance:
            return
        try:
            self._parts()
            teaching_widget = self.query_one(".teaching", Static)
            follow_ups = self.query_one(".follow-ups", Vertical)
            body = self.body
        except NoMatches:
            return  # the screen was left (its widgets removed) before this came
        self._prepared = instance
        # rich's Markdown pulls in pygments: imported here, after the first question is painted
        from rich.markdown import Markdown as RichMarkdown

        teaching = CachedRenderable(RichMarkdown(teaching_markdown(instance), hyperlinks=False))
        width = body.region.width - body.styles.gutter.width
        # the width it will have: the body's, less a scrollbar once the explanation makes it scroll
        options = self.app.console_options.update(highlight=False)
        teaching.warm(self.app.console, options, {width, width - body.styles.scrollbar_size_vertical})
        teaching_widget.update(teaching)
        follow_ups.remove_children()
        follow_ups.mount_all(
            Collapsible(Static(plain(answer)), title=plain(f"Follow-up: {question}"), collapsed=True)  # type: ignore[arg-type]  # Content works; the hint says str
            for question, answer in instance.follow_ups
        )

    def show_feedback(self, *, scroll: bool = True) -> None:
        """Reveal the explanation and move the focus to the body, so single keys work at once; ``scroll``
        brings the explanation to the top of the body once it is laid out."""
        self.prepare_feedback()  # a no-op unless Enter came before the first refresh
        self._parts()
        self.query_one(".feedback").display = True
        self.answer_box.disabled = True
        self.body.focus()
        if scroll:
            self.call_after_refresh(self.scroll_feedback_into_view)  # once the explanation is laid out

    def scroll_feedback_into_view(self) -> None:
        """Scroll the explanation to the top of the body (the question stays above it)."""
        self.body.scroll_to_widget(self.query_one(".feedback"), animate=False, top=True)

    # --- input -----------------------------------------------------------------------------------------

    def action_scroll_body(self, pages: int) -> None:
        """PgUp/PgDn: scroll the question a page, wherever the focus is (the answer box keeps it)."""
        if pages < 0:
            self.body.scroll_page_up(animate=False)
        else:
            self.body.scroll_page_down(animate=False)

    @on(AnswerInput.Changed)
    def read_as_typed(self, event: AnswerInput.Changed) -> None:
        event.stop()
        if self.question is None or (self.turn is not None and self.turn.done):
            return
        reading = read_answer(self.question, event.value)
        self.set_reading(plain(reading) if reading else self.idle_reading())

    def idle_reading(self) -> Content:
        """What the line under the answer box says while nothing is typed: the keys, and in a chain
        which part is asked."""
        instance, question = self.instance, self.question
        if instance is None or question is None or instance.part_count == 1:
            return self.hint_line
        number = question.number
        where = (f"part {number} of {instance.part_count} · ", "bold")
        if not self.grades and number < instance.part_count:  # a mock locks the part to ask the next
            return Content.assemble(
                where, dim(f"enter locks this answer and asks part {number + 1} · ctrl+s submits")
            )
        return Content.assemble(where, self.hint_line)

    @on(AnswerInput.Submitted)
    def submit(self, event: AnswerInput.Submitted) -> None:
        event.stop()
        text = event.value
        if not self.grades:
            self.post_message(self.Submitted(text))
            return
        turn = self.turn
        if turn is None or turn.done or not text.strip():
            return
        verdict = turn.answer(text)
        if verdict.kind == "unparsed":
            self.show_verdict(verdict)
            return
        self.after_part(verdict)
        self.post_message(self.Graded(turn, verdict))

    def on_key(self, event: Key) -> None:
        """A digit typed outside the box starts an answer in it."""
        box = self.answer_box
        open_turn = self.instance is not None and not (self.turn is not None and self.turn.done)
        if box.display and not box.has_focus and open_turn and event.character in ANSWER_START:
            box.focus()
            box.cursor_position = len(box.value)  # the digit continues the answer
            box.insert_text_at_cursor(event.character)
            event.stop()


def _markdown(text: str) -> RichMarkdown:
    """``text`` as rich's Markdown (imported on first use: it pulls in pygments)."""
    from rich.markdown import Markdown

    return Markdown(text, hyperlinks=False)
