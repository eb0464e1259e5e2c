"""Conventions that change a number: readings of a step the texts must settle, weighed by recomputing.

A reading is a choice a careful student can make either way from the words alone; when the two ways grade
differently, the texts read before the part must say which one the answer takes. Each reading is a
variant of the calculators (``contained_trace.Calls``) the part's answer is recomputed with, a test of
which parts it concerns, and the words that settle it, in one sentence of the prompts or conventions:

- ``table``: is the input token-embedding table read whole by a decode step, or one row per sequence
  (as a lookup does)? It concerns a part whose prompt speaks of reading bytes or of bandwidth, and of a
  decode step or a token (for a question of one part, its prompt and conventions together), and whose
  answer counts an untied model's parameters with ``model_params_of``/``model_active_params_of``; the
  earlier parts that are such reads themselves keep their values (the choice was made there). Settled by
  a sentence naming the table and how it is read, or one that has every weight (all N parameters) read.
- ``window``: does a sliding layer keep W tokens or W − 1 (transformers)? It concerns any part whose
  calculators take a window convention. Settled by a sentence on the window that says W, W − 1 or "last".

Where a sentence settles the table, it is read for its way ("row": a lookup, one row, "except", "as 0";
"whole" otherwise) and held to the derivation: a derivation that leaves the table out by name (its answer
rises when ``model_vocab_size`` is 0) reads rows, one that does not reads it whole.

Known limits: a count written out of preset fields by hand (no calculator) is not seen, and the words of a
sentence are taken for what it says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from quizzer.bank.check.contained_trace import TABLE_COUNTS, Calls, reevaluate
from quizzer.bank.read.names import calculators
from quizzer.grading.bands import is_within

if TYPE_CHECKING:
    from quizzer.bank.expr.expression import Expr
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import Template

#: A prompt that asks for bytes read per step, or a time bounded by bandwidth...
READ_WORDS = re.compile(r"\bread(s|ing)?\b|\bbandwidth\b|memory-bound|\bstream(s|ed)?\b", re.IGNORECASE)
#: ... of a decode step.
DECODE_WORDS = re.compile(
    r"\bdecod|\bper (output )?token\b|\bTPOT\b|produce that token|output tokens?\b|\bgenerat", re.IGNORECASE
)
_TABLE = re.compile(r"token[- ](embedding )?table|embedding table|input embedding|\blookup\b", re.IGNORECASE)
_TABLE_READ = re.compile(r"\bread|\blookup\b|\bcount(ed|s)?\b|\bwhole\b|\brows?\b", re.IGNORECASE)
#: A sentence that has every weight read: the table with them, whole.
_EVERY_WEIGHT = re.compile(r"\b(all|every)\b[^.;]*\b(parameters?|weights?)\b", re.IGNORECASE)
_READ = re.compile(r"\bread", re.IGNORECASE)
#: How a sentence on the table reads it: one row per sequence (a lookup), or whole.
_ROWS = re.compile(r"\blookup\b|\bone row\b|\brows?\b|\bas 0\b|\bexcept\b|next to nothing", re.IGNORECASE)
_WHOLE = re.compile(r"\bwhole\b|\bin full\b|\ball\b|\bevery\b", re.IGNORECASE)
_WINDOW = re.compile(r"\bwindow|\bsliding\b|\blocal layer", re.IGNORECASE)
_WINDOW_SIZE = re.compile(r"\bW ?[−-] ?1\b|\blast\b|\bW\b|\bat most\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\n+")

#: How each reading is named in a message, and the fix.
ABOUT = {
    "table": (
        "whether a decode step reads the token-embedding table whole or one row per sequence (a lookup)",
        "say it in a convention the derivation follows (e.g. a variable table_read = false that the "
        "answer uses and the convention text renders), as the walkthroughs should agree",
    ),
    "window": (
        "whether a sliding layer keeps W tokens or W − 1 (transformers' cache)",
        "say which in a convention (the kv calculators take convention = 'paper' or 'hf')",
    ),
}


def expressions(template: Template) -> list[Expr]:
    """Every answer and variable expression of the template, part by part."""
    out: list[Expr] = []
    for part in template.parts:
        out.append(part.answer)
        out.extend(v.expr for v in part.variables if v.expr is not None)
    return out


def readings_of(template: Template) -> dict[str, frozenset[int]]:
    """For each reading, the parts (by number) it may concern, from the template alone."""
    calls = set().union(*(e.calls for e in expressions(template)))
    base = calculators()
    windowed = any("convention" in _parameters(base[name]) for name in calls if name in base)
    read = frozenset(
        part.number
        for part in template.parts
        if _decode_read(part.prompt)
        or (len(template.parts) == 1 and _decode_read(" ".join((part.prompt, *template.conventions))))
    )
    return {
        "table": read if calls & TABLE_COUNTS else frozenset(),
        "window": frozenset(p.number for p in template.parts) if windowed else frozenset(),
    }


def _decode_read(text: str) -> bool:
    """Whether ``text`` asks for the bytes a decode step reads (or the time they take)."""
    return READ_WORDS.search(text) is not None and DECODE_WORDS.search(text) is not None


def _parameters(fn: Any) -> tuple[str, ...]:
    code = getattr(fn, "__wrapped__", fn).__code__  # the calculator under its memo (quizzer.core)
    return tuple(code.co_varnames[: code.co_argcount])


def said(reading: str, texts: Iterable[str]) -> str | None:
    """How the first sentence of ``texts`` that settles ``reading`` reads it: for the table "row" (a
    lookup, one row per sequence) or "whole"; for the window "said"; None when no sentence settles it.

    >>> said("table", ["The weights are all read, except the token table (count it as 0)."])
    'row'
    >>> said("table", ["Active: attention, the token table and the head.", "Every byte is read once."])
    >>> said("table", ["All N parameters are read once per step."])
    'whole'
    >>> said("window", ["A local layer keeps the last 1,024 tokens."])
    'said'
    """
    for text in texts:
        for sentence in _SENTENCE.split(text):
            if reading == "window":
                if _WINDOW.search(sentence) and _WINDOW_SIZE.search(sentence):
                    return "said"
            elif _TABLE.search(sentence) and _TABLE_READ.search(sentence):
                return "row" if _ROWS.search(sentence) else "whole"
            elif _EVERY_WEIGHT.search(sentence) and _READ.search(sentence):
                return "whole"
    return None


def settled(reading: str, texts: Iterable[str]) -> bool:
    """Whether one sentence of ``texts`` settles ``reading`` (``said``)."""
    return said(reading, texts) is not None


def leaves_table_out(
    template: Template, instance: Instance, number: int, parts: frozenset[int], memo: dict[Any, Any]
) -> bool | None:
    """Whether part ``number``'s derivation leaves the token table out by name: its answer rises when
    every preset's ``vocab_size`` is 0 where it is read by name (``model_vocab_size``), the counts of the
    calculators unchanged; None when that cannot be computed."""
    presets = [v.name for part in template.parts for v in part.variables if v.kind == "preset"]
    fields = {f"{p}_vocab_size": 0 for p in presets}
    held = frozenset(range(1, number)) & parts
    env = reevaluate(template, instance, number, Calls(memo=memo), fields=fields, held_parts=held)
    if env is None:
        return None
    return bool(env[f"part{number}"] > instance.parts[number - 1].value)


def moved(
    reading: str,
    template: Template,
    instance: Instance,
    number: int,
    parts: frozenset[int],
    memo: dict[Any, Any],
) -> float | None:
    """The answer of part ``number`` read the other way, when it grades outside the part's band (else
    None); ``parts`` are the parts the reading concerns."""
    calls = Calls(table_free=reading == "table", flip_window=reading == "window", memo=memo)
    earlier = frozenset(range(1, number))
    held = earlier & parts if reading == "table" else earlier
    env = reevaluate(template, instance, number, calls, held_parts=held)
    other = None if env is None else env[f"part{number}"]
    part = instance.parts[number - 1]
    if other is None or is_within(other, part.value, part.tolerance):
        return None
    return float(other)


__all__ = [
    "ABOUT",
    "DECODE_WORDS",
    "READ_WORDS",
    "expressions",
    "leaves_table_out",
    "moved",
    "readings_of",
    "said",
    "settled",
]
