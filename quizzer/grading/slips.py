"""Built-in mistakes made to fit an instance: sibling units, its factors, dtypes, layers, MACs, 1000×."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.trace import Number
from quizzer.grading.bands import SLACK, Mistake, Tolerance, is_within
from quizzer.grading.context import GradeContext
from quizzer.grading.display import join, number_text, unit_factor
from quizzer.grading.slip_families import Slip, context_layers, dtype_slips, factor_slips, scale_slips

if TYPE_CHECKING:
    from collections.abc import Iterator


_TIMES = (
    ("ns", 1e-9, "nanoseconds"), ("µs", 1e-6, "microseconds"), ("ms", 1e-3, "milliseconds"),
    ("s", 1, "seconds"), ("min", 60, "minutes"), ("h", 3600, "hours"), ("days", 86400, "days"),
    ("weeks", 604800, "weeks"), ("years", 31536000, "years"),
)  # fmt: skip
_PREFIXES = {
    "bytes": "kB, MB, GB, TB", "bytes/s": "MB/s, GB/s, TB/s", "s": "µs, ms, s",
    "FLOPs": "GFLOPs, TFLOPs, PFLOPs", "FLOP/s": "GFLOP/s, TFLOP/s, PFLOP/s", "USD": "$k, $M, $B",
    "bits": "kb, Mb, Gb",
}  # fmt: skip


class _Unit(Record):
    """One unit an answer's number may be read in."""

    token: str  # as the parser reads it after a number ("GiB", "days", "%"); "" for a plain fraction
    factor: Number  # its value in the base unit
    title: str  # its name at the head of a title ("GiB", "Seconds", "Percent", "A fraction")

    @property
    def name(self) -> str:
        """Its name inside a title: "GiB", "seconds", "a fraction"."""
        return self.title.lower() if self.title[1:].islower() else self.title

    def amount(self, value: Number) -> str:
        """``value`` (base unit) in this unit: "15.63 GiB", "52%", "0.52"."""
        text = number_text(value / self.factor if self.factor != 1 else value)
        return join(text, self.token) if self.token else text

    @property
    def phrase(self) -> str:
        """How a sentence says a value is in it: "in GiB", "as a percentage", "as a fraction"."""
        return {"%": "as a percentage", "": "as a fraction"}.get(self.token, f"in {self.token}")

    @property
    def read(self) -> str:
        """What a bare number "is" in it: "read as GB", "a percentage", "a fraction"."""
        return {"%": "a percentage", "": "a fraction"}.get(self.token, f"read as {self.token}")


_FRACTION, _PERCENT = _Unit("", 1, "A fraction"), _Unit("%", 0.01, "Percent")


def _byte_unit(factor: Number, per_s: str) -> _Unit | None:
    """The bytes unit whose value is ``factor`` ("GB", "GiB", "bytes"), or None (bits, odd scales)."""
    if factor == 1:
        return _Unit(f"bytes{per_s}", 1, f"Bytes{per_s}")
    for level in range(1, 7):
        for size, token in (
            (10 ** (3 * level), "kMGTPE"[level - 1] + "B"),
            (2 ** (10 * level), "KMGTPE"[level - 1] + "iB"),
        ):
            if factor == size:
                return _Unit(token + per_s, size, token + per_s)
    return None


def _time_unit(factor: Number) -> int | None:
    return next((i for i, (_, f, _) in enumerate(_TIMES) if abs(f - factor) <= SLACK * f), None)


@functools.lru_cache(maxsize=256)
def _read_unit(unit: str, token: str | None) -> _Unit | None:
    """The unit a number was read in: ``token`` (typed, or the display unit; None: the base unit)."""
    factor: Number = 1
    if token:
        try:
            factor = unit_factor(unit, token)
        except QuizzerError:
            return None
    if unit in ("bytes", "bytes/s"):
        found = _byte_unit(factor, "/s" if unit == "bytes/s" else "")
        return found.replace(token=token) if found and token else found
    if unit == "s":
        at = _time_unit(factor)
        return None if at is None else _Unit(token or "s", factor, _TIMES[at][2].capitalize())
    if unit == "ratio":
        return _PERCENT if factor == 0.01 else _FRACTION if factor == 1 else None
    return None


def _siblings(expected: Number, unit: str, read: _Unit) -> tuple[_Unit, ...]:
    """The units a number read in ``read`` is often meant in: GB/GiB, bytes/KiB, s/ms, fraction/percent."""
    bytes_read = unit in ("bytes", "bytes/s") and read.factor == 1
    level = min(max((len(str(int(abs(expected)))) - 1) // 3, 1), 6) if bytes_read else 0
    return _sibling_units(unit, read, level)


@functools.lru_cache(maxsize=256)
def _sibling_units(unit: str, read: _Unit, level: int) -> tuple[_Unit, ...]:
    """``_siblings``, for a number of bytes of ``level`` (1 kB ... 6 EB) read as bytes."""
    if unit in ("bytes", "bytes/s"):
        per_s = "/s" if unit == "bytes/s" else ""
        if read.factor == 1:  # read as bytes: the answer in the prefix of its own size, SI and binary
            factors: list[Number] = [10 ** (3 * level), 2 ** (10 * level)]
        else:
            level = next(n for n in range(1, 7) if read.factor in (10 ** (3 * n), 2 ** (10 * n)))
            other = 2 ** (10 * level) if read.factor == 10 ** (3 * level) else 10 ** (3 * level)
            factors = [other, 1]
        return tuple(u for f in factors if (u := _byte_unit(f, per_s)) is not None)
    if unit == "s":
        at = _time_unit(read.factor)
        near = (
            sorted({i for i in (at - 1, at + 1, 3) if 0 <= i < len(_TIMES) and i != at})
            if at is not None
            else []
        )
        return tuple(_Unit(_TIMES[i][0], _TIMES[i][1], _TIMES[i][2].capitalize()) for i in near)
    if unit == "ratio":
        return (_PERCENT,) if read == _FRACTION else (_FRACTION,)
    return ()


def _unit_feedback(expected: Number, read: _Unit, sibling: _Unit, bare: bool, name: str) -> str:
    answer, shown = sibling.amount(expected), read.amount(expected)
    if bare:
        return (
            f"That is the answer {sibling.phrase} ({answer}), but a bare number here is {read.read}: "
            f"the answer is {shown}."
        )
    if name == "gb-vs-gib":
        return f"The {sibling.token} figure labelled {read.token}: {answer} is {shown}."
    label = read.token or "as a fraction"
    return f"That is the answer {sibling.phrase} ({answer}), labelled {label}: the answer is {shown}."


def _unit_slips(expected: Number, unit: str, read: _Unit, bare: bool) -> Iterator[Slip]:
    """A number meant in a sibling unit but read in ``read``: its value is expected × read / sibling."""
    for sibling in _siblings(expected, unit, read):
        if unit == "ratio":
            name = "percent-vs-fraction"
        elif unit == "s":
            name = "time-unit"
        else:
            name = "gb-vs-gib" if 1 not in (read.factor, sibling.factor) else "bytes-vs-prefixed"
        head = sibling.title if sibling.token else "Fraction"
        title = f"{head} read as {read.name}"
        value = expected * read.factor / sibling.factor
        family = "gb-gib" if unit in ("bytes", "bytes/s") else "units"
        feedback = functools.partial(_unit_feedback, expected, read, sibling, bare, name)
        yield Slip(name, value, title, feedback, family)


def _layer_slips(expected: Number, context: GradeContext) -> Iterator[Slip]:
    """One layer for all of them (all of them, on a question of one layer); the titles hold no number, so
    that Stats counts each direction as one mistake."""
    layers = context_layers(context)
    if layers is None or layers < 2:
        return
    label = (context.layers_label if context.layers else None) or f"the {layers} layers"
    if context.per_layer_question:
        feedback = f"That is {layers}× the answer: the question asks for one layer, not {label}."
        yield Slip("per-layer", expected * layers, "All layers for one", feedback, "per-layer")
    else:
        feedback = f"That is one layer's worth: multiply by {label}."
        yield Slip("per-layer", expected / layers, "One layer for all", feedback, "per-layer")


def _mac_slips(expected: Number, unit: str) -> Iterator[Slip]:
    if unit == "FLOPs":
        half = "Half the answer: that counts multiply-adds (MACs), and 1 MAC = 2 FLOPs."
        yield Slip("mac-vs-flop", expected / 2, "MACs for FLOPs", half, "macs-flops")
        twice = "Twice the answer: the 2 FLOPs of a multiply-add are counted twice (1 MAC = 2 FLOPs)."
        yield Slip("mac-vs-flop", expected * 2, "2 FLOPs per MAC counted twice", twice, "macs-flops")
    elif unit == "MACs":
        twice = "Twice the answer: that counts FLOPs, and 1 MAC = 2 FLOPs."
        yield Slip("mac-vs-flop", expected * 2, "FLOPs for MACs", twice, "macs-flops")


def _thousand_slips(expected: Number, unit: str) -> Iterator[Slip]:
    prefixes = _PREFIXES.get(unit, "k, M, B, T")
    large = f"That is 1000× the answer: a prefix one step too large ({prefixes})."
    yield Slip("factor-1000", expected * 1000, "1000× off", large, "prefix")
    small = f"That is a thousandth of the answer: a prefix one step too small ({prefixes})."
    yield Slip("factor-1000", expected / 1000, "1000× off", small, "prefix")


def slips(
    expected: Number,
    unit: str,
    context: GradeContext | None = None,
    *,
    tolerance: Tolerance | None = None,
    typed_unit: str | None = None,
) -> list[Slip]:
    """``builtin_mistakes`` as ``Slip`` values: the same slips, their feedback written only when read."""
    context = context or GradeContext()
    found: list[Slip] = []
    read = _read_unit(unit, typed_unit or context.display_unit)
    # fraction vs percent only for a share (at most 1) or an answer shown in %: 504 for a growth of 5.04
    # is not "the answer as a percentage"
    share = unit != "ratio" or abs(expected) <= 1 or context.display_unit == "%"
    if read is not None and share:
        found += _unit_slips(expected, unit, read, typed_unit is None)
    factored = list(factor_slips(expected, unit, context)) if context.factors else []
    found += [m for m in factored if m.name in _BEFORE_DTYPES]  # K and V's ×2 before a dtype half as large
    if context.dtype and unit in ("bytes", "bits"):
        found += dtype_slips(expected, context.dtype)
    if unit != "ratio":  # a ratio is not a per-layer step times the layers
        found += _layer_slips(expected, context)
    found += _mac_slips(expected, unit)
    found += sorted((m for m in factored if m.name not in _BEFORE_DTYPES), key=lambda m: m.family != "dtype")
    if typed_unit is None:
        found += scale_slips(expected, unit, context)
    if unit != "ratio":  # a ratio has no prefix to slip
        found += _thousand_slips(expected, unit)
    return _kept(found, expected, tolerance)


#: The factor slips tried before the dtype's neighbours: a bf16 cache at half its size is first K and V's
#: missing ×2 (the fp8 reading is named beside it).
_BEFORE_DTYPES = frozenset({"kv-pair-forgotten", "heads-for-kv-heads"})
#: Families whose slips name another built-in slip of the same value rather than hide behind it.
_JOINING = frozenset({"kv-pair", "kv-heads", "scale-word"})


def _kept(found: list[Slip], expected: Number, tolerance: Tolerance | None) -> list[Slip]:
    """The slips outside the tolerance, the first of equal values kept; a slip of a new family equal to a
    kept one is named in its feedback (``Slip.joined``)."""
    kept: list[Slip] = []
    for m in found:
        if m.value == expected or (tolerance is not None and is_within(m.value, expected, tolerance)):
            continue
        for k in kept:
            if abs(m.value - k.value) <= SLACK * abs(k.value):
                if m.family in _JOINING or k.family in _JOINING:
                    k.joined(m)
                break
        else:
            kept.append(m)
    return kept


def builtin_mistakes(
    expected: Number,
    unit: str,
    context: GradeContext | None = None,
    *,
    tolerance: Tolerance | None = None,
    typed_unit: str | None = None,
) -> list[Mistake]:
    """The slips every question of ``unit`` can show, made to fit the instance ``context`` describes.

    In order (the first of equal values wins): a number meant in a sibling of the unit it was read in
    (``typed_unit``, or the context's display unit for a bare number: GB/GiB, bytes/KiB, s/ms/min/h/days,
    fraction/percent), K and V's ×2 forgotten and the query heads for the KV heads (from the answer's
    factors, ``context.factors``), the neighbours of the context's dtype (bytes and bits answers only), one
    layer of the context's layers or of the answer's layers factor (or all of them on a per-layer
    question), MACs for FLOPs, the other factor slips (a factor's dtype neighbours, K and V counted twice,
    MACs for FLOPs on a time), a bare count without its scale word, and 1000× either way (not for ratios).
    A slip within ``tolerance`` of the expected value, or equal to an earlier one, is left out; one of a new
    family (K and V, KV heads, scale word) equal to a kept one is named in its feedback. Each has a family
    (``Mistake.family``; ``quizzer.grading.slip_families``).

    Args:
        expected: the expected value, in ``unit``.
        unit: the answer's base unit.
        context: the instance's display unit, dtype and layers; None: none of them.
        tolerance: the question's tolerance: a slip inside it is no slip.
        typed_unit: the unit typed with the answer (``Parsed.typed_unit``); None: a bare number.

    Returns:
        The mistakes, each with a title and a one-sentence feedback.

    >>> [(m.name, m.value) for m in builtin_mistakes(8000, "FLOPs")]
    [('mac-vs-flop', 4000.0), ('mac-vs-flop', 16000), ('factor-1000', 8000000), ('factor-1000', 8.0)]
    >>> slip = builtin_mistakes(2 * 2**30, "bytes", GradeContext(dtype="fp8"), tolerance=Tolerance("rel", 0.01))[-3]
    >>> slip.title, slip.feedback
    ('bf16 bytes for fp8', 'Twice the answer: that is 2 bytes per value (bf16), but the values here are fp8, 1 byte per value.')
    >>> ratio = builtin_mistakes(0.52, "ratio")[0]
    >>> ratio.value, ratio.title, ratio.feedback
    (52.0, 'Percent read as a fraction', 'That is the answer as a percentage (52%), but a bare number here is a fraction: the answer is 0.52.')
    """  # noqa: E501
    return [
        slip.mistake() for slip in slips(expected, unit, context, tolerance=tolerance, typed_unit=typed_unit)
    ]
