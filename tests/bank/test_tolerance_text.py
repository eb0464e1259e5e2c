"""Every prompt states its tolerance (generated), and a tolerance written by hand is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.check.run import check_bank
from quizzer.bank.generate.tolerance import hand_written_tolerance, tolerance_text
from quizzer.bank.loader import load_bank
from quizzer.grading.grade import Tolerance

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    ("tolerance", "kind", "unit", "value", "figures", "display", "per_unit", "sentence"),
    [
        (Tolerance("rel", 0.01), "exact", "bytes", 1.5e9, 3, None, 1,
         "Answers within 1% are correct (give at least three significant figures)."),
        (Tolerance("rel", 0.0005), "exact", "params", 1_315_723_264, 4, None, 1,
         "The count is exact, but answers within 0.05% are correct: give at least four significant figures."),
        (Tolerance("rel", 0.03), "exact", "s", 0.0021, 2, "ms", 0.001,
         "Answers within 3% are correct (give at least two significant figures)."),
        (Tolerance("rel", 0.002), "exact", "params", 7000, 1, None, 1,
         "The count is exact, but answers within 0.2% are correct: give at least one significant figure."),
        (Tolerance("rel", 0.0), "exact", "count", 12, 2, None, 1,
         "Only the exact value is correct."),
        (Tolerance("factor", 1.5), "estimate", "bytes", 3e9, None, "GB", 1e9,
         "An estimate: within a factor of 1.5 is correct."),
        (Tolerance("factor", 2.0), "exact", "FLOPs", 3e21, None, None, 1,
         "Answers within a factor of 2 are correct."),
        (Tolerance("abs", 0.01), "exact", "ratio", 0.41, 2, None, 1,
         "Answers within ±0.01 (one percentage point) are correct (give at least two significant figures)."),
        (Tolerance("abs", 0.005), "exact", "ratio", 0.41, 2, "%", 0.01,
         "Answers within ±0.5 percentage points are correct (give at least two significant figures)."),
        (Tolerance("abs", 0.5e9), "exact", "bytes", 8e9, 2, "GB", 1e9,
         "Answers within ±0.5 GB are correct (give at least two significant figures)."),
    ],
)  # fmt: skip
def test_sentences(
    tolerance: Tolerance,
    kind: str,
    unit: str,
    value: float,
    figures: int | None,
    display: str | None,
    per_unit: float,
    sentence: str,
) -> None:
    shown = tolerance_text(
        tolerance, kind=kind, unit=unit, value=value, figures=figures, display_unit=display, per_unit=per_unit
    )
    assert shown == sentence


@pytest.mark.parametrize(
    "text",
    [
        "Answers within 1% are accepted.",
        "answers within 0.05% (four significant figures) are accepted",
        "Graded as an estimate: within a factor of 1.5 is correct.",
        "Within ±1 percentage point (±0.01) is correct.",
        "A factor of 2 is correct.",
        "Exact count; be precise.",
        "Give 3 significant figures.",
        "within ± 0.5 GB",
    ],
)
def test_hand_written_tolerances_are_found(text: str) -> None:
    assert hand_written_tolerance(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "GiB = 2^30 bytes; a bare number is read as GiB.",
        "The cache grows within each step; GQA divides it by a factor.",
        "Bytes per value: fp32 4, fp16 and bf16 2.",
        "0.25 and 25% are the same answer.",
    ],
)
def test_conventions_that_state_no_tolerance_pass(text: str) -> None:
    assert hand_written_tolerance(text) is None


def test_check_reports_a_hand_written_tolerance_by_field() -> None:
    report = check_bank(load_bank([str(DATA / "lint" / "hand_tolerance.toml")]), seeds_per_template=3)
    assert [(p.template_id, p.field) for p in report.problems] == [("hand-tolerance", "conventions[1]")]
    assert "'within 1%'" in report.problems[0].message


def test_the_statement_ends_the_conventions() -> None:
    bank = load_bank([str(DATA / "good" / "mini.toml")])
    inst = bank.generate("mini-product", 3)
    assert inst.conventions == (inst.tolerance_text,)
    assert inst.tolerance_text.startswith("Answers within 1% are correct")
