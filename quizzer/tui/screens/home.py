"""HomeScreen: the modes, the topic and difficulty filters, and what the bank holds per topic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Header, LoadingIndicator, Select, Static

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import DIFFICULTIES
from quizzer.core.words import counted
from quizzer.session.progress import Guide, TopicProgress, weakest_topic
from quizzer.tui.messages import OpenScreen, StartMode
from quizzer.tui.reader import HistoryReader
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import line, plain

INTRO = "Sizing questions as interviews ask them. Pick a mode: topic filters all modes, difficulty Drill."
#: Cells of the mastery bar.
BAR_CELLS = 10


def mastery_bar(share: float, width: int = BAR_CELLS) -> str:
    """A bar of ``width`` cells: ``share`` of them (clamped to [0, 1], rounded) filled, the rest a track.

    >>> mastery_bar(0.5, 4), mastery_bar(0.0, 3), mastery_bar(1.0, 2), mastery_bar(0.24, 10)
    ('██░░', '░░░', '██', '██░░░░░░░░')
    """
    full = round(min(max(share, 0.0), 1.0) * width)
    return "█" * full + "░" * (width - full)


def accuracy_text(right: int, answered: int) -> str:
    """ "67% (4/6)", or "—" when nothing was answered.

    >>> accuracy_text(2, 3), accuracy_text(0, 0)
    ('67% (2/3)', '—')
    """
    return f"{right / answered:.0%} ({right}/{answered})" if answered else "—"


class HomeScreen(Screen[None]):
    """The default screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "drill", "Drill", id="home-drill"),
        Binding("m", "mock", "Mock", id="home-mock"),
        Binding("s", "study", "Study", id="home-study"),
        Binding("c", "cram", "Cram", id="home-cram"),
        Binding("b", "browse", "Browse", id="home-browse"),
        Binding("t", "stats", "Stats", id="home-stats"),
        Binding("w", "weakest", "Weakest", id="home-weakest"),
        Binding("g", "start_here", "Start here", id="home-start-here"),
        Binding("p", "practise_model", "Practise on a model", show=False, id="home-model"),
        Binding("e", "slips", "Drill your slips", show=False, id="home-slips"),
        Binding("o", "slowest", "Drill your slowest", show=False, id="home-slowest"),
        Binding("i", "interview_date", "Interview date", show=False, id="home-interview-date"),
        Binding("v", "interview", "Interviewer", show=False, id="home-interview"),
        Binding("question_mark", "app.help", "Help", id="home-help"),
        Binding("q", "app.quit", "Quit", show=False, id="home-quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home"):
            yield Static(INTRO, id="home-intro")
            with Horizontal(id="home-modes"):
                yield Button("Drill", id="start-drill", variant="primary")
                yield Button("Mock", id="start-mock")
                yield Button("Study", id="start-study")
                yield Button("Cram", id="start-cram")
                yield Button("Browse", id="start-browse")
                yield Button("Stats", id="start-stats")
                yield Button("Model", id="start-model")
            yield Static(id="study-due")
            yield Static(id="home-guide")
            with Horizontal(id="home-filters"):
                yield Select[str]([], prompt="Any topic", id="topic-filter")
                yield Select[str](
                    [(d, d) for d in DIFFICULTIES], prompt="Any difficulty", id="difficulty-filter"
                )
            yield LoadingIndicator(id="bank-loading")
            yield Static(id="bank-problems")
            yield Static(id="weakest-topic")
            yield DataTable(id="topic-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def __init__(
        self,
        reader: HistoryReader,
        study_ids: Callable[[], list[str]],
        start_here: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__()
        #: The history's reads: each runs in one of this screen's worker threads.
        self.reader = reader
        #: The template ids a study session draws from, taken on the UI thread (its bank is not shared).
        self.study_ids = study_ids
        #: The weakest topic shown above the table (None: none has enough answers yet).
        self.weakest: TopicProgress | None = None
        #: Opens the placement drill of the guided start.
        self.start_here = start_here

    #: The bank the topic table shows.
    _shown_bank: object = None

    #: Each template's topic, from the bank the table shows (taken on the UI thread).
    _topics: dict[str, str] | None = None

    def on_mount(self) -> None:
        self.query_one("#topic-table", DataTable).display = False
        self.query_one("#bank-problems", Static).display = False
        self.query_one("#weakest-topic", Static).display = False
        self.query_one("#home-guide", Static).display = False
        self.show_due()
        self.watch(self.app, "bank", self.show_bank)  # the app's bank, once its worker has validated it

    def on_screen_resume(self) -> None:
        if self.app.screen is not self:  # a screen was pushed over Home as it came back (a mock's start to
            return  # the mock): reads would compete with its first paint; Home reads when it is on top again
        self.show_due()  # a study session or a mock may have changed them
        if self._topics is not None:
            self.show_progress(self._topics)

    def show_due(self) -> None:
        """What a study session would ask now, the size of the history and the guided start."""
        self.read_due(self.study_ids())

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def read_due(self, template_ids: list[str]) -> None:
        """Read the study counts over ``template_ids`` and the guided start (off the UI thread)."""
        status = self.reader.study_status(template_ids)
        plan = self.reader.deadline_plan(template_ids)
        toward: list[str | tuple[str, str]] = []
        if plan is not None:
            from quizzer.session.deadline import plan_summary

            toward = ["\n", ("Interview ", "bold"), f"{self.reader.interview_date}: {plan_summary(plan)}"]
        text = line(
            "Study: ",
            (str(status.due), "bold"),
            " due · ",
            (str(status.new_left), "bold"),
            f" new left today (limit {status.new_per_day})",
            f" · history: {counted(status.attempts, 'attempt')}",
            *toward,
        )
        guide = self.reader.guide()
        self.app.call_from_thread(self.query_one("#study-due", Static).update, text)
        self.app.call_from_thread(self.show_guide, status.attempts == 0, guide)

    def show_guide(self, first_run: bool, guide: Guide) -> None:
        """On a first run, "Start here"; a placement left before its end, resume it; after one, the path it
        suggests."""
        path = guide.path
        widget = self.query_one("#home-guide", Static)
        resumable = guide.resumable and self.start_here is not None
        if resumable:
            done = len(guide.plan) - len(guide.remaining)
            widget.update(
                line(
                    ("▶ Start here", "bold"),
                    f": the placement drill is {done} of {len(guide.plan)} done · ",
                    ("g", "bold"),
                    " resumes it",
                )
            )
        elif path:
            widget.update(line("Suggested path, weakest first: ", (" → ".join(path), "bold")))
        elif first_run and self.start_here is not None:
            widget.update(
                line(
                    ("▶ Start here", "bold"),
                    ": a placement drill of 8 questions, easy to hard across the main topics, then a "
                    "suggested path · ",
                    ("g", "bold"),
                    " starts it",
                )
            )
        widget.display = resumable or bool(path) or (first_run and self.start_here is not None)

    def show_bank(self, bank: Bank | None) -> None:
        if bank is None or bank is self._shown_bank:
            return  # already shown (Home mounted after the bank loaded, then the message came too)
        self._shown_bank = bank
        templates = bank.templates()
        topics = sorted({t.topic for t in templates})
        self.query_one("#topic-filter", Select).set_options([(plain(t), t) for t in topics])
        table = self.query_one("#topic-table", DataTable)
        table.clear(columns=True)
        for label in ("topic", "templates", "easy", "medium", "hard", "accuracy", "mastery"):
            table.add_column(label, key=label)
        for topic in topics:
            counts = Counter(t.difficulty for t in templates if t.topic == topic)
            table.add_row(
                Text(topic),
                str(sum(counts.values())),
                *(str(counts[d]) for d in DIFFICULTIES),
                "",
                "",
                key=topic,
            )
        table.add_row(
            "all",
            str(len(templates)),
            *(str(sum(t.difficulty == d for t in templates)) for d in DIFFICULTIES),
            "",
            "",
            key="all",
        )
        self.query_one("#bank-loading").display = False
        table.display = True
        self.show_problems(bank.problems())
        self.query_one("#start-drill", Button).focus()
        self._topics = {t.id: t.topic for t in templates}
        self.show_progress(self._topics)

    @work(thread=True, exclusive=True, exit_on_error=False, group="home-progress")
    def show_progress(self, topics: dict[str, str]) -> None:
        """Each topic's accuracy and mastery, read from the history off the UI thread."""
        progress = self.reader.progress(topics)
        self.app.call_from_thread(self.fill_progress, progress)

    def fill_progress(self, progress: list[TopicProgress]) -> None:
        """Put each topic's accuracy and mastery bar in the table, and name the weakest topic above it."""
        table = self.query_one("#topic-table", DataTable)
        rows = {str(key.value) for key in table.rows}
        for p in progress:
            if p.topic in rows:
                table.update_cell(p.topic, "accuracy", accuracy_text(p.right, p.answered), update_width=True)
                table.update_cell(
                    p.topic, "mastery", f"{mastery_bar(p.mastery)} {p.mastery:.0%}", update_width=True
                )
        if "all" in rows:
            right, answered = sum(p.right for p in progress), sum(p.answered for p in progress)
            templates, mastered = sum(p.templates for p in progress), sum(p.mastered for p in progress)
            share = mastered / templates if templates else 0.0
            table.update_cell("all", "accuracy", accuracy_text(right, answered), update_width=True)
            table.update_cell("all", "mastery", f"{mastery_bar(share)} {share:.0%}", update_width=True)
        self.weakest = weakest_topic(progress)
        widget = self.query_one("#weakest-topic", Static)
        widget.display = self.weakest is not None
        if self.weakest is not None:
            weak = self.weakest
            widget.update(
                line(
                    "Weakest topic: ",
                    (weak.topic, "bold"),
                    f": {weak.right / weak.answered:.0%} right ({weak.right} of {weak.answered}) · ",
                    ("w", "bold"),
                    " drills it",
                )
            )

    def show_problems(self, problems: list[TemplateError]) -> None:
        """What could not be loaded, named by file, template and field; the rest of the bank is usable."""
        widget = self.query_one("#bank-problems", Static)
        widget.display = bool(problems)
        if not problems:
            return
        shown = 3
        parts: list[str | tuple[str, str]] = [
            (f"{counted(len(problems), 'problem')} in the question packs", "bold"),
            " (those templates are skipped; `quizzer check` lists every one):",
        ]
        parts += [f"\n• {problem}" for problem in problems[:shown]]
        if len(problems) > shown:
            parts.append(f"\n… and {len(problems) - shown} more")
        widget.update(line(*parts))

    def _filter(self, widget_id: str) -> str | None:
        value = self.query_one(widget_id, Select).value
        return value if isinstance(value, str) else None

    @on(Button.Pressed, "#start-drill")
    def action_drill(self) -> None:
        self.post_message(
            StartMode(
                "drill", topic=self._filter("#topic-filter"), difficulty=self._filter("#difficulty-filter")
            )
        )

    @on(Button.Pressed, "#start-mock")
    def action_mock(self) -> None:
        self.post_message(StartMode("mock", topic=self._filter("#topic-filter")))

    @on(Button.Pressed, "#start-study")
    def action_study(self) -> None:
        self.post_message(StartMode("study", topic=self._filter("#topic-filter")))

    @on(Button.Pressed, "#start-cram")
    def action_cram(self) -> None:
        """Cram the weakest templates (of the topic filter), the schedule untouched."""
        self.post_message(StartMode("cram", topic=self._filter("#topic-filter")))

    @on(Button.Pressed, "#start-browse")
    def action_browse(self) -> None:
        self.post_message(OpenScreen("browse"))

    @on(Button.Pressed, "#start-stats")
    def action_stats(self) -> None:
        self.post_message(OpenScreen("stats"))

    @on(Button.Pressed, "#start-model")
    def action_practise_model(self) -> None:
        """Practise on a model: every question that takes one asked about a preset or a config.json."""
        self.post_message(OpenScreen("model"))

    async def action_start_here(self) -> None:
        """The guided start's placement drill."""
        if self.start_here is not None:
            await self.start_here()

    def action_interview_date(self) -> None:
        """Set the interview date study plans toward (saved to config.toml)."""
        self.post_message(OpenScreen("interview-date"))

    def action_interview(self) -> None:
        """The interviewer's screen: questions to ask someone (of the topic filter), graded as they answer."""
        self.post_message(StartMode("interview", topic=self._filter("#topic-filter")))

    def action_slips(self) -> None:
        """Drill the templates where your most frequent recorded slips can happen."""
        self.post_message(StartMode("drill", topic=self._filter("#topic-filter"), slips=True))

    def action_slowest(self) -> None:
        """Drill your slowest templates against their expected minutes first."""
        self.post_message(StartMode("drill", topic=self._filter("#topic-filter"), order="slowest"))

    def action_weakest(self) -> None:
        """Drill the weakest topic (nothing, with a notice, until a topic has enough answers)."""
        if self.weakest is None:
            self.notify("No topic has 3 answers yet: drill a little first.", severity="information")
            return
        self.post_message(StartMode("drill", topic=self.weakest.topic))

    @on(DataTable.RowSelected, "#topic-table")
    def drill_topic(self, event: DataTable.RowSelected) -> None:
        topic = event.row_key.value
        self.post_message(
            StartMode(
                "drill",
                topic=None if topic == "all" else topic,
                difficulty=self._filter("#difficulty-filter"),
            )
        )
