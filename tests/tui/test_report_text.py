"""The mock report shows answers as typed: Markdown's own characters in an answer are not formatting."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.markdown import Markdown

from quizzer.tui.widgets.lines import md_escape


@pytest.mark.parametrize("typed", ["3*3072*8192*28", "2*3_4", "1 | 2", "`x` [a](b) <b>#1", "~7B", "a\\b"])
def test_an_answer_renders_as_typed(typed: str) -> None:
    console = Console(width=80, file=io.StringIO(), color_system=None, record=True)
    shown = md_escape(typed)
    console.print(Markdown(f"| answer |\n|---|\n| {shown} |\n\nYou answered **{shown}**."))
    text = console.export_text()
    assert text.count(typed) == 2, text
