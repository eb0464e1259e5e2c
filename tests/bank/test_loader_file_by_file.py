"""Bank.templates validates file by file: the bank's tables as written are never all held at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.paths import question_paths

DATA = Path(__file__).resolve().parent.parent / "data"


def raw_tables(bank: Bank) -> int:
    """How many templates the bank holds as written, not yet validated (a table with nested values)."""
    return sum(
        any(isinstance(v, dict | list) for v in table.values())
        for _, table in bank._raw.values()  # what the bank holds is the point
    )


def test_each_file_is_validated_before_the_next_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    bank = load_bank(question_paths())
    held: list[int] = []
    parse = Bank._parse_file

    def counting(self: Bank, path: str) -> Any:
        held.append(raw_tables(self))
        return parse(self, path)

    monkeypatch.setattr(Bank, "_parse_file", counting)
    assert len(bank.templates()) > 100
    assert len(held) > 10  # the bank's files
    assert held == [0] * len(held)  # none left from the files before
    assert raw_tables(bank) == 0


def test_the_same_templates_and_problems_as_parsing_every_file_first() -> None:
    paths = [str(DATA / "bad"), str(DATA / "good"), *question_paths()]
    one, every = load_bank(paths), load_bank(paths)
    every.ids()  # every file parsed first, as before
    assert [t.id for t in one.templates()] == [t.id for t in every.templates()]
    assert one.templates() == every.templates()
    problems = [str(p) for p in one.problems()]
    assert len(problems) >= 7  # the bad pack's
    assert problems == [str(p) for p in every.problems()]
