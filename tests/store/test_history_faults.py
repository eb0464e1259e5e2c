"""Faults after open: a full disk, an immutable file, another process's lock: no attempt lost unannounced."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from quizzer.session.records import Attempt, CardState
from quizzer.store import db
from quizzer.store.history import HistoryStore
from tests.store.faultkit import (
    Locker,
    as_attempt,
    fill,
    immutable,
    make,
    rows_in_file,
    side_files,
    side_rows,
)

IN_MEMORY = "history is kept in memory: "


class Notices:
    """An on_notice callback that keeps what it was told."""

    def __init__(self) -> None:
        self.got: list[tuple[str, str]] = []

    def __call__(self, severity: str, message: str) -> None:
        self.got.append((severity, message))

    def take(self) -> list[tuple[str, str]]:
        got, self.got = self.got, []
        return got


@pytest.fixture
def notices() -> Notices:
    return Notices()


def _opened(path: Path, notices: Notices, **kwargs: Any) -> HistoryStore:
    store = HistoryStore.open(path, on_notice=notices, **kwargs)
    assert notices.take() == []
    assert store.saved_to_file
    return store


def _saved(path: Path, n: int) -> list[Attempt]:
    """``n`` attempts already in the file at ``path``, closed cleanly (no -wal left)."""
    store = HistoryStore.open(path)
    made = [make(i, "before") for i in range(n)]
    for a in made:
        store.record(a)
    store.close()
    assert not Path(f"{path}-wal").exists()
    return made


# --- a full disk -------------------------------------------------------------------------------------------


def test_disk_full_mid_session_holds_and_announces_then_writes_all_when_space_is_freed(
    small_disk: Path, notices: Notices
) -> None:
    path = small_disk / "history.db"
    store = _opened(path, notices)
    before = [make(i) for i in range(5)]
    for a in before:
        store.record(a)
    filler = fill(small_disk)
    during = [make(i) for i in range(5, 15)]
    store.record(during[0])
    ((severity, message),) = notices.take()  # at once, at the first attempt the file refused
    assert severity == "warning"
    assert message.startswith(IN_MEMORY)
    assert f"the disk holding {path} is full" in message
    assert "1 attempt held" in message
    for a in during[1:]:
        store.record(a)
    assert notices.take() == []  # one notice per fault, not one per attempt
    assert (store.pending_count, store.saved_to_file, store.path) == (10, False, None)
    assert store.warning == message
    assert store.attempts() == before + during  # reads include what is held
    assert store.count() == 15
    assert rows_in_file(path) == 5
    filler.unlink()
    last = make(15)
    store.record(last)
    assert notices.take() == [
        ("information", f"history is saved to {path} again: the 11 attempts held were written")
    ]
    assert (store.pending_count, store.saved_to_file, store.path, store.warning) == (0, True, str(path), None)
    assert rows_in_file(path) == 16
    store.close()
    assert notices.take() == []
    assert side_files(path) == []
    again = HistoryStore.open(path)
    assert again.attempts() == [*before, *during, last]
    again.close()


def test_a_disk_full_until_exit_saves_the_held_attempts_in_the_temporary_folder(
    small_disk: Path, notices: Notices, private_tmp: Path
) -> None:
    path = small_disk / "history.db"
    store = _opened(path, notices)
    store.record(make(0))
    fill(small_disk)
    held = [make(i) for i in range(1, 4)]
    for a in held:
        store.record(a)
    assert store.pending_count == 3
    notices.take()
    store.close()
    assert side_files(path) == []  # no room beside the database
    (side,) = side_files(path, private_tmp)
    assert [as_attempt(r) for r in side_rows(side)] == held
    ((severity, message),) = notices.take()
    assert severity == "warning"
    assert f"3 attempts could not be written to {path} because the disk holding {path} is full" in message
    assert f"{side}" in message
    assert "No space left on device" in message  # why not beside it
    assert f"move that file next to {path}" in message
    assert (store.saved_to, store.warning) == (str(side), message)


def test_with_nowhere_to_save_them_the_held_attempts_go_to_stderr(
    small_disk: Path, notices: Notices, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    path = small_disk / "history.db"
    store = _opened(path, notices)
    fill(small_disk)
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk))  # the temporary folder is full too
    held = [make(1), make(2)]
    for a in held:
        store.record(a)
    store.put_card(CardState("a", '{"s": 1}', 1.0, 2.0))
    notices.take()
    store.close()
    lines = capsys.readouterr().err.splitlines()
    import json

    assert [as_attempt(json.loads(line)) for line in lines[:2]] == held
    assert json.loads(lines[2]) == {
        "card": {
            "template_id": "a",
            "card_json": '{"s": 1}',
            "introduced": 1.0,
            "due": 2.0,
            "lapses": 0,
            "suspended": None,
            "review_log": None,
        }
    }
    assert len(lines) == 3
    ((severity, message),) = notices.take()
    assert severity == "error"
    assert "2 attempts and 1 study card could not be written" in message
    assert "printed above on stderr" in message
    assert store.saved_to is None
    assert side_files(path) == []


def test_a_full_database_mid_session_holds_then_writes_when_there_is_room(
    tmp_path: Path, notices: Notices, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Runs everywhere (no mount): SQLite's max_page_count makes the file "full" for real, with SQLITE_FULL.
    real_connect = db.connect
    conns: list[sqlite3.Connection] = []

    def capped(path: str, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(path, **kwargs)
        conns.append(conn)
        return conn

    monkeypatch.setattr(db, "connect", capped)
    path = tmp_path / "history.db"
    store = _opened(path, notices)
    store.record(make(0))
    (conn,) = conns
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    made = [make(i) for i in range(1, 200)]
    for a in made:
        store.record(a)
    (fell_back,) = notices.take()
    assert fell_back[0] == "warning"
    assert f"the disk holding {path} is full" in fell_back[1]
    assert "1 attempt held" in fell_back[1]
    in_file = rows_in_file(path)
    assert 1 < in_file < 200  # filled mid-session
    assert store.pending_count == 200 - in_file
    assert store.attempts() == [make(0), *made]
    conn.execute(f"PRAGMA max_page_count = {pages * 100}")
    store.record(make(200))
    assert notices.take() == [
        ("information", f"history is saved to {path} again: the {201 - in_file} attempts held were written")
    ]
    assert rows_in_file(path) == 201
    store.close()
    assert conns == [conn]  # the retries used the open connection
    assert side_files(path) == []


# --- an immutable file -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("immutable_ok")
def test_an_immutable_file_holds_the_session_in_a_side_file_that_the_next_open_adds(
    tmp_path: Path, notices: Notices
) -> None:
    path = tmp_path / "history.db"
    saved = _saved(path, 2)
    before = path.read_bytes()
    made = [make(i) for i in range(3)]
    with immutable(path):
        store = HistoryStore.open(path, on_notice=notices)
        ((severity, message),) = notices.take()  # at open: SQLite alone would open it read-only, silently
        assert severity == "warning"
        assert message.startswith(IN_MEMORY)
        assert f"{path} cannot be written: operation not permitted" in message
        assert store.attempts() == saved  # a copy of the file, for this session's stats
        for a in made:
            store.record(a)  # each one tries the file again
        assert (store.pending_count, store.count()) == (3, 5)
        assert notices.take() == []
        store.close()
        assert path.read_bytes() == before
    (side,) = side_files(path)
    assert [as_attempt(r) for r in side_rows(side)] == made
    ((severity, message),) = notices.take()
    assert severity == "warning"
    assert message == (
        f"3 attempts could not be written to {path} because {path} cannot be written: operation not"
        f" permitted, as for an immutable file; they were saved to {side} and are added to the history when"
        " it next opens"
    )
    again = HistoryStore.open(path, on_notice=notices)
    assert again.attempts() == [*saved, *made]
    assert notices.take() == [
        ("information", f"3 attempts saved in {side} were added to the history and the file was removed")
    ]
    assert again.warning is None
    assert side_files(path) == []
    again.close()


@pytest.mark.usefixtures("immutable_ok")
def test_a_file_made_immutable_mid_session_holds_until_it_is_writable_again(
    tmp_path: Path, notices: Notices
) -> None:
    path = tmp_path / "history.db"
    store = _opened(path, notices)
    store.record(make(0))
    wal = Path(f"{path}-wal")
    with immutable(path, wal):
        store.record(make(1))
        store.record(make(2))
        ((severity, message),) = notices.take()
        assert severity == "warning"
        assert f"{path} cannot be written: operation not permitted" in message
        assert "1 attempt held" in message
        assert store.pending_count == 2
    store.record(make(3))
    assert notices.take() == [
        ("information", f"history is saved to {path} again: the 3 attempts held were written")
    ]
    store.close()
    assert rows_in_file(path) == 4
    assert side_files(path) == []


# --- another process's lock --------------------------------------------------------------------------------


def test_an_exclusive_lock_mid_session_holds_until_released_then_writes_everything(
    tmp_path: Path, notices: Notices
) -> None:
    path = tmp_path / "history.db"
    store = _opened(path, notices, busy_timeout_ms=50)
    store.record(make(0))
    store.record(make(1))
    locker = Locker(path)
    try:
        for i in range(2, 5):
            store.record(make(i))
        ((severity, message),) = notices.take()
        assert severity == "warning"
        assert f"{path} is locked by another program" in message
        assert "1 attempt held" in message
        assert (store.pending_count, store.count()) == (3, 5)
        locker.release()
    finally:
        locker.kill()
    store.record(make(5))
    assert notices.take() == [
        ("information", f"history is saved to {path} again: the 4 attempts held were written")
    ]
    assert [c.template_id for c in store.cards()] == ["from-the-other-process"]
    store.close()
    again = HistoryStore.open(path)
    assert again.attempts() == [make(i) for i in range(6)]
    again.close()


def test_two_identical_attempts_held_under_a_lock_both_land(tmp_path: Path, notices: Notices) -> None:
    """Held changes are written as they were made: the same attempt twice is two attempts, not one."""
    path = tmp_path / "history.db"
    store = _opened(path, notices, busy_timeout_ms=50)
    locker = Locker(path)
    try:
        store.record(make(7))
        store.record(make(7))
        assert store.pending_count == 2
        locker.release()
    finally:
        locker.kill()
    store.record(make(8))
    store.close()
    again = HistoryStore.open(path)
    assert again.attempts() == [make(7), make(7), make(8)]
    again.close()


def test_a_lock_held_past_exit_leaves_a_side_file_the_next_open_adds(
    tmp_path: Path, notices: Notices
) -> None:
    path = tmp_path / "history.db"
    store = _opened(path, notices, busy_timeout_ms=50)
    store.record(make(0))
    locker = Locker(path)
    try:
        store.record(make(1))
        store.put_card(CardState("mine", "{}", 3.0, 4.0))
        notices.take()
        store.close()
        (side,) = side_files(path)
        ((severity, message),) = notices.take()
        assert severity == "warning"
        assert (
            f"1 attempt and 1 study card could not be written to {path} because {path} is locked" in message
        )
        assert str(side) in message
        locker.release()
    finally:
        locker.kill()
    assert rows_in_file(path) == 1
    again = HistoryStore.open(path, on_notice=notices)
    assert again.attempts() == [make(0), make(1)]
    assert [c.template_id for c in again.cards()] == ["from-the-other-process", "mine"]
    assert notices.take() == [
        (
            "information",
            f"1 attempt and 1 study card saved in {side} were added to the history and the file was removed",
        )
    ]
    again.close()


# --- side files ---------------------------------------------------------------------------------------------


def test_adding_a_side_file_twice_adds_its_attempts_once(tmp_path: Path, notices: Notices) -> None:
    path = tmp_path / "history.db"
    _saved(path, 1)
    side = tmp_path / "history.db.unsaved-20250101-000000.jsonl"
    copy = tmp_path / "history.db.unsaved-20250101-000001.jsonl"
    from quizzer.store.sidefile import lines

    text = "".join(line + "\n" for line in lines([make(7), make(8)]))
    side.write_text(text, encoding="utf-8")
    copy.write_text(text, encoding="utf-8")  # as if a removal had failed and the file was read again
    store = HistoryStore.open(path, on_notice=notices)
    assert store.attempts() == [make(0, "before"), make(7), make(8)]
    assert notices.take() == [
        ("information", f"2 attempts saved in {side} were added to the history and the file was removed"),
        (
            "information",
            f"the 2 attempts saved in {copy} were already in the history, and the file was removed",
        ),
    ]
    store.close()


def test_a_bad_side_file_is_named_and_left_alone(tmp_path: Path, notices: Notices) -> None:
    path = tmp_path / "history.db"
    side = tmp_path / "history.db.unsaved-20250101-000000.jsonl"
    text = '{"template_id": "x"}\n'
    side.write_text(text, encoding="utf-8")
    store = HistoryStore.open(path, on_notice=notices)
    assert notices.take() == [
        ("warning", f"{side} could not be read (line 1: no 'seed'); it was left as it is")
    ]
    assert store.count() == 0
    store.close()
    assert side.read_text(encoding="utf-8") == text


def test_a_store_asked_for_memory_saves_nothing_at_close(tmp_path: Path, notices: Notices) -> None:
    store = HistoryStore.memory()
    store.on_notice = notices
    store.record(make(1))
    assert (store.pending_count, store.saved_to_file, store.count()) == (0, False, 1)
    store.close()
    assert (notices.take(), store.notices, store.saved_to) == ([], [], None)


def test_a_row_edited_into_bad_json_is_one_error_notice_not_a_traceback(
    tmp_path: Path, notices: Notices
) -> None:
    path = tmp_path / "history.db"
    _saved(path, 2)
    raw = sqlite3.connect(path)
    raw.execute("UPDATE attempts SET variables = '{not json' WHERE seed = 1")
    raw.commit()
    raw.close()
    store = _opened(path, notices)
    assert store.attempts() == []
    assert store.attempts() == []
    ((severity, message),) = notices.take()  # once, not at every read
    assert severity == "error"
    assert message.startswith(f"the history in {path} could not be read (")
    assert store.count() == 2  # what can still be read is
    store.close()
