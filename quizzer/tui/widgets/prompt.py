"""QuestionPrompt: a question's Markdown in one widget, cell for cell as Textual's Markdown widget draws it.

Textual's Markdown widget mounts a widget per block (a bullet item is four), asynchronously: the question
came one to three frames after the rest of its screen, and styling those widgets was a good part of a
drill's start. A prompt is paragraphs and bullet items of plain, bold, italic and code text: one widget draws
those here, in the first frame. Anything else (a table, a fence, a heading, a link...) is handed to Textual's
Markdown widget, mounted inside this one on first need.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual.content import Content, Span
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

from quizzer.tui.widgets.prompt_reader import Block, quick_blocks

if TYPE_CHECKING:
    from markdown_it.token import Token
    from textual.css.styles import RulesMap

#: The bullet of a top-level item, as Textual's Markdown widget draws it (Markdown.BULLETS[0]).
BULLET = "• "
#: Inline tokens drawn here; any other (a link, an image, inline HTML) sends the text to the Markdown widget.
_INLINE = frozenset(
    {"text", "softbreak", "hardbreak", "code_inline", "em_open", "em_close", "strong_open", "strong_close"}
    | {"s_open", "s_close"}
)
_SPACES = re.compile(r"\s+")
_parser: Any = None


def _markdown_parser() -> Any:
    """The parser Textual's Markdown widget uses ("gfm-like"), made once."""
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("gfm-like")
    return _parser


def inline_content(token: Token) -> Content | None:
    """An inline token's text and styles as Textual's MarkdownBlock builds them (its ``_token_to_content``);
    None if it holds a token drawn only by the Markdown widget."""
    text: list[str] = []
    spans: list[Span] = []
    opened: list[tuple[str, int]] = []
    position = 0
    for child in token.children or ():
        kind = child.type
        if kind not in _INLINE:
            return None
        if kind == "text":
            piece = _SPACES.sub(" ", child.content)
        elif kind == "hardbreak":
            piece = "\n"
        elif kind == "softbreak":
            piece = " "
        elif kind == "code_inline":
            piece = child.content
            spans.append(Span(position, position + len(piece), ".code_inline"))
        elif kind.endswith("_open"):
            opened.append(("." + kind.removesuffix("_open"), position))
            continue
        else:
            style, start = opened.pop()
            spans.append(Span(start, position, style))
            continue
        text.append(piece)
        position += len(piece)
    return Content("".join(text), spans=spans)


def prompt_blocks(markdown: str) -> tuple[Block, ...] | None:
    """``markdown`` as blocks: top-level paragraphs and bullet items of one paragraph each; None if it holds
    anything else (Textual's Markdown widget draws that). The common prompt is read without markdown-it."""
    blocks = quick_blocks(markdown)
    return markdown_blocks(markdown) if blocks is None else blocks


def markdown_blocks(markdown: str) -> tuple[Block, ...] | None:
    """``prompt_blocks`` as markdown-it reads ``markdown``."""
    tokens = _markdown_parser().parse(markdown)
    blocks: list[Block] = []
    in_list = False
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "inline":
            content = inline_content(token)
            if content is None:
                return None
            blocks.append(Block(content, in_list, 0 if in_list else 1))
        elif kind == "bullet_list_open" and not in_list:
            in_list = True
        elif kind == "bullet_list_close" and in_list:
            in_list = False
            blocks[-1] = blocks[-1]._replace(gap=1)  # the list's bottom margin
        elif kind == "list_item_open" and in_list and token.level == 1:
            if tokens[index + 1].type != "paragraph_open" or tokens[index + 4].type != "list_item_close":
                return None  # an item of more than one paragraph, or a nested list
        elif kind in ("paragraph_open", "paragraph_close") and token.level == (2 if in_list else 0):
            pass
        elif kind != "list_item_close":
            return None
    return tuple(blocks)


class PromptBlocks(Visual):
    """Blocks drawn one under the other: a paragraph at the full width, a bullet item indented by its
    bullet, a blank line under each paragraph and list. Offsets for text selection count the lines of all
    the blocks (and one per blank line), as ``plain`` does."""

    def __init__(self, blocks: Sequence[Block], drawn: Callable[[], None] | None = None) -> None:
        self._drawn = drawn  # called once, the first time the blocks are drawn for a frame
        self._blocks: list[tuple[Content, int, Block]] = []
        lines: list[str] = []
        for block in blocks:
            # A newline per line above: Content numbers its lines from 0, a selection counts them all.
            self._blocks.append((Content("\n" * len(lines)) + block.content, len(lines), block))
            lines.extend(block.content.plain.split("\n"))
            lines.extend([""] * block.gap)
        self.plain = "\n".join(lines)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if self._drawn is not None:
            drawn, self._drawn = self._drawn, None
            drawn()
        strips: list[Strip] = []
        blank = style.background_style.rich_style
        bullet_style = (style + options.get_style(".bullet")).rich_style
        bullet = Strip([Segment(BULLET, bullet_style)], len(BULLET))
        under_bullet = Strip.blank(len(BULLET), bullet_style)  # the bullet's widget is as tall as its item
        for content, first, block in self._blocks:
            text_width = width - len(BULLET) * block.bullet
            lines = content.render_strips(text_width, None, style, options)[first:] if text_width > 0 else []
            if block.bullet:
                strips.extend(
                    Strip.join([bullet if y == 0 else under_bullet, line])
                    for y, line in enumerate(lines or [Strip([])])
                )
            else:
                strips.extend(lines)
            strips.extend([Strip.blank(width, blank)] * block.gap)
        return strips if height is None else strips[:height]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(
            (
                block.content.get_optimal_width(rules, container_width) + len(BULLET) * block.bullet
                for _, _, block in self._blocks
            ),
            default=0,
        )

    def get_height(self, rules: RulesMap, width: int) -> int:
        height = 0
        for _, _, block in self._blocks:
            text_width = width - len(BULLET) * block.bullet
            lines = block.content.get_height(rules, text_width) if text_width > 0 else 0
            height += (max(lines, 1) if block.bullet else lines) + block.gap
        return height


class QuestionPrompt(Widget):
    """A question's Markdown: drawn here when it is paragraphs and bullet items, else by a Markdown widget
    mounted inside. ``source`` is the Markdown shown."""

    COMPONENT_CLASSES = {"bullet", "code_inline", "em", "strong", "s"}  # noqa: RUF012  # Textual's own type

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._source = ""
        self._visual: Visual = Content("")
        self._drawn = False  # the prompt shown was drawn for a frame (when drawn here)
        self._on_drawn: list[Callable[[], None]] = []

    @property
    def source(self) -> str:
        """The Markdown shown."""
        return self._source

    def render(self) -> Visual:
        return self._visual

    def show(self, markdown: str) -> Awaitable[object]:
        """Show ``markdown``; the awaitable is done once any widget added or removed for it is."""
        self._source = markdown
        self._drawn, self._on_drawn = False, []
        blocks = prompt_blocks(markdown)
        if blocks is not None:
            self._visual = PromptBlocks(blocks, self._was_drawn)
            self.refresh(layout=True)
            return self.remove_children()  # the Markdown widget of an earlier prompt, if any
        from textual.widgets import Markdown

        self._visual = Content("")
        self.refresh(layout=True)
        shown = self.query_children(Markdown)
        if shown:
            return shown.first().update(markdown)
        return self.mount(Markdown(markdown))

    def when_drawn(self, callback: Callable[[], None]) -> bool:
        """Call ``callback`` (soon after, never inside the frame) once the prompt shown is drawn for a frame:
        the frame that shows it. False, and nothing called, when a Markdown widget inside draws it."""
        if not isinstance(self._visual, PromptBlocks):
            return False
        if self._drawn:
            self.call_next(callback)
        else:
            self._on_drawn.append(callback)
        return True

    def _was_drawn(self) -> None:
        """The blocks shown were drawn for a frame (called while it is drawn: the callbacks come after)."""
        self._drawn = True
        for callback in self._on_drawn:
            self.call_next(callback)
        self._on_drawn = []

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        if isinstance(self._visual, PromptBlocks):
            return selection.extract(self._visual.plain), "\n"
        return None
