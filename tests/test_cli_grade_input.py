"""`quizzer grade` takes any answer: one that starts with '-' (with or without '--'), a long one, Unicode."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from quizzer.cli import main
from quizzer.grading.parse import MAX_ANSWER_LENGTH

EMBEDDING = [
    "embedding-table-params",
    "--set",
    "vocab_size=32000",
    "--set",
    "d_model=512",
    "--set",
    "tied=true",
]
NEGATIVE = "a negative answer is not read"


def graded(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main(["grade", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "args",
    [
        [*EMBEDDING, "--seed", "1", "--json", "--", "-16.4M"],
        [*EMBEDDING, "--seed", "1", "-16.4M", "--json"],
        ["-16.4M", *EMBEDDING, "--seed", "1", "--json"],
        [*EMBEDDING, "--seed=1", "--json", "-16.4M"],
        ["--json", "embedding-table-params#1", "-16.4M"],
    ],
)
def test_a_negative_answer_is_graded_with_or_without_dashes(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = graded(capsys, *args)
    assert data["verdict"] == "unparsed"
    assert NEGATIVE in data["message"]
    assert "-16.4M" in data["message"]


@pytest.mark.parametrize("answer", ["-1e9", "-.5", "-5", "-16.4 M", "-~5", "-$5", "-sixteen"])
def test_every_answer_that_starts_with_a_dash_is_the_answer(
    answer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = graded(capsys, "embedding-table-params#1", answer, "--json")
    assert data["verdict"] == "unparsed"
    assert data["message"]


def test_an_answer_after_dashes_may_look_like_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    data = graded(capsys, "embedding-table-params#1", "--json", "--", "--json")
    assert data["verdict"] == "unparsed"
    assert "'--json'" in data["message"]


def test_a_negative_seed_stays_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    by_flag = graded(capsys, "embedding-table-params", "--seed", "-5", "16.4M", "--json")
    by_ref = graded(capsys, "embedding-table-params#-5", "16.4M", "--json")
    assert by_flag == by_ref


def test_a_positive_answer_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    data = graded(capsys, *EMBEDDING, "--seed", "1", "16.4M", "--json")
    assert data["verdict"] == "correct"
    assert data["given"] == {"value": 16_400_000, "unit": "params"}


def test_a_second_answer_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["grade", "embedding-table-params#1", "16.4M", "-3"])
    assert info.value.code == 2
    assert "unrecognized arguments: -3" in capsys.readouterr().err


def test_other_verbs_still_read_a_dash_as_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["show", "embedding-table-params#1", "-16.4M"])
    assert info.value.code == 2
    assert "unrecognized arguments: -16.4M" in capsys.readouterr().err


def test_an_answer_beyond_the_limit_is_unparsed_with_its_length(capsys: pytest.CaptureFixture[str]) -> None:
    answer = "1" * 100_000
    data = graded(capsys, "embedding-table-params#1", answer, "--json")
    assert data["verdict"] == "unparsed"
    assert data["message"] == f"the answer is 100000 characters long; at most {MAX_ANSWER_LENGTH} are read"


def test_the_kelvin_sign_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    data = graded(capsys, *EMBEDDING, "--seed", "1", "16384\u212a", "--json")
    assert data["verdict"] == "exact"


def test_a_negative_answer_from_the_shell() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "grade", "embedding-table-params#1", "-16.4M"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert NEGATIVE in proc.stdout
    assert proc.stderr == ""
