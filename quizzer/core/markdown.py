"""md_escape: text shown exactly as typed inside Markdown (an answer, a title)."""

from __future__ import annotations


def md_escape(text: str) -> str:
    """``text`` shown as typed in Markdown: `3*3072*8192` must not turn into emphasis.

    >>> md_escape("3*3072*8192 [GiB]")
    '3\\\\*3072\\\\*8192 \\\\[GiB\\\\]'
    """
    return "".join(f"\\{c}" if c in "\\`*_[]<>#|~" else c for c in text.replace("\n", " "))
