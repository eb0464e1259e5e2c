"""The server in this process, spoken to through the SDK's client over memory streams (JSON-RPC framed).

The SDK is imported by the calls, not here: every xdist worker collects this folder, and importing ``mcp``
costs ~0.5 s that only the worker running these tests needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_types import CallToolResult, Tool

    from quizzer.bank.loader import Bank

#: A pack of chains (tests/data/chains): carried-forward credit is graded on its small numbers.
CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains"
#: What `quizzer CMD` is given so that it loads the same pack.
PACK = ("--questions", str(CHAINS))


async def call(bank: Bank, name: str, arguments: dict[str, Any], *, mode: str = "legacy") -> CallToolResult:
    """One tool call through a fresh client session: ``legacy`` is the initialize handshake and JSON-RPC
    over memory streams (what stdio clients speak today); ``auto`` the SDK's newer direct dispatch."""
    from mcp import Client

    from quizzer.commands.mcp_server import build_server

    async with Client(build_server(bank), mode=mode) as client:
        return await client.call_tool(name, arguments)


def text(got: CallToolResult) -> str:
    """The one text block a result holds (the JSON of a result, or an error's message)."""
    from mcp_types import TextContent

    [block] = got.content
    assert isinstance(block, TextContent)
    return block.text


async def result(bank: Bank, name: str, arguments: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The structured result of a call that must succeed; its text content is the same JSON."""
    got = await call(bank, name, arguments, **kwargs)
    assert not got.is_error, got.content
    assert got.structured_content is not None
    assert json.loads(text(got)) == got.structured_content
    return got.structured_content


async def error(bank: Bank, name: str, arguments: dict[str, Any]) -> str:
    """The text of a call that must come back as a tool error (never a protocol error or a crash)."""
    got = await call(bank, name, arguments)
    assert got.is_error, got.structured_content
    said = text(got)
    prefix = f"Error executing tool {name}: "
    assert said.startswith(prefix), said  # the SDK's prefix for an error the tool raised on purpose
    return said[len(prefix) :]


async def tools(bank: Bank) -> dict[str, Tool]:
    """The tools the server lists, by name."""
    from mcp import Client

    from quizzer.commands.mcp_server import build_server

    async with Client(build_server(bank), mode="legacy") as client:
        return {t.name: t for t in (await client.list_tools()).tools}
