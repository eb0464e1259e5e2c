"""``prompt_numbers``: the numbers a rendered prompt prints, read at the edges (hand-computed values)."""

from __future__ import annotations

import pytest

from quizzer.bank.generate.prompt_numbers import prompt_numbers

GIB, TIB = 1_073_741_824, 1_099_511_627_776


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a 32k context", (32, 32_000)),
        ("a 32K context", (32, 32_000)),
        ("16.4M params", (16.4, 16_400_000)),
        ("a 7B model", (7, 7_000_000_000)),
        ("1.5T tokens", (1.5, 1_500_000_000_000)),
        ("15.6 GiB", (15.6, 16_750_372_454.4)),  # 15.6 x 1,073,741,824
        ("80 GiB", (80, 85_899_345_920)),
        ("2 TiB", (2, 2 * TIB)),
        ("512 MiB", (512, 536_870_912)),
        ("4 KiB", (4, 4_096)),
        ("4 GiB/s", (4, 4 * GIB)),
        ("80 GB", (80, 80_000_000_000)),
        ("2 TB", (2, 2_000_000_000_000)),
        ("2TB", (2, 2_000_000_000_000)),
        ("2 TFLOPs", (2, 2_000_000_000_000)),
        ("1.2 PFLOP/s", (1.2, 1_200_000_000_000_000)),
        ("32ktokens", (32, 32_000)),
        ("1.5 billion", (1.5, 1_500_000_000)),
        ("40%", (40, 0.4)),
        ("2.1 ms", (2.1, 0.0021)),
        ("12 µs", (12, 0.000012)),
        ("3 hours", (3, 10_800)),
        ("32,768 tokens", (32_768,)),  # a word that scales nothing
        ("1,000,000", (1_000_000,)),
        ("1.5e3 FLOPs", (1_500,)),
        ("-5 dB", (5,)),  # the sign is not read: a negative answer is trivial anyway
        ("H100 with 80 GB", (80, 80_000_000_000)),  # no 100 inside a name
        ("8 GPUs of 8", (8,)),  # once each
        ("No number here.", ()),
    ],
)
def test_numbers_with_suffixes_and_unit_words(text: str, expected: tuple[float, ...]) -> None:
    found = prompt_numbers(text)
    assert found == pytest.approx(expected, rel=1e-12)
    assert all(isinstance(v, float) for v in found)


def test_a_bare_number_is_also_read_in_the_display_unit() -> None:
    """With the question shown in GiB a bare "80" may be typed back meaning 80 GiB; a number with a
    suffix or a word after it keeps its own meaning."""
    assert prompt_numbers("80", per_unit=GIB) == (80.0, 80 * GIB)
    assert prompt_numbers("a budget of 24", per_unit=GIB) == (24.0, 24 * GIB)
    assert prompt_numbers("16 sequences", per_unit=GIB) == (16.0,)
    assert prompt_numbers("a 32k context", per_unit=GIB) == pytest.approx((32, 32_000), rel=1e-12)
    assert prompt_numbers("80", per_unit=1) == (80.0,)
