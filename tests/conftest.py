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
#: ../shared/reference beside the checkout (CI lays a copy of shared/ next to the clone).
REFERENCE_DIR = Path(os.environ.get("QUIZZER_REFERENCE_DIR", REPO_ROOT.parent / "shared" / "reference"))


def _load(name: str) -> Any:
    path = REFERENCE_DIR / name
    if not path.is_file():
        pytest.fail(f"reference file missing: {path} (set QUIZZER_REFERENCE_DIR)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def real_models() -> dict[str, dict[str, Any]]:
    """real_models.json keyed by model name."""
    return {m["name"]: m for m in _load("real_models.json")["models"]}


@pytest.fixture(scope="session")
def problems() -> dict[str, dict[str, Any]]:
    """problems.json keyed by problem id."""
    data = _load("problems.json")
    items = data["problems"] if isinstance(data, dict) else data
    return {p["id"]: p for p in items}


@pytest.fixture(autouse=True)
def _private_history(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test, and every quizzer subprocess it starts, gets a fresh history and no config (not yours)."""
    folder = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("QUIZZER_DB", str(folder / "history.sqlite3"))
    monkeypatch.setenv("QUIZZER_CONFIG", str(folder / "config.toml"))  # none: the defaults, not yours
