"""`quizzer interview`'s command line: REFs (ID, ID#SEED), a set file or a draw; mixes refused in one line;
TERM=dumb refused (plain is the candidate's drill). The screen itself: tests/tui/test_interview_pilot.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.cli import _parser
from quizzer.commands.common import UsageError
from quizzer.commands.tui import interview_options
from quizzer.config import Settings

CHAINS = Path(__file__).resolve().parent / "data" / "chains"


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank([str(CHAINS)])


def options(bank: Bank, *argv: str):  # type: ignore[no-untyped-def]
    args = _parser("interview").parse_args(["interview", *argv])
    return interview_options(args, Settings(mock_count=5), bank)


def test_refs_are_asked_in_order_an_id_alone_drawing_its_seed_from_seed(bank: Bank) -> None:
    chosen = options(bank, "chain-part-variables#7", "chain-arithmetic", "--seed", "3")
    ids = [i.id for i in chosen.instances]
    assert ids[0] == "chain-part-variables#7"
    assert ids[1].startswith("chain-arithmetic#")
    again = options(bank, "chain-part-variables#7", "chain-arithmetic", "--seed", "3")
    assert [i.id for i in again.instances] == ids  # the same REFs and --seed: the same questions


def test_without_refs_the_questions_are_drawn_later_count_from_the_settings(bank: Bank) -> None:
    drawn = options(bank, "--topic", "chains", "--save-set", "a.set", "--report", "a.md")
    assert (drawn.instances, drawn.count, drawn.topic) == ((), 5, "chains")
    assert (drawn.save_set, drawn.report) == ("a.set", "a.md")


def test_a_set_file_is_replayed(bank: Bank, tmp_path: Path) -> None:
    path = tmp_path / "i.set"
    path.write_text("# a set\nchain-arithmetic#3\nchain-part-variables#7\n", encoding="utf-8")
    args = _parser("interview").parse_args(["interview", "--set-file", str(path), "--questions", str(CHAINS)])
    replayed = interview_options(args, Settings(), bank)
    assert [i.id for i in replayed.instances] == ["chain-arithmetic#3", "chain-part-variables#7"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["chain-arithmetic#3", "--set-file", "x.set"], "REFs or as --set-file, not both"),
        (["chain-arithmetic#3", "--count", "2"], "leave out --count and --topic"),
        (["--count", "0"], "--count must be at least 1"),
        (["chain-arithmetc#3"], "no template 'chain-arithmetc'"),
        (["chain-arithmetic#x"], "the seed after # must be a whole number"),
    ],
)
def test_a_mix_or_an_unknown_ref_is_one_line(bank: Bank, argv: list[str], said: str) -> None:
    with pytest.raises(UsageError, match=said.replace("(", r"\(")):
        options(bank, *argv)


def test_term_dumb_refuses_the_interviewers_screen(tmp_path: Path) -> None:
    env = {**os.environ, "TERM": "dumb", "QUIZZER_DB": str(tmp_path / "h.sqlite3")}
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "interview"],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "TERM=dumb: the interviewer's screen needs a terminal that draws" in proc.stderr
    assert not (tmp_path / "h.sqlite3").exists()
