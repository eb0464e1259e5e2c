"""MockReportScreen: a mock's score, times against expected, verdicts, explanations, what to work on."""

from __future__ import annotations

import re
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from quizzer.session.mock import MockReport, MockResult
from quizzer.tui.clock import clock_text
from quizzer.tui.messages import DeliverFile, StartMode
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import VERDICT_WORDS, md_escape
from quizzer.tui.widgets.teaching import outcome_markdown, teaching_markdown

VERDICT_WORDS_REPORT = {**VERDICT_WORDS, "timed-out": "⌛ Timed out", "skipped": "→ Unanswered"}


def report_markdown(report: MockReport) -> str:
    """The whole report as Markdown: the summary, the table, what to work on, then every question (each
    part of a chain with its answer and verdict)."""
    used = clock_text(report.seconds_used)
    ending = "time ran out" if report.timed_out else "submitted"
    chains = any(r.parts for r in report.results)
    parts = f" · {report.parts_right} of {report.parts_total} parts right" if chains else ""
    lines = [
        f"# {report.score} of {report.total} right",
        f"{report.answered} answered{parts} · {used} used · {ending}",
        "",
        "| # | Question | Your answer | Verdict | Time | Expected |",
        "|---|---|---|---|---|---|",
    ]
    for result in report.results:
        for number, attempt in enumerate(result.attempts, 1):
            first = number == 1
            label = f"{result.index + 1}" if not result.parts else f"{result.index + 1}.{number}"
            title = md_escape(result.instance.title) if first else f"part {number}"
            expected = clock_text(result.expected_seconds) if first else "〃"
            lines.append(
                f"| {label} | {title} | {md_escape(attempt.answer) or '—'} | "
                f"{VERDICT_WORDS_REPORT[attempt.verdict]} | {clock_text(attempt.seconds)} | {expected} |"
            )
    if report.topics_to_work_on or report.mistakes_to_work_on:
        lines += ["", "## To work on", ""]
        for topic, right, total in report.topics_to_work_on:
            lines.append(f"- **{topic}**: {right} of {total} right")
        for name, feedback, count in report.mistakes_to_work_on:
            times = f" ({count}×)" if count > 1 else ""
            lines.append(f"- **{name}**{times}: {feedback}")
    for result in report.results:
        instance = result.instance
        lines += ["", f"## {result.index + 1}. {instance.title} — {_verdict_words(result)}", ""]
        for number, (attempt, verdict) in enumerate(zip(result.attempts, result.verdicts, strict=True), 1):
            if result.parts:
                part = instance.parts[number - 1] if number > 1 else None
                word = VERDICT_WORDS_REPORT[attempt.verdict]
                lines += ["", f"**Part {number}** — {word}", ""]
                if part is not None:
                    lines += [part.prompt.strip(), ""]
            if attempt.answer:
                reading = verdict.given.reading if verdict is not None and verdict.given else attempt.answer
                lines.append(f"You answered **{md_escape(attempt.answer)}** (read as {md_escape(reading)}).")
            if verdict is not None and verdict.kind == "consistent":
                lines += ["", f"> {verdict.message}"]
            if verdict is not None and verdict.feedback:
                lines += ["", f"> {verdict.feedback}"]
            if number > 1:
                lines += ["", outcome_markdown(instance, number)]
        teaching = teaching_markdown(instance)
        lines += ["", re.sub(r"^### (Answers?):", r"**\1**:", teaching, count=1)]
    return "\n".join(lines)


def _verdict_words(result: MockResult) -> str:
    """A question's verdict: its one part's, or for a chain the parts right."""
    if not result.parts:
        return VERDICT_WORDS_REPORT[result.attempt.verdict]
    return f"{result.parts_right} of {len(result.attempts)} parts right"


class MockReportScreen(Screen[None]):
    """The report of a finished mock."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "again", "Another mock", id="report-again"),
        Binding("s", "save_set", "Save the set", id="report-save-set"),
        Binding("q", "back", "Back", id="report-back"),
        Binding("escape", "back", "Back", show=False, id="report-escape"),
    ]

    def __init__(self, report: MockReport, *, note: str = "") -> None:
        super().__init__()
        self.report = report
        #: Said above the report (a past mock's questions left out).
        self.note = note

    def compose(self) -> ComposeResult:
        from rich.markdown import Markdown as RichMarkdown

        yield Header()
        with VerticalScroll(id="report-body", classes="screen-body", can_focus=True):
            if self.note:
                yield Static(self.note, id="report-note", markup=False)
            yield Static(CachedRenderable(RichMarkdown(report_markdown(self.report), hyperlinks=False)))
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#report-body").focus()

    def action_save_set(self) -> None:
        """The mock's ``ID#SEED`` list (what `quizzer mock --set-file` replays), handed to the user."""
        import time

        from quizzer.session.picking import format_set

        instances = [r.instance for r in self.report.results]
        minutes = (
            self.report.total_seconds / 60 if self.report.total_seconds else sum(i.minutes for i in instances)
        )
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.post_message(
            DeliverFile(format_set(instances, minutes), f"quizzer-mock-{stamp}.txt", "mock set")
        )

    def action_again(self) -> None:
        self.dismiss()
        self.post_message(StartMode("mock"))

    def action_back(self) -> None:
        self.dismiss()
