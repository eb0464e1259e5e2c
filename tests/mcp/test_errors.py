"""Bad input comes back as a tool error carrying the command line's message; the server keeps serving."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_served import PACK, error, result, text

from quizzer.bank.loader import Bank
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")


def cli_error(*args: str) -> str:
    """The one-line message `quizzer ARGS` exits 2 with, without its "quizzer VERB: " prefix."""
    ran = run_cli(*args, *(PACK if args[0] != "count" else ()))
    assert ran.returncode == 2, ran.stdout
    line = ran.stderr.strip()
    assert "\n" not in line
    assert "Traceback" not in line
    return line.removeprefix(f"quizzer {args[0]}: ")


@pytest.mark.parametrize(
    ("tool", "arguments", "cli"),
    [
        ("grade", {"ref": "kv-cache-byte#3", "answer": "5"}, ["grade", "kv-cache-byte#3", "5"]),
        ("pose", {"ref": "kv-cache-byte#3"}, ["show", "kv-cache-byte#3"]),
        ("explain", {"ref": "kv-cache-byte#3"}, ["show", "kv-cache-byte#3"]),
        ("grade", {"ref": "kv-cache-bytes#x", "answer": "5"}, ["grade", "kv-cache-bytes#x", "5"]),
        (
            "grade",
            {"ref": "embedding-table-params#1", "answer": "5", "part": 3},
            ["grade", "embedding-table-params#1", "5", "--part", "3"],
        ),
        (
            "grade",
            {"ref": "chain-arithmetic#3", "answer": "5", "part": 2, "given": {"3": "4"}},
            ["grade", "chain-arithmetic#3", "--part", "2", "5", "--given", "3=4"],
        ),
        (
            "grade",
            {"ref": "chain-arithmetic#3", "answer": "5", "part": 2, "given": {"1": "lots"}},
            ["grade", "chain-arithmetic#3", "--part", "2", "5", "--given", "1=lots"],
        ),
        (
            "grade",
            {"ref": "embedding-table-params#1", "answer": "5", "set": {"nosuch": 1}},
            ["grade", "embedding-table-params#1", "5", "--set", "nosuch=1"],
        ),
        (
            "pose",
            {"ref": "embedding-table-params#1", "model": "llama-3-8b"},
            ["show", "embedding-table-params#1", "--model", "llama-3-8b"],
        ),
        (
            "pose",
            {"ref": "preset-kv-bytes-per-token#3", "model": "llama-9"},
            ["show", "preset-kv-bytes-per-token#3", "--model", "llama-9"],
        ),
        ("count_model", {"model": "gpt2", "dtype": "fp7"}, ["count", "gpt2", "--dtype", "fp7"]),
        ("count_model", {"model": "gpt2", "batch": 0}, ["count", "gpt2", "--batch", "0"]),
        ("count_model", {"model": "/no/such/config.json"}, ["count", "/no/such/config.json"]),
    ],
)
async def test_an_error_is_the_command_lines_message(
    bank: Bank, tool: str, arguments: dict[str, Any], cli: list[str]
) -> None:
    assert await error(bank, tool, arguments) == cli_error(*cli)


async def test_an_unreadable_answer_is_graded_unparsed_as_the_command_line_grades_it(bank: Bank) -> None:
    """The candidate's answer, not the agent's mistake: the verdict "unparsed" and the grader's message
    saying what was understood, the JSON `quizzer grade --json` prints, never a tool error."""
    for typed in ("98,304,00", "lots", "98.3 GB"):
        ran = run_cli("grade", "embedding-table-params#1", typed, "--json", *PACK)
        got = await result(bank, "grade", {"ref": "embedding-table-params#1", "answer": typed})
        assert got == json.loads(ran.stdout)
        assert got["verdict"] == "unparsed"
    got = await result(bank, "grade", {"ref": "embedding-table-params#1", "answer": "98,304,00"})
    assert "groups of three" in got["message"]


async def test_an_unknown_preset_names_the_presets(bank: Bank) -> None:
    got = await error(bank, "count_model", {"model": "llama-3-8"})
    assert got.startswith(cli_error("count", "llama-3-8"))  # "... (did you mean 'llama-3-8b'?) ..."
    assert "did you mean 'llama-3-8b'" in got
    assert "; the presets: gpt2, " in got
    assert "mixtral-8x7b" in got


@pytest.mark.parametrize("tool", ["grade", "explain"])
async def test_grade_and_explain_need_the_instance_not_a_template(bank: Bank, tool: str) -> None:
    arguments = {"ref": "embedding-table-params"} | ({"answer": "98.3M"} if tool == "grade" else {})
    got = await error(bank, tool, arguments)
    assert got.startswith("'embedding-table-params' names no instance: give ID#SEED as pose returned it")


async def test_an_unknown_topic_lists_the_topics(bank: Bank) -> None:
    got = await error(bank, "list_templates", {"topic": "kv"})
    assert got.startswith("no templates in topic 'kv'; the topics: ")
    assert "kv-cache" in got
    assert "embeddings" in got


async def test_arguments_of_the_wrong_type_are_refused_and_the_server_goes_on(bank: Bank) -> None:
    from mcp import Client  # here: the SDK's import is this test's cost, not every worker's collection

    from quizzer.commands.mcp_server import build_server

    async with Client(build_server(bank), mode="legacy") as client:
        calls = [
            ("grade", {"ref": "embedding-table-params#1", "answer": "98.3M", "part": "two"}),
            ("grade", {"ref": "embedding-table-params#1"}),  # no answer
            ("count_model", {"model": "gpt2", "state_dtype": "fp16"}),  # fp32 or model
            ("no_such_tool", {}),
        ]
        for name, arguments in calls:
            got = await client.call_tool(name, arguments)
            assert got.is_error, (name, arguments)
            said = text(got)
            assert name in said
            assert said != f"Error executing tool {name}"  # the generic text of a crash says nothing more
        fine = await client.call_tool("grade", {"ref": "embedding-table-params#1", "answer": "98.3M"})
    assert not fine.is_error
    assert (fine.structured_content or {})["verdict"] == "correct"
