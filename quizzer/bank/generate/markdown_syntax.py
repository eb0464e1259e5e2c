"""The Markdown the bank writes, as patterns: read to plain text (plaintext.py) and to HTML (deck_html.py)."""

from __future__ import annotations

import re

#: A code span: its backticks (group 1) and its text (group 2), never across a line.
CODE = re.compile(r"(`+)([^`\n]+?)\1")
#: Where a code span was kept aside while the prose around it lost or gained its markup.
KEPT = re.compile(r"\x00(\d+)\x00")
#: Bold (group 1 with **, group 2 with __), matched without backtracking across the line.
STRONG = re.compile(r"\*\*([^*]+)\*\*|(?<![\w\\])__([^_]+)__(?!\w)")
#: Italics (group 1 with *, group 2 with _), not inside a word.
EMPHASIS = re.compile(r"(?<![\w*\\])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])|(?<![\w\\])_([^_\s][^_]*)_(?!\w)")
#: A backslash escape of a Markdown character.
ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
#: A horizontal rule.
RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
#: A table's separator row.
TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
#: A code fence's first line.
FENCE = re.compile(r"^\s*(```|~~~)")

__all__ = ["CODE", "EMPHASIS", "ESCAPE", "FENCE", "KEPT", "RULE", "STRONG", "TABLE_SEPARATOR"]
