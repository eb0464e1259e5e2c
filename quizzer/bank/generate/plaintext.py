"""Markdown to plain text for terminals and pipes: no markup left, tables aligned (standard library only)."""

from __future__ import annotations

import re

from quizzer.bank.generate import markdown_syntax as md

_LINK = re.compile(r"!?\[([^\][\n]*)\]\(([^()\s]*)\)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")


def inline_text(text: str) -> str:
    """One line's inline Markdown as plain text: code spans, bold, italics, links, escapes.

    >>> inline_text("**Why n_kv_heads matters.** It is `2 × n_layers` *and* [GQA](https://x.y) \\\\*")
    'Why n_kv_heads matters. It is 2 × n_layers and GQA (https://x.y) *'
    >>> inline_text("here **`gpu_memory_utilization` = 0.9**, and **`x`** or `**`")
    'here gpu_memory_utilization = 0.9, and x or **'
    """
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        code = match.group(2)
        codes.append(code.strip() if code.strip() else code)
        return f"\x00{len(codes) - 1}\x00"  # no markup character: bold around a code span still pairs

    prose = _inline_prose(md.CODE.sub(keep, text))
    return md.KEPT.sub(lambda m: codes[int(m.group(1))], prose) if codes else prose


def _inline_prose(text: str) -> str:
    if not any(c in text for c in "*_[\\"):
        return text
    text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})" if m.group(2) else m.group(1), text)
    text = md.STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = md.EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return md.ESCAPE.sub(r"\1", text)


def _cells(line: str) -> list[str]:
    """The cells of a table row, ``\\|`` kept as a literal bar."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells, cell, i = [], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cell.append("|")
            i += 2
            continue
        if body[i] == "|":
            cells.append("".join(cell))
            cell = []
        else:
            cell.append(body[i])
        i += 1
    cells.append("".join(cell))
    return [inline_text(c.strip()) for c in cells]


def _table(lines: list[str]) -> list[str]:
    """Table rows aligned in columns, a rule under the header; numbers right-aligned."""
    rows = [_cells(line) for line in lines if not md.TABLE_SEPARATOR.match(line)]
    has_header = len(lines) > 1 and bool(md.TABLE_SEPARATOR.match(lines[1]))
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    widths = [max(len(r[c]) for r in rows) for c in range(width)]
    out = []
    for n, row in enumerate(rows):
        cells = [
            cell.rjust(w) if n and _numeric(cell) else cell.ljust(w)
            for cell, w in zip(row, widths, strict=True)
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0 and has_header:
            out.append("  ".join("-" * w for w in widths))
    return out


_NUMERIC = re.compile(r"^[-+]?[\d.,]+(?:e[-+]?\d+)?(?: [A-Za-z/%$-]+)?$")


def _numeric(cell: str) -> bool:
    """A number, perhaps with a unit word ("14,336 bytes"): right-aligned in its column."""
    return bool(_NUMERIC.match(cell))


def markdown_to_text(text: str) -> str:
    """Markdown as plain text: headings, bold and code markers dropped, bullets as "- ", tables aligned.

    Linear in the length of ``text``. Inline markup may run over the lines of one paragraph (bold across a
    line break); code blocks keep their lines (indented four spaces), a rule becomes a line of dashes, block
    quotes are indented.

    >>> text = "# Title\\n\\n* one **bold\\nword**\\n\\n| a | bb |\\n|---|---|\\n| 10 | x \\\\| y |"
    >>> print(markdown_to_text(text))
    Title
    <BLANKLINE>
    - one bold
    word
    <BLANKLINE>
    a   bb
    --  -----
    10  x | y
    """
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend(inline_text("\n".join(prose)).split("\n"))
            prose.clear()

    lines = text.split("\n")
    i, fenced = 0, False
    while i < len(lines):
        line = lines[i]
        if md.FENCE.match(line):
            flush()
            fenced = not fenced
        elif fenced:
            out.append("    " + line)
        elif line.lstrip().startswith("|"):
            flush()
            start = i
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                i += 1
            out.extend(_table(lines[start:i]))
            continue
        elif not line.strip():
            flush()
            out.append("")
        else:
            block = _block_line(line)
            if block is None:
                flush()
                out.append("-" * 20)
            else:
                prose.append(block)
        i += 1
    flush()
    return "\n".join(out)


def _block_line(line: str) -> str | None:
    """A line with its block markup (heading, bullet, quote) turned into plain text; None for a rule."""
    heading = _HEADING.match(line)
    if heading:
        return heading.group(2)
    if md.RULE.match(line):
        return None
    bullet = _BULLET.match(line)
    if bullet:
        return f"{bullet.group(1)}- {bullet.group(2)}"
    stripped = line.lstrip()
    if stripped.startswith(">"):
        return "  " + stripped[1:].lstrip()
    return line


__all__ = ["inline_text", "markdown_to_text"]
