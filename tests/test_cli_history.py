"""History through the command line: killed or with a failing file mid-session, nothing graded is lost."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizzer.store.history import HistoryStore
from tests.store import faultkit

DATA = Path(__file__).resolve().parent / "data" / "good"


def read_until(proc: subprocess.Popen[bytes], marker: bytes, seen: bytearray, timeout: float = 30) -> None:
    """Read the child's stdout until ``marker`` has appeared once more than it had before."""
    want = seen.count(marker) + 1
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while seen.count(marker) < want:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} in {bytes(seen)[-300:]!r}"
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, f"the process ended: {bytes(seen)[-300:]!r}"
            seen.extend(chunk)


def test_sigkill_mid_session_loses_no_graded_attempt(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    cmd = [sys.executable, "-m", "quizzer", "plain", "--questions", str(DATA), "--topic", "testing"]
    proc = subprocess.Popen(
        [*cmd, "--seed", "3", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None
    seen = bytearray()
    try:
        read_until(proc, b"answer> ", seen)
        for answer in (b"12\n", b"\n", b"99999\n"):  # wrong, skipped, wrong: each graded and committed
            proc.stdin.write(answer)
            proc.stdin.flush()
            read_until(proc, b"answer> ", seen)  # the next question is asked: the last one was graded
        proc.stdin.write(b"5")  # typed, not submitted, when the process dies
        proc.stdin.flush()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.stdin.close()
        assert proc.stdout is not None
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    store = HistoryStore.open(str(db))
    try:
        attempts = store.attempts()
        assert store.warning is None
    finally:
        store.close()
    assert [a.verdict for a in attempts] == ["wrong", "skipped", "wrong"]
    assert [a.answer for a in attempts] == ["12", "", "99999"]
    assert {a.mode for a in attempts} == {"plain"}
    assert len({a.session for a in attempts}) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mock", "--count", "0"], "--count must be at least 1"),
        (["mock", "--minutes", "-3"], "--minutes more than 0"),
        (["study", "--new-per-day", "-1"], "--new-per-day cannot be negative"),
    ],
)
def test_bad_mode_options_exit_2_with_one_line(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_default_history_is_created_in_the_user_data_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QUIZZER_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path / "fresh" / "share")  # a folder that does not exist yet
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "plain", "--questions", str(DATA), "--count", "1", "--seed", "1"],
        input="12\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    store = HistoryStore.open(str(tmp_path / "fresh" / "share" / "quizzer" / "history.sqlite3"))
    try:
        assert [a.answer for a in store.attempts()] == ["12"]
    finally:
        store.close()


# --- faults while `quizzer plain` runs: said on stderr at once, nothing lost -------------------------------

PLAIN = [
    sys.executable,
    "-m",
    "quizzer",
    "plain",
    "--questions",
    str(DATA),
    "--topic",
    "testing",
    "--seed",
    "3",
]


def _plain(db: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`quizzer plain` on ``db`` with stderr merged into stdout, so the order of what it says is kept."""
    return subprocess.Popen(
        [*PLAIN, "--db", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )


def _answer(proc: subprocess.Popen[bytes], seen: bytearray, text: bytes = b"12\n") -> bytes:
    """Submit one answer; what the process printed until it asked the next question."""
    assert proc.stdin is not None
    start = len(seen)
    proc.stdin.write(text)
    proc.stdin.flush()
    read_until(proc, b"answer> ", seen)
    return bytes(seen[start:])


def _finish(proc: subprocess.Popen[bytes], seen: bytearray) -> str:
    """Ctrl-D; everything the process printed, once it has ended with status 0."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.close()
    seen.extend(proc.stdout.read())
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    text = seen.decode()
    assert "Traceback" not in text
    return text


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)


def test_plain_on_a_disk_that_fills_up_says_so_at_once_and_writes_all_once_freed(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    problem = faultkit.mount_small_disk(disk)
    if problem is not None:
        pytest.skip(f"no small filesystem to fill: {problem}")
    try:
        db = disk / "history.sqlite3"
        proc = _plain(db)
        seen = bytearray()
        try:
            read_until(proc, b"answer> ", seen)
            assert b"quizzer:" not in _answer(proc, seen)
            filler = faultkit.fill(disk)
            said = _answer(proc, seen).decode()  # the answer graded while the disk is full
            assert f"quizzer: warning: history is kept in memory: the disk holding {db} is full" in said
            assert "1 attempt held" in said
            assert "quizzer:" not in _answer(proc, seen).decode()  # held too, without a second warning
            filler.unlink()
            said = _answer(proc, seen).decode()
            assert f"quizzer: history is saved to {db} again: the 3 attempts held were written" in said
            out = _finish(proc, seen)
        finally:
            _stop(proc)
        assert out.count("quizzer:") == 2
        assert faultkit.rows_in_file(db) == 4
    finally:
        faultkit.unmount(disk)


def test_plain_on_an_immutable_file_saves_the_session_beside_it_and_stats_adds_it(tmp_path: Path) -> None:
    problem = faultkit.immutable_unsupported(tmp_path)
    if problem is not None:
        pytest.skip(problem)
    db = tmp_path / "history.sqlite3"
    HistoryStore.open(db).close()
    with faultkit.immutable(db):
        proc = _plain(db)
        seen = bytearray()
        try:
            read_until(proc, b"answer> ", seen)
            start = seen.decode()
            assert f"quizzer: warning: history is kept in memory: {db} cannot be written" in start
            for _ in range(3):
                _answer(proc, seen)
            out = _finish(proc, seen)
        finally:
            _stop(proc)
        (side,) = faultkit.side_files(db)
        end = out[out.rindex("score:") :]
        assert f"quizzer: warning: 3 attempts could not be written to {db} because" in end
        assert f"they were saved to {side}" in end
        assert [r["answer"] for r in faultkit.side_rows(side)] == ["12", "12", "12"]
    stats = subprocess.run(
        [sys.executable, "-m", "quizzer", "stats", "--json", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert stats.returncode == 0, stats.stderr
    assert (
        stats.stderr
        == f"quizzer: 3 attempts saved in {side} were added to the history and the file was removed\n"
    )
    assert json.loads(stats.stdout)["attempts"] == 3
    assert faultkit.side_files(db) == []


@pytest.mark.slow  # the first write waits out the 5 s busy timeout, as a real session would
def test_plain_while_another_process_holds_the_lock_says_so_and_writes_all_after(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    HistoryStore.open(db).close()
    proc = _plain(db)
    seen = bytearray()
    locker = None
    try:
        read_until(proc, b"answer> ", seen)
        _answer(proc, seen)
        locker = faultkit.Locker(db)
        said = _answer(proc, seen).decode()
        assert f"quizzer: warning: history is kept in memory: {db} is locked by another program" in said
        _answer(proc, seen)
        locker.release()
        said = _answer(proc, seen).decode()
        assert f"quizzer: history is saved to {db} again: the 3 attempts held were written" in said
        _finish(proc, seen)
    finally:
        _stop(proc)
        if locker is not None:
            locker.kill()
    assert faultkit.rows_in_file(db) == 4


def test_a_store_notice_is_printed_with_its_control_characters_escaped(capsys) -> None:  # type: ignore[no-untyped-def]
    """The app's verbs print the store's notices after the app exits, outside the other verbs' escaping
    stream: a history path holding an escape sequence must not reach the terminal raw."""
    from quizzer.commands.history import print_notice

    print_notice("warning", "history.sqlite3\x1b]0;pwned\x07 is read-only")
    err = capsys.readouterr().err
    assert err == "quizzer: warning: history.sqlite3\\x1b]0;pwned\\x07 is read-only\n"
