"""History through the real command line: killed mid-session, nothing graded is lost; bad mode options."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizzer.store.history import HistoryStore

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
