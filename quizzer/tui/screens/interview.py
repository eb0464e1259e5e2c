"""InterviewScreen: the interviewer's sheet (answer, band, slips) and what the candidate says, graded live."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import ClassVar

from rich.markdown import Markdown as RichMarkdown
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from quizzer.core.words import counted
from quizzer.session.interview import InterviewSession, report_markdown
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.interview_lines import grade_lines, slip_lines
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import VERDICT_WORDS, Part, dim, line, plain

KEYS = dim("enter records what was said · ctrl+n next question · ctrl+s saves · esc back to Home")


class InterviewFiles:
    """Where an interview is saved: its set file and its report (Markdown); None: nowhere (no history file
    to save beside, and no file named)."""

    def __init__(self, set_path: str | None, report_path: str | None) -> None:
        self.set_path, self.report_path = set_path, report_path

    def write(self, set_text: str, report_text: str) -> str | None:
        """Write both (their folders made); None, or why one could not be written (the other may be)."""
        problems = []
        for what, path, text in (("set", self.set_path, set_text), ("report", self.report_path, report_text)):
            if path is None:
                problems.append(f"the {what}: no file named and no interviews folder given")
                continue
            try:
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                problems.append(f"{path}: {exc.strerror or exc}")
        return "; ".join(problems) or None


class InterviewScreen(Screen[None]):
    """One interview: the session decides; the screen shows the interviewer's sheet and the live grade."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_question", "Next question", id="interview-next"),
        Binding("ctrl+s", "save", "Save", id="interview-save", priority=True),
        Binding("escape", "back", "Back", id="interview-back"),
        Binding("pageup", "scroll_sheet(-1)", "Scroll", key_display="PgUp/PgDn", id="interview-page-up"),
        Binding("pagedown", "scroll_sheet(1)", "Scroll down", show=False, id="interview-page-down"),
    ]

    def __init__(self, session: InterviewSession, files: InterviewFiles) -> None:
        super().__init__()
        self.session = session
        self.files = files
        #: What is recorded has changed since the last save.
        self.unsaved = False
        #: The last save failed: leaving now says so once more, then leaves.
        self._failed = False
        #: What the verdict panel shows while the box is empty: the grade last recorded, or a notice.
        self._resting: tuple[Content, str] | None = None

    @property
    def instance_id(self) -> str:
        return self.session.instance.id

    @property
    def running(self) -> bool:
        """Answers are not saved yet: leaving saves them first (the app asks ``confirm_leave``)."""
        return self.unsaved

    @property
    def answer_box(self) -> AnswerInput:
        return self.query_one("#interview-input", AnswerInput)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="interview", classes="question-panel"):
            with Horizontal(classes="status-bar"):
                yield Static(id="interview-where", classes="status-main")
                yield Static(id="interview-score", classes="status-side")
            yield Static(id="interview-expected")
            with VerticalScroll(id="interview-sheet", classes="screen-body", can_focus=True):
                yield Static(id="interview-prompt")
                yield Static(id="interview-earlier")
                yield Static(id="interview-slips")
                yield Static(id="interview-notes")
            with Vertical(classes="answer-bar"):
                yield Static(id="interview-verdict", classes="verdict")
                yield Static(KEYS, classes="reading")
                yield AnswerInput(placeholder="What the candidate says", id="interview-input")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_part()
        self.answer_box.focus()
        self.call_after_refresh(self._ready)

    def _ready(self) -> None:
        self.answer_box.ready = True  # keys pressed while the screen opened are not an answer

    # --- what is shown ---------------------------------------------------------------------------------

    def show_part(self) -> None:
        """The sheet of the part being asked: where we are, the prompt, expected and band, the parts done,
        the slips, the follow-ups and the TL;DR."""
        session = self.session
        if session.done:
            self.show_end()
            return
        sheet, instance = session.sheet(), session.instance
        part = f"part {sheet.number} of {sheet.part_count} · " if sheet.part_count > 1 else ""
        self.query_one("#interview-where", Static).update(
            line(f"Question {session.current + 1} of {session.total} · {part}", (instance.title, "bold"))
        )
        self.update_score()
        self.query_one("#interview-prompt", Static).update(
            CachedRenderable(RichMarkdown(sheet.prompt.strip(), hyperlinks=False))
        )
        expected: list[Part] = [
            ("Expected: ", "bold"),
            (sheet.expected, "bold $success"),
            f" · right from {sheet.band}",
        ]
        if sheet.carried:
            expected += ["\n", ("Carried: ", "bold"), sheet.carried, " is right too"]
        self.query_one("#interview-expected", Static).update(line(*expected))
        earlier = self.query_one("#interview-earlier", Static)
        done = session.answers[session.current]
        earlier.display = bool(done)
        if done:
            earlier.update(
                Content("\n").join(
                    grade_lines(a.grade, f"Part {a.number}: “{a.answer}” ", brief=True)
                    if a.grade is not None
                    else plain(f"Part {a.number}: no answer")
                    for a in done
                )
            )
        self.query_one("#interview-slips", Static).update(slip_lines(sheet))
        notes: list[Part] = []
        if sheet.tldr.strip():
            notes += [("TL;DR ", "bold"), sheet.tldr.strip()]
        for n, (question, answer) in enumerate(instance.follow_ups, 1):
            notes += ["\n\n" if notes else "", (f"Follow-up {n}: ", "bold"), question, "\n", (answer, "dim")]
        self.query_one("#interview-notes", Static).update(line(*notes))
        self.query_one("#interview-sheet", VerticalScroll).scroll_home(animate=False)

    def update_score(self) -> None:
        session = self.session
        score = f"{session.right} of {counted(session.answered, 'part')} right" if session.answered else ""
        self.query_one("#interview-score", Static).update(score)

    def show_verdict(self, content: Content | None, kind: str = "") -> None:
        panel = self.query_one("#interview-verdict", Static)
        panel.set_classes(f"verdict is-{kind}" if kind else "verdict")
        panel.display = content is not None
        if content is not None:
            panel.update(content)

    def rest(self, content: Content, kind: str = "") -> None:
        """Empty the box and show ``content`` until something is typed (and whenever the box is empty)."""
        self._resting = (content, kind)
        self.answer_box.value = ""
        self.show_verdict(content, kind)

    def action_scroll_sheet(self, pages: int) -> None:
        """PgUp/PgDn: scroll the sheet while the box keeps the focus."""
        sheet = self.query_one("#interview-sheet", VerticalScroll)
        (sheet.scroll_page_down if pages > 0 else sheet.scroll_page_up)(animate=False)

    def show_end(self) -> None:
        """Every question asked: the report in the sheet's place, the box closed."""
        self.query_one("#interview-where", Static).update(
            line(("Interview over", "bold"), f" · {counted(self.session.total, 'question')}")
        )
        self.update_score()
        for selector in ("#interview-expected", "#interview-earlier", "#interview-slips", "#interview-notes"):
            self.query_one(selector).display = False
        report = report_markdown(self.session, VERDICT_WORDS)
        self.query_one("#interview-prompt", Static).update(
            CachedRenderable(RichMarkdown(report, hyperlinks=False))
        )
        self.answer_box.disabled = True
        self.answer_box.display = self.query_one(".reading").display = False
        self.query_one("#interview-sheet").focus()

    # --- what the interviewer does ---------------------------------------------------------------------

    @on(Input.Changed, "#interview-input")
    def grade_live(self, event: Input.Changed) -> None:
        """Grade what is typed so far, kept nowhere: the verdict, its diagnosis, carried credit."""
        graded = self.session.preview(event.value)
        if graded is None:
            self.show_verdict(*(self._resting or (None,)))
            return
        self.show_verdict(grade_lines(graded), graded.verdict.kind)

    @on(Input.Submitted, "#interview-input")
    def record_answer(self, event: Input.Submitted) -> None:
        """Record what the candidate said and ask the next part (or question); at the end, save."""
        session = self.session
        question, number, parts = session.current, session.number, session.instance.part_count
        graded = session.record(event.value)
        if graded is None:
            self.show_verdict(plain("Type what the candidate says (ctrl+n moves to the next question)."))
            return
        if graded.verdict.kind == "unparsed":
            return  # the live line already says why; nothing is recorded
        self.unsaved = True
        which = f" part {number}" if parts > 1 else ""
        if session.current != question and session.total > 1:
            which += f" of question {question + 1}" if which else f" question {question + 1}"
        self.rest(grade_lines(graded, f"Recorded{which}: "), graded.verdict.kind)
        self.show_part()
        if session.done:
            self.save()

    def action_next_question(self) -> None:
        if self.session.done:
            return
        left = self.session.next_question()
        self.unsaved = True
        self.rest(dim(f"Moved on: {counted(left, 'part')} left unanswered."))
        self.show_part()
        if self.session.done:
            self.save()

    def action_save(self) -> None:
        self.save()

    def save(self) -> bool:
        """Write the set and the report; a failure is a message on screen that stays (nothing is lost: the
        answers stay here, ctrl+s tries again)."""
        problem = self.files.write(self.session.set_text(), report_markdown(self.session, VERDICT_WORDS))
        if problem is not None:
            self._failed = True
            self.notify(
                f"{problem}. The answers are still here: ctrl+s tries again.",
                title="Interview not saved",
                severity="error",
                timeout=60,
                markup=False,
            )
            return False
        self.unsaved = self._failed = False
        if self.session.done:
            self.rest(
                line(
                    ("Saved", "bold"),
                    f": the report in {self.files.report_path}, the set in {self.files.set_path}",
                    ("\nesc goes back to Home", "dim"),
                )
            )
        self.notify(
            f"Set: {self.files.set_path}\nReport: {self.files.report_path}",
            title="Interview saved",
            timeout=20,
            markup=False,
        )
        return True

    def action_back(self) -> None:
        """Back to Home, saving first what is not saved."""
        if self._may_leave():
            self.dismiss()

    def confirm_leave(self, then: str | Callable[[], object]) -> None:
        """Leave for ``then`` ("quit" the app, or what to run once left: a palette's mode), saving first
        what is not saved."""
        if not self._may_leave():
            return
        if then == "quit":
            self.app.exit()
            return
        self.dismiss()
        if callable(then):
            self.app.call_later(then)

    def _may_leave(self) -> bool:
        """Save what is not saved; False (stay) when that fails, unless it had failed before: the message
        was seen, and leaving again leaves."""
        failed_before = self._failed
        return not self.unsaved or self.save() or failed_before
