"""StatsScreen: a practice heatmap, streaks, accuracy per difficulty and topic, mistakes, recent days."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from quizzer.core.words import counted
from quizzer.session.bank_facts import BankFacts, bank_facts
from quizzer.session.past_mocks import PastMock
from quizzer.session.stats import DayStats, Stats, heatmap_grid
from quizzer.tui.clock import clock_text
from quizzer.tui.messages import ExportHistory, OpenScreen, ReturnToStudy, StartMode
from quizzer.tui.widgets.key_footer import KeyFooter

#: A day's shade, from no answer to the most answered: four steps of the busiest day's count.
SHADES = "·░▒▓█"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WEEKDAYS = ("Mon", "", "Wed", "", "Fri", "", "Sun")


def shade(attempts: int, most: int) -> str:
    """The heatmap's character for a day: ``·`` for none, then ░▒▓█ by quarters of ``most``.

    >>> [shade(n, 8) for n in (0, 1, 2, 3, 5, 8)]
    ['·', '░', '░', '▒', '▓', '█']
    """
    if attempts <= 0:
        return SHADES[0]
    quarter = min(4, -(-4 * attempts // max(most, 1)))  # ceil(4 * attempts / most), at least 1
    return SHADES[max(1, quarter)]


def heatmap_table(cells: tuple[DayStats, ...]) -> Table:
    """The calendar heatmap: a row per weekday (Monday first), two characters per week, month names over
    the week their first Monday falls in, a legend under it (26 weeks: 56 columns)."""
    grid = heatmap_grid(cells)
    most = max((c.attempts for c in cells), default=0)
    mondays = [next(c for c in (row[w] for row in grid) if c is not None) for w in range(len(grid[0]))]
    months = [" "] * (2 * len(mondays) + 2)  # the last label may run 2 past the last column
    previous, free = "", 0  # the month of the previous column; the first place a label may start
    for w, first in enumerate(mondays):
        month = first.day[:7]
        if month != previous and 2 * w >= free:
            months[2 * w : 2 * w + 3] = _MONTHS[int(month[5:]) - 1]
            free = 2 * w + 4
        previous = month
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, style="dim")
    table.add_column(no_wrap=True)
    table.add_row("", Text("".join(months).rstrip(), style="dim"))
    for name, row in zip(_WEEKDAYS, grid, strict=True):
        line = Text()
        for cell in row:
            if cell is None:
                line.append("  ")
            elif cell.attempts:
                line.append(shade(cell.attempts, most) + " ", style="green")
            else:
                line.append(SHADES[0] + " ", style="dim")
        line.rstrip()
        table.add_row(name, line)
    legend = Text("less ", style="dim")
    for mark in SHADES:
        legend.append(mark + " ", style="dim" if mark == SHADES[0] else "green")
    table.add_row("", legend.append(f"more (most: {counted(most, 'answer')} a day)", style="dim"))
    return table


def titled_table(title: str, *columns: str) -> Table:
    """A borderless table under a left-aligned title; a column name ending in ">" is right-aligned."""
    table = Table(title=title, title_justify="left", box=None, padding=(0, 2))
    for column in columns:
        table.add_column(column.removesuffix(">"), justify="right" if column.endswith(">") else "left")
    return table


#: Past mocks Stats lists (p lists them all).
MOCKS_SHOWN = 5


def mock_cells(mock: PastMock) -> tuple[str, str, str, str]:
    """A past mock's row: when, right of questions, answered, time used (of its limit)."""
    limit = f" of {clock_text(mock.minutes * 60)}" if mock.minutes else ""
    ran_out = " ⌛" if mock.timed_out else ""
    return (
        time.strftime("%a %d %b %Y %H:%M", time.localtime(mock.started)),
        f"{mock.right} of {mock.questions}",
        str(mock.answered),
        f"{clock_text(mock.seconds_used)}{limit}{ran_out}",
    )


def stats_renderable(stats: Stats) -> RenderableType:
    """The Stats screen's content, as rich renderables: the summary line, then each section that has
    something to show."""
    if not stats.attempts:
        return Text.from_markup(
            "[b]No attempts yet.[/b]\n\nEvery graded answer in a drill, a mock, a study session or "
            "`quizzer plain` is saved here. Press escape, then d for a drill."
        )
    parts: list[RenderableType] = [_summary(stats)]
    for section in (_heatmap, _by_difficulty, _by_topic, _chains, _mistakes, _leeches, _mocks):
        parts += section(stats)
    parts.append(_trend(stats))
    return Group(*parts)


def _summary(stats: Stats) -> Text:
    """Right of answered, skips, unfinished mocks, and the days in a row."""
    skipped = f"{stats.skipped} skipped · " if stats.skipped else ""
    unfinished = f"{counted(stats.unfinished_mocks, 'unfinished mock')} · " if stats.unfinished_mocks else ""
    streak, _, days = counted(stats.current_streak_days, "day").partition(" ")
    return Text.from_markup(
        f"[b]{stats.right} of {stats.attempts} right[/b] ({stats.accuracy:.0%}) · {skipped}{unfinished}"
        f"practised [b]{streak}[/b] {days} in a row · "
        f"longest: {counted(stats.longest_streak_days, 'day')} in a row\n"
    )


def _heatmap(stats: Stats) -> list[RenderableType]:
    if not stats.heatmap:
        return []
    weeks = -(-len(stats.heatmap) // 7)
    return [Text(f"Practice, the last {weeks} weeks", style="bold"), heatmap_table(stats.heatmap), Text("")]


def _by_difficulty(stats: Stats) -> list[RenderableType]:
    if not stats.by_difficulty:
        return []
    levels = titled_table("By difficulty", "difficulty", "attempts>", "right>")
    for level in stats.by_difficulty:
        skipped = f" ({level.skipped} skipped)" if level.skipped else ""
        levels.add_row(Text(level.difficulty), f"{level.attempts}{skipped}", f"{level.accuracy:.0%}")
    return [levels, Text("")]


def _by_topic(stats: Stats) -> list[RenderableType]:
    topics = titled_table("By topic (weakest first)", "topic", "attempts>", "right>", "time / expected>")
    for t in stats.topics:
        topics.add_row(
            Text(t.topic),  # pack text: never read as markup
            str(t.attempts),
            f"{t.accuracy:.0%}",
            f"{clock_text(t.median_seconds)} / {clock_text(t.median_expected_seconds)}",
        )
    return [topics, Text("")]


def _chains(stats: Stats) -> list[RenderableType]:
    if not stats.parts:
        return []
    chains = titled_table("Chains, part by part", "part>", "of topic", "attempts>", "right>")
    for p in stats.parts:
        skipped = f" ({p.skipped} skipped)" if p.skipped else ""
        chains.add_row(str(p.part), Text(p.topic), f"{p.attempts}{skipped}", f"{p.accuracy:.0%}")
    return [chains, Text("")]


def _mistakes(stats: Stats) -> list[RenderableType]:
    if not stats.mistakes:
        return []
    top: list[RenderableType] = []
    if stats.top_slip is not None:
        words, count = stats.top_slip
        top = [
            Text(f"Your top slip: {words} ({count} times) · s drills the templates where it happens"),
            Text(""),
        ]
    mistakes = titled_table("Mistakes made most often", "mistake", "times>", "in")
    for m in stats.mistakes:
        shown = ", ".join(m.template_ids[:3]) + ("…" if len(m.template_ids) > 3 else "")
        mistakes.add_row(Text(m.title), str(m.count), Text(shown))
    return [*top, mistakes, Text("")]


def _leeches(stats: Stats) -> list[RenderableType]:
    if not stats.leeches:
        return []
    table = titled_table("Leeches, suspended from study", "template", "lapses>", "since")
    for x in stats.leeches:
        table.add_row(Text(x.title), str(x.lapses), time.strftime("%d %b %Y", time.localtime(x.suspended)))
    return [table, Text("  l drills them · u returns them to study", style="dim"), Text("")]


def _mocks(stats: Stats) -> list[RenderableType]:
    if not stats.mocks:
        return []
    mocks = titled_table("Past mocks, newest first", "when", "right>", "answered>", "time>")
    for mock in stats.mocks[:MOCKS_SHOWN]:
        mocks.add_row(*mock_cells(mock))
    more = f"all {len(stats.mocks)}" if len(stats.mocks) > MOCKS_SHOWN else "them"
    return [mocks, Text(f"  p lists {more} and reopens their reports", style="dim"), Text("")]


def _trend(stats: Stats) -> Table:
    """The last days: attempts as a bar, and the share right."""
    most = max((d.attempts for d in stats.days), default=0) or 1
    trend = Table(
        title=f"The last {counted(len(stats.days), 'day')}", title_justify="left", box=None, padding=(0, 1)
    )
    trend.add_column("day")
    trend.add_column("attempts", justify="right")
    trend.add_column("")
    trend.add_column("right", justify="right")
    for d in stats.days:
        bar = "█" * round(20 * d.attempts / most) if d.attempts else "·"
        trend.add_row(d.day, str(d.attempts), bar, f"{d.right / d.attempts:.0%}" if d.attempts else "")
    return trend


class StatsScreen(Screen[None]):
    """Where you stand, from the history (read in a worker: never on the UI thread)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "refresh_stats", "Refresh", id="stats-refresh"),
        Binding("l", "drill_leeches", "Drill leeches", id="stats-drill-leeches"),
        Binding("s", "drill_slips", "Drill your slips", id="stats-drill-slips"),
        Binding("u", "return_leeches", "Leeches to study", id="stats-return-leeches"),
        Binding("p", "past_mocks", "Past mocks", id="stats-past-mocks"),
        Binding("x", "export", "Export CSV", id="stats-export"),
        Binding("q", "back", "Back", id="stats-back"),
        Binding("escape", "back", "Back", show=False, id="stats-escape"),
    ]

    def __init__(
        self,
        load: Callable[[BankFacts | None, Callable[[Stats], object]], Stats],
        bank: Callable[[], object] = lambda: None,
    ) -> None:
        super().__init__()
        #: Reads the history and computes the stats (the app's store, clock and time zone), given what they
        #: need of the bank (None: it loads a bank of its own) and where to send the summary line's first.
        self.load = load
        #: The app's loaded bank (None until it is), read on the UI thread for the facts ``load`` needs.
        self.bank = bank
        #: The stats shown (None while the first read runs).
        self.stats: Stats | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body", classes="screen-body", can_focus=True):
            yield Static(Text("Reading the history…"), id="stats")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.action_refresh_stats()
        self.query_one("#stats-body").focus()

    def action_refresh_stats(self) -> None:
        self.read_stats()

    def read_stats(self) -> None:
        """Read the stats again in a worker, with the facts of the app's bank taken here, on its thread."""
        bank = self.bank()
        whole = bank is not None and not getattr(bank, "model", None)  # a model's bank leaves templates out
        self.read_in_worker(bank_facts(bank) if whole else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def read_in_worker(self, facts: BankFacts | None) -> None:
        stats = self.load(facts, lambda summary: self.app.call_from_thread(self.show_summary, summary))
        self.app.call_from_thread(self.show_stats, stats)

    def show_summary(self, summary: Stats) -> None:
        """Show the summary line (``summary_stats``) while the rest is computed: only in place of "Reading
        the history…" (a read again keeps what it shows until it is done)."""
        if self.stats is None:
            body = self.query_one("#stats", Static)
            body.update(_summary(summary) if summary.attempts else stats_renderable(summary))

    def show_stats(self, stats: Stats) -> None:
        self.stats = stats
        self.query_one("#stats", Static).update(stats_renderable(stats))
        self.refresh_bindings()

    def on_screen_resume(self) -> None:
        if self.stats is not None:
            self.read_stats()  # a drill of the leeches or a return to study changed them

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers the leeches' keys only with leeches, and past mocks only with one."""
        if action in ("drill_leeches", "return_leeches"):
            return self.stats is not None and bool(self.stats.leeches)
        if action == "past_mocks":
            return self.stats is not None and bool(self.stats.mocks)
        if action == "drill_slips":
            return self.stats is not None and self.stats.top_slip is not None
        if action == "export":
            return self.stats is not None and self.stats.attempts + self.stats.skipped > 0
        return True

    def action_drill_slips(self) -> None:
        """Drill the templates where your most frequent slips can happen."""
        if self.stats is not None and self.stats.top_slip is not None:
            self.post_message(StartMode("drill", slips=True))

    def action_drill_leeches(self) -> None:
        if self.stats is not None and self.stats.leeches:
            self.post_message(
                StartMode("drill", template_ids=tuple(x.template_id for x in self.stats.leeches))
            )

    def action_return_leeches(self) -> None:
        if self.stats is not None and self.stats.leeches:
            self.post_message(ReturnToStudy(tuple(x.template_id for x in self.stats.leeches)))

    def action_export(self) -> None:
        """Every attempt as CSV: to the downloads folder, or a download when served in a browser."""
        self.post_message(ExportHistory())

    def action_past_mocks(self) -> None:
        if self.stats is not None and self.stats.mocks:
            self.post_message(OpenScreen("past-mocks"))

    def action_back(self) -> None:
        self.dismiss()
