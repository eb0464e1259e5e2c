"""The parser's bounds: answer length, exponent size, Unicode forms, work linear in the length; no text makes
parse_answer raise anything but ParseError, nor grade() raise at all."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from quizzer.core.units import Unit
from quizzer.grading import VERDICTS, ParseError, Tolerance, grade, parse_answer
from quizzer.grading import parse as parse_module
from quizzer.grading.parse import MAX_ANSWER_LENGTH, Meter

#: Work allowed per character of the answer (or of its NFKC form, when longer), and once per answer (the
#: default unit, the reading). Measured: about 24 per character for "16.4M", 43 for the costliest forms.
STEPS_PER_CHARACTER = 64
STEPS_FIXED = 600
#: The bound for any answer at all: a fixed number (the NFKC form is refused beyond twice the limit).
MAX_STEPS = STEPS_PER_CHARACTER * 2 * MAX_ANSWER_LENGTH + STEPS_FIXED


def step_bound(text: str) -> int:
    """The most work ``text`` may take: linear in its length (or its NFKC form's, which may be longer)."""
    return STEPS_PER_CHARACTER * max(len(text), len(unicodedata.normalize("NFKC", text))) + STEPS_FIXED


def fill(piece: str, length: int = MAX_ANSWER_LENGTH, *, head: str = "", tail: str = "") -> str:
    """``head`` + ``piece`` repeated + ``tail``, exactly ``length`` characters (``piece`` cut at the end)."""
    room = length - len(head) - len(tail)
    return head + (piece * (room // len(piece) + 1))[:room] + tail


# The costly shapes of a maximum-length answer: long products, runs of marks, signs, spaces, superscripts.
LONG_FORMS = [
    ("1*", "1", "count"),
    ("$1*", "1", "USD"),
    ("~", "16.4M", "params"),
    ("about ", "16.4M", "params"),
    (" ", "16.4M", "params"),
    ("2²*", "2", "count"),
    ("9999991/9999973*", "1", "ratio"),
    ("1e299/1e299*", "1", "ratio"),
    ("3⁶²⁷/2⁹⁹⁴*", "1", "ratio"),
    ("1 thousand*", "1", "count"),
    ("M", "", "params"),
    ("GPUs", "", "count"),
    (",000", "", "params"),
]


def long_form(piece: str, end: str, length: int = MAX_ANSWER_LENGTH) -> str:
    head = "16.4 " if end == "" and piece != ",000" else ("1" if piece == ",000" else "")
    return fill(piece, length, head=head, tail=end)


def error_of(text: str, unit: str, default_unit: str | None = None, meter: Meter | None = None) -> str | None:
    """The message of the ParseError reading ``text`` raises, or None when it reads (others propagate)."""
    try:
        parse_answer(text, unit, default_unit, meter=meter)
    except ParseError as error:
        return error.message
    return None


def work_of(text: str, unit: str, default_unit: str | None = None) -> int:
    meter = Meter()
    error_of(text, unit, default_unit, meter)
    return meter.work


# --- the length limit ---------------------------------------------------------------------------------------


def test_the_limit_holds_the_long_products_people_type() -> None:
    product = "3 * 3072 * 8192 * 28 * 2 * 2 bytes / 1024 / 1024 / 1024"
    assert 4 * len(product) <= MAX_ANSWER_LENGTH <= 1024
    assert parse_answer(product, "bytes").value == 3 * 3072 * 8192 * 28 * 4 / 2**30


def test_an_answer_of_the_maximum_length_is_read() -> None:
    text = fill("*1", head="16.4M ")  # 16.4M times one, many times over
    assert len(text) == MAX_ANSWER_LENGTH
    assert parse_answer(text, "params").value == 16_400_000


def test_a_longer_answer_is_refused_with_both_lengths() -> None:
    text = fill(" *1", MAX_ANSWER_LENGTH + 1, head="16.4M")
    with pytest.raises(ParseError) as info:
        parse_answer(text, "params")
    n, m = MAX_ANSWER_LENGTH + 1, MAX_ANSWER_LENGTH
    assert info.value.message == f"the answer is {n} characters long; at most {m} are read"


def test_a_huge_paste_is_refused_before_any_work() -> None:
    text = "1*" * 500_000 + "1"
    assert work_of(text, "count") == 0
    verdict = grade(text, 1, "count", Tolerance("rel", 0))
    assert verdict.kind == "unparsed"
    assert verdict.message.startswith(f"the answer is {len(text)} characters long")


def test_the_limit_is_checked_before_the_unit() -> None:
    with pytest.raises(ParseError, match="at most"):
        parse_answer("x" * (MAX_ANSWER_LENGTH + 1), "no-such-unit")


# --- exponents ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1e-999^999",
        "1e-500^999",  # 10**-500 may be built (the base is checked as a power too), its 999th power not
        "1e500⁹⁹⁹",
        "9" * 99 + "^999",
        "10^999",
        "2**-9999",
        "1e999",
        "1e-999",
        "10⁹⁹⁹",
        "1e5^999",
        "1e300^3",
        "9^999",
        "1.0001^999",
        "7^999/7^999",
        "1e-999⁹⁹⁹",
        "0.5^-999",
    ],
)
def test_huge_powers_are_refused_before_they_are_computed(text: str) -> None:
    meter = Meter()
    with pytest.raises(ParseError, match="out of range"):
        parse_answer(text, "ratio", meter=meter)
    assert meter.work < 500 + 10 * len(text)  # 10**-499500 alone would be 26,000 words


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2**996", 2**996), ("2^24", 2**24), ("10⁷", 10**7), ("1.5^2", 2.25), ("1e-3^2", 1e-6), ("4^-1", 0.25)],
)
def test_powers_in_range_are_still_exact(text: str, expected: float) -> None:
    assert parse_answer(text, "ratio").value == expected


def test_a_product_too_long_to_hold_exactly_is_refused() -> None:
    text = fill("3⁶²⁷/2⁹⁹⁴*", 120).rstrip("*/")  # each factor is near 1, but the digits pile up
    with pytest.raises(ParseError, match="too many digits to compute exactly"):
        parse_answer(text, "ratio")


# --- Unicode ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("1 \u212aFLOPs", "FLOPs", 1000),  # the Kelvin sign, which case-folds to k
        ("5 \u212aMACs", "FLOPs", 10_000),
        ("16 \u212aB", "bytes", 16_000),
        ("2\u212a", "params", 2000),
        ("１６．４Ｍ", "params", 16_400_000),  # fullwidth
        ("１６ ＧｉＢ", "bytes", 16 * 2**30),
        ("～16.4M", "params", 16_400_000),
        ("＄5", "USD", 5),
        ("5 Gﬂops", "FLOPs", 5 * 10**9),  # the fl ligature
        ("16\u00a0GB", "bytes", 16 * 10**9),  # a no-break space
        ("3 ㎳", "s", 0.003),  # the square ms sign
    ],
)
def test_compatibility_forms_read_as_their_ascii(text: str, unit: str, expected: float) -> None:
    assert parse_answer(text, unit).value == expected


@pytest.mark.parametrize("letter", ["\u212a", "ſ", "İ", "ı", "\u212b", "Ω", "ß", "ǅ", "ﬀ"])
@pytest.mark.parametrize("unit", list(Unit))
def test_letters_that_fold_to_ascii_are_read_or_refused(letter: str, unit: Unit) -> None:
    for text in (f"5 {letter}", f"5 {letter}B", f"5 {letter}FLOPs", f"5 {letter}MACs", f"5{letter}iB"):
        assert error_of(text, unit) != ""  # a value, or a message


@given(st.characters(), st.sampled_from(["5 {}", "5 {}B", "5 {}FLOPs", "5 {}MACs", "5{}", "{}5", "5 G{}"]))
def test_any_character_beside_a_unit_reads_or_raises_parse_error(char: str, form: str) -> None:
    for unit in Unit:
        assert error_of(form.format(char), unit) != ""


def test_a_letter_that_is_no_unit_is_named() -> None:
    with pytest.raises(ParseError, match="could not read the unit 'Ω'"):
        parse_answer("5 Ω", "bytes")


# --- negative answers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["-16.4M", "−16.4M", "~-5", "$-5", "－5"])
def test_a_negative_answer_is_refused_clearly(text: str) -> None:
    with pytest.raises(ParseError, match="a negative answer is not read"):
        parse_answer(text, "USD" if "$" in text else "params")


# --- work, counted ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("piece", "end", "unit"), LONG_FORMS)
def test_the_longest_answers_stay_under_the_step_bound(piece: str, end: str, unit: str) -> None:
    text = long_form(piece, end)
    assert len(text) == MAX_ANSWER_LENGTH
    assert work_of(text, unit) <= step_bound(text) <= MAX_STEPS


@pytest.mark.parametrize(("piece", "end", "unit"), LONG_FORMS)
def test_work_grows_linearly_with_the_length(
    piece: str, end: str, unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limit is lifted to see how the work grows: twice the text may take twice the work, not four times.
    monkeypatch.setattr(parse_module, "MAX_ANSWER_LENGTH", 10**6)
    short, long = work_of(long_form(piece, end, 2000), unit), work_of(long_form(piece, end, 4000), unit)
    assert long <= 2.2 * short + 200, (short, long)


# Pieces of answers, so that random joins look like what people type (and what breaks parsers).
PIECES = (
    *"0123456789.,_ eE^*/x×·~≈$%kMGTBbmiµs-−+\u212a",
    *("iB", "GiB", "GB", "Gb", "TFLOP/s", "FLOPs", "MACs", "ms", "days", "GPU hours", "params", "tokens"),
    *("²", "⁹", "⁻", "⁶²⁷", "**", "^999", "e-299", "e299", "1e-999", "9999991", "about ", "million", "bn"),
    *("１６", "Ｍ", "ſ", "\u00a0", "\u2009", "\u212aB", "(", "0x", " x ", "--", "$ "),
)
answer_like = st.lists(st.sampled_from(PIECES), max_size=120).map("".join)
texts = st.one_of(st.text(max_size=MAX_ANSWER_LENGTH + 8), answer_like)
DEFAULTS = {"s": "days", "bytes": "GiB", "params": "B", "FLOP/s": "TFLOP/s", "ratio": "%"}
LONGEST = [long_form(piece, end) for piece, end, _ in LONG_FORMS]


@given(texts, st.sampled_from(list(Unit)), st.booleans())
@example(LONGEST[0], Unit.COUNT, False)
@example("1e-999^999", Unit.PARAMS, False)
def test_parse_answer_raises_only_parse_error_within_a_fixed_work(
    text: str, unit: Unit, default: bool
) -> None:
    meter = Meter()
    assert error_of(text, unit, DEFAULTS.get(unit) if default else None, meter) != ""
    assert meter.work <= min(step_bound(text), MAX_STEPS)


EXPECTED = st.one_of(
    st.integers(0, 10**18), st.floats(1e-12, 1e30), st.sampled_from([16_384_000, 0.0021, 3.15e23, 0.4])
)
TOLERANCES = st.sampled_from(
    [Tolerance("rel", 0), Tolerance("rel", 0.01), Tolerance("abs", 0.5), Tolerance("factor", 2)]
)


@given(texts, EXPECTED, st.sampled_from(list(Unit)), TOLERANCES, st.sampled_from([None, 32]))
@example("2e-300", 1e25, Unit.FLOPS, Tolerance("factor", 2), None)  # once a log of 0
@example("1e299", 1e-10, Unit.SECONDS, Tolerance("rel", 0.01), None)  # once an overflowed ratio
def test_grade_never_raises(
    text: str, expected: float, unit: Unit, tolerance: Tolerance, n_layers: int | None
) -> None:
    verdict = grade(text, expected, unit, tolerance, n_layers=n_layers)
    assert verdict.kind in VERDICTS
    assert verdict.message
    message = error_of(text, unit)
    assert (verdict.kind == "unparsed") == (message is not None)
    assert message in (None, verdict.message)
