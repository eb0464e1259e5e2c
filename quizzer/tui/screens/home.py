"""HomeScreen: the modes, the topic and difficulty filters, and what the bank holds per topic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, LoadingIndicator, Select, Static

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank
from quizzer.bank.schema import DIFFICULTIES
from quizzer.session.queue import StudyStatus
from quizzer.tui.messages import OpenScreen, StartMode
from quizzer.tui.widgets.lines import line, plain

INTRO = "Sizing questions as interviews ask them. Pick a mode: topic filters all modes, difficulty Drill."


class HomeScreen(Screen[None]):
    """The default screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "drill", "Drill", id="home-drill"),
        Binding("m", "mock", "Mock", id="home-mock"),
        Binding("s", "study", "Study", id="home-study"),
        Binding("b", "browse", "Browse", id="home-browse"),
        Binding("t", "stats", "Stats", id="home-stats"),
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
                yield Button("Browse", id="start-browse")
                yield Button("Stats", id="start-stats")
            yield Static(id="study-due")
            with Horizontal(id="home-filters"):
                yield Select[str]([], prompt="Any topic", id="topic-filter")
                yield Select[str](
                    [(d, d) for d in DIFFICULTIES], prompt="Any difficulty", id="difficulty-filter"
                )
            yield LoadingIndicator(id="bank-loading")
            yield Static(id="bank-problems")
            yield DataTable(id="topic-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def __init__(self, status: Callable[[], StudyStatus]) -> None:
        super().__init__()
        #: Reads what a study session would ask now (the history: called in a worker thread).
        self.status = status

    #: The bank the topic table shows.
    _shown_bank: object = None

    def on_mount(self) -> None:
        self.query_one("#topic-table", DataTable).display = False
        self.query_one("#bank-problems", Static).display = False
        self.show_due()
        self.watch(self.app, "bank", self.show_bank)  # the app's bank, once its worker has validated it

    def on_screen_resume(self) -> None:
        self.show_due()  # a study session or a mock may have changed them

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def show_due(self) -> None:
        """What a study session would ask now, and the size of the history (read off the UI thread)."""
        status = self.status()
        text = line(
            "Study: ",
            (str(status.due), "bold"),
            " due · ",
            (str(status.new_left), "bold"),
            f" new left today (limit {status.new_per_day})",
            f" · history: {status.attempts} attempt{'s' if status.attempts != 1 else ''}",
        )
        self.app.call_from_thread(self.query_one("#study-due", Static).update, text)

    def show_bank(self, bank: Bank | None) -> None:
        if bank is None or bank is self._shown_bank:
            return  # already shown (Home mounted after the bank loaded, then the message came too)
        self._shown_bank = bank
        templates = bank.templates()
        topics = sorted({t.topic for t in templates})
        self.query_one("#topic-filter", Select).set_options([(plain(t), t) for t in topics])
        table = self.query_one("#topic-table", DataTable)
        table.clear(columns=True)
        table.add_columns("topic", "templates", "easy", "medium", "hard")
        for topic in topics:
            counts = Counter(t.difficulty for t in templates if t.topic == topic)
            table.add_row(
                Text(topic), str(sum(counts.values())), *(str(counts[d]) for d in DIFFICULTIES), key=topic
            )
        table.add_row(
            "all",
            str(len(templates)),
            *(str(sum(t.difficulty == d for t in templates)) for d in DIFFICULTIES),
            key="all",
        )
        self.query_one("#bank-loading").display = False
        table.display = True
        self.show_problems(bank.problems())
        self.query_one("#start-drill", Button).focus()

    def show_problems(self, problems: list[TemplateError]) -> None:
        """What could not be loaded, named by file, template and field; the rest of the bank is usable."""
        widget = self.query_one("#bank-problems", Static)
        widget.display = bool(problems)
        if not problems:
            return
        shown = 3
        parts: list[str | tuple[str, str]] = [
            (f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in the question packs", "bold"),
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

    @on(Button.Pressed, "#start-browse")
    def action_browse(self) -> None:
        self.post_message(OpenScreen("browse"))

    @on(Button.Pressed, "#start-stats")
    def action_stats(self) -> None:
        self.post_message(OpenScreen("stats"))

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
