"""The Markdown of prompts and explanations as simple HTML for an Anki card, every character escaped first.

Only what the bank writes: paragraphs, bold, italics, code spans and fenced code, bullets, tables, headings
(bold lines), rules, block quotes and links (a link becomes an anchor only for an http(s) address). The text
is escaped before any markup is added, so no tag, attribute or entity of a pack reaches the card: the only
tags are the ones made here. Standard library only.
"""

from __future__ import annotations

import html
import re

from quizzer.bank.generate import markdown_syntax as md

_LINK = re.compile(r"\[([^\][\n]*)\]\(([^()\s]*)\)")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")


def inline_html(text: str) -> str:
    """One paragraph's inline Markdown as HTML: the text escaped, then code, bold, italics and links.

    >>> inline_html("**Why** `a<b` is *so* [GQA](https://x.y/?a=1&b=2) <script>")
    '<b>Why</b> <code>a&lt;b</code> is <i>so</i> <a href="https://x.y/?a=1&amp;b=2">GQA</a> &lt;script&gt;'
    >>> inline_html('[x](javascript:alert(1)) "q"')
    '[x](javascript:alert(1)) &quot;q&quot;'
    """
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        codes.append(f"<code>{html.escape(match.group(2).strip() or match.group(2))}</code>")
        return f"\x00{len(codes) - 1}\x00"

    prose = html.escape(md.CODE.sub(keep, text.replace("\x00", "")))
    prose = _LINK.sub(_link, prose)
    prose = md.STRONG.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", prose)
    prose = md.EMPHASIS.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", prose)
    prose = md.ESCAPE.sub(r"\1", prose)
    return md.KEPT.sub(lambda m: codes[int(m.group(1))], prose)


def _link(match: re.Match[str]) -> str:
    """An anchor for an http(s) address (already escaped, so safe in the attribute); else the text as is."""
    text, address = match.group(1), match.group(2)
    if address.startswith(("https://", "http://")):
        return f'<a href="{address}">{text}</a>'
    return match.group(0)


def _cells(line: str) -> list[str]:
    """The cells of a table row (``\\|`` is a literal bar), each as inline HTML."""
    body = line.strip().removeprefix("|")
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = re.split(r"(?<!\\)\|", body)
    return [inline_html(cell.replace("\\|", "|").strip()) for cell in cells]


def _table(lines: list[str]) -> str:
    """Table lines as an HTML table; the first row is a header when a separator line follows it."""
    has_header = len(lines) > 1 and bool(md.TABLE_SEPARATOR.match(lines[1]))
    rows = [_cells(line) for line in lines if not md.TABLE_SEPARATOR.match(line)]
    out = []
    for n, row in enumerate(rows):
        tag = "th" if n == 0 and has_header else "td"
        out.append("<tr>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in row) + "</tr>")
    return "<table>" + "".join(out) + "</table>"


def markdown_html(text: str) -> str:
    """Markdown as simple HTML (see the module): block by block, linear in the length of ``text``.

    >>> markdown_html("# Title\\n\\nOne **bold**\\nline.\\n\\n- a\\n- b <i>\\n\\n| x | y |\\n|---|---|\\n| 1 | 2 |")
    '<p><b>Title</b></p><p>One <b>bold</b>\\nline.</p><ul><li>a</li><li>b &lt;i&gt;</li></ul><table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table>'
    """  # noqa: E501
    out: list[str] = []
    prose: list[str] = []
    items: list[str] = []
    quoted: list[str] = []

    def flush() -> None:
        if prose:
            out.append(f"<p>{inline_html(chr(10).join(prose))}</p>")
            prose.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{inline_html(item)}</li>" for item in items) + "</ul>")
            items.clear()
        if quoted:
            out.append(f"<blockquote>{inline_html(chr(10).join(quoted))}</blockquote>")
            quoted.clear()

    lines = text.strip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if md.FENCE.match(line):
            flush()
            end = next((j for j in range(i + 1, len(lines)) if md.FENCE.match(lines[j])), len(lines))
            out.append("<pre>" + html.escape("\n".join(lines[i + 1 : end])) + "</pre>")
            i = end + 1
            continue
        if line.lstrip().startswith("|"):
            flush()
            start = i
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                i += 1
            out.append(_table(lines[start:i]))
            continue
        heading, bullet = _HEADING.match(line), _BULLET.match(line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            out.append(f"<p><b>{inline_html(heading.group(1))}</b></p>")
        elif md.RULE.match(line):
            flush()
            out.append("<hr>")
        elif bullet:
            if prose or quoted:
                flush()
            items.append(bullet.group(1))
        elif line.lstrip().startswith(">"):
            if prose or items:
                flush()
            quoted.append(line.lstrip()[1:].lstrip())
        elif items:
            items[-1] += "\n" + line.strip()  # a bullet's continuation line
        else:
            if quoted:
                flush()
            prose.append(line)
        i += 1
    flush()
    return "".join(out)


__all__ = ["inline_html", "markdown_html"]
