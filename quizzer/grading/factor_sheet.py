"""The factors of a derivation's answer: its last step read as a product, each factor with its name."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from quizzer.core.record import Record
from quizzer.core.trace import ROLES, Number

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizzer.core.trace import Step


class Term(Record):
    """One factor of an answer's product.

    Attributes:
        value: its value (as the derivation shows it: floats to six figures).
        power: 1 for a factor, -1 for a divisor.
        name: what the formula calls it ("n_layers", "bytes per value", "part 1"); "" when unknown.
        role: its role among ``quizzer.core.trace.ROLES`` when the calculator tagged it ("kv_heads"); "".
        instead: what a classic slip puts in its place (the query heads for the KV heads), if known.
        label: the role's own name here (the dtype of the bytes per value: "bf16"); "".
    """

    value: Number
    power: int
    name: str = ""
    role: str = ""
    instead: Number | None = None
    label: str = ""

    @property
    def words(self) -> str:
        """How a sentence names it: the formula's name, else the role's words, else "a factor"."""
        if self.name:
            return self.name
        return ROLES[self.role] if self.role else "a factor"


#: Relative difference under which two factors are the same number (the derivation shows six figures).
SAME = 1e-5


def same(a: Number, b: Number) -> bool:
    """Whether ``a`` and ``b`` are the same factor, to the six figures a derivation shows.

    >>> same(403.333, 403.33333333), same(2, 4)
    (True, False)
    """
    return a == b or abs(a - b) <= SAME * max(abs(a), abs(b))


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
_SPLIT = re.compile(r" (×|/|\+|-) ")


def _number(text: str) -> Number | None:
    """A number as a derivation writes it ("8,192", "3.12e14", "32,768 ^ 2"), or None."""
    text = text.strip()
    base, caret, exponent = text.partition(" ^ ")
    if caret:
        b, e = _number(base), _number(exponent)
        if b is None or e is None or abs(e) > 64 or b <= 0:
            return None
        return b**e if isinstance(b, int) and isinstance(e, int) and e >= 0 else float(b) ** e
    if not _NUMBER.fullmatch(text):
        return None
    plain = text.replace(",", "")
    return int(plain) if re.fullmatch(r"-?\d+", plain) else float(plain)


def _tokens(text: str) -> list[str] | None:
    """``text`` as atoms and the operators × / + - and brackets at its top levels; None if unbalanced.

    A bracket group inside an atom ("max(", "sqrt(", "attention before (MHA)") or a ceiling or floor
    (⌈ ⌉ ⌊ ⌋) stays inside it.
    """
    out: list[str] = []
    atom, depth, i = "", 0, 0
    while i < len(text):
        c = text[i]
        if depth == 0 and c == "(" and not atom.strip():
            out.append("(")
            atom = ""
        elif depth == 0 and c == ")":
            if atom.strip():
                out.append(atom.strip())
            out.append(")")
            atom = ""
        elif depth == 0 and (m := _SPLIT.match(text, i)) and (atom.strip() or out[-1:] == [")"]):
            out += [atom.strip(), m.group(1)] if atom.strip() else [m.group(1)]
            atom, i = "", m.end()
            continue
        else:
            if c in "(⌈⌊":
                depth += 1
            elif c in ")⌉⌋":
                depth -= 1
                if depth < 0:
                    return None
            atom += c
        i += 1
    if depth:
        return None
    if atom.strip():
        out.append(atom.strip())
    return out


class _Parser:
    """A product of atoms and bracket groups, flattened: each factor's text and power; a sum is one atom."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0

    def sum(self) -> list[tuple[str, int]] | None:
        """The factors of a product; a sum or difference at this level gives one opaque atom ("" text)."""
        terms = [self.product()]
        while self.at < len(self.tokens) and self.tokens[self.at] in "+-":
            self.at += 1
            terms.append(self.product())
        if any(t is None for t in terms):
            return None
        if len(terms) > 1:
            return [("", 1)]
        return terms[0]

    def product(self) -> list[tuple[str, int]] | None:
        out: list[tuple[str, int]] = []
        power = 1
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            self.at += 1
            if token == "(":
                inner = self.sum()
                if inner is None or self.at >= len(self.tokens) or self.tokens[self.at] != ")":
                    return None
                self.at += 1
                out += [(text, p * power) for text, p in inner]
            elif token in ("×", "/", "+", "-", ")"):
                return None
            else:
                out.append((token, power))
            if self.at < len(self.tokens) and self.tokens[self.at] in "×/":
                power = -1 if self.tokens[self.at] == "/" else 1
                self.at += 1
                continue
            break
        return out or None


def _factors(text: str) -> list[tuple[str, int]] | None:
    """The factors of a formula or its substituted form, each (text, power); None if it is no product."""
    tokens = _tokens(text)
    if not tokens:
        return None
    parser = _Parser(tokens)
    found = parser.sum()
    return found if found is not None and parser.at == len(tokens) else None


def _product(terms: Sequence[tuple[Number, int]]) -> float:
    total = 0.0
    for value, power in terms:
        if value <= 0:
            return math.nan
        total += power * math.log(value)
    return total


def _read(step: Step) -> list[Term] | None:
    """``step`` as named factors whose product is its value (an opaque one inferred from the rest), or None.

    >>> from quizzer.core.trace import Step
    >>> [(t.value, t.power, t.name) for t in _read(Step("A", "part 1 / (s × b)", "64 / (8 × 2)", 4, "count"))]
    [(64, 1, 'part 1'), (8, -1, 's'), (2, -1, 'b')]
    """
    shown = _factors(step.substituted)
    if shown is None or len(shown) < 2 or not isinstance(step.value, int | float) or step.value <= 0:
        return None
    named = _factors(step.formula)
    names = [n for n, _ in named] if named and [p for _, p in named] == [p for _, p in shown] else None
    values = [_number(text) if text else None for text, _ in shown]
    unknown = [i for i, v in enumerate(values) if v is None]
    if len(unknown) > 1:
        return None
    known = [(v, p) for v, (_, p) in zip(values, shown, strict=True) if v is not None]
    rest = _product(known)
    if math.isnan(rest):
        return None
    if unknown:
        at = unknown[0]
        inferred = math.exp((math.log(step.value) - rest) * shown[at][1])
        values[at] = round(inferred) if abs(inferred - round(inferred)) <= SAME * inferred else inferred
    elif not same(math.exp(rest), step.value):
        return None  # a rounding inside the step (⌈bytes⌉): the factors do not multiply to its value
    terms = []
    for i, ((text, power), value) in enumerate(zip(shown, values, strict=True)):
        name = names[i] if names else ""
        terms.append(Term(value if value is not None else 0, power, "" if name == text else name))
    return terms


def factor_sheet(steps: Sequence[Step], depth: int = 3) -> tuple[Term, ...]:
    """The factors of the last step of ``steps``, those that are an earlier step's product read out too
    (a "KV bytes per token" factor as its 2 × layers × ...), tagged with the roles the calculator gave
    (``Step.factors``). () when the last step is no product of at least two factors.

    >>> from quizzer.core.trace import Step, tags
    >>> steps = (Step("Per token", "2 × L × bytes", "2 × 32 × 2", 128, "bytes", tags(kv=2, layers=32)),
    ...          Step("Answer", "Per token × seq_len", "128 × 1,024", 131072, "bytes"))
    >>> [(t.value, t.name, t.role) for t in factor_sheet(steps)]
    [(2, '', ''), (32, 'L', 'layers'), (2, 'bytes', ''), (1024, 'seq_len', '')]
    """
    if not steps:
        return ()
    last = steps[-1]
    terms = _read(last)
    if terms is None:
        return _from_tags(last, [])
    out: list[Term] = []
    for term in terms:
        inner = _expanded(term, steps[:-1], depth) if depth and term.name else None
        out += inner if inner else [term]
    return _from_tags(last, out) or tuple(_tagged(out, last))


def _from_tags(step: Step, read: list[Term]) -> tuple[Term, ...]:
    """The step's tagged factors as its terms, when they multiply to its value (a complete reading), named
    as the formula names a factor of the same value found once; else ()."""
    factors = step.factors
    if len(factors) < 2 or not isinstance(step.value, int | float) or step.value <= 0:
        return ()
    if not same(math.exp(_product([(f.value, 1) for f in factors])), step.value):
        return ()
    out = []
    for f in factors:
        alike = [t for t in read if t.power == 1 and same(t.value, f.value)]
        twins = [g for g in factors if same(g.value, f.value)]
        name = alike[0].name if len(alike) == 1 and len(twins) == 1 else ""
        out.append(Term(f.value, 1, name, f.role, f.instead, f.label))
    return tuple(out)


def _expanded(term: Term, earlier: Sequence[Step], depth: int) -> list[Term] | None:
    """``term`` as the factors of the earlier step it names (its label, its value), if that is a product."""
    for k in range(len(earlier) - 1, -1, -1):
        step = earlier[k]
        if step.label == term.name and isinstance(step.value, int | float) and same(step.value, term.value):
            inner = factor_sheet(earlier[: k + 1], depth - 1)
            return [t.replace(power=t.power * term.power) for t in inner] or None
    return None


def _tagged(terms: list[Term], step: Step) -> list[Term]:
    """``terms`` with the roles of ``step``'s tagged factors where the value tells which term it is (one
    term and one role of that value); the others are left untagged rather than guessed."""
    for factor in step.factors:
        alike = [i for i, t in enumerate(terms) if t.power == 1 and same(t.value, factor.value)]
        twins = [f for f in step.factors if same(f.value, factor.value)]
        if len(alike) == 1 and len(twins) == 1:  # one term of that value, one role: it is that role
            terms[alike[0]] = terms[alike[0]].replace(
                role=factor.role, instead=factor.instead, label=factor.label
            )
    return terms


__all__ = ["SAME", "Term", "factor_sheet", "same"]
