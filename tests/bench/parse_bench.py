"""`make bench`, the answer parser: the slowest answer of maximum length against a typical one, in one run."""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUDGET_MS = 10.0
#: The costly shapes of a long answer, each repeated to the maximum length: (head, piece, tail, unit).
SHAPES = [
    ("", "1*", "1", "count"),  # the longest product: 128 terms
    ("", "2²*", "2", "count"),  # superscript powers
    ("", "1 x ", "1", "count"),
    ("", "$1*", "1", "USD"),  # a dollar sign on every term
    ("", "1 thousand*", "1", "count"),  # a scale word on every term
    ("", "9999991/9999973*", "1", "ratio"),  # digits that never cancel
    ("", "1e299/1e299*", "1", "ratio"),  # large exact powers of ten
    ("", "7e-299*1e299*", "1", "ratio"),
    ("", "3⁶²⁷/2⁹⁹⁴*", "1", "ratio"),  # a product whose digits pile up (refused past 4096 bits)
    ("", "~", "16.4M", "params"),  # approximate marks
    ("", "about ", "16.4M", "params"),
    ("16.4", " ", "M", "params"),  # spaces
    ("16.4 ", "M", "", "params"),  # a long unit
    ("8 ", "GPUs", "", "count"),  # a long label
    ("1", ",000", "", "params"),  # a long number (refused past 100 digits)
    ("", "１６*", "1", "count"),  # fullwidth digits
]
#: Pieces for a seeded random search over other shapes.
PIECES = [
    *"0123456789.,_ eE^*/x~$%kMGTBims",
    "²",
    "⁹",
    "\u212a",
    "GiB",
    "FLOPs",
    "about ",
    "e-299",
    "9999991",
]


def _fill(head: str, piece: str, tail: str, length: int) -> str:
    room = length - len(head) - len(tail)
    return head + (piece * (room // len(piece) + 1))[:room] + tail


def _median_ms(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def parse_rows() -> list[str]:
    """Grade time of "16.4M" and of the slowest answers of ``MAX_ANSWER_LENGTH`` characters (every shape in
    ``SHAPES`` and a seeded random search), read and refused, with the ratio to "16.4M" (budget 10 ms)."""
    sys.path.insert(0, str(ROOT))
    from quizzer.grading import Tolerance, grade
    from quizzer.grading.parse import MAX_ANSWER_LENGTH

    length, tolerance = MAX_ANSWER_LENGTH, Tolerance("rel", 0.01)
    expected = {"params": 16_384_000, "count": 8, "ratio": 0.4, "USD": 1.0}
    typical = (
        _median_ms(lambda: [grade("16.4M", 16_384_000, "params", tolerance) for _ in range(100)], 21) / 100
    )
    candidates = [(_fill(h, p, t, length), unit) for h, p, t, unit in SHAPES]
    rng = random.Random(18)
    candidates += [("".join(rng.choices(PIECES, k=length))[:length], "count") for _ in range(200)]
    timed = []
    for text, unit in candidates:
        verdict = grade(text, expected[unit], unit, tolerance)
        timed.append(
            (_median_ms(lambda t=text, u=unit: grade(t, expected[u], u, tolerance), 15), text, verdict)
        )
    rows = [f"  {'grade of a typical answer, 16.4M (params)':<64} {typical:8.3f} ms"]
    for label, read in (("read", True), ("refused", False)):
        kept = [t for t in timed if (t[2].kind != "unparsed") == read]
        ms, text, verdict = max(kept, key=lambda t: t[0])
        shown = text if len(text) <= 24 else f"{text[:20]}…"
        name = f"slowest {label} of {length} characters: {shown!r} ({verdict.kind})"
        ok = "ok" if ms <= BUDGET_MS else "OVER"
        rows.append(
            f"  {name:<64} {ms:8.3f} ms  ratio {ms / typical:6.1f}  (budget <= {BUDGET_MS:.0f} ms)  {ok}"
        )
    return rows


if __name__ == "__main__":
    print("\n".join(parse_rows()))
