"""Reads a typed product against the derivation's factors: names the factors that differ, never a right one.

The answer's terms (``Parsed.terms``, with the unit's factor as one more) are aligned with the derivation's
factors (``factor_sheet``): equal factors pair off, in the order typed where it agrees with the derivation's;
factors typed grouped or split (64 for 2 × 32, or 1024 × 1024 × 1024 for a GiB) pair off as groups; what is
left is a factor typed in another's place, one left out, or one the derivation does not have. A factor left
over among several of the same value (the 2 for K and V, the 2 bytes of bf16) is named when the order typed
or the value typed tells which (4 is a dtype's bytes, not K and V's); otherwise the sentence says it cannot
tell. More than three differences get one sentence: the product is too far from the derivation's to read.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from quizzer.core.record import Record
from quizzer.core.trace import Number, num
from quizzer.grading.factor_sheet import Term, same

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizzer.grading.parse import Parsed

#: How a sentence names a role's factor.
_ROLE_WORDS = {
    "kv": "the 2 for K and V",
    "layers": "the layers",
    "heads": "the query heads",
    "kv_heads": "the KV heads",
    "head_dim": "head_dim",
    "d_model": "d_model",
    "bytes_per_value": "the bytes per value",
    "tokens": "the tokens",
    "batch": "the batch",
    "params": "the parameters",
    "flops_per_mac": "the 2 FLOPs per multiply-add",
    "passes": "the passes per token",
}
#: The values a slip of a role's factor typically puts in its place (beyond ``Term.instead``).
_LIKELY = {"bytes_per_value": (4, 2, 1, 0.5), "kv": (1,), "flops_per_mac": (1,)}
#: The most terms read (the answer's and the derivation's together); more are not aligned.
MAX_TERMS = 16
#: The largest group of factors typed as one (or one typed as several) that the alignment looks for.
_GROUP = 4
#: The most packings of groups the alignment tries: a bound on its time (about 20 ms), reached only by
#: products of many equal small factors (2*2*2*...), whose reading is then the best found so far.
_NODES = 3_000


class _Typed(Record):
    """One typed term: its value, power and place; ``unit`` for the unit's factor."""

    value: Number
    power: int
    at: int
    unit: bool = False


def _words(term: Term) -> str:
    if term.name and term.role:
        return f"{term.name} ({_ROLE_WORDS[term.role]})" if term.role in ("kv", "kv_heads") else term.name
    if term.name:
        return term.name
    return _ROLE_WORDS.get(term.role, "")


def _typed_terms(given: Parsed) -> list[_Typed] | None:
    """The answer's terms, with the unit's factor as one more when it is not 1; None for a non-positive."""
    if any(v <= 0 for v, _ in given.terms) or given.value <= 0:
        return None
    out = [_Typed(v, p, i) for i, (v, p) in enumerate(given.terms)]
    log = sum(p * math.log(v) for v, p in given.terms)
    scale = math.exp(math.log(given.value) - log)
    if not same(scale, 1):
        out.append(_Typed(round(scale) if same(scale, round(scale)) else scale, 1, len(out), unit=True))
    return out


def _lcs(typed: Sequence[_Typed], sheet: Sequence[Term]) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """The equal factors (value and power) paired by the cheapest alignment that keeps the order typed and
    derived: a pair costs nothing, a factor typed in another's place, left out or added costs 1 (so a
    wrong factor lines up with the derived one in its place: 131072/6/2 against 131072/2/2 changes the
    first 2). Returns the pairs and, for each typed factor aligned in a derived one's place, that place."""
    n, m = len(typed), len(sheet)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n or j == m:
                cost[i][j] = (n - i) + (m - j)
                continue
            step = 0 if _equal(typed[i], sheet[j]) else 1
            cost[i][j] = min(cost[i + 1][j + 1] + step, cost[i + 1][j] + 1, cost[i][j + 1] + 1)
    pairs, places, i, j = [], {}, 0, 0
    while i < n and j < m:
        step = 0 if _equal(typed[i], sheet[j]) else 1
        if cost[i][j] == cost[i + 1][j + 1] + step:
            if step:
                places[i] = j
            else:
                pairs.append((i, j))
            i, j = i + 1, j + 1
        elif cost[i][j] == cost[i + 1][j] + 1:
            i += 1
        else:
            j += 1
    return pairs, places


def _equal(t: _Typed, s: Term) -> bool:
    return not t.unit and t.power == s.power and same(t.value, s.value)


def _multiset(typed: Sequence[_Typed], sheet: Sequence[Term]) -> list[tuple[int, int]]:
    """The most pairs of equal factors, in any order (each typed term with the first free equal one)."""
    pairs, free = [], set(range(len(sheet)))
    for i, t in enumerate(typed):
        j = next((j for j in sorted(free) if _equal(t, sheet[j])), None)
        if j is not None:
            pairs.append((i, j))
            free.discard(j)
    return pairs


def _subsets(logs: list[float], most: int) -> list[tuple[float, tuple[int, ...]]]:
    """Every subset of at most ``most`` of ``logs`` (the empty one too), with its sum."""
    out: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    for size in range(1, min(most, len(logs)) + 1):
        out += [
            (sum(logs[k] for k in group), group) for group in itertools.combinations(range(len(logs)), size)
        ]
    return out


def _groups(typed: Sequence[_Typed], sheet: Sequence[Term]) -> list[frozenset[int]]:
    """The balanced groups: some typed factors (at least one) and some derived ones, at most ``_GROUP`` + 1
    in all, whose products are equal; indices past the typed ones are the derived ones. Found by meeting
    in the middle: the sums of the typed subsets against those of the derived subsets, in buckets."""
    t_logs = [t.power * math.log(t.value) for t in typed]
    s_logs = [s.power * math.log(s.value) for s in sheet]
    t_sets = _subsets(t_logs, _GROUP)
    s_sets = _subsets(s_logs, _GROUP)
    width = 1e-4
    buckets: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
    for total, group in s_sets:
        buckets.setdefault(round(total / width), []).append((total, group))
    offset = len(typed)
    found = []
    for total, t_group in t_sets:
        if not t_group:
            continue
        key = round(total / width)
        for near in (key - 1, key, key + 1):
            for s_total, s_group in buckets.get(near, ()):
                size = len(t_group) + len(s_group)
                if size < 2 or size > _GROUP + 1:
                    continue
                scale = max([abs(t_logs[k]) for k in t_group] + [abs(s_logs[k]) for k in s_group])
                if abs(total - s_total) <= 2e-5 * max(scale, 1):
                    found.append(frozenset(t_group) | frozenset(offset + k for k in s_group))
    return found


def _cover(typed: Sequence[_Typed], sheet: Sequence[Term]) -> tuple[list[int], list[int]]:
    """The typed and derived factors left over by the disjoint balanced groups that leave the fewest
    changes (a typed factor in a derived one's place, one left out, one added: each is one), then pair the
    most factors one to one, then make the most groups. A group is up to ``_GROUP`` + 1 factors, at least
    one typed, whose typed product equals its derived one (a factor typed as itself, grouped, split, or a
    unit typed out). The search visits at most ``_NODES`` packings."""
    n_typed, n = len(typed), len(typed) + len(sheet)
    powers = [t.power for t in typed] + [s.power for s in sheet]
    starts: dict[int, list[frozenset[int]]] = {}
    for g in sorted(_groups(typed, sheet), key=len):  # pairs first: the first packing tried is a good one
        starts.setdefault(min(g), []).append(g)
    left = {(side, p): 0 for side in (True, False) for p in (1, -1)}  # (typed?, power) -> factors uncovered
    for k, p in enumerate(powers):
        left[(k < n_typed, p)] += 1
    best: tuple[tuple[int, int, int], list[frozenset[int]]] = ((-n, 0, 0), [])
    budget = [_NODES]

    def search(at: int, used: frozenset[int], chosen: list[frozenset[int]], pairs: int) -> None:
        nonlocal best
        budget[0] -= 1
        changes = sum(max(left[(True, p)], left[(False, p)]) for p in (1, -1))
        mark = (-changes, pairs, len(chosen))
        if mark > best[0]:
            best = (mark, list(chosen))
        for k in range(at, n):
            if budget[0] <= 0:
                return
            for g in starts.get(k, ()):
                if g & used:
                    continue
                for m in g:
                    left[(m < n_typed, powers[m])] -= 1
                search(k + 1, used | g, [*chosen, g], pairs + (len(g) == 2))
                for m in g:
                    left[(m < n_typed, powers[m])] += 1

    search(0, frozenset(), [], 0)
    covered = frozenset().union(*best[1]) if best[1] else frozenset()
    t_left = [i for i in range(n_typed) if i not in covered]
    s_left = [j for j in range(len(sheet)) if n_typed + j not in covered]
    return t_left, s_left


class Note(Record):
    """One difference between a typed product and the derivation's factors.

    Attributes:
        kind: "substituted" (a typed factor in a derived one's place), "missing" (a derived factor not typed),
            "extra" (a typed factor the derivation does not have) or "too-far" (more than three differences).
        typed: the typed factor (substituted, extra), else None.
        sheet: the derived factors it may be, by index in the sheet (substituted, missing): one when the
            reading is sure, several when it cannot tell them apart.
        text: the sentence for people.
    """

    kind: str
    typed: Number | None
    sheet: tuple[int, ...]
    text: str


def working_notes(given: Parsed, sheet: Sequence[Term]) -> tuple[Note, ...]:
    """What differs between a typed product and the derivation's factors ``sheet`` (``read_working``)."""
    typed = _typed_terms(given) if len(given.terms) > 1 else None
    if typed is None or len(sheet) < 2 or len(typed) + len(sheet) > MAX_TERMS:
        return ()
    in_order, places = _lcs(typed, sheet)
    anywhere = _multiset(typed, sheet)
    ordered = len(in_order) == len(anywhere)
    pairs = in_order if ordered else anywhere
    t_left, s_left = _cover(typed, sheet)
    if any(typed[i].unit for i in t_left):  # the unit typed out as another (÷2^30 on a GB answer): its slip's
        t_left = [i for i in t_left if not typed[i].unit and not _unit_like(typed[i])]
    if not t_left and not s_left:
        return ()
    if len(t_left) + len(s_left) > 3:
        return (Note("too-far", None, (), _too_far(typed, sheet, len(pairs))),)
    notes: list[Note] = []
    while t_left and s_left:
        i = t_left.pop(0)
        j = next((j for j in s_left if sheet[j].power == typed[i].power), None)
        if j is None:
            t_left.insert(0, i)
            break
        s_left.remove(j)
        notes.append(_substituted(typed[i], sheet, j, ordered, pairs, places.get(i)))
    notes += [_missing(sheet, j, ordered, pairs) for j in s_left]
    notes += [Note("extra", typed[i].value, (), _extra(typed[i])) for i in t_left]
    return tuple(notes)


def _unit_like(t: _Typed) -> bool:
    """A typed divisor that converts a unit: a power of 1000 or of 1024 (1,073,741,824 for GiB)."""
    if t.power > 0 or not isinstance(t.value, int) or t.value < 1000:
        return False
    return any(t.value == base**k for base in (1000, 1024) for k in range(1, 7))


def read_working(given: Parsed, sheet: Sequence[Term]) -> tuple[str, ...]:
    """What differs between a typed product and the derivation's factors ``sheet``, one sentence each.

    () when the answer is one number, the derivation is no product, or nothing differs (a right product in
    any order or grouping).

    >>> from quizzer.grading.parse import parse_answer
    >>> sheet = (Term(2, 1), Term(32, 1, "n_layers"), Term(8, 1, "n_kv_heads"), Term(128, 1, "head_dim"),
    ...          Term(2, 1, "bytes per value", "bytes_per_value", label="bf16"))
    >>> read_working(parse_answer("2*30*8*128*2", "bytes"), sheet)
    ('Your 30 is n_layers: here it is 32.',)
    >>> read_working(parse_answer("4*2*32*8*128", "bytes"), sheet)
    ('Your 4 is the bytes per value: bf16 takes 2.',)
    >>> read_working(parse_answer("64*8*128*2", "bytes"), sheet)
    ()
    """
    return tuple(note.text for note in working_notes(given, sheet))


def _twins(sheet: Sequence[Term], j: int, ordered: bool, pairs: Sequence[tuple[int, int]]) -> list[int]:
    """The derived factors that ``sheet[j]`` might be, for a reader who cannot see the order: every one of
    its value and power named otherwise, when the order typed does not follow the derivation's."""
    term = sheet[j]
    alike = [k for k, s in enumerate(sheet) if s.power == term.power and same(s.value, term.value)]
    if ordered:  # the order typed follows the derivation's: the twin it leaves unpaired is the one
        unpaired = [k for k in alike if k not in {p[1] for p in pairs}]
        if len(unpaired) == 1:
            return unpaired
    if len({(_words(sheet[k]), sheet[k].role) for k in alike}) == 1:
        return [j]  # twins of one name: either reads the same
    return alike


def _likely(term: Term, value: Number) -> bool | None:
    """Whether ``value`` is a slip typical of ``term``'s role: True, False, or None (no role: can't say)."""
    if term.instead is not None and same(term.instead, value):
        return True
    if term.role in _LIKELY:
        return any(same(value, v) for v in _LIKELY[term.role])
    return None


def _substituted(
    t: _Typed,
    sheet: Sequence[Term],
    j: int,
    ordered: bool,
    pairs: Sequence[tuple[int, int]],
    place: int | None,
) -> Note:
    """A typed factor in the place of ``sheet[j]`` or of a twin of its value: the twin in whose place it was
    typed (``place``, from the alignment), else the one its value is a typical slip of (4 bytes for bf16's
    2, not K and V's 2), else the one the order leaves unpaired, else all of them (not clear)."""
    alike = [k for k, s in enumerate(sheet) if s.power == sheet[j].power and same(s.value, sheet[j].value)]
    fits = [k for k in alike if _likely(sheet[k], t.value)]
    if place is not None and place in alike:
        candidates = [place]
    elif len(alike) > 1 and len(fits) == 1:
        candidates = fits
    else:
        candidates = _twins(sheet, j, ordered, pairs)
    return Note("substituted", t.value, tuple(candidates), _substituted_text(t, sheet, candidates))


def _substituted_text(t: _Typed, sheet: Sequence[Term], candidates: list[int]) -> str:
    u, term = num(t.value), sheet[candidates[0]]
    if len(candidates) > 1:
        names = " or ".join(_words(sheet[k]) or "a factor" for k in candidates)
        return (
            f"Your {u} stands where the derivation has {num(term.value)}, as {names}: which one is not clear."
        )
    e, words = num(term.value), _words(term)
    if term.role == "kv_heads" and term.instead is not None and same(term.instead, t.value):
        return f"Your product has {u} heads, the query heads, where the cache uses {e} KV heads."
    if term.role == "bytes_per_value" and term.label:
        return f"Your {u} is the bytes per value: {term.label} takes {e}."
    if not words:
        return f"Your {u} stands where the derivation has {e}."
    if t.power < 0:
        return f"You divide by {u} where the derivation divides by {words}: here it is {e}."
    return f"Your {u} is {words}: here it is {e}."


def _missing(sheet: Sequence[Term], j: int, ordered: bool, pairs: Sequence[tuple[int, int]]) -> Note:
    candidates = _twins(sheet, j, ordered, pairs)
    return Note("missing", None, tuple(candidates), _missing_text(sheet, candidates))


def _missing_text(sheet: Sequence[Term], candidates: list[int]) -> str:
    term = sheet[candidates[0]]
    e = num(term.value)
    if len(candidates) > 1:
        names = " or ".join(_words(sheet[k]) or "a factor" for k in candidates)
        return f"A factor of {e} is missing: {names} (which one is not clear)."
    if term.role == "kv":
        return "A factor of 2 for K and V is missing."
    words = _words(term)
    what = f"{words} ({e})" if words else e
    if term.power < 0:
        return f"Your answer does not divide by {what}."
    return f"Your product leaves out {what}."


def _extra(t: _Typed) -> str:
    if t.power < 0:
        return f"You divide by {num(t.value)}, which the derivation does not."
    return f"Your product has a factor {num(t.value)} that the derivation does not."


def _too_far(typed: Sequence[_Typed], sheet: Sequence[Term], matched: int) -> str:
    shown = [t for t in typed if not t.unit]
    return (
        f"Only {matched} of your {len(shown)} factors {'is' if matched == 1 else 'are'} the derivation's "
        f"({len(sheet)} factors): compare your product with its steps."
    )


__all__ = ["MAX_TERMS", "Note", "read_working", "working_notes"]
