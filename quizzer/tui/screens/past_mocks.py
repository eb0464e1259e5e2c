"""PastMocksScreen: every mock in the history, newest first; enter reopens its report."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from quizzer.core.words import counted
from quizzer.session.past_mocks import PastMock, RebuiltReport
from quizzer.tui.screens.stats import mock_cells
from quizzer.tui.widgets.key_footer import KeyFooter


class PastMocksScreen(Screen[None]):
    """The past mocks as a table (read in a worker); a row's report is rebuilt from the history."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "Back", id="past-mocks-back"),
        Binding("escape", "back", "Back", show=False, id="past-mocks-escape"),
    ]

    def __init__(self, load: Callable[[], list[PastMock]], rebuild: Callable[[str], RebuiltReport]) -> None:
        super().__init__()
        #: Reads the past mocks from the history.
        self.load = load
        #: Rebuilds one mock's report from the history, by its session id.
        self.rebuild = rebuild

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Past mocks, newest first · enter reopens a report · q back", id="past-mocks-intro")
        yield DataTable(id="past-mocks", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in ("when", "right", "answered", "time"):
            table.add_column(label, key=label)
        table.focus()
        self.read_mocks()

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def read_mocks(self) -> None:
        mocks = self.load()
        self.app.call_from_thread(self.show_mocks, mocks)

    def show_mocks(self, mocks: list[PastMock]) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for mock in mocks:
            table.add_row(*mock_cells(mock), key=mock.session)
        if not mocks:
            self.query_one("#past-mocks-intro", Static).update(
                "No mock in the history yet: m on Home starts one."
            )

    @on(DataTable.RowSelected)
    def open_report(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.rebuild_report(str(event.row_key.value))

    @work(thread=True, exclusive=True, exit_on_error=False, group="past-report")
    def rebuild_report(self, session: str) -> None:
        rebuilt = self.rebuild(session)
        self.app.call_from_thread(self.show_report, rebuilt)

    def show_report(self, rebuilt: RebuiltReport) -> None:
        from quizzer.tui.screens.mock_report import MockReportScreen

        note = ""
        if rebuilt.left_out:
            n = rebuilt.left_out
            whose = "their templates" if n != 1 else "its template"
            note = f"{counted(n, 'question')} left out: {whose} changed or left the bank since."
        self.app.push_screen(MockReportScreen(rebuilt.report, note=note))

    def action_back(self) -> None:
        self.dismiss()
