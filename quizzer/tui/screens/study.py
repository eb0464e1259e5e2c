"""StudyScreen: spaced repetition, a fresh variant each review, rated from verdict and time (overridable)."""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header

from quizzer.session.srs import RATINGS
from quizzer.session.study import StudySession
from quizzer.tui.widgets.lines import dim, instance_label, line
from quizzer.tui.widgets.question_panel import QuestionPanel

STUDY_HINT = dim("enter grades · esc leaves the box: then h hint, s skip, q back")
RATED_HINT = dim("1-4 change the rating · n next · q back")


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

    @property
    def instance_id(self) -> str | None:
        instance = self.session.instance
        return instance.id if instance is not None else None

    @property
    def panel(self) -> QuestionPanel:
        return self.query_one(QuestionPanel)

    def compose(self) -> ComposeResult:
        yield Header()
        yield QuestionPanel(id="study", hint=STUDY_HINT)
        yield Footer()

    def on_mount(self) -> None:
        self.show_question()

    @property
    def graded(self) -> bool:
        return self.session.done

    def update_side(self) -> None:
        s = self.session
        due, new = s.counts()
        label = instance_label(s.instance.id, self.size.width) if s.instance is not None else ""
        self.panel.set_side(
            line((label, "dim"), f"  {due} due · {new} new left today · {s.right}/{s.reviewed} right")
        )

    def show_question(self) -> None:
        self.update_side()
        self.panel.set_extra(None)
        turn = self.session.turn
        if turn is None:
            self.show_nothing_due()
            return
        self.panel.show(turn)

    def show_nothing_due(self) -> None:
        upcoming = [c.due for c in self.session.cards.values()]
        when = (
            f"The next review is due {time.strftime('%a %d %b at %H:%M', time.localtime(min(upcoming)))}."
            if upcoming
            else ""
        )
        self.panel.show_nothing(
            "Study",
            "## Nothing to study right now\n\n"
            "Every template you have studied is scheduled later, and today's new templates are used up. "
            f"{when}\n\n"
            "A drill (`d` on Home) practises anything without touching the schedule.",
            dim("q back"),
        )

    def show_rated(self) -> None:
        self.show_rating()
        self.panel.set_reading(RATED_HINT)
        self.update_side()

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
        self.panel.set_extra(line(*choices, "  ", (why, "dim")))

    @on(QuestionPanel.Graded)
    def graded_answer(self, event: QuestionPanel.Graded) -> None:
        if self.session.done:  # every part graded: the session rated the question
            self.show_rated()
        else:
            self.update_side()  # the panel asks the next part of the chain

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
        self.panel.after_part(None)
        if self.session.done:
            self.show_rated()
        else:
            self.update_side()

    def action_hint(self) -> None:
        if self.graded or self.session.instance is None:
            return
        if self.session.hint() is None:
            self.notify("Every hint is shown; the next step is the answer.")
            return
        self.panel.show_hints()

    def action_escape(self) -> None:
        if self.panel.answer_box.has_focus and self.panel.answer_box.display:
            self.panel.body.focus()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.session.finish()  # a graded review is committed when you leave, as when you move on
        self.dismiss()
