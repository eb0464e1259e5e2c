"""MCP test helpers: served.py beside this file talks to the server through the SDK's client session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_served import CHAINS

from quizzer.bank.loader import Bank, load_bank
from quizzer.paths import question_paths


@pytest.fixture(scope="module")
def bank() -> Bank:
    """The built-in bank and the chains test pack, loaded once per module (as `quizzer mcp --questions`)."""
    return load_bank(question_paths([str(CHAINS)]))
