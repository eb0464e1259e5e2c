"""Each MCP tool through the SDK's client session, against the command line it stands for (run in process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_served import PACK, call, result

from quizzer.bank.loader import Bank
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")


def cli_json(*args: str) -> Any:
    """`quizzer ARGS` run in process (a question verb with the chains pack, as the server has); it must
    succeed."""
    ran = run_cli(*args, *(PACK if args[0] != "count" else ()))
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


async def test_list_templates_gives_every_template_as_list_json_does_with_its_parts(bank: Bank) -> None:
    got = await result(bank, "list_templates", {})
    listed = cli_json("list", "--json")
    assert [{k: v for k, v in row.items() if k != "parts"} for row in got["templates"]] == listed
    assert got["topics"] == sorted({row["topic"] for row in listed})
    parts = {row["id"]: row["parts"] for row in got["templates"]}
    # part_count as `show --json` counts them, for a question of one part and for chains of three
    for ref in ("embedding-table-params#1", "attention-score-flops#2", "chain-arithmetic#3"):
        assert parts[ref.partition("#")[0]] == cli_json("show", ref, "--json")["part_count"]
    assert parts["attention-score-flops"] == 3


async def test_list_templates_of_one_topic(bank: Bank) -> None:
    got = await result(bank, "list_templates", {"topic": "kv-cache"})
    listed = cli_json("list", "--topic", "kv-cache", "--json")
    assert [row["id"] for row in got["templates"]] == [row["id"] for row in listed]
    assert listed
    assert all(row["topic"] == "kv-cache" for row in got["templates"])
    assert "embeddings" in got["topics"]  # every topic, whatever the filter


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("98,304,000", "exact"),  # the answer to embedding-table-params#1: 32,000 x 3,072
        ("98.3M", "correct"),
        ("196.6M", "wrong"),  # a named slip: the tied head counted a second time
        ("983M", "wrong"),  # a typo: the decimal point dropped (10x)
        ("98.3", "wrong"),  # millions typed without the M: the slip scale-word
        ("~9.8e7 params", "correct"),
    ],
)
async def test_grade_is_quizzer_grade_json(bank: Bank, answer: str, verdict: str) -> None:
    ref = "embedding-table-params#1"
    got = await result(bank, "grade", {"ref": ref, "answer": answer})
    assert got == cli_json("grade", ref, answer, "--json")
    assert got["verdict"] == verdict


async def test_grade_names_the_slip_and_its_feedback(bank: Bank) -> None:
    got = await result(bank, "grade", {"ref": "embedding-table-params#1", "answer": "196.6M"})
    assert got["mistake"] == "head-counted-in-the-table"
    assert "tied" in got["feedback"]


async def test_grade_a_chain_part_with_given_earlier_answers(bank: Bank) -> None:
    """chain-arithmetic (tests/data/chains): part 1 is racks x per_rack GPUs, part 2 x jobs_per_gpu."""
    shown = cli_json("show", "chain-arithmetic#6", "--json")
    v = shown["variables"]
    mine = v["racks"] * v["per_rack"] + 1  # a wrong part 1
    answer = str(mine * v["jobs_per_gpu"])  # part 2 right on it
    arguments = {"ref": "chain-arithmetic#6", "answer": answer, "part": 2, "given": {"1": str(mine)}}
    got = await result(bank, "grade", arguments)
    assert got == cli_json(
        "grade", "chain-arithmetic#6", "--part", "2", answer, "--given", f"1={mine}", "--json"
    )
    assert (got["verdict"], got["part"], got["carried"]) == ("consistent", 2, {"1": mine})
    alone = await result(bank, "grade", {"ref": "chain-arithmetic#6", "answer": answer, "part": 2})
    assert alone["verdict"] != "consistent"  # the given answer is what carried the credit
    # a number for an answer, and a JSON number for the earlier part, are read as typed ones are
    again = await result(bank, "grade", arguments | {"given": {"1": mine}})
    assert again == got


async def test_grade_with_own_numbers_and_a_model(bank: Bank) -> None:
    ref, set_ = "embedding-table-params#1", {"vocab_size": 50257, "d_model": 768, "tied": False}
    got = await result(bank, "grade", {"ref": ref, "answer": "38.6M", "set": set_})
    flags = [a for name, value in set_.items() for a in ("--set", f"{name}={str(value).lower()}")]
    assert got == cli_json("grade", ref, "38.6M", *flags, "--json")
    assert got["verdict"] == "correct"  # 50,257 x 768 = 38,597,376
    ref = "preset-kv-bytes-per-token#3"
    got = await result(bank, "grade", {"ref": ref, "answer": "64", "model": "llama-3-8b"})
    assert got == cli_json("grade", ref, "64", "--model", "llama-3-8b", "--json")
    assert got["expected"]["value"] == 65_536  # 2 x 32 layers x 8 kv heads x 128 x 1 byte (int8 at seed 3)
    assert got["verdict"] == "exact"  # a bare number is read in KiB


async def test_both_ways_of_connecting_give_the_same_grade(bank: Bank) -> None:
    arguments = {"ref": "embedding-table-params#1", "answer": "196.6M"}
    assert await result(bank, "grade", arguments, mode="auto") == await result(bank, "grade", arguments)


async def test_explain_is_quizzer_show_json(bank: Bank) -> None:
    for ref in ("embedding-table-params#1", "attention-score-flops#2"):
        got = await result(bank, "explain", {"ref": ref})
        assert got == cli_json("show", ref, "--json")
        assert got["answer"]["value"]
        assert got["derivation"]
        assert got["explanation"]
    got = await result(bank, "explain", {"ref": "embedding-table-params#1", "set": {"tied": False}})
    assert got == cli_json("show", "embedding-table-params#1", "--set", "tied=false", "--json")


async def test_pose_is_the_question_without_its_answer(bank: Bank) -> None:
    ref = "attention-score-flops#2"
    got = await result(bank, "pose", {"ref": ref})
    shown = cli_json("show", ref, "--json")
    for key in ("instance", "seed", "prompt", "conventions", "tolerance", "part_count", "title", "kind"):
        assert got[key] == shown[key]
    for key in ("answer", "derivation", "explanation", "mistakes", "common_mistakes", "tldr", "follow_ups"):
        assert key not in got
    assert got["grade_with"] == {"ref": ref}
    assert got["answer_unit"] == {"unit": "FLOPs", "bare_number": "FLOPs"}
    assert [p["number"] for p in got["parts"]] == [2, 3]
    for posed, part in zip(got["parts"], shown["parts"], strict=True):
        assert posed["prompt"] == part["masked_prompt"]
        assert posed["tolerance"] == part["tolerance"]
        assert posed["answer_unit"]["unit"] == part["answer"]["unit"]
        assert "answer" not in posed
        assert "explanation" not in posed


async def _answers_absent(bank: Bank, ref: str) -> None:
    """No answer of ``ref``'s parts appears in what pose gives, written out or with thousands commas."""
    posed = json.dumps(await result(bank, "pose", {"ref": ref}))
    shown = cli_json("show", ref, "--json")
    for part in [shown, *shown["parts"]]:
        value = part["answer"]["value"]
        if isinstance(value, int) and value >= 10_000:  # long enough not to occur by chance
            assert str(value) not in posed, (ref, part.get("number", 1))
            assert f"{value:,}" not in posed, (ref, part.get("number", 1))
            assert part["answer"]["display"] not in posed


async def test_pose_leaves_out_the_variables_computed_from_the_drawn_ones(bank: Bank) -> None:
    """Some computed variables are the answer itself (embedding-table-params' table_and_head is vocab_size x
    d_model when tied) or a step to it: pose, as `show --json --no-answer`, lists only the drawn ones."""
    got = await result(bank, "pose", {"ref": "embedding-table-params#1"})
    assert got["variables"] == {"vocab_size": 32000, "d_model": 3072, "tied": True}
    no_answer = cli_json("show", "embedding-table-params#1", "--json", "--no-answer")
    assert no_answer["variables"] == got["variables"]
    assert (
        cli_json("show", "embedding-table-params#1", "--json")["variables"]["table_and_head"] == 32000 * 3072
    )
    for ref in (
        "embedding-table-params#1",
        "attention-score-flops#2",
        "kv-cache-bytes#7",
        "chain-arithmetic#3",
    ):
        await _answers_absent(bank, ref)


async def test_pose_without_a_seed_draws_one_that_grades_later(bank: Bank) -> None:
    got = await result(bank, "pose", {"ref": "embedding-table-params"})
    instance = got["grade_with"]["ref"]
    assert instance == got["instance"] == f"embedding-table-params#{got['seed']}"
    answer = cli_json("show", instance, "--json")["answer"]["value"]
    graded = await result(bank, "grade", {"ref": instance, "answer": str(answer)})
    assert graded["verdict"] == "exact"


async def test_pose_with_own_numbers_says_what_grades_it(bank: Bank) -> None:
    # a million tokens in each of 65,536 sequences: more cache than any server holds (posed, with a warning)
    set_ = {"seq_len": 1048576, "batch": 65536}
    flags = ("--set", "seq_len=1048576", "--set", "batch=65536")
    got = await result(bank, "pose", {"ref": "kv-cache-bytes#3", "set": set_})
    assert got["grade_with"] == {"ref": "kv-cache-bytes#3", "set": set_}
    shown = cli_json("show", "kv-cache-bytes#3", *flags, "--json")
    assert got["warnings"] == shown["warnings"]
    assert len(got["warnings"]) == 1
    assert "usual range" in got["warnings"][0]
    assert (got["variables"]["seq_len"], got["variables"]["batch"]) == (1048576, 65536)
    graded = await result(bank, "grade", got["grade_with"] | {"answer": f"{shown['answer']['value']} bytes"})
    assert graded["verdict"] == "exact"
    unset = await result(
        bank, "grade", {"ref": "kv-cache-bytes#3", "answer": f"{shown['answer']['value']} bytes"}
    )
    assert unset["verdict"] == "wrong"  # the drawn numbers are another question


async def test_pose_about_a_model(bank: Bank) -> None:
    got = await result(bank, "pose", {"ref": "preset-kv-bytes-per-token#3", "model": "llama-3-8b"})
    assert got["instance"] == got["grade_with"]["ref"] == "preset-kv-bytes-per-token#3@llama-3-8b"
    assert got["answer_unit"] == {"unit": "bytes", "bare_number": "KiB"}  # "Answer in KiB"
    again = await result(bank, "grade", {"ref": got["instance"], "answer": "65536 bytes"})
    assert again["verdict"] == "exact"  # 2 x 32 layers x 8 kv heads x 128 x 1 byte (int8)


@pytest.mark.parametrize(
    ("arguments", "flags"),
    [
        ({"model": "llama-3-8b"}, []),
        (
            {"model": "mixtral-8x7b", "dtype": "fp8", "seq_len": 32768, "batch": 4},
            ["--dtype", "fp8", "--seq-len", "32768", "--batch", "4"],
        ),
        (
            {"model": "qwen3-next-80b-a3b", "seq_len": 4096, "state_dtype": "model"},
            ["--seq-len", "4096", "--state-dtype", "model"],
        ),
    ],
)
async def test_count_model_is_quizzer_count_json(
    bank: Bank, arguments: dict[str, Any], flags: list[str]
) -> None:
    got = await result(bank, "count_model", arguments)
    assert got == cli_json("count", arguments["model"], *flags, "--json")


async def test_count_model_reads_a_config_json(bank: Bank, tmp_path: Path) -> None:
    config = {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12}
    (tmp_path / "config.json").write_text(json.dumps(config | {"n_positions": 1024}))
    got = await result(bank, "count_model", {"model": str(tmp_path / "config.json")})
    assert got["params"]["total"] == 124_439_808  # GPT-2 small
    assert got == cli_json("count", str(tmp_path / "config.json"), "--json")


async def test_a_call_after_an_error_is_answered(bank: Bank) -> None:
    """An error is one call's result: the same server answers the next call."""
    from mcp import Client

    from quizzer.commands.mcp_server import build_server

    async with Client(build_server(bank), mode="legacy") as client:
        bad = await client.call_tool("grade", {"ref": "no-such-template#1", "answer": "5"})
        good = await client.call_tool("grade", {"ref": "embedding-table-params#1", "answer": "98.3M"})
    assert bad.is_error
    assert not good.is_error
    assert (good.structured_content or {})["verdict"] == "correct"
    assert (await call(bank, "list_templates", {})).is_error is False
