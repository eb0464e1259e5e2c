"""Every note of the built-in bank: the answer is answerset's ``value?factor`` in the unit the card names, and
the band the add-on accepts lies inside the band quizzer grades correct (up to the 1% of the band that
writing the number rounded may move it), and is not needlessly narrower."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from quizzer.bank.loader import load_bank
from quizzer.paths import question_paths
from tests.anki.deck_reader import Deck, Note
from tests.cli_run import run_cli

ANSWERSET = re.compile(r"^(\d+(?:\.\d+)?)\?(\d+(?:\.\d+)?)$")
UNIT_SENTENCE = re.compile(r"Type the answer as a plain number <b>(.*?)</b>")
#: What one unit a card names is in the base unit, written out by hand.
SIZES = {
    "GiB": 2**30, "MiB": 2**20, "KiB": 2**10, "TB": 10**12, "GB": 10**9, "MB": 10**6, "KB": 10**3,
    "GB/s": 10**9, "TFLOP/s": 10**12, "%": Decimal("0.01"), "ms": Decimal("0.001"),
    "µs": Decimal("0.000001"), "s": 1, "hours": 3600, "days": 86400,
    "M": 10**6, "B": 10**9, "T": 10**12,
    "MFLOPs": 10**6, "GFLOPs": 10**9, "TFLOPs": 10**12, "PFLOPs": 10**15, "EFLOPs": 10**18,
    "ZFLOPs": 10**21, "YFLOPs": 10**24,
}  # fmt: skip


def card_unit(words: str) -> tuple[str | None, Decimal]:
    """(unit token, its size) from the card's words: "in GiB", "in billions of params (B)", "(a count)"."""
    token = re.search(r"\(([^()\s]+)\)$", words) or re.match(r"in (\S+)", words)
    if token and token.group(1) in SIZES:
        return token.group(1), Decimal(SIZES[token.group(1)])
    return None, Decimal(1)  # the base unit: "(a count)", "in params", "in bytes"


@pytest.fixture(scope="module")
def whole_deck(tmp_path_factory: pytest.TempPathFactory) -> Deck:
    path = tmp_path_factory.mktemp("deck") / "all.apkg"
    ran = run_cli("export-deck", str(path), "--count", "1")
    assert ran.returncode == 0, ran.stderr
    assert "wrote" in ran.stderr
    assert str(path) in ran.stderr
    return Deck(path)


def test_every_answer_is_inside_quizzers_band(whole_deck: Deck) -> None:
    bank = load_bank(question_paths([]))
    assert len(whole_deck.notes) >= len(bank.templates())
    for note in whole_deck.notes:
        template_id, seed = note.instance.split("#")
        part = bank.generate(template_id, int(seed)).parts[note.part - 1]
        _check(note, part.value, part.unit, part.display_unit, part.tolerance.kind, part.tolerance.value)


def _check(note: Note, value: float, unit: str, display: str | None, kind: str, amount: float) -> None:
    where = f"{note.instance} part {note.part} ({note.fields['Answer']})"
    match = ANSWERSET.match(note.fields["Answer"])
    assert match, where
    number, factor = Decimal(match.group(1)), Decimal(match.group(2))
    words = UNIT_SENTENCE.search(note.fields["Question"])
    assert words, where
    token, size = card_unit(words.group(1))
    if display is not None:
        assert token == display, f"{where}: asked in {token}, the question speaks in {display}"
    if unit == "bytes" and display is not None:  # GiB, MB: named as the question names them
        assert words.group(1) == f"in {display}", where
    v, tol = Decimal(repr(value)) if isinstance(value, float) else Decimal(value), Decimal(repr(amount))
    if kind == "rel":
        low, high, excess = v * (1 - tol), v * (1 + tol), tol
    elif kind == "abs":
        low, high, excess = v - tol, v + tol, (tol / abs(v) if v else Decimal(0))
    else:
        low, high, excess = v / tol, v * tol, tol - 1
    width = high - low
    accepted_low, accepted_high = number / factor * size, number * factor * size
    assert accepted_low >= low - width / 100, f"{where}: accepts {accepted_low} below {low}"
    assert accepted_high <= high + width / 100, f"{where}: accepts {accepted_high} above {high}"
    assert abs(number * size - v) <= width / 200 or (width == 0 and number * size == v), where
    assert factor - 1 >= excess * Decimal("0.99"), f"{where}: factor {factor} narrower than {1 + excess}"


def test_no_number_in_an_answer_field_has_separators_or_exponents(whole_deck: Deck) -> None:
    for note in whole_deck.notes:
        assert not re.search(r"[,eE\s]", note.fields["Answer"]), note.fields["Answer"]


def test_the_deck_file_is_a_zip_with_a_collection(whole_deck: Deck, tmp_path: Path) -> None:
    assert whole_deck.card_count == len(whole_deck.notes)
    assert len(whole_deck.card_decks) == 1
