"""config.toml's settings of study toward a date: interview_date and daily_minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.config import _NEW_FILE_TOP, ConfigError, Settings, load_settings, save_setting


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings(str(path))


def test_no_date_and_thirty_minutes_by_default() -> None:
    assert (Settings().interview_date, Settings().daily_minutes) == (None, 30.0)


@pytest.mark.parametrize("text", ['interview_date = "2026-12-18"\n', "interview_date = 2026-12-18\n"])
def test_the_date_is_read_as_a_string_or_a_toml_date(tmp_path: Path, text: str) -> None:
    assert _load(tmp_path, text).interview_date == "2026-12-18"


def test_daily_minutes_is_read_as_a_number(tmp_path: Path) -> None:
    settings = _load(tmp_path, "daily_minutes = 45\n")
    assert settings.daily_minutes == 45.0
    assert isinstance(settings.daily_minutes, float)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('interview_date = "18/12/2026"\n', "interview_date must be a date written YYYY-MM-DD"),
        ('interview_date = "2026-02-30"\n', "interview_date must be a date written YYYY-MM-DD"),
        ("interview_date = 2026-12-18T09:00:00\n", "interview_date must be a date written YYYY-MM-DD"),
        ("interview_date = 20261218\n", "interview_date must be a date written YYYY-MM-DD"),
        ("daily_minutes = 0\n", "daily_minutes must be more than 0"),
        ("daily_minutes = 'half an hour'\n", "daily_minutes must be a number"),
        ("interview_dte = 2026-12-18\n", "(did you mean 'interview_date'?)"),
        ("daily_minute = 30\n", "(did you mean 'daily_minutes'?)"),
    ],
)
def test_bad_values_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    assert str(tmp_path / "config.toml") in str(info.value)
    assert message in str(info.value)


def test_the_header_examples_are_real_settings(tmp_path: Path) -> None:
    lines = [line for line in _NEW_FILE_TOP.splitlines() if line.startswith(("# interview_date", "# daily_"))]
    assert len(lines) == 2
    settings = _load(tmp_path, "\n".join(line.removeprefix("# ") for line in lines) + "\n")
    assert (settings.interview_date, settings.daily_minutes) == ("2026-12-18", 30.0)


def test_the_app_may_save_the_date_keeping_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\nnew_per_day = 4  # fewer\n", encoding="utf-8")
    save_setting(str(path), "interview_date", "2027-01-05")
    assert load_settings(str(path)) == Settings(new_per_day=4, interview_date="2027-01-05")
    assert "# fewer" in path.read_text(encoding="utf-8")
