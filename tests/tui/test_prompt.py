"""The question's prompt is drawn by one widget, cell for cell as Textual's Markdown widget draws it."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Offset
from textual.selection import Selection
from textual.widgets import Markdown

import quizzer.tui.app
from quizzer.tui.widgets.prompt import PromptBlocks, QuestionPrompt, prompt_blocks

STYLESHEET = Path(quizzer.tui.app.__file__).with_name("quizzer.tcss")

#: What prompts hold (a bank prompt and its conventions, a chain part), and the edges of what is drawn here.
DRAWN_HERE = [
    "A teammate sizes a decoder: **n_layers = 32**, `d_model` = **4,096** and *tied* embeddings.\n\n"
    "How many parameters?\n\n**Conventions**\n\n- Parameters are counted once.\n"
    "- Answers within 1% are correct (give at least two significant figures, even for a rather long item).",
    "**Part 2 of 3.** The KV cache of that model at `seq_len` = 8,192.\n\n*Answers within 5% are correct.*",
    "one paragraph with a hard  \nbreak and a ~~struck~~ word and ***bold italic*** text",
    "a_word_with_underscores 2*3*4 and \\*escaped\\* stars, "
    "a_verylongwordthatcannotbewrappedanywhereatallbecauseitgoesonandon",
    "- only\n- a\n- list",
    "wide 字符 text that wraps 字符字符字符 around 字符字符字符字符 the pane " * 3,
    "",
]
#: Drawn by Textual's Markdown widget, mounted inside the prompt.
HANDED_ON = [
    "# A heading\n\ntext",
    "```python\nx = 1\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "a [link](https://example.com)",
    "1. ordered\n2. list",
    "- nested\n  - list",
    "> a quote",
]


class SideBySide(App[None]):
    """Textual's Markdown widget on the left, the prompt on the right, each in a question body."""

    CSS_PATH = str(STYLESHEET)
    CSS = "#sides { height: 1fr; } .screen-body { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal(id="sides"):
            with VerticalScroll(classes="screen-body question-body"):
                yield Markdown()
            with VerticalScroll(classes="screen-body question-body"):
                yield QuestionPrompt(classes="question-prompt")


def cells(segments: list[Segment]) -> list[tuple[str, object]]:
    """One (character, style without meta) per cell: what a terminal shows."""
    return [
        (char, segment.style.clear_meta_and_links() if segment.style else None)
        for segment in segments
        for char in segment.text
    ]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [100, 56])
async def test_drawn_as_the_markdown_widget_draws_it(theme: str, width: int) -> None:
    app = SideBySide()
    app.theme = theme
    async with app.run_test(size=(width, 40)) as pilot:
        for markdown in DRAWN_HERE + HANDED_ON:
            assert (prompt_blocks(markdown) is None) == (markdown in HANDED_ON)
            await app.query_one(Markdown).update(markdown)
            await app.query_one(QuestionPrompt).show(markdown)
            await pilot.pause()
            await pilot.pause()
            reference, drawn = app.query_one(Markdown), app.query_one(QuestionPrompt)
            assert drawn.outer_size.height == reference.outer_size.height, markdown
            half = width // 2
            for y, strip in enumerate(app.screen._compositor.render_strips()):
                left, right = strip.crop(0, half), strip.crop(half, half * 2)
                assert cells(list(right)) == cells(list(left)), f"row {y} of {markdown!r}"


async def test_a_prompt_handed_on_and_back() -> None:
    """A prompt the widget cannot draw mounts a Markdown widget inside; the next one it draws removes it."""
    app = SideBySide()
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.query_one(QuestionPrompt)
        await prompt.show("```\ncode\n```")
        await pilot.pause()
        assert len(prompt.query_children(Markdown)) == 1
        assert prompt.source == "```\ncode\n```"
        await prompt.show("plain **text**")
        await pilot.pause()
        assert not prompt.query_children(Markdown)
        assert prompt.source == "plain **text**"


def test_selection_reads_the_text_of_every_block() -> None:
    blocks = prompt_blocks("First **para**.\n\n- one\n- two")
    assert blocks is not None
    visual = PromptBlocks(blocks)
    assert visual.plain == "First para.\n\none\ntwo\n"
    assert Selection(Offset(6, 0), Offset(3, 2)).extract(visual.plain) == "para.\n\none"
