"""The theme picked in the app is saved to config.toml, keeping the user's comments, and used at the next
start; a file that cannot be written gets one notification and stays as it was."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.loader import load_bank
from quizzer.config import ConfigError, Settings, load_settings, save_setting
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from tests.store.faultkit import immutable, immutable_unsupported

PACK = Path(__file__).resolve().parent / "data" / "tui"
SIZE = (100, 32)

#: A user's file: comments above, beside and below values, blank lines, a table with its own comments.
USERS_FILE = b"""\
# my quizzer settings, kept in my dotfiles

mock_count = 5      # five questions: I have a train to catch
mock_minutes = 12.5

# vim keys
[keymap]
drill-next = "j"   # next question
# drill-hint = "ctrl+h"
"""


def app_for(path: Path) -> QuizzerApp:
    """The app as `quizzer` starts it: the settings read from ``path``, which is where the theme is saved."""
    bank = load_bank([str(PACK)])
    bank.templates()
    return QuizzerApp(
        [str(PACK)],
        seed_source=lambda: 7,
        bank=bank,
        store=HistoryStore.memory(),
        settings=load_settings(str(path)),
        config_path=str(path),
    )


def record_notifications(app: QuizzerApp) -> list[dict[str, Any]]:
    """Every notify() call of ``app`` from now on: its message and keywords."""
    calls: list[dict[str, Any]] = []
    notify = app.notify

    def recording(message: str, **kwargs: Any) -> None:
        calls.append({"message": message, **kwargs})
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return calls


async def pick_theme(app: QuizzerApp, theme: str) -> None:
    """Run the app, set its theme as the palette's theme switcher does, and quit."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = theme
        await pilot.pause()


def without_theme_line(text: bytes) -> bytes:
    return b"".join(line for line in text.splitlines(keepends=True) if not line.startswith(b"theme ="))


# --- saved, kept, applied ----------------------------------------------------------------------------------


async def test_a_picked_theme_is_saved_keeping_every_comment(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(USERS_FILE)
    await pick_theme(app_for(path), "nord")
    saved = path.read_bytes()
    assert b'theme = "nord"\n' in saved.splitlines(keepends=True)
    assert without_theme_line(saved) == USERS_FILE
    assert load_settings(str(path)) == Settings(
        mock_count=5, mock_minutes=12.5, theme="nord", keymap=(("drill-next", "j"),)
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            b'# top\ntheme = "dracula"   # dark, for the evening\nmock_count = 5\n',
            b'# top\ntheme = "nord"   # dark, for the evening\nmock_count = 5\n',
        ),
        (b"theme='dracula'\r\nmock_count = 5\r\n", b'theme="nord"\r\nmock_count = 5\r\n'),
    ],
)
async def test_a_theme_already_there_is_changed_in_place_with_its_comment(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(before)
    await pick_theme(app_for(path), "nord")
    assert path.read_bytes() == after


async def test_the_saved_theme_is_the_theme_at_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(USERS_FILE)
    await pick_theme(app_for(path), "gruvbox")
    again = app_for(path)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "gruvbox"
        assert again.current_theme.name == "gruvbox"
    assert without_theme_line(path.read_bytes()) == USERS_FILE  # starting wrote nothing


async def test_starting_and_quitting_write_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "nord"  # mine\n')
    os.utime(path, (1_000_000, 1_000_000))
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = "nord"  # the theme it already has
        await pilot.pause()
    assert path.read_bytes() == b'theme = "nord"  # mine\n'
    assert path.stat().st_mtime == 1_000_000


async def test_an_app_without_a_config_path_saves_nothing(tmp_path: Path) -> None:
    bank = load_bank([str(PACK)])
    app = QuizzerApp([str(PACK)], bank=bank, store=HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = "nord"
        await pilot.pause()
    assert list(tmp_path.iterdir()) == []


async def test_a_missing_config_is_created_with_a_commented_header(tmp_path: Path) -> None:
    path = tmp_path / "not" / "yet" / "config.toml"
    await pick_theme(app_for(path), "nord")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ")
    assert load_settings(str(path)) == Settings(theme="nord")
    # the header's examples are real settings: uncommented, they are read, and none falls into [keymap]
    uncommented = "\n".join(
        line.removeprefix("# ")
        if line.startswith(("# new_per_day", "# mock_", "# [keymap]", "# drill-"))
        else line
        for line in text.splitlines()
    )
    path.write_text(uncommented, encoding="utf-8")
    assert load_settings(str(path)) == Settings(
        new_per_day=10, mock_count=8, mock_minutes=20.0, theme="nord", keymap=(("drill-next", "j"),)
    )
    assert os.listdir(path.parent) == ["config.toml"]  # no temporary file left


async def test_an_unknown_theme_in_the_file_is_a_one_line_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nrod"\n')
    with pytest.raises(ConfigError) as info:
        app_for(path)
    assert str(info.value) == f"{path}: theme: there is no theme 'nrod' (did you mean 'nord'?)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("theme = 3\n", 'theme must be the name of a theme, e.g. "nord"'),
        ('theme = "  "\n', 'theme must be the name of a theme, e.g. "nord"'),
        ("tehme = 'nord'\n", "unknown key 'tehme' (did you mean 'theme'?)"),
    ],
)
def test_a_bad_theme_value_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    assert str(info.value).startswith(f"{path}: {message}")


# --- a file that cannot be written ----------------------------------------------------------------------


async def _fails_once_and_keeps(path: Path, reason: str) -> None:
    """Picking a theme gives one error notification (naming the file, one line); the file stays as it was."""
    before = path.read_bytes()
    app = app_for(path)
    calls = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.theme = "nord"
        await pilot.pause()
        errors = [c for c in calls if c.get("severity") == "error"]
        assert len(errors) == 1
        message = errors[0]["message"]
        assert message.startswith(f"{path}: cannot save the theme: ")
        assert reason in message
        assert "\n" not in message
        assert "Traceback" not in message
        assert errors[0]["markup"] is False  # a path with [brackets] is not markup
        assert app.is_running  # the app goes on
    assert path.read_bytes() == before
    assert sorted(os.listdir(path.parent)) == ["config.toml"]


async def test_a_read_only_config_gets_one_notification_and_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(USERS_FILE)
    path.chmod(0o444)  # read-only on purpose (root could write it: the app must not)
    try:
        await _fails_once_and_keeps(path, "the file is read-only")
    finally:
        path.chmod(0o644)


@pytest.mark.parametrize("what", ["file", "folder"])
async def test_an_immutable_file_or_folder_gets_one_notification_and_is_unchanged(
    tmp_path: Path, what: str
) -> None:
    problem = immutable_unsupported(tmp_path)
    if problem is not None:
        pytest.skip(problem)
    path = tmp_path / "config.toml"
    path.write_bytes(USERS_FILE)
    with immutable(path if what == "file" else tmp_path):
        await _fails_once_and_keeps(path, "not permitted")


def test_a_failed_rename_leaves_the_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(USERS_FILE)

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(ConfigError, match="cannot save the theme: No space left on device"):
        save_setting(str(path), "theme", "nord")
    assert path.read_bytes() == USERS_FILE
    assert os.listdir(tmp_path) == ["config.toml"]


def test_a_file_that_is_not_toml_any_more_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"mock_count = \n")  # broken while the app ran
    with pytest.raises(ConfigError, match=f"{path}: cannot save the theme: TOML syntax error"):
        save_setting(str(path), "theme", "nord")
    assert path.read_bytes() == b"mock_count = \n"


# --- how the file is replaced -----------------------------------------------------------------------------


def test_the_files_permissions_and_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"# mine\r\nmock_count = 5\r\n")
    path.chmod(0o640)
    save_setting(str(path), "theme", "nord")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_bytes() == b'# mine\r\nmock_count = 5\r\ntheme = "nord"\r\n'


def test_a_symlinked_config_writes_its_target_and_stays_a_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "quizzer.toml"
    target.write_bytes(b"mock_count = 5\n")
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    save_setting(str(link), "theme", "nord")
    assert link.is_symlink()
    assert target.read_bytes() == b'mock_count = 5\ntheme = "nord"\n'
    assert sorted(os.listdir(dotfiles)) == ["quizzer.toml"]


def test_only_the_keys_the_app_owns_are_saved(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="saves only theme"):
        save_setting(str(tmp_path / "config.toml"), "mock_count", "3")
    assert list(tmp_path.iterdir()) == []


# --- quizzer config path ----------------------------------------------------------------------------------


def _config_path(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizzer", "config", "path"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_config_path_prints_quizzer_config(tmp_path: Path) -> None:
    mine = tmp_path / "elsewhere" / "mine.toml"
    proc = _config_path({**os.environ, "QUIZZER_CONFIG": str(mine)})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{mine}\n", "")
    assert not mine.parent.exists()  # printing the path creates nothing


def test_config_path_without_quizzer_config_is_in_the_user_config_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QUIZZER_CONFIG"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    proc = _config_path(env)
    assert proc.returncode == 0
    if sys.platform.startswith("linux"):
        assert proc.stdout == f"{tmp_path / 'xdg' / 'quizzer' / 'config.toml'}\n"
    else:
        assert proc.stdout.strip().endswith("config.toml")
