"""HelpModal: every screen's keys, generated from their bindings, and how answers are read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from quizzer.tui.widgets.lines import md_escape

ANSWERS = """
## Answers

Write them as you would say them: `16,384,000`, `16.4M`, `1.6384e7`, `1.6×10^7`, `2^24`,
`16.384 million`, `~15.6 GiB`, `3e23 FLOPs`, `312 TFLOP/s`, `2.1 ms`, `44 days`, `40%`, `32000*512`.
For bytes, `B` is bytes and GB/GiB are 10⁹/2³⁰; for counts, `B` is a billion. The line above the box
shows how your answer is read before you press enter. A number with no unit means the question's unit.
Typing a digit outside the box jumps back into it.

Verdicts: **exact**, **correct** (inside the band the question states), **imprecise** (right to the
figures you typed, but the question needs more), **close**, **wrong**; a wrong answer that matches a
known slip says which one. Hints give nudges first, then the derivation, never the final answer.
"""

#: Keys that belong to the app, not to a screen's bindings.
APP_KEYS = (
    ("ctrl+p", "command palette: modes, drill one topic, copy the instance id, theme"),
    ("f1 / ?", "this help"),
    ("ctrl+q", "quit (a running mock asks first)"),
)


def key_table(screens: Sequence[tuple[str, Sequence[BindingType]]], key_display: Callable[[str], str]) -> str:
    """The Markdown table of every screen's keys, one row per binding that has a description."""
    rows = ["| where | key | does |", "|---|---|---|"]
    rows += [f"| everywhere | `{key}` | {md_escape(does)} |" for key, does in APP_KEYS]
    for where, bindings in screens:
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.description:
                continue
            keys = " / ".join(key_display(k.strip()) for k in binding.key.split(","))
            rows.append(f"| {where} | `{keys}` | {md_escape(binding.description)} |")
    return "\n".join(rows)


class HelpModal(ModalScreen[None]):
    """Keys and answer formats."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help-close"),
        Binding("question_mark", "close", "Close", show=False, id="help-close-q"),
        Binding("f1", "close", "Close", show=False, id="help-close-f1"),
        Binding("q", "close", "Close", show=False, id="help-close-letter"),
    ]

    def compose(self) -> ComposeResult:
        from quizzer.tui.screens.browse import BrowseScreen
        from quizzer.tui.screens.drill import DrillScreen
        from quizzer.tui.screens.home import HomeScreen
        from quizzer.tui.screens.mock import MockScreen
        from quizzer.tui.screens.mock_report import MockReportScreen
        from quizzer.tui.screens.stats import StatsScreen
        from quizzer.tui.screens.study import StudyScreen

        screens = [
            ("home", HomeScreen.BINDINGS),
            ("drill", DrillScreen.BINDINGS),
            ("study", StudyScreen.BINDINGS),
            ("mock", MockScreen.BINDINGS),
            ("mock report", MockReportScreen.BINDINGS),
            ("browse", BrowseScreen.BINDINGS),
            ("stats", StatsScreen.BINDINGS),
        ]
        shown = lambda key: self.app.get_key_display(Binding(key, ""))  # noqa: E731
        text = "## Keys\n\n" + key_table(screens, shown) + "\n" + ANSWERS
        with VerticalScroll(id="help"):
            yield Markdown(text, id="help-text")

    def action_close(self) -> None:
        self.dismiss()
