"""Counted nouns read right at 1 and at many, through the one helper (quizzer.core.words), where users
saw "no 2 questions fit 1 minutes" and "most: 1 answers a day" (issue 23)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from quizzer.core.words import counted, plural_word
from quizzer.session.srs import rating_reason
from quizzer.session.stats import DayStats
from quizzer.tui.screens.stats import heatmap_table


@pytest.mark.parametrize(
    ("n", "word", "expected"),
    [
        (0, "minute", "0 minutes"),
        (1, "minute", "1 minute"),
        (1.0, "minute", "1 minute"),
        (2, "question", "2 questions"),
        (1.5, "minute", "1.5 minutes"),
        (1, "leech", "1 leech"),
        (2, "leech", "2 leeches"),
        (3, "entry", "3 entries"),
        (2, "day", "2 days"),
        (2, "KV head", "2 KV heads"),
        (25_000, "attempt", "25,000 attempts"),
        (-1, "point", "-1 points"),
    ],
)
def test_counted(n: float, word: str, expected: str) -> None:
    assert counted(n, word) == expected


def test_an_irregular_plural_is_given() -> None:
    assert counted(2, "matrix", "matrices") == "2 matrices"
    assert counted(1, "matrix", "matrices") == "1 matrix"
    assert plural_word("batch") == "batches"


def test_the_heatmap_legend_of_one_answer() -> None:
    days = tuple(DayStats(f"2026-05-{d:02d}", 1 if d == 28 else 0, 0) for d in range(1, 29))
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(heatmap_table(days))
    assert "(most: 1 answer a day)" in console.export_text()


def test_one_hint_is_one_hint() -> None:
    assert rating_reason(["exact"], 10, 1, 1) == ("hard", "hard: right, but 1 hint")
    assert rating_reason(["exact"], 10, 1, 2) == ("hard", "hard: right, but 2 hints")


def test_the_mock_set_that_cannot_fit_says_minute() -> None:
    from pathlib import Path

    from quizzer.bank.loader import load_bank
    from quizzer.session.picking import fit_instances

    bank = load_bank([str(Path(__file__).parent / "data" / "tui")])
    with pytest.raises(ValueError, match=r"^no 2 questions fit 1 minute: the shortest 2 take 3$"):
        fit_instances(bank, count=2, minutes=1, seed=1)


def test_check_counts_one_template_and_one_instance() -> None:
    from pathlib import Path

    from tests.cli_run import run_cli

    mini = Path(__file__).parent / "data" / "tui" / "mini.toml"
    ran = run_cli("check", str(mini), "--seeds", "1")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("1 template, 1 instance checked in ")
    assert ran.stdout.endswith(": 0 problems\n")
