"""StatsScreen: accuracy and time per topic, the mistakes made most often, a trend over days, the streak."""

from __future__ import annotations

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
from textual.widgets import Footer, Header, Static

from quizzer.session.stats import Stats
from quizzer.tui.clock import clock_text


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def stats_renderable(stats: Stats) -> RenderableType:
    """The Stats screen's content, as rich renderables."""
    if not stats.attempts:
        return Text.from_markup(
            "[b]No attempts yet.[/b]\n\nEvery graded answer in a drill, a mock, a study session or "
            "`quizzer plain` is saved here. Press escape, then d for a drill."
        )
    parts: list[RenderableType] = [
        Text.from_markup(
            f"[b]{stats.right} of {stats.attempts} right[/b] ({stats.accuracy:.0%}) · "
            + (f"{stats.skipped} skipped · " if stats.skipped else "")
            + (
                f"{stats.unfinished_mocks} unfinished mock{_s(stats.unfinished_mocks)} · "
                if stats.unfinished_mocks
                else ""
            )
            + f"streak: [b]{stats.streak_days}[/b] day{'s' if stats.streak_days != 1 else ''}\n"
        )
    ]
    topics = Table(
        title="By topic (weakest first)", title_justify="left", expand=False, box=None, padding=(0, 2)
    )
    for header, justify in (
        ("topic", "left"),
        ("attempts", "right"),
        ("right", "right"),
        ("time / expected", "right"),
    ):
        topics.add_column(header, justify=justify)  # type: ignore[arg-type]  # rich wants a Literal; these are its values
    for t in stats.topics:
        topics.add_row(
            Text(t.topic),  # pack text: never read as markup
            str(t.attempts),
            f"{t.accuracy:.0%}",
            f"{clock_text(t.median_seconds)} / {clock_text(t.median_expected_seconds)}",
        )
    parts += [topics, Text("")]
    if stats.parts:
        chains = Table(title="Chains, part by part", title_justify="left", box=None, padding=(0, 2))
        for header, justify in (
            ("part", "right"),
            ("of topic", "left"),
            ("attempts", "right"),
            ("right", "right"),
        ):
            chains.add_column(header, justify=justify)  # type: ignore[arg-type]  # as above
        for p in stats.parts:
            skipped = f" ({p.skipped} skipped)" if p.skipped else ""
            chains.add_row(str(p.part), Text(p.topic), f"{p.attempts}{skipped}", f"{p.accuracy:.0%}")
        parts += [chains, Text("")]
    if stats.mistakes:
        mistakes = Table(title="Mistakes made most often", title_justify="left", box=None, padding=(0, 2))
        mistakes.add_column("mistake")
        mistakes.add_column("times", justify="right")
        mistakes.add_column("in")
        for m in stats.mistakes:
            shown = ", ".join(m.template_ids[:3]) + ("…" if len(m.template_ids) > 3 else "")
            mistakes.add_row(Text(m.title), str(m.count), Text(shown))
        parts += [mistakes, Text("")]
    most = max((d.attempts for d in stats.days), default=0) or 1
    trend = Table(title=f"The last {len(stats.days)} days", title_justify="left", box=None, padding=(0, 1))
    trend.add_column("day")
    trend.add_column("attempts", justify="right")
    trend.add_column("")
    trend.add_column("right", justify="right")
    for d in stats.days:
        bar = "█" * round(20 * d.attempts / most) if d.attempts else "·"
        trend.add_row(d.day, str(d.attempts), bar, f"{d.right / d.attempts:.0%}" if d.attempts else "")
    parts.append(trend)
    return Group(*parts)


class StatsScreen(Screen[None]):
    """Where you stand, from the history (read in a worker: never on the UI thread)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "refresh_stats", "Refresh", id="stats-refresh"),
        Binding("q", "back", "Back", id="stats-back"),
        Binding("escape", "back", "Back", show=False, id="stats-escape"),
    ]

    def __init__(self, load: Callable[[], Stats]) -> None:
        super().__init__()
        #: Reads the history and computes the stats (the app's store, clock and time zone).
        self.load = load

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body", classes="screen-body", can_focus=True):
            yield Static(Text("Reading the history…"), id="stats")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_stats()
        self.query_one("#stats-body").focus()

    def action_refresh_stats(self) -> None:
        self.read_stats()

    @work(thread=True, exclusive=True, exit_on_error=False, group="store")
    def read_stats(self) -> None:
        stats = self.load()
        self.app.call_from_thread(self.show_stats, stats)

    def show_stats(self, stats: Stats) -> None:
        self.query_one("#stats", Static).update(stats_renderable(stats))

    def action_back(self) -> None:
        self.dismiss()
