"""StatsScreen: accuracy and time per topic, the mistakes made most often, a trend over days, the streak."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from quizzer.session.stats import Stats, compute_stats
from quizzer.tui.screens.mock import clock_text


def utc_offset_seconds(now: float) -> int:
    """The local time zone's offset from UTC at ``now`` (days in the stats are local days)."""
    return int(time.localtime(now).tm_gmtoff)


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
            f"streak: [b]{stats.streak_days}[/b] day{'s' if stats.streak_days != 1 else ''}\n"
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
        topics.add_column(header, justify=justify)  # type: ignore[arg-type]
    for t in stats.topics:
        topics.add_row(
            Text(t.topic),  # pack text: never read as markup
            str(t.attempts),
            f"{t.accuracy:.0%}",
            f"{clock_text(t.median_seconds)} / {clock_text(t.median_expected_seconds)}",
        )
    parts += [topics, Text("")]
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
    """Where you stand, from the history."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "refresh_stats", "Refresh", id="stats-refresh"),
        Binding("q", "back", "Back", id="stats-back"),
        Binding("escape", "back", "Back", show=False, id="stats-escape"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body", classes="screen-body", can_focus=True):
            yield Static(id="stats")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_stats()
        self.query_one("#stats-body").focus()

    def action_refresh_stats(self) -> None:
        now = self.app.wall()  # type: ignore[attr-defined]
        attempts = self.app.store.attempts()  # type: ignore[attr-defined]
        stats = compute_stats(attempts, now=now, utc_offset_seconds=utc_offset_seconds(now))
        self.query_one("#stats", Static).update(stats_renderable(stats))

    def action_back(self) -> None:
        self.app.back()  # type: ignore[attr-defined]
