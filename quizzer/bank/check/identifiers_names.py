"""The identifiers lint's reading of a text: the words with an underscore a student would read as code."""

from __future__ import annotations

import re

from quizzer.bank.expr.notation import NOTATION
from quizzer.bank.expr.text import PLACEHOLDER_RE

#: A word with an underscore between letters or digits: ``no_dq``, ``tokens_per_param``, ``fp4_e2m1``.
IDENTIFIER_RE = re.compile(r"(?<![\w`])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w`])")
#: A Markdown code span: what it holds is quoted as code on purpose (a config key, a module, a function).
CODE_SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
#: Math notation: one letter with a subscript of at most three letters or digits (W_q, N_opt, c_KV, T_c).
_SUBSCRIPT_RE = re.compile(r"[A-Za-z]_[A-Za-z0-9]{1,3}")


def is_notation(name: str) -> bool:
    """Whether ``name`` reads as notation (the transformer's shape, a subscripted symbol), not as code.

    >>> [is_notation(n) for n in ("d_model", "W_q", "N_opt", "no_dq", "tokens_per_param", "T_comms")]
    [True, True, True, False, False, False]
    """
    return name in NOTATION or _SUBSCRIPT_RE.fullmatch(name) is not None


def code_names(text: str, *, source: bool = False) -> list[str]:
    """The names with an underscore in ``text`` that a student reads as code, each once, in order: outside
    code spans, not notation. ``source``: ``text`` is a template's text, whose ``{placeholders}`` are
    values, not names.

    >>> code_names("budget_gb × d_model and `num_key_value_heads` over W_q, then budget_gb again")
    ['budget_gb']
    >>> code_names("{no_dq} of {n:plural(layer)} in fp4_e2m1", source=True)
    ['fp4_e2m1']
    """
    if "_" not in text:
        return []
    if source:
        text = PLACEHOLDER_RE.sub(" ", text)
    text = CODE_SPAN_RE.sub(" ", text)
    found: dict[str, None] = {}
    for match in IDENTIFIER_RE.finditer(text):
        if not is_notation(match.group(0)):
            found.setdefault(match.group(0))
    return list(found)


__all__ = ["CODE_SPAN_RE", "IDENTIFIER_RE", "NOTATION", "code_names", "is_notation"]
