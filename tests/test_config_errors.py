"""Every way config.toml can fail is one line naming the file (and the key where there is one), exit code 2,
no traceback: bytes that are not UTF-8, arrays nested past the recursion limit, a folder or a FIFO in place
of the file, a file too large; and a [keymap] key that Textual cannot bind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from quizzer.config import ConfigError, Settings, load_settings, save_setting

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "config.toml"
    path.write_bytes(data)
    return path


#: name -> (what config.toml holds, a part of the one-line message)
BROKEN = {
    "not UTF-8": (
        b'theme = "nord"\nmock_count = 5 # caf\xe9\n',
        "is not UTF-8 text: byte 0xe9 at line 2, column 21",
    ),
    "nested arrays": (b"mock_count = " + b"[" * 5_000 + b"]" * 5_000 + b"\n", "nest too deeply to read"),
    "nested tables": (b"x = " + b"{a = " * 5_000 + b"1" + b"}" * 5_000 + b"\n", "nest too deeply to read"),
    "an integer of 5,000 digits": (b"mock_count = " + b"7" * 5_000 + b"\n", "more than 4,300 digits"),
    "over 1 MiB": (b"# " + b"x" * (1 << 20) + b"\n", "over the limit of 1,048,576"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_file_that_cannot_be_read_is_a_config_error_naming_it(tmp_path: Path, name: str) -> None:
    data, message = BROKEN[name]
    path = write(tmp_path, data)
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    text = str(info.value)
    assert text.startswith(f"{path}: ")
    assert message in text
    assert "\n" not in text


def test_a_folder_in_place_of_the_file_is_named_as_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.mkdir()
    with pytest.raises(ConfigError, match=r"config\.toml: cannot read it: it is a folder, not a file$"):
        load_settings(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_in_place_of_the_file_is_named_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    error = _within(5, lambda: load_settings(str(path)), path)
    assert isinstance(error, ConfigError)
    assert str(error) == f"{path}: cannot read it: it is a named pipe (FIFO), not a file"
    error = _within(5, lambda: save_setting(str(path), "theme", "nord"), path)
    assert isinstance(error, ConfigError)
    assert str(error) == f"{path}: cannot save the theme: it is a named pipe (FIFO), not a file"


def test_an_unreadable_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the user may not read (mode 000; root reads any, so the refusal is the system call's)."""
    path = write(tmp_path, b"mock_count = 5\n")
    real_open = os.open

    def refusing_open(name, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(name) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(ConfigError, match=r"config\.toml: cannot read it: Permission denied$"):
        load_settings(str(path))


def _within(seconds: float, call: Callable[[], object], fifo: Path) -> BaseException:
    """The exception ``call()`` raises, run in a thread; the test fails if it is still running after
    ``seconds`` (the FIFO is then opened for writing, which releases a reader blocked in open())."""
    caught: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join(5)
        pytest.fail(f"still reading the FIFO after {seconds} s")
    assert caught, "no error raised"
    return caught[0]


def _drill(config: Path) -> subprocess.CompletedProcess[str]:
    """``quizzer drill`` with ``config`` as its settings: it must stop before the app starts."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "quizzer", "drill"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO), "QUIZZER_CONFIG": str(config)},
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("quizzer drill was still running after 60 s (blocked reading config.toml?)")


def _assert_one_line(proc: subprocess.CompletedProcess[str], config: Path, message: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"quizzer drill: {config}: ")
    assert message in proc.stderr


@pytest.mark.parametrize("name", ["not UTF-8", "nested arrays", "an integer of 5,000 digits"])
def test_the_app_verbs_print_one_line_and_exit_2_without_a_traceback(tmp_path: Path, name: str) -> None:
    data, message = BROKEN[name]
    path = write(tmp_path, data)
    _assert_one_line(_drill(path), path, message)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_the_app_verbs_name_a_fifo_in_place_of_the_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    _assert_one_line(_drill(path), path, "it is a named pipe (FIFO), not a file")


# --- [keymap] keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ("ctrl+shift+nonsense", "'ctrl+shift+nonsense' is not a key: 'nonsense' is no key Textual knows"),
        ("j,ctrl+nonsense", "'ctrl+nonsense' is not a key: 'nonsense' is no key Textual knows"),
        ("F1", "'F1' is not a key: 'F1' is no key Textual knows"),  # Textual's names are lower case
        ("ctrl+", "'ctrl+' is not a key: no key follows the modifiers"),
        ("ctrl++", "'ctrl++' is not a key: '' is no modifier"),
        ("cmd+a", "'cmd+a' is not a key: 'cmd' is no modifier (ctrl, shift, alt, meta, super, hyper)"),
        ("ctrl+ctrl+a", "'ctrl+ctrl+a' is not a key: 'ctrl' is given twice"),
        ("latin_small_letter_a", "no key Textual knows"),  # Textual names a letter by itself: "a"
        ("hyphen_minus", "no key Textual knows"),  # Textual calls it "minus"
        ("\\u001b", "'\\x1b' is not a key: a key must be a printable character"),
    ],
)
def test_a_key_textual_cannot_bind_is_an_error_naming_the_file_and_the_binding(
    tmp_path: Path, keys: str, message: str
) -> None:
    path = write(tmp_path, f'[keymap]\ndrill-hint = "k"\ndrill-next = "{keys}"\n'.encode())
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    assert str(info.value).startswith(f"{path}: keymap.drill-next: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_the_app_verbs_print_an_invalid_key_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, b'[keymap]\ndrill-next = "ctrl+shift+nonsense"\n')
    _assert_one_line(_drill(path), path, "keymap.drill-next: 'ctrl+shift+nonsense' is not a key")


def _textual_key_names() -> set[str]:
    """The names of the keys Textual reads from a terminal (not the characters): the oracle for KEY_NAMES."""
    from textual._keyboard_protocol import FUNCTIONAL_KEYS
    from textual.keys import KEY_ALIASES, Keys

    names = {key.value.rpartition("+")[2] for key in Keys if not key.value.startswith("<")}
    names.discard("ctrl-at")  # Keys.ControlSpace's value, which nothing in Textual produces (it sends ctrl+@)
    names |= set(FUNCTIONAL_KEYS.values())
    names |= {alias for aliases in KEY_ALIASES.values() for alias in aliases if "+" not in alias}
    return names


def test_every_key_textual_names_is_accepted_with_any_modifiers(tmp_path: Path) -> None:
    from textual.keys import _character_to_key

    characters = [chr(c) for c in range(0x21, 0x7F)] + list("£€§°µé×÷→←")
    keys = sorted(_textual_key_names() | {_character_to_key(c) for c in characters} | set(characters))
    keys = [k for k in keys if k != ","]  # the separator
    for modifiers in ("", "ctrl+", "shift+", "ctrl+shift+", "alt+", "meta+", "super+hyper+"):
        # after a modifier "+" is written "plus": Textual splits "ctrl++" into ctrl, "" and ""
        bound = [modifiers + key for key in keys if not (modifiers and key == "+")]
        path = write(tmp_path, f"[keymap]\ndrill-next = {json.dumps(','.join(bound))}\n".encode())
        assert load_settings(str(path)).keymap[0][1].split(",") == bound


def test_the_written_out_key_names_are_all_textuals() -> None:
    """config.py lists the names without importing textual: none may be one Textual does not produce."""
    from quizzer.config import KEY_NAMES

    assert set(KEY_NAMES) - _textual_key_names() == set()


def test_keys_textual_can_bind_still_load(tmp_path: Path) -> None:
    path = write(
        tmp_path, b'[keymap]\ndrill-next = "j, ctrl+n"\nhelp = "?"\nquit = "ctrl+shift+up,f5,question_mark"\n'
    )
    assert load_settings(str(path)) == Settings(
        keymap=(("drill-next", "j,ctrl+n"), ("help", "?"), ("quit", "ctrl+shift+up,f5,question_mark"))
    )
