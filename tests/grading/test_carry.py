"""``trivial``: which earlier answers of a chain earn no carried credit, at the edges (hand-computed)."""

from __future__ import annotations

import math

import pytest

from quizzer.grading.carry import FACTOR, SAME, trivial


def test_the_constants_are_the_design_s() -> None:
    assert (FACTOR, SAME) == (100, 1e-9)


@pytest.mark.parametrize(
    ("given", "true", "expected"),
    [
        (10_000, 100, False),  # exactly 100 times the truth: still an attempt (the bound is inclusive)
        (10_001, 100, True),  # just past it
        (1, 100, False),  # exactly 0.01 times the truth
        (0.99, 100, True),  # just short of it
        (0.5, 50, False),  # 0.01x again, from other numbers
        (0.49, 50, True),
        (1_000 * 12, 12, True),  # 1000x
        (12 / 1_000, 12, True),  # 0.001x
        (170, 100, False),  # an honest slip
        (60, 100, False),
        (0, 100, True),  # zero
        (0.0, 100, True),
        (-0.0, 100, True),
        (-100, 100, True),  # negative: the right size, the wrong sign
        (-1, 100, True),
        (-10_000, 100, True),
        (5, 0, True),  # nothing to be a factor of
        (math.inf, 100, True),
        (-math.inf, 100, True),
        (math.nan, 100, True),
    ],
)
def test_the_factor_of_100_and_the_sign(given: float, true: float, expected: bool) -> None:
    assert trivial(given, true, ()) is expected


@pytest.mark.parametrize(
    ("given", "printed", "expected"),
    [
        (4096, [4096.0], True),  # the prompt's own number
        (4096 * (1 + 0.5e-9), [4096.0], True),  # within SAME of it
        (4096 * (1 + 2e-9), [4096.0], False),  # farther than SAME
        (4095, [4096.0], False),
        (4096, [2048.0, 32.0, 4096.0], True),  # any of them
        (32_000, [32.0, 32_000.0], True),  # "32k" copied, read as 32,000
        (32_768, [32.0, 32_000.0], False),  # 2.4% from it: worked out, not copied
        (16_400_000, [16.4, 16_400_000.0], True),  # "16.4M"
        (85_899_345_920, [80.0, 85_899_345_920.0], True),  # "80 GiB" in bytes
        (80_000_000_000, [80.0, 85_899_345_920.0], False),  # 80 GB is no number that prompt printed
    ],
)
def test_a_number_the_prompt_printed(given: float, printed: list[float], expected: bool) -> None:
    true = given * 1.3  # well inside the factor of 100: only the printed numbers decide
    assert trivial(given, true, printed) is expected
    assert trivial(given, true, iter(printed)) is expected  # any iterable, read once


def test_the_printed_numbers_do_not_excuse_a_far_answer() -> None:
    assert trivial(1e6, 12, [5.0]) is True
    assert trivial(12.5, 12, []) is False
