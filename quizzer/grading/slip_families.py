"""The classic slip families, and the slips a derivation's named factors and a bare number make.

Every mistake, written or built in, belongs to a family (``FAMILIES``): a template's own mistakes to "own"
unless they say otherwise, each built-in slip to the family of its name (``family_of``). The families
the derivation makes possible come from the factors its last step is proportional to (``Step.factors``,
set by the core's calculators): the ×2 for K and V, the KV heads (when the calculator knows the query
heads), the layers, the bytes per value of a dtype, the 2 FLOPs of a multiply-add. A bare number on a
count (params, tokens, FLOPs...) may also have lost its scale word ("16.4" for 16.4M).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from quizzer.core.errors import QuizzerError
from quizzer.core.trace import Factor, Number, num
from quizzer.core.words import counted
from quizzer.grading.context import DTYPE_ALIASES, DTYPE_BITS, DTYPE_NEIGHBOURS
from quizzer.grading.display import number_text, unit_factor

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from quizzer.grading.bands import Mistake
    from quizzer.grading.context import GradeContext

#: Every family a mistake may belong to, with what it is, for people.
FAMILIES: dict[str, str] = {
    "kv-pair": "the ×2 for K and V",
    "kv-heads": "the query heads for the KV heads",
    "per-layer": "one layer for all of them, or all of them for one",
    "dtype": "a neighbouring dtype's bytes per value",
    "macs-flops": "MACs for FLOPs (1 MAC = 2 FLOPs)",
    "gb-gib": "GB for GiB, or bytes for a prefixed unit",
    "units": "a sibling unit (seconds for ms, a fraction for a percentage)",
    "scale-word": "a scale word left off a bare number",
    "prefix": "a prefix one step off (1000×)",
    "own": "the template's own mistake",
}
#: The families a step's factors make possible: role -> family.
ROLE_FAMILIES = {
    "kv": "kv-pair",
    "kv_heads": "kv-heads",
    "layers": "per-layer",
    "bytes_per_value": "dtype",
    "flops_per_mac": "macs-flops",
}
#: The family of each built-in slip's name (dtype slips are "<other>-for-<own>": see ``family_of``).
_NAMED = {
    "kv-pair-forgotten": "kv-pair",
    "kv-pair-twice": "kv-pair",
    "heads-for-kv-heads": "kv-heads",
    "per-layer": "per-layer",
    "mac-vs-flop": "macs-flops",
    "gb-vs-gib": "gb-gib",
    "bytes-vs-prefixed": "gb-gib",
    "time-unit": "units",
    "percent-vs-fraction": "units",
    "scale-word": "scale-word",
    "factor-1000": "prefix",
}
#: Units a count is given in, which take a scale word (k, M, B, T) and read a bare number as themselves.
_COUNTED = frozenset({"params", "tokens", "FLOPs", "MACs", "FLOP/s", "count", "USD", "tokens/s", "patches"})
_SCALES = (
    (10**15, "P", "quadrillions"),
    (10**12, "T", "trillions"),
    (10**9, "B", "billions"),
    (10**6, "M", "millions"),
)


def family_of(name: str) -> str | None:
    """The family of a built-in slip called ``name``; None for a name no built-in slip has (a template's).

    >>> family_of("gb-vs-gib"), family_of("bf16-for-fp8"), family_of("untied-head-left-out")
    ('gb-gib', 'dtype', None)
    """
    family = _NAMED.get(name)
    if family is None and name.count("-for-") == 1:
        other, own = name.split("-for-")
        family = "dtype" if other in DTYPE_BITS and own in DTYPE_BITS else None
    return family


class Slip:
    """A built-in mistake of a family, whose feedback is written only when it is shown (most never are).

    ``also`` holds the titles of the other built-in slips that give the same value (their families in
    ``families``, their names in ``names``): the feedback names them too, since the grader cannot tell them
    apart.
    """

    __slots__ = ("_feedback", "also", "families", "family", "name", "names", "title", "value")

    def __init__(
        self, name: str, value: Number, title: str, feedback: str | Callable[[], str], family: str = "own"
    ) -> None:
        self.name, self.value, self.title, self._feedback, self.family = name, value, title, feedback, family
        self.also: tuple[str, ...] = ()
        self.families: tuple[str, ...] = (family,)
        self.names: tuple[str, ...] = (name,)

    @property
    def feedback(self) -> str:
        """The sentence to show (a unit slip's is written now: it formats the answer in two units)."""
        if not isinstance(self._feedback, str):
            self._feedback = self._feedback()
        if not self.also:
            return self._feedback
        return f"{self._feedback} (The same value comes from another slip: {'; '.join(self.also)}.)"

    @property
    def label(self) -> str:
        """The title (built-in slips always have one)."""
        return self.title

    def joined(self, other: Slip) -> None:
        """``other`` gives the same value: name it too (its family joins ``families``)."""
        if other.family not in self.families:
            self.also += (other.title,)
            self.families += (other.family,)
            self.names += (other.name,)

    def mistake(self) -> Mistake:
        """The slip as a ``Mistake`` (with its family)."""
        from quizzer.grading.bands import Mistake

        return Mistake(self.name, self.value, self.feedback, self.title, self.family)


_LEADS = {2: "Twice the answer", 0.5: "Half the answer", 4: "Four times the answer", 0.25: "A quarter of it"}


def _per_value(dtype: str) -> str:
    bits = DTYPE_BITS[dtype]
    if bits % 8:
        return f"{bits:g} bits per value"
    return "1 byte per value" if bits == 8 else f"{int(bits) // 8} bytes per value"


def dtype_slips(expected: Number, dtype: str) -> Iterator[Slip]:
    """The dtype's neighbours: the answer's bytes at another dtype's size (bf16 for fp8: twice the answer)."""
    own = DTYPE_ALIASES.get(dtype.lower(), dtype.lower())
    for other in DTYPE_NEIGHBOURS.get(own, ()):
        ratio = DTYPE_BITS[other] / DTYPE_BITS[own]
        lead = _LEADS.get(ratio) or f"About {ratio:.3g} times the answer"
        that = f"{lead}: that is {_per_value(other)} ({other})"
        feedback = f"{that}, but the values here are {own}, {_per_value(own)}."
        yield Slip(f"{other}-for-{own}", expected * ratio, f"{other} bytes for {own}", feedback, "dtype")


def _kv_pair(expected: Number, factor: Factor) -> Iterator[Slip]:
    if factor.value != 2:
        return
    half = (
        "Half the answer: the ×2 for K and V is missing. Every cached token keeps a key and a value for each "
        "KV head in every layer."
    )
    yield Slip("kv-pair-forgotten", expected / 2, "K and V ×2 forgotten", half, "kv-pair")
    twice = "Twice the answer: the ×2 for K and V is counted twice (one key and one value per head, once)."
    yield Slip("kv-pair-twice", expected * 2, "K and V counted twice", twice, "kv-pair")


def _kv_heads(expected: Number, factor: Factor) -> Iterator[Slip]:
    heads = factor.instead
    if heads is None or heads == factor.value or not factor.value:
        return
    ratio = heads / factor.value
    lead = f"{num(float(f'{ratio:.3g}'))}× the answer"
    feedback = (
        f"{lead}: that uses the {num(heads)} query heads, but keys and values have "
        f"{counted(factor.value, 'head')} here (grouped-query attention shares each among query heads)."
    )
    yield Slip("heads-for-kv-heads", expected * ratio, "Query heads for the KV heads", feedback, "kv-heads")


def _flops_per_mac(expected: Number, unit: str, factor: Factor) -> Iterator[Slip]:
    if factor.value != 2 or unit in ("FLOPs", "MACs"):  # FLOPs and MACs answers have their own (slips.py)
        return
    feedback = "Half the answer: the compute was counted in multiply-adds (MACs), and 1 MAC = 2 FLOPs."
    yield Slip("mac-vs-flop", expected / 2, "MACs for FLOPs", feedback, "macs-flops")


def factor_slips(expected: Number, unit: str, context: GradeContext) -> Iterator[Slip]:
    """The slips the answer's named factors make (``context.factors``): K and V ×2 forgotten (or counted
    twice), the query heads for the KV heads, a neighbouring dtype (of the factor's dtype, when the context
    has none or another, or the answer is not bytes), MACs for FLOPs on an answer that is not itself FLOPs.
    A layers factor is left to the layer slips (``slips._layer_slips``), which read ``context_layers``."""
    for factor in context.factors:
        role = factor.role
        if role == "kv":
            yield from _kv_pair(expected, factor)
        elif role == "kv_heads":
            yield from _kv_heads(expected, factor)
        elif role == "bytes_per_value" and factor.label:
            if factor.label != context.dtype or unit not in ("bytes", "bits"):  # else slips.py made them
                yield from dtype_slips(expected, factor.label)
        elif role == "flops_per_mac":
            yield from _flops_per_mac(expected, unit, factor)


def context_layers(context: GradeContext) -> int | None:
    """The layers a layer slip multiplies or divides by: the context's, else the answer's layers factor."""
    if context.layers is not None:
        return context.layers
    factor = next((f for f in context.factors if f.role == "layers"), None)
    return int(factor.value) if factor is not None and factor.value == int(factor.value) else None


def scale_slips(expected: Number, unit: str, context: GradeContext) -> Iterator[Slip]:
    """A bare number read as the count itself but meant with a scale word: 16.4 for 16.4M (and, for an
    answer of billions or more, the scale below it too: 1,189 for 1,189M). Only for units that take scale
    words and read a bare number as themselves."""
    if unit not in _COUNTED or expected < 10**6:
        return
    display = context.display_unit
    if display:
        try:
            if unit_factor(unit, display) != 1:
                return
        except QuizzerError:
            return
    top = next(i for i, (size, _, _) in enumerate(_SCALES) if abs(expected) >= size)
    for size, word, name in _SCALES[top : top + 2]:
        feedback = partial(_scale_feedback, expected, size, word, name, unit)  # written when shown
        yield Slip("scale-word", expected / size, "Scale word left off", feedback, "scale-word")


def _scale_feedback(expected: Number, size: int, word: str, name: str, unit: str) -> str:
    """A scale slip's feedback: the answer in ``name`` (``word`` for ``size``), written with its word."""
    shown = f"{number_text(expected / size)}{word}"
    return (
        f"That is the answer in {name}: a bare number here is read as {unit}, not {name}, so write "
        f"{shown} (or every digit)."
    )


__all__ = [
    "FAMILIES",
    "ROLE_FAMILIES",
    "Slip",
    "context_layers",
    "dtype_slips",
    "factor_slips",
    "family_of",
    "scale_slips",
]
