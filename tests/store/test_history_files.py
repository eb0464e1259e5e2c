"""Files that are no usable history: garbage behind the magic is set aside, another program's left alone."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from quizzer.store import db
from quizzer.store.history import HistoryStore
from tests.store.faultkit import as_attempt, make, side_files, side_rows

MAGIC = b"SQLite format 3\x00"


def _asides(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.iterdir() if re.fullmatch(rf"{path.name}\.corrupt-[0-9-]+", p.name))


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _newer_with_garbage_pages(path: Path) -> bytes:
    """A real header (plausible fields) with a user_version above ours, and garbage in every page after it."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 40)
    conn.commit()
    conn.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 5}")
    conn.close()
    data = bytearray(path.read_bytes())
    page_bytes = int.from_bytes(data[16:18], "big")
    data[100:page_bytes] = b"\xa5" * (page_bytes - 100)  # page 1's b-tree: sqlite_master
    data[page_bytes:] = bytes(i * 7 % 251 for i in range(len(data) - page_bytes))
    return bytes(data)


GARBAGE = {
    # What the reliability run found: the magic, then bytes that read as user_version 0x41414141 ("newer").
    "magic then text": MAGIC + b"A" * 4080,
    "magic then zeros": MAGIC + bytes(4080),
    "magic then noise": MAGIC + bytes(i * 37 % 256 for i in range(8000)),
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_behind_the_magic_is_set_aside_not_called_newer(tmp_path: Path, name: str) -> None:
    path = tmp_path / "history.db"
    junk = GARBAGE[name]
    path.write_bytes(junk)
    with pytest.raises(db.CorruptDatabaseError):
        db.connect(str(path))
    seen: list[tuple[str, str]] = []
    store = HistoryStore.open(path, on_notice=lambda severity, message: seen.append((severity, message)))
    (aside,) = _asides(path)
    assert aside.read_bytes() == junk
    assert seen == [("warning", f"{path} was damaged; it was moved to {aside} and a new history was started")]
    assert store.saved_to_file
    store.record(make(1))
    store.close()
    again = HistoryStore.open(path)
    assert (again.warning, again.attempts()) == (None, [make(1)])
    again.close()


def test_a_real_header_saying_newer_over_garbage_pages_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    junk = _newer_with_garbage_pages(path)
    path.write_bytes(junk)
    with pytest.raises(db.CorruptDatabaseError):
        db.connect(str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.db"]  # checked without writing beside it
    store = HistoryStore.open(path)
    (aside,) = _asides(path)
    assert aside.read_bytes() == junk
    assert store.warning is not None
    assert "newer" not in store.warning
    assert str(aside) in store.warning
    store.close()


# --- another program's database ----------------------------------------------------------------------------


def _foreign(path: Path, journal_mode: str, user_version: int, table: str = "notes") -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode = {journal_mode}")
    conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute(f"INSERT INTO {table} (body) VALUES ('not yours')")
    conn.commit()
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.close()


@pytest.mark.parametrize(
    ("journal_mode", "user_version", "table"),
    [("delete", 0, "notes"), ("wal", 0, "notes"), ("delete", 1, "attempts"), ("wal", 1, "attempts")],
)
def test_another_programs_database_is_left_untouched_and_the_session_saved_beside_it(
    tmp_path: Path, journal_mode: str, user_version: int, table: str
) -> None:
    path = tmp_path / "app.db"
    _foreign(path, journal_mode, user_version, table)
    before = _snapshot(tmp_path)
    with pytest.raises(db.ForeignDatabaseError):
        db.connect(str(path))
    assert _snapshot(tmp_path) == before
    seen: list[tuple[str, str]] = []
    store = HistoryStore.open(path, on_notice=lambda severity, message: seen.append((severity, message)))
    tables = ", ".join(sorted([table, "users"]))
    assert seen == [
        (
            "warning",
            f"history is kept in memory: {path} is not a quizzer history: an SQLite database of another"
            f" program (tables: {tables}); it is left untouched; what this session records is saved beside"
            " it at exit",
        )
    ]
    assert (store.path, store.attempts(), store.cards()) == (None, [], [])  # its rows are not read as ours
    store.record(make(1))
    store.record(make(2))
    assert (store.count(), store.pending_count) == (2, 2)
    store.close()
    (side,) = side_files(path)
    assert [as_attempt(r) for r in side_rows(side)] == [make(1), make(2)]
    assert seen[-1][0] == "warning"
    assert f"2 attempts could not be written to {path} because {path} is not a quizzer history" in seen[-1][1]
    assert str(side) in seen[-1][1]
    assert _snapshot(tmp_path) == {**before, side.name: side.read_bytes()}


def test_an_empty_sqlite_file_is_a_new_history(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = wal")  # writes the header: a database with no tables, version 0
    conn.close()
    assert path.stat().st_size > 0
    store = HistoryStore.open(path)
    assert (store.warning, store.path) == (None, str(path))
    store.record(make(1))
    store.close()
    again = HistoryStore.open(path)
    assert again.attempts() == [make(1)]
    again.close()
