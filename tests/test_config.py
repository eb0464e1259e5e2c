"""config.toml: defaults without one, values read, and a clear one-line error for anything else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quizzer.config import ConfigError, Settings, load_settings


def test_no_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_settings(str(tmp_path / "none.toml")) == Settings(
        new_per_day=10, mock_count=8, mock_minutes=20.0
    )


def test_values_are_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("new_per_day = 3\nmock_count = 5\nmock_minutes = 12\n")
    settings = load_settings(str(path))
    assert (settings.new_per_day, settings.mock_count, settings.mock_minutes) == (3, 5, 12.0)
    assert isinstance(settings.mock_minutes, float)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("new_per_dya = 3\n", "unknown key 'new_per_dya' (did you mean 'new_per_day'?)"),
        ("mock_count = 2.5\n", "mock_count must be a whole number"),
        ("mock_count = true\n", "mock_count must be a whole number"),
        ("mock_count = 0\n", "mock_count must be at least 1"),
        ("mock_minutes = 0\n", "mock_minutes must be more than 0"),
        ("mock_minutes = 'ten'\n", "mock_minutes must be a number"),
        ("new_per_day = -1\n", "new_per_day must be at least 0"),
        ("new_per_day = \n", "TOML syntax error"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_the_cli_reports_a_bad_config_in_one_line_before_opening_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("mock_cuont = 3\n")
    monkeypatch.setenv("QUIZZER_CONFIG", str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "mock"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "unknown key 'mock_cuont' (did you mean 'mock_count'?)" in proc.stderr
    assert "Traceback" not in proc.stderr
