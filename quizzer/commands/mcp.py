"""`quizzer mcp`: an MCP server on stdio giving AI agents quizzer's questions, grades and model counts."""

from __future__ import annotations

import argparse
import logging
import sys

from quizzer.commands.common import open_bank, warn_problems

#: What `quizzer mcp` says, in one line, when the optional extra is not installed.
MISSING_EXTRA = "quizzer mcp needs the mcp extra (the MCP Python SDK): pip install 'quizzer-ml[mcp]'"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Load the bank (and --questions packs), then serve MCP on stdin and stdout until stdin closes.

    Only the protocol is written to stdout: the SDK points file descriptor 1 at stderr while it serves,
    so a stray print cannot corrupt a message; the load's warnings and the server's log go to stderr."""
    try:
        from quizzer.commands.mcp_server import build_server
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in ("mcp", "mcp_types", "pydantic"):
            raise
        print(MISSING_EXTRA, file=sys.stderr)
        return 2
    bank = open_bank(args)
    warn_problems(bank)
    # The SDK's own logging set-up is a no-op once the root logger has a handler: plain lines on stderr.
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="quizzer mcp: %(levelname)s %(name)s: %(message)s"
    )
    server = build_server(bank)
    print(
        f"quizzer mcp: {len(bank.templates())} templates; serving MCP on stdin and stdout to its client",
        file=sys.stderr,
    )
    try:
        server.run("stdio")
    except KeyboardInterrupt:  # Ctrl+C in a terminal: the client is a person, and is done
        return 130
    return 0
