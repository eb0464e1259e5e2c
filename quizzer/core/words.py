"""Counted nouns ("1 question", "2 questions", "3 leeches"): the one plural rule of every message."""

from __future__ import annotations


def plural_word(word: str) -> str:
    """The regular English plural of ``word`` (of its last word, for a phrase).

    >>> plural_word("question"), plural_word("leech"), plural_word("KV head"), plural_word("entry")
    ('questions', 'leeches', 'KV heads', 'entries')
    """
    head, _, last = word.rpartition(" ")
    lower = last.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        last += "es"
    elif lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def counted(n: float, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, singular for exactly 1, else plural (``many``, or the regular plural); a whole
    ``n`` of 10,000 or more gets thousands separators.

    >>> counted(1, "minute"), counted(2, "minute"), counted(0, "answer"), counted(1.5, "minute")
    ('1 minute', '2 minutes', '0 answers', '1.5 minutes')
    >>> counted(1, "leech"), counted(3, "leech"), counted(12345, "attempt"), counted(2, "is", "are")
    ('1 leech', '3 leeches', '12,345 attempts', '2 are')
    """
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    shown = (
        f"{n:,}" if isinstance(n, int) and abs(n) >= 10_000 else f"{n:g}" if isinstance(n, float) else str(n)
    )
    return f"{shown} {word if n == 1 else many or plural_word(word)}"
