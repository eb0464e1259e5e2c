"""`quizzer mcp` as an agent starts it: a subprocess speaking MCP on stdin and stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_served import PACK

from quizzer.commands.mcp import MISSING_EXTRA

TOOLS = {"list_templates", "pose", "grade", "explain", "count_model"}


def _environment() -> dict[str, str]:
    """The test's own settings for the server: the SDK starts it with a few safe variables only (PATH,
    HOME...), so the test's config (none) and history are passed on, as a client's "env" would."""
    return {name: value for name, value in os.environ.items() if name.startswith("QUIZZER_")}


async def test_an_agent_starts_quizzer_mcp_and_lists_its_tools(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters, stdio_client  # here: not in every worker's collection

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "quizzer", "mcp", *PACK], env=_environment()
    )
    with (tmp_path / "stderr.txt").open("w+", encoding="utf-8") as log:
        async with Client(stdio_client(params, errlog=log), mode="legacy") as client:
            assert client.server_info is not None
            assert client.server_info.name == "quizzer"
            assert "pose" in (client.instructions or "")
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            graded = await client.call_tool("grade", {"ref": "chain-arithmetic#3", "answer": "5"})
            assert not graded.is_error  # the pack given with --questions is served
        log.seek(0)
        stderr = log.read()
    assert "Traceback" not in stderr
    assert "quizzer mcp: " in stderr  # what it serves, said on stderr


def _request(number: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n"


def test_only_the_protocol_reaches_stdout() -> None:
    """JSON-RPC spoken by hand over pipes, as any client speaks it: each line on stdout is one message; the
    warning of a grade on own numbers goes to stderr. stdin closed, the server exits 0."""
    messages = [
        _request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "by-hand", "version": "0"},
            },
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n",
        _request(2, "tools/list", {}),
        _request(
            3,
            "tools/call",
            {
                "name": "grade",
                "arguments": {
                    "ref": "kv-cache-bytes#3",
                    "answer": "1 PB",
                    "set": {"seq_len": 1048576, "batch": 65536},
                },
            },
        ),
        _request(4, "tools/call", {"name": "grade", "arguments": {"ref": "nope#1", "answer": "5"}}),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "quizzer", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    answers = {}
    for message in messages:  # each answered before the next is sent: closing stdin ends the session
        proc.stdin.write(message)
        proc.stdin.flush()
        if '"id"' in message:
            line = proc.stdout.readline()
            reply = json.loads(line)
            assert reply["jsonrpc"] == "2.0"
            answers[reply["id"]] = reply
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == ""  # nothing more after the last answer
    assert {t["name"] for t in answers[2]["result"]["tools"]} == TOOLS
    graded = answers[3]["result"]
    assert not graded["isError"]
    assert graded["structuredContent"]["verdict"] == "wrong"  # a petabyte, for ~6.8 PB
    assert "quizzer: warning: outside this template's usual range" in err
    assert answers[4]["result"]["isError"]
    assert "no template 'nope'" in answers[4]["result"]["content"][0]["text"]
    assert "Traceback" not in err


def test_without_the_extra_it_says_how_to_install_it() -> None:
    code = "import sys; sys.modules['mcp'] = None\nfrom quizzer.cli import main\nsys.exit(main(['mcp']))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == MISSING_EXTRA
    assert "pip install 'quizzer-ml[mcp]'" in proc.stderr
    assert proc.stdout == ""


def test_the_server_never_loads_the_app_or_the_history() -> None:
    """Serving questions and grades reads no history (sqlite3, fsrs) and loads no TUI (textual)."""
    code = (
        "import sys, anyio\n"
        "from mcp import Client\n"
        "from quizzer.cli import main\n"
        "from quizzer.commands.common import open_bank\n"
        "from quizzer.commands.mcp_server import build_server\n"
        "async def calls():\n"
        "    async with Client(build_server(open_bank(object())), mode='legacy') as client:\n"
        "        for name, arguments in [('list_templates', {}), ('pose', {'ref': 'kv-cache-bytes#3'}),\n"
        "                ('grade', {'ref': 'kv-cache-bytes#3', 'answer': '5 GB'}),\n"
        "                ('explain', {'ref': 'kv-cache-bytes#3'}), ('count_model', {'model': 'gpt2'})]:\n"
        "            assert not (await client.call_tool(name, arguments)).is_error, name\n"
        "anyio.run(calls)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'sqlite3', 'fsrs')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"
