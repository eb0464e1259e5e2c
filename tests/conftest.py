"""Shared fixtures and Hypothesis profiles for the whole suite."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The figures the golden tests compare against, shipped with the suite (refreshed by ``make reference``).
REFERENCE_DIR = REPO_ROOT / "tests" / "data" / "reference"


def load_reference(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/data/reference/<name>``."""
    return json.loads((REFERENCE_DIR / name).read_text(encoding="utf-8"))["records"]


@pytest.fixture(scope="session")
def real_models() -> dict[str, dict[str, Any]]:
    """real_models.json keyed by model name."""
    return {m["name"]: m for m in load_reference("real_models.json")}


@pytest.fixture(scope="session")
def real_models_2025() -> dict[str, dict[str, Any]]:
    """real_models_2025.json (the 2025-26 architectures) keyed by model name."""
    return {m["name"]: m for m in load_reference("real_models_2025.json")}


@pytest.fixture(scope="session")
def problems() -> dict[str, dict[str, Any]]:
    """problems.json keyed by problem id."""
    return {p["id"]: p for p in load_reference("problems.json")}


@pytest.fixture(autouse=True)
def _private_history(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test, and every quizzer subprocess it starts, gets a fresh history and no config (not yours)."""
    folder = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("QUIZZER_DB", str(folder / "history.sqlite3"))
    monkeypatch.setenv("QUIZZER_CONFIG", str(folder / "config.toml"))  # none: the defaults, not yours
