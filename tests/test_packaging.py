"""The wheel ships the built-in question bank and the presets: `pip install .` then `quizzer list` works."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_contains_the_bank_and_presets(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("quizzer_ml-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    banked = {p.name for p in (ROOT / "questions").glob("*.toml")}
    assert banked
    assert {f"quizzer/questions/{name}" for name in banked} <= names
    assert "quizzer/core/presets.toml" in names
    assert not any(name.startswith("tests/") for name in names)
