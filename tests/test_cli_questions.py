"""The question verbs: list, show, grade, plain, check (JSON shapes, exit codes, packs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizzer.cli import main
from tests.cli_run import run_cli

#: The verbs that read the whole bank run in this process (tests/cli_run.py), each template validated once
#: per process; the cheap ones below keep a real `python -m quizzer` for the entry point and exit codes.
pytestmark = pytest.mark.usefixtures("validated_once")

DATA = Path(__file__).resolve().parent / "data"
EMBEDDING = [
    "embedding-table-params",
    "--set",
    "vocab_size=32000",
    "--set",
    "d_model=512",
    "--set",
    "tied=true",
]


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
        env={**os.environ, **(env or {})},
    )


def out_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_show_acceptance(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", *EMBEDDING)
    assert data["answer"]["value"] == 16384000
    assert data["answer"]["unit"] == "params"
    assert data["variables"] == {"vocab_size": 32000, "d_model": 512, "tied": True} | {
        k: v for k, v in data["variables"].items() if k not in ("vocab_size", "d_model", "tied")
    }
    for key in ("id", "seed", "title", "topic", "difficulty", "prompt", "explanation", "mistakes"):
        assert key in data
    assert data["id"] == "embedding-table-params"
    assert "32,000" in data["prompt"]
    assert all(set(m) >= {"value", "feedback"} for m in data["mistakes"])
    assert data["derivation"][-1]["value"] == 16384000


@pytest.mark.parametrize("answer", ["16.4M", "16,384,000", "1.6384e7", "16.384 million"])
def test_grade_acceptance_right(answer: str, capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "grade", *EMBEDDING, "--seed", "1", answer)
    assert data["verdict"] in ("exact", "correct")
    assert data["expected"] == {"value": 16384000, "unit": "params"}
    assert data["mistake"] is None


def test_grade_acceptance_tied_head(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "grade", *EMBEDDING, "--seed", "1", "32,768,000")
    assert data["verdict"] == "wrong"
    assert data["mistake"] == "head-counted-in-the-table"
    assert "counted a second vocab_size × d_model matrix" in data["message"]
    assert data["given"] == {"value": 32768000, "unit": "params"}
    assert data["relative_error"] == pytest.approx(1.0)


def test_grade_unparsed_and_wrong_dimension(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "grade", *EMBEDDING, "--seed", "1", "sixteen")
    assert data["verdict"] == "unparsed"
    assert data["given"] is None
    assert data["relative_error"] is None
    data = out_json(capsys, "grade", *EMBEDDING, "--seed", "1", "16 seconds")
    assert data["verdict"] == "unparsed"
    assert "seconds" in data["message"] or "time" in data["message"]


def test_show_is_deterministic_and_id_seed_matches_flag(capsys: pytest.CaptureFixture[str]) -> None:
    first = out_json(capsys, "show", "embedding-table-params#42")
    second = out_json(capsys, "show", "embedding-table-params", "--seed", "42")
    assert first == second
    assert first["seed"] == 42
    assert first["instance"] == "embedding-table-params#42"


def test_show_no_answer_hides_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", *EMBEDDING, "--seed", "3", "--no-answer"]) == 0
    text = capsys.readouterr().out
    assert "32,000" in text
    assert "16,384,000" not in text
    assert "Answer:" not in text
    assert "Worked explanation" not in text


def test_overrides_outside_the_drawn_range(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "embedding-table-params#1", "--set", "vocab_size=7", "--set", "d_model=3")
    assert data["answer"]["value"] == 21


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grade", "embedding-table-params", "16M"], "give the seed"),
        (["show", "embeding-table-params"], "did you mean 'embedding-table-params'"),
        (["show", "embedding-table-params#x"], "seed after # must be a whole number"),
        (["show", "embedding-table-params#1", "--set", "vocab=5"], "did you mean 'vocab_size'"),
        (["show", "embedding-table-params#1", "--set", "vocab_size=lots"], "is not a number"),
        (["show", "embedding-table-params#1", "--set", "head=x"], "computed from other variables"),
        (["show", "embedding-table-params#1", "--set", "tied"], "write NAME=VALUE"),
        (["drill", "--template", "embeding-table-params"], "did you mean 'embedding-table-params'"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_list_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    rows = out_json(capsys, "list")
    assert rows
    assert all(set(r) == {"id", "title", "topic", "difficulty", "kind", "minutes"} for r in rows)
    assert "embedding-table-params" in {r["id"] for r in rows}
    only = out_json(capsys, "list", "--topic", "embeddings")
    assert {r["topic"] for r in only} == {"embeddings"}


def test_questions_packs_from_flag_and_environment(capsys: pytest.CaptureFixture[str]) -> None:
    rows = out_json(capsys, "list", "--questions", str(DATA / "good"))
    assert "mini-product" in {r["id"] for r in rows}
    proc = run("show", "mini-product#5", "--json", env={"QUIZZER_QUESTIONS": str(DATA / "good")})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["answer"]["value"] == data["variables"]["a"] * data["variables"]["b"]


def test_duplicate_id_in_a_pack_is_reported(tmp_path: Path) -> None:
    (tmp_path / "dup.toml").write_text((Path("questions") / "embeddings.toml").read_text(encoding="utf-8"))
    proc = run_cli("list", "--questions", str(tmp_path))
    assert proc.returncode == 0
    assert "already used by" in proc.stderr
    assert "dup.toml" in proc.stderr


def test_check_exit_codes() -> None:
    clean = run("check", str(DATA / "good"), "--seeds", "20")
    assert clean.returncode == 0, clean.stdout
    assert "0 problems" in clean.stdout
    bad = run("check", str(DATA / "bad"), "--seeds", "5")
    assert bad.returncode == 1
    lines = bad.stdout.strip().splitlines()
    assert len(lines) >= 9  # one per fixture, then the summary
    assert "unknown calculator 'embeding_params'" in bad.stdout
    assert "inside the tolerance" in bad.stdout
    assert "unsatisfiable" in bad.stdout


def test_plain_drill_over_a_pipe() -> None:
    proc = run_cli(
        "plain",
        "--questions",
        str(DATA / "good"),
        "--topic",
        "testing",
        "--seed",
        "7",
        stdin="not a number\n\n12\n",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "could not read" in out  # the unreadable answer is explained and asked again
    assert "skipped. The answer:" in out
    assert re.search(r"score: [01]/1 right, 1 skipped$", out.rstrip())  # the skip is counted apart


def test_plain_stops_after_count() -> None:
    proc = run_cli(
        "plain",
        "--questions",
        str(DATA / "good"),
        "--topic",
        "testing",
        "--seed",
        "1",
        "--count",
        "2",
        stdin="1\n2\n3\n4\n",
    )
    assert proc.returncode == 0
    assert "score: 0/2 right" in proc.stdout
    assert "question 3" not in proc.stdout


def test_plain_same_seed_same_questions() -> None:
    """The same questions in another process: a real `python -m quizzer` (its own hash seed, so no set or dict
    order of this process can make the two agree) against the same verb run here."""
    first = run("plain", "--seed", "11", "--count", "3", stdin="\n\n\n")
    second = run_cli("plain", "--seed", "11", "--count", "3", stdin="\n\n\n")
    assert first.returncode == second.returncode == 0, first.stderr
    assert first.stdout == second.stdout


HOSTILE = DATA / "hostile"
#: The hostile fixtures found when a template is validated (the rest are found when an instance is made).
FOUND_AT_LOAD = [
    "not_utf8",
    "deep_toml",
    "huge_toml_integer",
    "long_expression",
    "deep_expression",
    "unknown_style",
    "unknown_format",
    "non_finite_choice",
    "text_mistake",
    "bad_display",
    "control_chars",
]
FOUND_AT_GENERATION = [
    "non_finite",
    "too_large_answer",
    "too_large_placeholder",
    "huge_round",
    "squarings",
    "over_budget",
    "text_flood",
]


def test_list_beside_hostile_packs_names_each_bad_file_and_lists_the_rest() -> None:
    alone = run_cli("list", "--json")
    proc = run_cli("list", "--json", "--questions", str(HOSTILE))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warnings = proc.stderr.strip().splitlines()
    assert len(warnings) == len(FOUND_AT_LOAD)
    for name in FOUND_AT_LOAD:
        assert any(f"{name}.toml: " in w and w.startswith("quizzer: warning: ") for w in warnings), name
    built_in = [r["id"] for r in json.loads(alone.stdout)]
    ids = [r["id"] for r in json.loads(proc.stdout)]
    assert ids[: len(built_in)] == built_in
    assert len(ids) == len(built_in) + len(FOUND_AT_GENERATION)


def test_check_of_hostile_packs_names_one_problem_per_file_and_finishes() -> None:
    proc = run("check", str(HOSTILE), "--seeds", "3")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    n_files = len(FOUND_AT_LOAD) + len(FOUND_AT_GENERATION)
    assert lines[-1].endswith(f": {n_files} problems")
    for name in FOUND_AT_LOAD + FOUND_AT_GENERATION:
        assert sum(f"{name}.toml: " in line for line in lines[:-1]) == 1, name
    assert "exceeds the evaluation budget" in proc.stdout


@pytest.mark.parametrize("name", FOUND_AT_LOAD + FOUND_AT_GENERATION)
def test_show_of_a_hostile_template_is_a_named_one_line_error(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = HOSTILE / f"{name}.toml"
    template_id = name.replace("_", "-")
    assert main(["show", f"{template_id}#1", "--questions", str(path.parent)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"quizzer show: {path}: ")
    assert "\n" not in err
    assert main(["show", "embedding-table-params#1", "--questions", str(path.parent)]) == 0


def test_plain_beside_packs_with_bad_templates_warns_and_drills(tmp_path: Path) -> None:
    for name in FOUND_AT_LOAD:
        (tmp_path / f"{name}.toml").write_bytes((HOSTILE / f"{name}.toml").read_bytes())
    (tmp_path / "mini.toml").write_bytes((DATA / "good" / "mini.toml").read_bytes())
    proc = run_cli(
        "plain",
        "--questions",
        str(tmp_path),
        "--topic",
        "testing",
        "--seed",
        "1",
        "--count",
        "2",
        stdin="\n\n",
        env={"QUIZZER_DB": str(tmp_path / "history.sqlite3")},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("quizzer: warning: ") == len(FOUND_AT_LOAD)
    assert proc.stdout.count("What is") == 2  # mini-product, twice: nothing else in the topic loads


def test_plain_skips_a_template_whose_instance_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_bytes((HOSTILE / "non_finite.toml").read_bytes())
    (tmp_path / "mini.toml").write_bytes((DATA / "good" / "mini.toml").read_bytes())
    proc = run_cli(
        "plain",
        "--questions",
        str(tmp_path),
        "--topic",
        "testing",
        "--seed",
        "0",
        "--count",
        "1",
        stdin="\n",
        env={"QUIZZER_DB": str(tmp_path / "history.sqlite3")},
    )
    assert proc.returncode == 0, proc.stderr
    assert "What is" in proc.stdout


KV_PER_TOKEN = ["show", "kv-cache-bytes#3", "--set", "seq_len=1", "--set", "batch=1"]
#: A million tokens in each of 65,536 sequences: more cache than any server holds (a warning, still posed).
KV_HUGE = ["show", "kv-cache-bytes#3", "--set", "seq_len=1048576", "--set", "batch=65536"]
KV_WARNING = (
    "quizzer: warning: outside this template's usual range: "
    "kv_cache_bytes(n_layers, n_kv_heads, head_dim, seq_len, batch, dtype) <= 2 ** 44"
)


def test_show_poses_own_numbers_outside_the_range_with_a_warning() -> None:
    proc = run(*KV_HUGE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines() == [KV_WARNING]
    assert "Answer: " in proc.stdout
    proc = run(*KV_PER_TOKEN)  # one token of one sequence is a real cache: no warning
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "a batch of 1 sequence;" in proc.stdout
    assert "1 token already" in proc.stdout
    assert "Answer: " in proc.stdout


def test_show_json_carries_the_warnings_and_the_new_fields(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, *KV_HUGE)
    assert data["warnings"] == [KV_WARNING.removeprefix("quizzer: warning: ")]
    assert data["variables"]["seq_len"] == 1048576
    assert data["tolerance"]["text"] == data["conventions"][-1]
    assert data["tolerance"]["text"].startswith("Answers within 1% are correct")
    assert isinstance(data["needed_figures"], int)
    assert data["grading"]["dtype"] == data["variables"]["dtype"]
    assert data["grading"]["layers"] == data["variables"]["n_layers"]
    assert all(m["title"] and m["title"][0].isupper() for m in data["mistakes"])
    plain = out_json(capsys, "show", "kv-cache-bytes#3")
    assert plain["warnings"] == []
    hidden = out_json(capsys, "show", "kv-cache-bytes#3", "--no-answer")
    assert "needed_figures" not in hidden
    assert "mistakes" not in hidden
    assert "tolerance" in hidden


def test_show_json_keeps_the_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "kv-cache-bytes#3")
    assert "**" in data["prompt"]
    assert "| Step |" in data["explanation"]
    assert main(["show", "kv-cache-bytes#3"]) == 0
    text = capsys.readouterr().out
    assert "**" not in text
    assert "| Step |" not in text


def test_grade_warns_on_own_numbers_and_prints_plain_text() -> None:
    proc = run("grade", "kv-cache-bytes#3", "2 GiB", "--set", "seq_len=1048576", "--set", "batch=65536")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines() == [KV_WARNING]
    assert proc.stdout.count("\n") == 1
    assert ": wrong" in proc.stdout


def test_a_calculation_the_core_refuses_is_a_one_line_error() -> None:
    proc = run("show", "kv-cache-bytes#3", "--set", "head_dim=0")
    assert proc.returncode == 2
    assert "head_dim (0) must be a positive integer" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_check_runs_the_omission_lint_unless_told_not_to(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from quizzer.commands import check

    lint = str(DATA / "lint" / "omission.toml")
    args = argparse.Namespace(
        paths=[lint], questions=[], seeds=5, no_omissions=True, skip=None, only=None, lints=False
    )
    assert check.run(args, argparse.ArgumentParser()) == 0
    assert capsys.readouterr().out.endswith(": 0 problems\n")
    assert (
        check.run(argparse.Namespace(**{**vars(args), "no_omissions": False}), argparse.ArgumentParser()) == 1
    )
    out = capsys.readouterr().out
    assert "leaving out '1.005' (a factor, set to 1) still grades correct at seed 0" in out
    assert out.endswith(": 2 problems\n")


@pytest.mark.parametrize(
    "args",
    [["show", "embedding-table-params#1", "--no-such-flag"], ["show", "no-such-template"], ["--version"]],
)
def test_the_in_process_runner_sees_what_the_real_entry_point_does(args: list[str]) -> None:
    """tests/cli_run.py against `python -m quizzer`: argparse's exit (2, or 0 for --version), a verb's error
    and their output, the same."""
    real, here = run(*args), run_cli(*args)
    assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr)


def test_show_json_no_answer_shows_no_computed_variable(capsys: pytest.CaptureFixture[str]) -> None:
    """The embedding question computes ``table_and_head`` (= the answer, 16,384,000 at these numbers) from
    the drawn ones: --no-answer lists only the variables drawn, never one computed from them."""
    shown = out_json(capsys, "show", *EMBEDDING, "--seed", "3")
    assert shown["answer"]["value"] in shown["variables"].values()  # the full view has it: the case is live
    hidden = out_json(capsys, "show", *EMBEDDING, "--seed", "3", "--no-answer")
    assert set(hidden["variables"]) == {"vocab_size", "d_model", "tied"} & set(shown["variables"])
    assert shown["answer"]["value"] not in hidden["variables"].values()
