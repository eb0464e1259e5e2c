"""DrillScreen: one question turn at a time, graded on enter, with its worked explanation and a score."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Header

from quizzer.core.words import counted
from quizzer.session.drill import DrillSession
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import dim, instance_label, line
from quizzer.tui.widgets.question_panel import QuestionPanel

FEEDBACK_HINT = dim("↑↓ scroll · n next · r again · o references · ? help · q back")


class DrillScreen(Screen[None]):
    """One drill: the session decides, the panel shows; the screen adds the score and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next", "Next", id="drill-next"),
        Binding("r", "repeat", "Again", id="drill-repeat"),
        Binding("h", "hint", "Hint", id="drill-hint"),
        Binding("s", "skip", "Skip", id="drill-skip"),
        Binding("o", "open_references", "References", id="drill-references"),
        Binding("slash", "answer", "Answer", show=False, id="drill-answer"),
        Binding("question_mark", "app.help", "Help", id="drill-help"),
        Binding("q", "back", "Back", id="drill-back"),
        Binding("escape", "escape", "Back", show=False, id="drill-escape"),
    ]

    def __init__(self, session: DrillSession) -> None:
        super().__init__()
        self.session = session

    @property
    def instance_id(self) -> str:
        """The id of the question on screen (the palette copies it)."""
        return self.session.instance.id

    @property
    def panel(self) -> QuestionPanel:
        return self.query_one(QuestionPanel)

    def compose(self) -> ComposeResult:
        yield Header()
        yield QuestionPanel(id="drill")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_question(first=True)

    def show_question(self, *, first: bool = False) -> None:
        self.panel.show(self.session.turn)
        self.update_side()
        if not first:  # the footer was just built for the first question: refreshing it costs ~50 ms of start
            self.refresh_bindings()

    def update_side(self) -> None:
        s = self.session
        skipped = f" · {s.skipped} skipped" if s.skipped else ""
        label = instance_label(s.instance.id, self.size.width)
        score = f"{s.right}/{s.answered} right{skipped} · {s.streak} in a row"
        if s.mode == "cram":  # the weakest templates, the schedule untouched
            self.panel.set_side(line((label, "dim"), ("  cram", "bold"), f" · {score}"))
        else:
            self.panel.set_side(line((label, "dim"), f"  {score}"))

    def on_resize(self, event: Resize) -> None:
        self.update_side()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers what applies: hint and skip while the question is open, the references once its
        answer is shown (and only when the template lists some)."""
        if action in ("hint", "skip"):
            return not self.session.done
        if action == "open_references":
            return self.session.done and bool(self.session.instance.references)
        return True

    @on(QuestionPanel.Unmade)
    def unmade(self, event: QuestionPanel.Unmade) -> None:
        """The question on screen could not be made whole: say why, and ask another (its template left
        out of this drill), or, when it was the drill's only template, go back."""
        event.stop()
        only = self.session.completed() is not None and not self.session.has_others
        self.notify(
            f"{event.error}",
            title="This question could not be made" + ("" if only else ": here is another"),
            severity="error",
            markup=False,
        )
        if only:
            self.dismiss()
        else:
            self.action_next()

    @on(QuestionPanel.Graded)
    def graded(self, event: QuestionPanel.Graded) -> None:
        self.update_side()
        self.refresh_bindings()
        self.panel.set_reading(FEEDBACK_HINT if self.session.done else self.panel.idle_reading())

    # --- actions ---------------------------------------------------------------------------------------

    def action_next(self) -> None:
        self.session.next()
        self.show_question()

    def action_repeat(self) -> None:
        self.session.repeat()
        self.show_question()

    def action_skip(self) -> None:
        """Skip the part asked: recorded as a skip, its answer shown, then the next part of a chain, or
        the worked explanation as after a wrong answer."""
        if self.session.done:
            return
        self.session.skip()
        self.panel.after_part(None)
        self.panel.set_reading(FEEDBACK_HINT if self.session.done else self.panel.idle_reading())
        self.update_side()
        self.refresh_bindings()

    def action_hint(self) -> None:
        if self.session.done:
            return
        if self.session.hint() is None:
            self.notify("Every hint is shown; the next step is the answer.")
            return
        self.panel.show_hints()

    def action_open_references(self) -> None:
        """Open the template's references in the browser (the user's own, when the app is served), once the
        answer is shown: they are part of the explanation."""
        references = self.session.instance.references
        if not self.session.done:
            self.notify("The references come with the answer: answer or skip (s) first.")
        elif not references:
            self.notify("This template lists no references.")
        else:
            for _, url in references:
                self.app.open_url(url)
            n = len(references)
            self.notify(f"Opened {counted(n, 'reference')} in the browser.", markup=False)

    def action_answer(self) -> None:
        if not self.session.done:
            self.panel.answer_box.focus()

    def action_escape(self) -> None:
        if self.panel.answer_box.has_focus:
            self.panel.body.focus()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.dismiss()
