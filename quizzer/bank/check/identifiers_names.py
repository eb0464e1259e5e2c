"""The identifiers lint's reading of a text: the words with an underscore a student would read as code."""

from __future__ import annotations

import re

from quizzer.bank.expr.text import PLACEHOLDER_RE

#: A word with an underscore between letters or digits: ``no_dq``, ``tokens_per_param``, ``fp4_e2m1``.
IDENTIFIER_RE = re.compile(r"(?<![\w`])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w`])")
#: A Markdown code span: what it holds is quoted as code on purpose (a config key, a module, a function).
CODE_SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
#: Math notation: one letter with a subscript of at most three letters or digits (W_q, N_opt, c_KV, T_c).
_SUBSCRIPT_RE = re.compile(r"[A-Za-z]_[A-Za-z0-9]{1,3}")

#: The shape of a transformer as the literature and every formula of the core name it: notation, not code.
#: (The core's ModelSpec fields beyond these are code: say them in words.)
NOTATION = frozenset(
    {
        "d_model",  # Vaswani et al.'s width
        "d_ff",  # the feed-forward width (Vaswani et al.)
        "head_dim",  # the width of one attention head
        "n_layers",  # the decoder's layers
        "n_heads",  # the query heads
        "n_kv_heads",  # the key/value heads of grouped-query attention
        "n_experts",  # an MoE layer's routed experts
        "n_positions",  # a learned position table's rows (GPT-2)
        "vocab_size",  # the embedding table's rows
        "seq_len",  # the tokens of a sequence
    }
)


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
