"""Chains on the command line: `show` lists parts, `grade --part N --given K=ANSWER`, `plain` asks them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizzer.cli import main
from quizzer.store.history import HistoryStore
from tests.cli_run import run_cli

#: The verbs run in this process (tests/cli_run.py), each template validated once per process; a few keep a
#: real `python -m quizzer` for the entry point, exit codes and argparse's reading of "-72".
pytestmark = pytest.mark.usefixtures("validated_once")

CHAINS = Path(__file__).resolve().parent / "data" / "chains"
PACK = ["--questions", str(CHAINS)]
#: The keys `show --json` had before chains (tests elsewhere pin them), and the two chains add.
INSTANCE_KEYS = {
    "id",
    "seed",
    "instance",
    "title",
    "topic",
    "difficulty",
    "kind",
    "minutes",
    "variables",
    "warnings",
    "prompt",
    "conventions",
    "nudges",
    "answer",
    "tolerance",
    "needed_figures",
    "grading",
    "derivation",
    "explanation",
    "tldr",
    "memory_aid",
    "follow_ups",
    "references",
    "mistakes",
}
VERDICT_KEYS = {
    "verdict",
    "given",
    "expected",
    "relative_error",
    "mistake",
    "feedback",
    "diagnosis",
    "message",
}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
        env=dict(os.environ),
    )


def out_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def arithmetic(capsys: pytest.CaptureFixture[str], seed: int) -> tuple[dict[str, Any], int, int, int]:
    """chain-arithmetic#seed as `show --json` gives it, and its three answers worked out by hand."""
    data = out_json(capsys, "show", f"chain-arithmetic#{seed}", *PACK)
    v = data["variables"]
    gpus = v["racks"] * v["per_rack"]
    jobs = gpus * v["jobs_per_gpu"]
    assert jobs % v["queues"] == 0  # per_rack is 4 or 8, queues 2 or 4: a whole number per queue
    return data, gpus, jobs, jobs // v["queues"]


def grade(capsys: pytest.CaptureFixture[str], ref: str, *args: str) -> dict[str, Any]:
    data: dict[str, Any] = out_json(capsys, "grade", ref, *args, *PACK)
    return data


# --- show ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [3, 6])
def test_show_json_lists_each_part_with_its_answer(capsys: pytest.CaptureFixture[str], seed: int) -> None:
    data, gpus, jobs, per_queue = arithmetic(capsys, seed)
    v = data["variables"]
    assert set(data) == INSTANCE_KEYS | {"part_count", "parts", "common_mistakes", "settable"}
    assert data["answer"]["value"] == gpus
    assert data["part_count"] == 3
    second, third = data["parts"]
    assert [second["number"], third["number"]] == [2, 3]
    assert second["answer"]["value"] == jobs
    assert third["answer"]["value"] == per_queue
    for part in (second, third):
        assert set(part["answer"]) == set(data["answer"])  # value, unit, display: as the main answer
        assert part["answer"]["unit"] == "count"
        assert part["carry"] is True
        assert part["variables"] == {}
        assert set(part["tolerance"]) == {"kind", "value", "text"}
        assert "Answers within 1%" in part["tolerance"]["text"]
    # the prompt shows the TRUE earlier value; the explanation ends with this part's own figure
    assert f"has {gpus:,} GPUs. Each runs {v['jobs_per_gpu']} jobs" in second["prompt"]
    assert f"The {jobs:,} jobs are shared evenly over {v['queues']} queues" in third["prompt"]
    assert "(your answer to part 1)" in second["masked_prompt"]
    assert f"{gpus:,}" not in second["masked_prompt"].replace(f"{v['jobs_per_gpu']}", "")
    assert second["explanation"].startswith(f"Every GPU runs {v['jobs_per_gpu']} jobs: {jobs:,}.")
    assert second["tldr"] == f"{gpus:,} × {v['jobs_per_gpu']}."
    assert third["tldr"] == ""
    assert second["mistakes"][0]["value"] == gpus + v["jobs_per_gpu"]
    assert second["derivation"][-1]["value"] == jobs


def test_show_json_of_a_part_with_its_own_variables(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "chain-part-variables#3", *PACK)
    v = data["variables"]
    cache_bytes = v["seq_len"] * v["per_token"]
    assert data["answer"]["value"] == cache_bytes
    assert data["grading"]["display_unit"] == "MiB"
    second, third = data["parts"]
    gpu_gib, tok_s = second["variables"]["gpu_gib"], third["variables"]["tok_s"]
    n_seq = gpu_gib * 2**30 // cache_bytes
    assert second["variables"]["free_bytes"] == gpu_gib * 2**30
    assert second["answer"]["value"] == n_seq
    assert third["answer"] == {
        "value": n_seq * tok_s,
        "unit": "tokens/s",
        "display": third["answer"]["display"],
    }
    assert f"{cache_bytes // 2**20} MiB" in second["prompt"]


def test_show_json_of_a_template_without_parts_keeps_its_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "embedding-table-params#1")
    assert set(data) == INSTANCE_KEYS | {"part_count", "parts", "common_mistakes", "settable"}
    assert data["parts"] == []
    assert data["part_count"] == 1


def test_show_json_no_answer_masks_the_parts(capsys: pytest.CaptureFixture[str]) -> None:
    _, gpus, jobs, _ = arithmetic(capsys, 6)
    data = out_json(capsys, "show", "chain-arithmetic#6", "--no-answer", *PACK)
    assert "answer" not in data
    assert [set(p) for p in data["parts"]] == [{"number", "prompt", "tolerance", "carry"}] * 2
    second, third = data["parts"]
    assert "(your answer to part 1)" in second["prompt"]
    assert f"{gpus:,}" not in second["prompt"]
    assert f"{jobs:,}" not in third["prompt"]


def test_show_text_prints_each_part_after_the_main_answer(capsys: pytest.CaptureFixture[str]) -> None:
    data, gpus, jobs, per_queue = arithmetic(capsys, 6)
    v = data["variables"]
    assert main(["show", "chain-arithmetic#6", *PACK]) == 0
    text = capsys.readouterr().out
    assert "3 parts" in text.splitlines()[1]
    order = [
        f"Answer: {gpus:,}",
        "Part 2 of 3",
        f"The cluster has {gpus:,} GPUs. Each runs {v['jobs_per_gpu']} jobs.",
        f"Answer: {jobs:,}",
        f"Every GPU runs {v['jobs_per_gpu']} jobs: {jobs:,}.",
        f"TL;DR: {gpus:,} × {v['jobs_per_gpu']}.",
        "Part 3 of 3",
        f"The {jobs:,} jobs are shared evenly over {v['queues']} queues.",
        f"Answer: {per_queue:,}",
        "Divide the jobs by the queues.",
    ]
    at = [text.find(s) for s in order]
    assert -1 not in at, [s for s, i in zip(order, at, strict=True) if i < 0]
    assert at == sorted(at)
    assert "|" not in text  # plain text: the derivation tables are aligned, not Markdown
    assert text.count("Answers within 1% are correct") == 3  # each part states its tolerance


def test_show_text_no_answer_asks_the_parts_with_earlier_answers_hidden(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, gpus, jobs, _ = arithmetic(capsys, 6)
    assert main(["show", "chain-arithmetic#6", "--no-answer", *PACK]) == 0
    text = capsys.readouterr().out
    assert "Part 3 of 3" in text
    assert "(your answer to part 2)" in text
    assert "Answer:" not in text
    assert f"{gpus:,}" not in text
    assert f"{jobs:,}" not in text


# --- grade -----------------------------------------------------------------------------------------------


def test_grade_a_part_right_and_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, jobs, per_queue = arithmetic(capsys, 6)
    right = grade(capsys, "chain-arithmetic#6", "--part", "2", str(jobs))
    assert set(right) == VERDICT_KEYS | {"part", "carried"}
    assert right["verdict"] == "exact"
    assert right["part"] == 2
    assert right["carried"] is None
    assert right["expected"] == {"value": jobs, "unit": "count"}
    third = grade(capsys, "chain-arithmetic#6", "--part", "3", str(per_queue))
    assert (third["verdict"], third["part"], third["expected"]["value"]) == ("exact", 3, per_queue)
    wrong = grade(capsys, "chain-arithmetic#6", "--part", "2", str(jobs * 3))
    assert wrong["verdict"] == "wrong"
    assert wrong["carried"] is None


def test_grade_without_part_is_part_one(capsys: pytest.CaptureFixture[str]) -> None:
    _, gpus, jobs, _ = arithmetic(capsys, 6)
    first = grade(capsys, "chain-arithmetic#6", str(gpus))
    assert (first["verdict"], first["part"], first["carried"]) == ("exact", 1, None)
    assert grade(capsys, "chain-arithmetic#6", str(jobs))["verdict"] == "wrong"  # part 2's answer
    one = out_json(capsys, "grade", "embedding-table-params#1", "16.4M")
    assert set(one) == VERDICT_KEYS | {"part", "carried"}
    assert (one["part"], one["carried"]) == (1, None)


def test_given_earlier_answer_makes_a_part_consistent(capsys: pytest.CaptureFixture[str]) -> None:
    data, gpus, jobs, _ = arithmetic(capsys, 6)
    v = data["variables"]
    mine = gpus + 1  # wrong (1.6% off), not a number of the prompt, not 100 times off
    assert mine not in (v["racks"], v["per_rack"])
    alone = grade(capsys, "chain-arithmetic#6", "--part", "2", str(mine * v["jobs_per_gpu"]))
    assert alone["verdict"] in ("close", "wrong")  # without --given it is graded against the true values
    carried = grade(
        capsys, "chain-arithmetic#6", "--part", "2", str(mine * v["jobs_per_gpu"]), "--given", f"1={mine}"
    )
    assert carried["verdict"] == "consistent"
    assert carried["carried"] == {"1": mine}
    assert carried["part"] == 2
    assert carried["expected"]["value"] == jobs  # the true value stays the expected one
    assert "consistent with your part 1" in carried["message"]
    third = (mine * v["jobs_per_gpu"]) / v["queues"]
    both = grade(
        capsys,
        "chain-arithmetic#6",
        "--part",
        "3",
        f"{third:g}",
        "--given",
        f"1={mine}",
        "--given",
        f"2={mine * v['jobs_per_gpu']}",
    )
    assert both["verdict"] == "consistent"
    assert both["carried"] == {"1": mine, "2": mine * v["jobs_per_gpu"]}


def test_given_is_read_in_the_earlier_parts_unit(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "chain-part-variables#3", *PACK)
    gpu_gib = data["parts"][0]["variables"]["gpu_gib"]
    true_mib = data["variables"]["seq_len"] * data["variables"]["per_token"] // 2**20
    mine_mib = true_mib + 1  # a bare number means MiB, part 1's display unit
    fits = gpu_gib * 1024 // mine_mib
    got = grade(capsys, "chain-part-variables#3", "--part", "2", str(fits), "--given", f"1={mine_mib}")
    assert got["verdict"] == "consistent"
    assert got["carried"] == {"1": mine_mib * 2**20}


def test_grade_consistent_prints_it_in_text() -> None:
    proc = run("grade", "chain-arithmetic#3", "--part", "2", "75", "--given", "1=25", *PACK)
    # chain-arithmetic#3: 3 racks of 8 GPUs = 24, 3 jobs each; 25 GPUs would run 75 jobs
    assert proc.returncode == 0, proc.stderr
    assert "consistent with your part 1 (25)" in proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("why", ["zero", "prompt-number", "hundredfold"])
def test_a_trivial_given_earns_no_carried_credit(capsys: pytest.CaptureFixture[str], why: str) -> None:
    data, gpus, _, _ = arithmetic(capsys, 6)
    v = data["variables"]
    mine = {"zero": 0, "prompt-number": v["per_rack"], "hundredfold": gpus * 1000}[why]
    got = grade(
        capsys, "chain-arithmetic#6", "--part", "2", str(mine * v["jobs_per_gpu"]), "--given", f"1={mine}"
    )
    assert got["verdict"] in ("close", "wrong")
    assert got["carried"] is None


def test_no_carry_template_is_never_consistent(capsys: pytest.CaptureFixture[str]) -> None:
    data = out_json(capsys, "show", "chain-no-carry#3", *PACK)
    tokens = data["variables"]["n_seq"] * data["variables"]["seq_len"]
    assert data["parts"][0]["carry"] is False
    mine = tokens + tokens // 10  # 10% off: wrong, not trivial
    got = grade(capsys, "chain-no-carry#3", "--part", "2", str(3 * mine), "--given", f"1={mine}")
    assert got["verdict"] in ("close", "wrong")
    assert got["carried"] is None
    assert grade(capsys, "chain-no-carry#3", "--part", "2", str(3 * tokens))["verdict"] == "exact"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chain-arithmetic#3", "--part", "4", "5"], "--part 4: chain-arithmetic#3 has parts 1 to 3"),
        (["chain-arithmetic#3", "--part", "0", "5"], "--part 0: chain-arithmetic#3 has parts 1 to 3"),
        (["chain-arithmetic#3", "--part", "-1", "5"], "--part -1: chain-arithmetic#3 has parts 1 to 3"),
        (["chain-arithmetic#3", "--part", "two", "5"], "--part 'two': give a part number"),
        (["embedding-table-params#1", "--part", "2", "5"], "has only part 1"),
        (["chain-arithmetic#3", "5", "--given", "1=4"], "part 1 has no earlier part"),
        (["chain-arithmetic#3", "--part", "1", "5", "--given", "1=4"], "part 1 has no earlier part"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "2=4"], "part 2 is not before part 2"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "3=4"], "part 3 is not before part 2"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "0=4"], "part 0 is not before part 2"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "1"], "write K=ANSWER"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "one=4"], "write K=ANSWER"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "1=lots"], "part 1's answer: could not read"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "1="], "'1=': part 1's answer"),
        (["chain-arithmetic#3", "--part", "2", "5", "--given", "1=-4"], "part 1's answer: a negative"),
        (["chain-arithmetic#3", "--part", "3", "5", "--given", "1=4", "--given", "1=5"], "given twice"),
    ],
)
def test_grade_part_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    proc = run_cli("grade", *args, *PACK)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert message in proc.stderr
    assert proc.stderr.startswith("quizzer grade: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_a_negative_answer_after_part_is_the_answer_not_an_option() -> None:
    proc = run("grade", "chain-arithmetic#3", "--part", "2", "-72", *PACK)
    assert proc.returncode == 0, proc.stderr
    assert "negative" in proc.stdout


# --- plain -----------------------------------------------------------------------------------------------


def plain(tmp_path: Path, template_id: str, seed: int, stdin: str, count: int = 1) -> tuple[str, list[Any]]:
    """`quizzer plain` over ``count`` questions of ``template_id``; its output and the attempts recorded."""
    db = tmp_path / "history.sqlite3"
    proc = run_cli(
        "plain", *PACK, "--template", template_id, "--seed", str(seed), "--count", str(count),
        "--db", str(db),
        stdin=stdin,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    store = HistoryStore.open(str(db))
    try:
        attempts = store.attempts()
        assert store.warning is None
    finally:
        store.close()
    return proc.stdout, attempts


def test_plain_chain_answered_right(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, gpus, jobs, per_queue = arithmetic(capsys, 6)
    out, attempts = plain(tmp_path, "chain-arithmetic", 6, f"{gpus}\n{jobs}\n{per_queue}\n")
    assert [a.part for a in attempts] == [1, 2, 3]
    assert [a.verdict for a in attempts] == ["exact"] * 3
    assert [a.expected for a in attempts] == [gpus, jobs, per_queue]
    assert [a.value for a in attempts] == [gpus, jobs, per_queue]
    assert [a.carried for a in attempts] == [None] * 3
    assert {(a.template_id, a.seed, a.mode, a.unit) for a in attempts} == {
        ("chain-arithmetic", 6, "plain", "count")
    }
    assert len({a.session for a in attempts}) == 1
    assert all(a.variables == data["variables"] for a in attempts)  # the parts add no variables here
    assert out.rstrip().endswith("score: 3/3 right")
    at = [out.find(s) for s in (f"Part 1: {gpus:,}", "Part 2 of 3", f"Part 2: {jobs:,}", "Part 3 of 3")]
    assert -1 not in at
    assert at == sorted(at)
    assert out.count("answer> ") == 3
    # as in the app, part 1's worked explanation (which may work out later parts) comes after the last part
    assert at[-1] < out.find("Part 1, worked:") < out.find("Multiply the racks by the GPUs in each.")


def test_plain_chain_wrong_then_consistent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, gpus, jobs, per_queue = arithmetic(capsys, 6)
    v = data["variables"]
    mine = gpus + 1
    mine_jobs = mine * v["jobs_per_gpu"]
    mine_queue = mine_jobs / v["queues"]
    out, attempts = plain(tmp_path, "chain-arithmetic", 6, f"{mine}\n{mine_jobs}\n{mine_queue:g}\n")
    assert [a.part for a in attempts] == [1, 2, 3]
    assert attempts[0].verdict in ("close", "wrong")
    assert [a.verdict for a in attempts[1:]] == ["consistent", "consistent"]
    assert [a.carried for a in attempts] == [None, {"1": mine}, {"1": mine, "2": mine_jobs}]
    assert [a.expected for a in attempts] == [gpus, jobs, per_queue]  # the true values
    assert [a.value for a in attempts] == [mine, mine_jobs, mine_queue]
    # after part 1's verdict its true value is shown, and part 2 is asked from it
    assert out.index(f"Part 1: {gpus:,}") < out.index(f"The cluster has {gpus:,} GPUs")
    assert "consistent with your part 1" in out
    assert out.rstrip().endswith("score: 2/3 right")


def test_plain_chain_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, gpus, jobs, per_queue = arithmetic(capsys, 6)
    out, attempts = plain(tmp_path, "chain-arithmetic", 6, "\n\n\n")
    assert [a.part for a in attempts] == [1, 2, 3]
    assert [a.verdict for a in attempts] == ["skipped"] * 3
    assert not any(a.right for a in attempts)
    assert [a.answer for a in attempts] == ["", "", ""]
    assert [a.value for a in attempts] == [None] * 3
    assert [a.expected for a in attempts] == [gpus, jobs, per_queue]
    assert f"skipped. Part 2: {jobs:,}" in out
    assert out.rstrip().endswith("score: 0/0 right, 3 skipped")


def test_plain_skipped_part_gives_no_carried_credit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, gpus, jobs, _ = arithmetic(capsys, 6)
    mine_jobs = (gpus + 1) * data["variables"]["jobs_per_gpu"]  # consistent only with a part 1 of gpus + 1
    _, attempts = plain(tmp_path, "chain-arithmetic", 6, f"\n{mine_jobs}\nnot a number\n\n")
    assert [a.verdict for a in attempts[:2]] == ["skipped", "close"]  # a skip is no earlier answer
    assert attempts[2].verdict == "skipped"  # the unread line was asked again, then skipped
    assert [a.carried for a in attempts] == [None] * 3
    assert attempts[1].expected == jobs


def test_plain_part_attempts_carry_the_parts_own_variables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = out_json(capsys, "show", "chain-part-variables#3", *PACK)
    v = data["variables"]
    own = {**data["parts"][0]["variables"], **data["parts"][1]["variables"]}
    cache_bytes = v["seq_len"] * v["per_token"]
    n_seq = own["gpu_gib"] * 2**30 // cache_bytes
    rate = n_seq * own["tok_s"]
    _, attempts = plain(tmp_path, "chain-part-variables", 3, f"{cache_bytes // 2**20}\n{n_seq}\n{rate}\n")
    assert [a.verdict for a in attempts] == ["exact"] * 3
    assert [(a.expected, a.unit) for a in attempts] == [
        (cache_bytes, "bytes"),
        (n_seq, "count"),
        (rate, "tokens/s"),
    ]
    assert attempts[0].variables == v
    assert attempts[1].variables == v | data["parts"][0]["variables"]
    assert attempts[2].variables == v | data["parts"][1]["variables"]


def test_plain_end_of_input_in_a_chain_keeps_what_was_graded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gpus, _, _ = arithmetic(capsys, 6)
    out, attempts = plain(tmp_path, "chain-arithmetic", 6, f"{gpus}\n")
    assert [(a.part, a.verdict) for a in attempts] == [(1, "exact")]
    assert out.rstrip().endswith("score: 1/1 right")


def test_plain_one_part_question_has_no_part_number(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    good = Path(__file__).resolve().parent / "data" / "good"
    proc = run_cli(
        "plain", "--questions", str(good), "--template", "mini-product", "--seed", "1", "--count", "1",
        "--db", str(db), stdin="\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "skipped. The answer:" in proc.stdout
    store = HistoryStore.open(str(db))
    try:
        assert [(a.part, a.carried, a.verdict) for a in store.attempts()] == [(None, None, "skipped")]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--template", "chain-arithmetik"], "did you mean 'chain-arithmetic'"),
        (["--template", "chain-arithmetic", "--topic", "chains"], "leave out --topic"),
    ],
)
def test_plain_template_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    proc = run_cli("plain", *PACK, *args, stdin="")
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_plain_count_counts_questions_not_parts(tmp_path: Path) -> None:
    out, attempts = plain(tmp_path, "chain-arithmetic", 6, "\n" * 7, count=2)
    assert "── question 2 " in out
    assert "── question 3 " not in out
    assert [a.part for a in attempts] == [1, 2, 3, 1, 2, 3]
    assert out.rstrip().endswith("score: 0/0 right, 6 skipped")


#: What the headless verbs must not load (tests/test_layering.py), checked on a chain graded with --given.
CHECK = """
import sys
from quizzer.cli import main
main({argv!r})
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r})
print("LOADED:" + ",".join(loaded))
"""
NO_HISTORY = ["textual", "rich", "inspect", "dataclasses", "ast", "difflib", "fsrs", "sqlite3"]


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "chain-part-variables#3", "--json", *PACK],
        [
            "grade",
            "chain-part-variables#3",
            "--part",
            "3",
            "1M",
            "--given",
            "1=9",
            "--given",
            "2=4551",
            *PACK,
        ],
    ],
)
def test_show_and_grade_of_a_chain_leave_out_what_start_up_avoids(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(argv=argv, forbidden=NO_HISTORY)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == "LOADED:"


def test_show_lists_the_common_mistakes_after_answering_only(capsys: pytest.CaptureFixture[str]) -> None:
    """chain-arithmetic#3: the "Common mistakes" section names each mistake of every part; its feedback,
    in the instance's numbers, comes with the answers (`show`); `--no-answer` has no such section."""
    data, gpus, _, _ = arithmetic(capsys, 3)
    rows = {row["title"]: row["text"] for row in data["common_mistakes"]}
    v = data["variables"]
    assert set(rows) == {"Part 1: Added", "Part 2: Jobs added to GPUs", "Part 3: Multiplied"}
    assert rows["Part 1: Added"] == (
        f"You added {v['racks']} and {v['per_rack']}: every rack holds {v['per_rack']} GPUs, so multiply."
    )
    assert rows["Part 2: Jobs added to GPUs"] == (  # whole, with the answers
        f"You added the jobs of one GPU to the GPU count: multiply {gpus} by {v['jobs_per_gpu']}."
    )
    assert main(["show", "chain-arithmetic#3", "--no-answer", *PACK]) == 0
    plain = capsys.readouterr().out
    assert "Common mistakes" not in plain
    assert "You added" not in plain
    assert f"multiply {gpus} by" not in plain


def test_grade_json_carries_the_diagnosis_of_a_typed_product() -> None:
    """The issue's example through the command: kv-cache-bytes#1 has 32 layers; 30 in the product is named."""
    out = run("grade", "kv-cache-bytes#1", "2*30*16*256*4*8192*8 bytes", "--json")
    data = json.loads(out.stdout)
    assert data["verdict"] == "wrong"
    assert data["diagnosis"] == ["Your 30 is n_layers: here it is 32."]
    plain = run("grade", "kv-cache-bytes#1", "2*30*16*256*4*8192*8 bytes")
    assert plain.stdout.strip().endswith("wrong; Your 30 is n_layers: here it is 32.")
