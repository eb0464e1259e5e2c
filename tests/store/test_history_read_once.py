"""HistoryStore.attempts reads every attempt once and later only the rows recorded since, from any writer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from quizzer.session.records import Attempt
from quizzer.store import sql
from quizzer.store.history import HistoryStore
from tests.store.test_history import attempt, exact


def test_the_columns_are_the_attempts_fields_in_order() -> None:
    assert sql._ATTEMPT_COLUMNS == Attempt._fields  # rows become Attempts by position


def test_a_second_read_fetches_only_the_rows_after_the_first(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store = HistoryStore.open(str(tmp_path / "h.db"))
    for i in range(3):
        store.record(attempt(i))
    assert [a.seed for a in store.attempts()] == [0, 1, 2]
    fetched: list[int] = []
    after = sql.attempts_after

    def counted(conn: sqlite3.Connection, after_id: int | None) -> tuple[list[Attempt], int | None]:
        read = after(conn, after_id)
        fetched.append(len(read[0]))
        return read

    monkeypatch.setattr(sql, "attempts_after", counted)
    store.record(attempt(3, mode="mock"))
    assert [a.seed for a in store.attempts()] == [0, 1, 2, 3]
    assert [a.seed for a in store.attempts(mode="mock")] == [3]
    assert fetched == [1, 0]
    store.close()


def test_rows_another_connection_adds_or_removes_are_read(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    store = HistoryStore.open(str(path))
    made = [attempt(i) for i in range(4)]
    for a in made[:2]:
        store.record(a)
    assert len(store.attempts()) == 2
    other = HistoryStore.open(str(path))  # another process's quizzer
    for a in made[2:]:
        other.record(a)
    other.close()
    assert [exact(a) for a in store.attempts()] == [exact(a) for a in made]
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM attempts WHERE seed = 1")  # no quizzer does: a hand edit
    conn.close()
    assert [a.seed for a in store.attempts()] == [0, 2, 3]
    store.close()


def test_a_returned_list_changed_by_its_reader_changes_no_later_read() -> None:
    store = HistoryStore.memory()
    store.record(attempt(0))
    store.attempts().clear()
    assert len(store.attempts()) == 1
    store.close()
