"""The limits on the work a question pack can ask for, in one place (docs/architecture.md, Question packs)."""

from __future__ import annotations

#: Bytes in one pack file; a larger file is reported and not read. The largest built-in file has 46 KB.
MAX_FILE_BYTES = 1 << 20
#: Characters in one expression. The longest built-in expression has 949.
MAX_EXPR_CHARS = 2_000
#: Nesting depth of one parsed expression (``1+1+1`` nests 3 deep); the deepest built-in one nests 13. The
#: evaluator, the check and the derivation renderer recurse about twice per level, well inside Python's 1,000.
MAX_EXPR_DEPTH = 100
#: Bits of any exact number an expression makes: an integer, or a fraction's numerator and denominator.
#: ``**``, ``*``, ``/``, ``+`` and a calculator's result are all held to it (10,000 bits is ~3,000 digits).
MAX_INT_BITS = 10_000
#: The largest ``|ndigits|`` of ``round(x, ndigits)`` (rounding an integer to -n digits computes 10**n).
MAX_ROUND_DIGITS = 100
#: Expression nodes one instance may evaluate, every draw and mistake included (the costliest built-in
#: instance needs 3,726; at ~0.5 µs a node, a budget is ~50 ms; a template that needs more is reported).
MAX_EVAL_STEPS = 100_000
#: Characters of all the rendered texts of one instance (prompt, explanation, feedback...); the longest
#: built-in instance has ~7,000.
MAX_TEXT_CHARS = 100_000
#: Characters of the variant expressions the omission lint parses for one template (each step left out is
#: a copy of the expression); the built-in bank's largest template needs ~4,000.
MAX_OMISSION_CHARS = 50_000
#: Characters of a problem's message and field: they quote what a pack holds.
MAX_MESSAGE_CHARS = 1_000
MAX_FIELD_CHARS = 200
#: Parts of one chain after its main question (``[[template.parts]]``); interview chains have 2 to 5.
MAX_PARTS = 12

__all__ = [
    "MAX_EVAL_STEPS",
    "MAX_EXPR_CHARS",
    "MAX_EXPR_DEPTH",
    "MAX_FIELD_CHARS",
    "MAX_FILE_BYTES",
    "MAX_INT_BITS",
    "MAX_MESSAGE_CHARS",
    "MAX_OMISSION_CHARS",
    "MAX_PARTS",
    "MAX_ROUND_DIGITS",
    "MAX_TEXT_CHARS",
]
