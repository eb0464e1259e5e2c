"""The literals lint's names: a number that is part of a model's, a chip's or a dtype's name is no literal."""

from __future__ import annotations

import re

#: Capitalised words that start a sentence rather than name a model.
_NOT_NAMES = frozenset(
    "A An The So At With For On In Each Every Its This That Then And But Here Both All One Of To "
    "By From As Or If When Where Per Even Only Just About Over Under".split()
)


def prev_token(text: str, start: int) -> str:
    """The word before ``start`` (up to the space before it), or "" at the start of ``text``."""
    before = text[:start].split()
    return before[-1] if before else ""


def after_name(text: str, start: int) -> bool:
    """Whether the number at ``start`` follows a name: "Llama 70B", "Llama 2 70B", "H100 80GB"."""
    before = text[:start].split()
    if before and re.fullmatch(r"[\d.]+", before[-1]):
        before = before[:-1]
    return bool(before) and _is_name_word(before[-1])


def _is_name_word(token: str) -> bool:
    """A model or chip name a size follows: "Llama", "GPT-3", "Qwen2.5", "H100", "2" after "Llama"."""
    token = token.strip("(\"'")
    if not token or token.endswith(("'s", "’s")) or token in _NOT_NAMES:
        return False
    return token[0].isupper() or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token))


def named(text: str, start: int) -> bool:
    """Whether the number at ``start`` is part of a name: glued to a letter (H100, fp8, Qwen2.5), after a
    name and a slash (ViT-L/14), or hyphened to a word (GPT-2, Llama-3-8B; ``n-1`` is a subtraction).

    >>> [named(t, t.index("7")) for t in ("H100 7", "GPT-7", "n-7", "C/7", "ViT-L/7", "x 7")]
    [False, True, False, False, True, False]
    """
    left = text[start - 1] if start else ""
    if left and (left.isalnum() or left in "_."):
        return True
    if left == "/":
        return "-" in prev_token(text, start).rsplit("/", 1)[0]
    if left == "-" and start >= 2 and text[start - 2].isalnum():
        word = prev_token(text, start - 1).rsplit("-", 1)[-1].lstrip("([")
        return not (len(word) == 1 and word.islower())
    return False


__all__ = ["after_name", "named", "prev_token"]
