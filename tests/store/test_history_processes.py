"""HistoryStore across processes: a SIGKILL loses no committed attempt, and two writers share one file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Run in the child and in the test: attempt ``i`` of writer ``who``.
MAKE = """
from quizzer.session.records import Attempt

def make(i, who="a"):
    return Attempt(
        f"template-{i % 5}", i, {"n": i, "big": 10**25 + i, "who": who, "x": i / 7}, f"{i}e23",
        None if i % 4 == 0 else i * 10**23 + 1, 3 * 10**23 + i, "FLOPs", "close", i / 3, None, i * 0.25,
        i % 3, "drill", 1_700_000_000.5 + i, who, "flops", 1.5,
    )
"""

RECORD_FOREVER = (
    MAKE
    + """
import sys
from quizzer.store.history import HistoryStore

store = HistoryStore.open(sys.argv[1])
i = 0
while True:
    store.record(make(i))
    print(i, flush=True)
    i += 1
"""
)

RECORD_N = (
    MAKE
    + """
import os
import sys
from quizzer.store.history import HistoryStore

path, who, n, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
print("ready", flush=True)
while not os.path.exists(go):  # spin, so both start within microseconds: open (create the schema) and write
    pass
store = HistoryStore.open(path)
for i in range(n):
    store.record(make(i, who))
print(f"warning={store.warning}", flush=True)
store.close()
"""
)

OPEN_ROUNDS = (
    MAKE
    + """
import sys
import time
from quizzer.store.history import HistoryStore

folder, who, start, rounds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
for k in range(rounds):
    while time.time() < start + 0.04 * k:  # both processes spin to the same instant, then open a new file
        pass
    store = HistoryStore.open(f"{folder}/history-{k}.db")
    store.record(make(k, who))
    print(f"warning={store.warning}", flush=True)
    store.close()
"""
)


def make(i: int, who: str = "a") -> Attempt:
    namespace: dict[str, Any] = {}
    exec(MAKE, namespace)
    return namespace["make"](i, who)


def fields(a: Attempt) -> list[tuple[str, type, Any]]:
    return [(name, type(value), value) for name, value in a.as_dict().items()]


def integrity(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def child(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_every_attempt_recorded_before_a_sigkill_is_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    proc = child(RECORD_FOREVER, str(path))
    assert proc.stdout is not None
    seen = 60
    try:
        for i in range(seen):
            assert proc.stdout.readline() == f"{i}\n"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        assert proc.stdin is not None
        proc.stdin.close()
    assert proc.returncode == -signal.SIGKILL
    assert integrity(path) == ["ok"]
    store = HistoryStore.open(str(path))
    assert store.warning is None
    got = store.attempts()
    assert len(got) >= seen
    assert [fields(a) for a in got[:seen]] == [fields(make(i)) for i in range(seen)]
    store.close()


def test_two_processes_record_into_one_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    n = 300
    go = tmp_path / "go"
    procs = [child(RECORD_N, str(path), who, str(n), str(go)) for who in ("a", "b")]
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline() == "ready\n"
        go.touch()
        outputs = [proc.communicate(timeout=60)[0] for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert [proc.returncode for proc in procs] == [0, 0]
    assert outputs == ["warning=None\n", "warning=None\n"]
    assert integrity(path) == ["ok"]
    store = HistoryStore.open(str(path))
    got = store.attempts()
    assert store.count() == len(got) == 2 * n
    for who in ("a", "b"):  # each writer's attempts, whole and in its own order
        assert [a for a in got if a.session == who] == [make(i, who) for i in range(n)]
    store.close()


def test_two_processes_creating_the_same_new_file_at_once_both_use_it(tmp_path: Path) -> None:
    rounds = 25
    start = time.time() + 1.0  # time for both to start and import
    procs = [child(OPEN_ROUNDS, str(tmp_path), who, str(start), str(rounds)) for who in ("a", "b")]
    outputs = [proc.communicate(timeout=60)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert outputs == ["warning=None\n" * rounds] * 2
    for k in range(rounds):
        path = tmp_path / f"history-{k}.db"
        assert integrity(path) == ["ok"]
        store = HistoryStore.open(str(path))
        assert sorted(store.attempts(), key=lambda a: a.session) == [make(k, "a"), make(k, "b")]
        store.close()
