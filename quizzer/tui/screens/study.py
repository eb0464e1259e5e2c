"""StudyScreen: spaced repetition, a fresh variant each review, rated from verdict and time (overridable)."""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Header

from quizzer.core.words import counted
from quizzer.session.srs import RATINGS, short_interval
from quizzer.session.study import StudySession, StudySummary
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import dim, instance_label, line
from quizzer.tui.widgets.question_panel import QuestionPanel

STUDY_HINT = dim("enter grades · esc leaves the box: then h hint, s skip, u undo, q back")
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
        Binding("u", "undo", "Undo", id="study-undo"),
        Binding("question_mark", "app.help", "Help", id="study-help"),
        Binding("q", "back", "Back", id="study-back"),
        Binding("escape", "escape", "Back", show=False, id="study-escape"),
    ]

    def __init__(self, session: StudySession) -> None:
        super().__init__()
        self.session = session
        self.summary: StudySummary | None = None
        """The end-of-session summary, once shown (leaving, or nothing more to study)."""

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
        yield KeyFooter()

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers only what applies: no next, hint, skip or rating without a question."""
        s = self.session
        if action in ("next", "rate"):
            return s.instance is not None and self.summary is None
        if action in ("hint", "skip"):
            return s.instance is not None and not s.done and self.summary is None
        if action == "undo":
            return s.can_undo and self.summary is None
        return True

    def show_question(self) -> None:
        self.update_side()
        self.panel.set_extra(None)
        self.refresh_bindings()
        turn = self.session.turn
        if turn is None:
            self.show_nothing_due()
            return
        self.panel.show(turn)

    def show_nothing_due(self) -> None:
        upcoming = [c.due for c in self.session.cards.values() if c.suspended is None]
        when = f"The next review is due {_when(min(upcoming))}." if upcoming else ""
        done = f"\n\n{summary_markdown(self.session.summary())}" if self.session.reviewed else ""
        self.panel.show_nothing(
            "Study",
            "## Nothing to study right now\n\n"
            "Every template you have studied is scheduled later, and today's new templates are used up. "
            f"{when}{done}\n\n"
            "A drill (`d` on Home) practises anything without touching the schedule.",
            dim("u undo the last rating · q back") if self.session.can_undo else dim("q back"),
        )

    def show_summary(self) -> None:
        """The end of the session (after ``finish``): what was reviewed, and when the next card is due."""
        self.summary = self.session.summary()
        self.update_side()
        self.panel.set_extra(None)
        self.panel.show_nothing(
            "Study", f"## Session done\n\n{summary_markdown(self.summary)}", dim("q back")
        )
        self.refresh_bindings()

    def show_rated(self) -> None:
        self.show_rating()
        self.panel.set_reading(RATED_HINT)
        self.update_side()

    def show_rating(self) -> None:
        s = self.session
        intervals = s.intervals()
        choices: list[str | tuple[str, str]] = ["Rating "]
        for key, rating in enumerate(RATINGS, 1):
            label = f" {key} {rating} {short_interval(intervals[rating])} "
            choices += ["·" if key > 1 else "", (label, "reverse bold") if rating == s.rating else label]
        why = s.reason if s.rating == s.proposed else f"you chose {s.rating}; proposed {s.reason}"
        self.panel.set_extra(line(*choices, "\n", (why, "dim")))  # the reason under the keys

    @on(QuestionPanel.Graded)
    def graded_answer(self, event: QuestionPanel.Graded) -> None:
        if self.session.done:  # every part graded: the session rated the question
            self.show_rated()
        else:
            self.update_side()  # the panel asks the next part of the chain
        self.refresh_bindings()

    # --- actions ---------------------------------------------------------------------------------------

    def action_undo(self) -> None:
        """Undo the last committed rating: its question comes back, rated, to rate again."""
        if self.summary is not None:
            return
        if not self.session.undo():
            if self.session.reviewed:
                self.notify("Undo comes before answering the next question.")
            return
        turn = self.session.turn
        assert turn is not None
        self.panel.show_done(turn)
        self.show_rated()
        self.refresh_bindings()
        self.notify("The last rating is undone: rate it again (1-4), then n.")

    def action_rate(self, rating: str) -> None:
        if self.graded:
            self.session.override(rating)
            self.show_rating()

    def action_next(self) -> None:
        if self.summary is not None:
            return
        if not self.graded:
            if self.session.instance is not None:
                self.notify("Answer or skip (s) first: the rating comes from the answer.")
            return
        self.session.next()
        self.show_question()
        self.say_leech()

    def say_leech(self) -> None:
        """Say so when the review just committed made its template a leech (suspended from study)."""
        leech = self.session.leech
        if leech is not None:
            lapses = self.session.cards[leech].lapses
            times = counted(lapses, "time")
            self.notify(
                f"{self.session.title(leech)} failed {times} in study: it is a leech, suspended from study. "
                "Stats (t on Home) lists it: l there drills the leeches, u returns them to study.",
                title="Leech",
                severity="warning",
                timeout=20,
                markup=False,
            )

    def action_skip(self) -> None:
        if self.graded or self.session.instance is None:
            return
        self.session.skip()
        self.panel.after_part(None)
        if self.session.done:
            self.show_rated()
        else:
            self.update_side()
        self.refresh_bindings()

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
        if self.summary is None:
            asking = self.session.instance is not None  # else the empty state shows the summary already
            self.session.finish()  # a graded review is committed when you leave, as when you move on
            self.say_leech()
            if asking and self.session.reviewed:
                self.show_summary()  # q again leaves
                return
        self.dismiss()


def _when(epoch_seconds: float) -> str:
    return time.strftime("%a %d %b at %H:%M", time.localtime(epoch_seconds))


def summary_markdown(summary: StudySummary) -> str:
    """The summary as the study screen shows it (Markdown)."""
    retention = f"{summary.retention:.0%}" if summary.retention is not None else "n/a"
    lines = [
        f"- **{summary.reviewed}** reviewed, **{summary.right}** right, **{summary.new}** new",
        f"- retention this session: **{retention}** (right / reviewed)",
    ]
    if summary.next_due is not None:
        lines.append(f"- next review due {_when(summary.next_due)}")
    if summary.leeches:
        lines.append(f"- **{summary.leeches}** suspended as leeches (Stats lists them)")
    return "\n".join(lines)
