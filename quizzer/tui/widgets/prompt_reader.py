"""quick_blocks: the common prompt (paragraphs, "- " items, bold, italic, code) read without markdown-it.

Importing markdown-it was ~16 ms of a drill's start and parsing ~3 ms, before the first paint. This reader
takes what a prompt usually holds and returns the blocks markdown-it would give (``prompt.prompt_blocks``);
for anything it is not sure of it returns None and markdown-it reads the text. tests/tui/test_prompt_reader.py
checks it against markdown-it on every question of the bank and on random texts.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from textual.content import Content, Span


class Block(NamedTuple):
    """A paragraph (or, with ``bullet``, a bullet item) and the blank lines under it."""

    content: Content
    bullet: bool
    gap: int


#: A line that could start anything but a paragraph or a "- " item (a heading, quote, fence, table, other
#: list, rule, HTML, an indented or setext line, a link reference definition...): such a text is left to
#: markdown-it.
_OTHER_BLOCK = re.compile(r"[ \t]|[#>|+=_<\-\[]|```|~~~|\d+[.)]|\*+(\s|$)|\*\*\*")
#: Inline text left to markdown-it wherever it is, a code span included: HTML and autolinks (they outrank
#: code spans), tables, code spans of more backticks, a backslash ending the text.
_OTHER_INLINE = re.compile(r"[<>|]|``|\\$")
#: The top-level domains linkify-it finds a link by without a scheme (its defaults, the two-letter codes,
#: punycode): "config.json" or "torch.optim.Adam" are text, "a.io" a link.
_TLD = (
    r"(?:biz|com|edu|gov|net|org|pro|web|xxx|aero|asia|coop|info|museum|name|shop|рф|xn--[a-z0-9\-]{1,59}"
    r"|[a-z]{2})"
)
#: Text outside code spans left to markdown-it: links and images (a "]" followed by "(" or "[": a shape
#: such as [m, k] is text where no line defines a reference, and a line starting "[" is left to it),
#: entities, strikethrough, and anything linkify's pretest takes for a link (a scheme, //, @, www.,
#: localhost, an IP's dotted digits, a dot and a top-level domain not followed by a letter or digit:
#: broader than linkify, never narrower). Linkify reads text only, never a code span.
_OTHER_TEXT = re.compile(
    r"\][(\[]|&[#A-Za-z]|~~|@|//|(?:https?|ftp|mailto):|www|localhost|\.\d{1,3}\.|\."
    + _TLD
    + r"(?![a-z0-9])",
    re.IGNORECASE,
)
#: A code span as ``_inline`` reads one (stripped before ``_OTHER_TEXT`` looks, when no backslash could
#: escape a backtick).
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_WHITESPACE = frozenset("\t\n\v\f\r \xa0\u1680\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}
_SPACES = re.compile(r"\s+")
_ODD_SPACE = re.compile(r"[^\S \n]")


def _blank(char: str) -> bool:
    return char in _WHITESPACE


def _punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def quick_blocks(markdown: str) -> tuple[Block, ...] | None:
    """The blocks of ``markdown`` (as ``prompt.prompt_blocks``) if it is only paragraphs and one-line "- "
    items of plain, bold, italic and code text written plainly; None otherwise."""
    if _ODD_SPACE.search(markdown):  # tabs, CR, NBSP...: markdown-it's tab stops, line ends and trims
        return None
    blocks: list[Block] = []
    paragraph: list[str] = []
    items: list[Content] = []
    after_list = False  # only blank lines since a list: a "- " item now would continue it (a loose list)
    for line in [*markdown.split("\n"), ""]:
        if line.endswith("  "):
            return None  # a hard break
        line = line.rstrip(" ")
        if not line:
            if paragraph:
                content = _inline("\n".join(paragraph))
                if content is None:
                    return None
                blocks.append(Block(content, False, 1))
            elif items:
                blocks.extend(Block(item, True, 0) for item in items)
                blocks[-1] = blocks[-1]._replace(gap=1)
                after_list = True
            paragraph, items = [], []
        elif line.startswith("- ") and not paragraph and not after_list:
            item = line[2:]
            content = None if _OTHER_BLOCK.match(item) else _inline(item)
            if content is None:
                return None
            items.append(content)
        elif items or _OTHER_BLOCK.match(line):
            return None  # a line after an item continues it; a "- " after a list continues it; or a block
            # this reader leaves alone
        else:
            paragraph.append(line)
            after_list = False
    return tuple(blocks)


def _inline(text: str) -> Content | None:
    """``text`` as markdown-it's inline tokens turned into Content by Textual (``prompt.inline_content``);
    None when it holds anything this reader is not sure of."""
    if _OTHER_INLINE.search(text):
        return None
    if _OTHER_TEXT.search(text if "\\" in text else _CODE_SPAN.sub("", text)):
        return None
    out: list[str] = []
    spans: list[Span] = []
    opened: list[tuple[str, int]] = []
    plain: list[str] = []  # text not yet added: its whitespace is collapsed as Textual collapses a text token
    position = 0

    def flush() -> None:
        nonlocal position
        if plain:
            piece = _SPACES.sub(" ", "".join(plain))
            out.append(piece)
            position += len(piece)
            plain.clear()

    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if char == "\\":
            escaped = text[index + 1] if index + 1 < end else ""
            if escaped == "\n":
                return None  # a hard break
            if escaped in _ASCII_PUNCTUATION:
                if "*" in text[index - 1 : index] + text[index + 2 : index + 3]:
                    return None  # an escape next to a delimiter run: left to markdown-it
                plain.append(escaped)
                index += 2
                continue
            plain.append(char)
        elif char == "`":
            close = text.find("`", index + 1)
            code = text[index + 1 : close]
            if close < 0 or not code or code[0] == " " or code[-1] == " " or "\n" in code:
                return None
            flush()
            spans.append(Span(position, position + len(code), ".code_inline"))
            out.append(code)
            position += len(code)
            index = close + 1
            continue
        elif char == "_":
            before, after = text[index - 1 : index], text[index + 1 : index + 2]
            if not (before.isalnum() and after.isalnum()):
                return None  # only a word's inner underscore is plainly not emphasis
            plain.append(char)
        elif char == "*":
            run = 2 if text.startswith("**", index) else 1
            if text.startswith("*", index + run):
                return None
            before = text[index - 1] if index else " "
            after = text[index + run] if index + run < end else " "
            if before == "\\" or after == "\\":
                return None
            left = not _blank(after) and (not _punctuation(after) or _blank(before) or _punctuation(before))
            right = not _blank(before) and (not _punctuation(before) or _blank(after) or _punctuation(after))
            style = ".strong" if run == 2 else ".em"
            if left and right:  # it may open or close: it closes the run open of its kind (equal lengths,
                left = False  # never a multiple of 3), and with none open is left to markdown-it (below)
            if left:
                flush()
                opened.append((style, position))
            elif right:
                if not opened or opened[-1][0] != style:
                    return None
                flush()
                spans.append(Span(opened.pop()[1], position, style))
            else:
                plain.append("*" * run)
            index += run
            continue
        else:
            plain.append(char)
        index += 1
    flush()
    if opened:
        return None
    return Content("".join(out), spans=spans)
