"""Arithmetic intensity typed with its unit ("250 FLOPs/byte") reads as the bare ratio, on a real template."""

from __future__ import annotations

import pytest

from quizzer.bank.loader import load_bank
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.paths import question_paths
from quizzer.session.turn import grade_instance


@pytest.mark.parametrize(
    "unit", ["FLOPs/byte", "FLOP/byte", "FLOPs/B", "FLOP/B", "flops/byte", "FLOPs/bytes"]
)
def test_flops_per_byte_is_read_as_a_ratio(unit: str) -> None:
    assert parse_answer(f"250 {unit}", "ratio").value == 250
    assert parse_answer(f"1.5k {unit}", "ratio").value == 1500


def test_flops_per_byte_is_no_size_or_count() -> None:
    with pytest.raises(ParseError, match="arithmetic intensity"):
        parse_answer("250 FLOPs/byte", "bytes")
    with pytest.raises(ParseError, match="arithmetic intensity"):
        parse_answer("250 FLOPs/byte", "FLOPs")


@pytest.mark.parametrize("seed", range(5))
def test_the_roofline_intensity_question_grades_the_unit_typed(seed: int) -> None:
    instance = load_bank(question_paths()).generate("roofline-matmul-intensity", seed)
    expected = instance.value
    verdict = grade_instance(instance, f"{expected} FLOPs/byte")
    assert verdict.kind == "exact"
    assert grade_instance(instance, f"{expected * 3} FLOPs/byte").kind == "wrong"
