"""parse_answer: every accepted form, each unit family, wrong-dimension errors, arithmetic and defaults."""

from __future__ import annotations

import pytest

from quizzer.core.errors import QuizzerError, SpecError, UnknownNameError
from quizzer.grading import Parsed, ParseError, format_plain, parse_answer


def value(text: str, unit: str, default_unit: str | None = None) -> int | float:
    return parse_answer(text, unit, default_unit).value


# --- exactness ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["16.384 million", "1.6384e7", "16,384,000", "16384000", "16.384M", "16384k"]
)
def test_decimal_text_is_read_exactly(text: str) -> None:
    parsed = parse_answer(text, "params")
    assert parsed.value == 16_384_000
    assert type(parsed.value) is int


def test_binary_fraction_free_decimals_stay_exact() -> None:
    # 0.1 + 0.2 style float error must not leak in: 1.1e1 is 11, 0.3e1 is 3, 3.3e-1 * 10 is 3.3 * 1.
    assert value("1.1e1", "count") == 11
    assert value("0.3e1", "count") == 3
    assert value("3.3e-1*10", "count") == 3.3


def test_non_whole_values_are_floats() -> None:
    assert value("2.5", "s") == 2.5
    assert type(value("2.5", "s")) is float


def test_parsed_is_a_record() -> None:
    parsed = parse_answer("~16.4M params", "params")
    assert parsed == Parsed(
        16_400_000, "params", "params", True, "16,400,000 params", 3, 10**6, ("", "M params", ""), False
    )


# --- numbers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16,384,000", 16_384_000),
        ("16_384_000", 16_384_000),
        ("16 384 000", 16_384_000),
        ("16\u2009384\u2009000", 16_384_000),  # thin spaces
        ("16\u202f384\u202f000", 16_384_000),  # narrow no-break spaces
        ("1,234.5", 1234.5),
        (".5", 0.5),
        ("5.", 5),
        ("1.6e7", 16_000_000),
        ("1.6E7", 16_000_000),
        ("1.6e+7", 16_000_000),
        ("16e-1", 1.6),
        ("1.6×10^7", 16_000_000),
        ("1.6*10^7", 16_000_000),
        ("1.6 x 10^7", 16_000_000),
        ("1.6 X 10^7", 16_000_000),
        ("1.6·10^7", 16_000_000),
        ("10^7", 10_000_000),
        ("10⁷", 10_000_000),
        ("10^-3", 0.001),
        ("2^24", 16_777_216),
        ("2**24", 16_777_216),
        ("2 ^ 10", 1024),
    ],
)
def test_number_forms(text: str, expected: float) -> None:
    assert value(text, "count") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7k", 7_000),
        ("7K", 7_000),
        ("7M", 7_000_000),
        ("7B", 7_000_000_000),
        ("7G", 7_000_000_000),
        ("7T", 7_000_000_000_000),
        ("7P", 7_000_000_000_000_000),
        ("7 thousand", 7_000),
        ("7 million", 7_000_000),
        ("7 Billion", 7_000_000_000),
        ("7 trillion", 7_000_000_000_000),
        ("7bn", 7_000_000_000),
        ("7m", 7_000_000),  # lowercase m, b, t are million, billion, trillion for counts
        ("7b", 7_000_000_000),
        ("7t", 7_000_000_000_000),
        ("7 B", 7_000_000_000),
    ],
)
def test_scale_suffixes_on_counts(text: str, expected: int) -> None:
    assert value(text, "params") == expected


@pytest.mark.parametrize(
    "text", ["~7B", "≈ 7B", "about 7B", "around 7B", "roughly 7B", "approx 7B", "approx. 7B"]
)
def test_approximate_marks(text: str) -> None:
    parsed = parse_answer(text, "params")
    assert parsed.approximate
    assert parsed.value == 7_000_000_000


def test_plain_answers_are_not_approximate() -> None:
    assert not parse_answer("7B", "params").approximate


# --- arithmetic ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("32000*512", 16_384_000),
        ("32000 × 512", 16_384_000),
        ("32000 x 512", 16_384_000),
        ("32k*512", 16_384_000),
        ("2*32*8*128*2", 131_072),
        ("1e15/2", 500_000_000_000_000),
        ("7B/2", 3_500_000_000),
        ("1/3", 1 / 3),
        ("12*768^2", 7_077_888),
    ],
)
def test_products_and_quotients(text: str, expected: float) -> None:
    assert value(text, "params") == pytest.approx(expected, rel=1e-15)


def test_a_unit_applies_to_the_whole_product() -> None:
    assert value("100/8 GB", "bytes") == 12_500_000_000
    assert value("2 * 7 GB", "bytes") == 14_000_000_000


def test_arithmetic_is_shown_in_the_reading() -> None:
    assert parse_answer("32000*512", "params").reading == "32000*512 = 16,384,000 params"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("5+3", "not + or -"),
        ("5 - 3", "not + or -"),
        ("-5", "a negative answer is not read"),
        ("(5)*2", "parentheses"),
        ("32000*", "ends with '*'"),
        ("32000 * * 2", "expected a number after '*'"),
        ("1/0", "division by zero"),
        ("5 GB * 2 GB", "one unit"),
        ("__import__('os')", "parentheses"),
        ("2**1000000", "out of range"),
        ("1e400", "out of range"),
    ],
)
def test_arithmetic_limits(text: str, fragment: str) -> None:
    with pytest.raises(
        ParseError, match=fragment.replace("(", r"\(").replace("*", r"\*").replace("+", r"\+")
    ):
        parse_answer(text, "bytes")


# --- unit families ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16 B", 16),
        ("16 bytes", 16),
        ("16 kB", 16_000),
        ("16 KB", 16_000),
        ("16 MB", 16_000_000),
        ("16 GB", 16_000_000_000),
        ("16GB", 16_000_000_000),
        ("16 TB", 16_000_000_000_000),
        ("16 PB", 16_000_000_000_000_000),
        ("16 KiB", 16 * 2**10),
        ("16 MiB", 16 * 2**20),
        ("16 GiB", 16 * 2**30),
        ("16 TiB", 16 * 2**40),
        ("16 PiB", 16 * 2**50),
        ("16 b", 2),
        ("16 bits", 2),
        ("16 Kb", 2_000),
        ("16 Mb", 2_000_000),
        ("16 Gb", 2_000_000_000),
        ("16 Gbit", 2_000_000_000),
        ("16 gb", 16_000_000_000),  # all-lowercase is taken as bytes, with a note
        ("16 mb", 16_000_000),
        ("16 kb", 2_000),  # but kb is the proper SI kilobit
        ("16G", 16_000_000_000),
        ("1.5e10 bytes", 15_000_000_000),
        ("2 billion bytes", 2_000_000_000),
    ],
)
def test_bytes(text: str, expected: int) -> None:
    assert value(text, "bytes") == expected


def test_bits_answers_take_bytes_times_eight() -> None:
    assert value("2 GB", "bits") == 16_000_000_000
    assert value("16 Gb", "bits") == 16_000_000_000


def test_binary_prefix_reading() -> None:
    parsed = parse_answer("15.6 GiB", "bytes")
    assert parsed.reading == "15.6 GiB = 16,750,372,454 bytes"
    assert parsed.typed_unit == "GiB"
    assert parsed.value == pytest.approx(15.6 * 2**30)


def test_lowercase_gb_is_noted() -> None:
    assert "'gb' read as GB" in parse_answer("16 gb", "bytes").reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5 ns", 5e-9),
        ("5 µs", 5e-6),
        ("5 μs", 5e-6),  # Greek mu
        ("5 us", 5e-6),
        ("5 ms", 0.005),
        ("5 s", 5),
        ("5 sec", 5),
        ("5 seconds", 5),
        ("5 min", 300),
        ("5 minutes", 300),
        ("5 h", 18_000),
        ("5 hr", 18_000),
        ("5 hours", 18_000),
        ("5 d", 432_000),
        ("5 days", 432_000),
        ("1 week", 604_800),
        ("2 weeks", 1_209_600),
        ("1 year", 31_536_000),  # a year is 365 days
        ("5 Days", 432_000),
    ],
)
def test_time(text: str, expected: float) -> None:
    assert value(text, "s") == pytest.approx(expected, rel=1e-15)


def test_bare_m_is_ambiguous_for_times() -> None:
    with pytest.raises(ParseError, match="ambiguous"):
        parse_answer("5 m", "s")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6 FLOP", 6),
        ("6 FLOPs", 6),
        ("6 flops", 6),
        ("6 GFLOPs", 6e9),
        ("6 GFLOP", 6e9),
        ("6 TFLOPs", 6e12),
        ("6 PFLOPs", 6e15),
        ("6 EFLOPs", 6e18),
        ("1.08 ZFLOPs", 108 * 10**19),  # training budgets: the blind read typed these and was refused
        ("3.8 YFLOPs", 38 * 10**23),
        ("3.15e23 FLOPs", 315 * 10**21),
        ("6 FLOPS", 6),  # "FLOPS" next to a FLOPs answer means FLOPs
        ("3 GMACs", 6e9),  # 1 MAC = 2 FLOPs
        ("3 MACs", 6),
    ],
)
def test_flops(text: str, expected: float) -> None:
    assert value(text, "FLOPs") == expected


def test_macs_conversion_is_noted_both_ways() -> None:
    parsed = parse_answer("3 GMACs", "FLOPs")
    assert parsed.reading == "3 GMACs = 6,000,000,000 FLOPs (1 MAC = 2 FLOPs)"
    assert value("10 GFLOPs", "MACs") == 5_000_000_000
    assert "1 MAC = 2 FLOPs" in parse_answer("10 GFLOPs", "MACs").reading
    assert value("5 MACs", "MACs") == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("312 FLOP/s", 312),
        ("312 FLOPS", 312),
        ("312 TFLOP/s", 312e12),
        ("312 TFLOPS", 312e12),
        ("312 TFLOPs", 312e12),  # a FLOPs spelling next to a rate answer is the rate
        ("1.2 PFLOP/s", 1.2e15),
        ("989e12", 989e12),
    ],
)
def test_flop_rates(text: str, expected: float) -> None:
    assert value(text, "FLOP/s") == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("900 B/s", 900),
        ("900 bytes/s", 900),
        ("900 GB/s", 900e9),
        ("2.04 TB/s", 2.04e12),
        ("2 GiB/s", 2 * 2**30),
        ("400 Gbps", 50e9),
        ("400 Gbit/s", 50e9),
    ],
)
def test_bandwidth(text: str, expected: float) -> None:
    assert value(text, "bytes/s") == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("7B params", "params", 7_000_000_000),
        ("7 billion parameters", "params", 7_000_000_000),
        ("7B Params", "params", 7_000_000_000),
        ("2T tokens", "tokens", 2_000_000_000_000),
        ("2 trillion tokens", "tokens", 2_000_000_000_000),
        ("576 patches", "patches", 576),
        ("577 tokens", "patches", 577),  # a ViT's patches are its tokens
        ("16.4M count", "count", 16_400_000),
        ("8 GPUs", "count", 8),
        ("2k steps", "count", 2_000),
        ("$1.2M", "USD", 1_200_000),
        ("$ 1,200", "USD", 1_200),
        ("1.2M USD", "USD", 1_200_000),
        ("1.2M dollars", "USD", 1_200_000),
        ("$5 USD", "USD", 5),
        ("2,048 GPU-hours", "GPU-hours", 2_048),
        ("2k GPU hours", "GPU-hours", 2_000),
        ("2048 GPU-h", "GPU-hours", 2_048),
        ("3 GPU-days", "GPU-hours", 72),
        ("2048 h", "GPU-hours", 2_048),  # a bare h is GPU-hours here, not 3600 s
        ("2048 hours", "GPU-hours", 2_048),
        ("0.4", "ratio", 0.4),
        ("40%", "ratio", 0.4),
        ("40 %", "ratio", 0.4),
        ("1.5x", "ratio", 1.5),
        ("1.5×", "ratio", 1.5),
        ("4.13 bits/param", "bits/param", 4.13),
        ("4.13 bits", "bits/param", 4.13),
        ("0.5 bytes/param", "bits/param", 4),
        ("1.2k tokens/s", "tokens/s", 1_200),
        ("1.2 ktokens/s", "tokens/s", 1_200),
        ("1200 tok/s", "tokens/s", 1_200),
    ],
)
def test_other_units(text: str, unit: str, expected: float) -> None:
    assert value(text, unit) == pytest.approx(expected, rel=1e-15)


def test_typed_unit_is_the_token_as_written() -> None:
    assert parse_answer("16 GiB", "bytes").typed_unit == "GiB"
    assert parse_answer("40%", "ratio").typed_unit == "%"
    assert parse_answer("$5M", "USD").typed_unit == "$"
    assert parse_answer("7B params", "params").typed_unit == "params"
    assert parse_answer("7B", "params").typed_unit is None  # a scale is not a unit


def test_gpu_hours_note() -> None:
    assert parse_answer("2048 h", "GPU-hours").reading == "2,048 GPU-hours ('h' read as GPU-hours)"


# --- wrong dimension and unreadable input -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "message"),
    [
        ("16 GB", "params", "read '16 GB' as bytes, but this answer is a number of parameters"),
        ("5 seconds", "bytes", "read '5 seconds' as a time, but this answer is a size in bytes"),
        ("16 GiB", "s", "read '16 GiB' as bytes, but this answer is a time"),
        ("3 days", "GPU-hours", "read '3 days' as a time, but this answer is a number of GPU-hours"),
        ("40%", "bytes", "read '40%' as a ratio, but this answer is a size in bytes"),
        ("$5", "params", "read '$5' as dollars, but this answer is a number of parameters"),
        ("5 GB/s", "bytes", "read '5 GB/s' as a bandwidth (bytes/s), but this answer is a size in bytes"),
        (
            "5 FLOP/s",
            "FLOPs",
            "read '5 FLOP/s' as a compute rate (FLOP/s), but this answer is a number of FLOPs",
        ),
        ("7B tokens", "params", "read '7B tokens' as tokens, but this answer is a number of parameters"),
        ("5 ms", "count", "read '5 ms' as a time, but this answer is a plain count"),
        ("7 GB", "FLOP/s", "read '7 GB' as bytes, but this answer is a compute rate in FLOP/s"),
    ],
)
def test_wrong_dimension(text: str, unit: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_answer(text, unit)
    assert info.value.message.startswith(message)
    assert str(info.value) == info.value.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty answer"),
        ("   ", "empty answer"),
        ("~", "empty answer"),
        ("abc", "could not read 'abc' as a number"),
        ("GB 16", "could not read 'GB 16' as a number"),
        ("16 384 000 7", "two numbers without an operator: '16 384 000 7'"),
        ("7 GB 8", "two numbers without an operator"),
        ("16,38", "groups of three"),
        ("1.2.3", "two decimal points"),
        ("5 furlongs", "could not read the unit 'furlongs' in '5 furlongs'"),
    ],
)
def test_unreadable(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_answer(text, "params")
    assert message in info.value.message


def test_parse_error_is_a_quizzer_value_error_with_a_position() -> None:
    with pytest.raises(ParseError) as info:
        parse_answer("12 + 3", "params")
    assert isinstance(info.value, QuizzerError)
    assert isinstance(info.value, ValueError)
    assert info.value.position == 2
    assert ParseError("x").position is None


# --- default units ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "default_unit", "expected"),
    [
        ("3", "s", "days", 259_200),
        ("3", "s", "ms", 0.003),
        ("16", "bytes", "GiB", 16 * 2**30),
        ("16", "bytes", "GB", 16_000_000_000),
        ("312", "FLOP/s", "TFLOP/s", 312e12),
        ("40", "ratio", "%", 0.4),
        ("7", "params", "B", 7_000_000_000),
        ("32*512", "s", "ms", 16.384),  # the default unit applies to a bare product too
        ("2 min", "s", "days", 120),  # a typed unit wins
        ("7B", "params", "M", 7_000_000_000),  # so does a typed scale
    ],
)
def test_default_unit(text: str, unit: str, default_unit: str, expected: float) -> None:
    assert value(text, unit, default_unit) == pytest.approx(expected, rel=1e-15)


def test_default_unit_reading_and_typed_unit() -> None:
    parsed = parse_answer("3", "s", "days")
    assert parsed.reading == "3 days = 259,200 s"
    assert parsed.typed_unit is None


@pytest.mark.parametrize(
    ("unit", "default_unit"), [("bytes", "seconds"), ("params", "GB"), ("s", "furlongs")]
)
def test_a_bad_default_unit_is_a_spec_error(unit: str, default_unit: str) -> None:
    with pytest.raises(SpecError, match="default_unit"):
        parse_answer("3", unit, default_unit)


def test_an_unknown_unit_is_an_unknown_name() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'bytes'"):
        parse_answer("3", "bytse")


# --- format_plain -------------------------------------------------------------------------------------------


def test_format_plain() -> None:
    assert format_plain(16_750_372_454.4, "bytes") == "16,750,372,454 bytes"
    assert format_plain(1234.5, "s") == "1,234.5 s"
    assert format_plain(8, "count") == "8"
    assert format_plain(3.5e-6, "s") == "3.5e-6 s"


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("645.6 tokens/s per GPU", "tokens/s", 645.6),  # "Answer in tokens/s per GPU", as asked
        ("645.6 tokens/s/GPU", "tokens/s", 645.6),
        ("16 GiB per GPU", "bytes", 16 * 2**30),
        ("8 per chip", "count", 8),
        ("3 GPUs", "count", 3),  # a count of GPUs keeps its label
    ],
)
def test_per_device_after_the_unit_is_the_questions_own(text: str, unit: str, expected: float) -> None:
    assert value(text, unit) == expected
