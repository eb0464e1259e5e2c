"""The database layer: schema v1 as specified, pragmas, and migrations applied once each, all or nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from quizzer.store import db

#: Schema v1 as the issue specifies it: column name -> declared type.
ATTEMPTS_V1 = {
    "id": "INTEGER",
    "at": "REAL",
    "mode": "TEXT",
    "session": "TEXT",
    "template_id": "TEXT",
    "topic": "TEXT",
    "minutes": "REAL",
    "seed": "INTEGER",
    "variables": "TEXT",
    "answer": "TEXT",
    "value": "TEXT",
    "expected": "TEXT",
    "unit": "TEXT",
    "verdict": "TEXT",
    "rel_error": "REAL",
    "mistake": "TEXT",
    "seconds": "REAL",
    "hints": "INTEGER",
}
#: Migration 2 adds the matched mistake's human title.
ATTEMPTS_V2 = {**ATTEMPTS_V1, "mistake_title": "TEXT"}
#: Migration 4 adds the part of a chain an attempt answers and the earlier answers it carried.
ATTEMPTS_V4 = {**ATTEMPTS_V2, "part": "INTEGER", "carried": "TEXT"}
#: Migration 3 adds the sessions table (a mock that never finished is seen in Stats).
SESSIONS_V3 = {"session": "TEXT", "mode": "TEXT", "started": "REAL", "planned": "INTEGER", "finished": "REAL"}
CARDS_V1 = {"template_id": "TEXT", "card_json": "TEXT", "introduced": "REAL", "due": "REAL"}
#: Migration 5 adds leeches (a card's lapses, when it was suspended) and a session's planned templates.
CARDS_V5 = {**CARDS_V1, "lapses": "INTEGER", "suspended": "REAL"}
SESSIONS_V5 = {**SESSIONS_V3, "plan": "TEXT", "minutes": "REAL"}
#: Migration 6 adds each card's review log (what a merge of two machines' histories replays).
CARDS_V6 = {**CARDS_V5, "review_log": "TEXT"}


def columns(conn: sqlite3.Connection, table: str) -> dict[str, str]:
    return {row[1]: row[2] for row in conn.execute(f"PRAGMA table_info({table})")}


def primary_key(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[5]]


def indexed_columns(conn: sqlite3.Connection, table: str) -> set[tuple[str, ...]]:
    names = [row[1] for row in conn.execute(f"PRAGMA index_list({table})")]
    return {tuple(r[2] for r in conn.execute(f"PRAGMA index_info({name})")) for name in names}


def test_a_new_database_has_the_current_schema_in_wal_mode(tmp_path: Path) -> None:
    conn = db.connect(str(tmp_path / "h.db"))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION == len(db.MIGRATIONS) >= 1
    assert columns(conn, "attempts") == ATTEMPTS_V4
    assert columns(conn, "sessions") == SESSIONS_V5
    assert columns(conn, "cards") == CARDS_V6
    assert primary_key(conn, "attempts") == ["id"]
    assert primary_key(conn, "cards") == ["template_id"]
    assert {("template_id", "at"), ("at",)} <= indexed_columns(conn, "attempts")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert not conn.in_transaction
    conn.close()


def test_opening_again_changes_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "h.db")
    conn = db.connect(path)
    conn.execute("INSERT INTO cards (template_id, card_json, introduced, due) VALUES ('a', '{}', 1.0, 2.0)")
    conn.close()
    again = db.connect(path, busy_timeout_ms=100)
    assert again.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    assert again.execute("SELECT * FROM cards").fetchall() == [("a", "{}", 1.0, 2.0, 0, None, None)]
    assert again.execute("PRAGMA busy_timeout").fetchone()[0] == 100
    again.close()


def test_a_failed_migration_is_rolled_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "h.db")
    db.connect(path).close()
    broken = "CREATE TABLE extra (x);\nCREATE TABLE extra (y);\n"  # the second statement fails
    current = db.SCHEMA_VERSION
    monkeypatch.setattr(db, "MIGRATIONS", (*db.MIGRATIONS, broken))
    monkeypatch.setattr(db, "SCHEMA_VERSION", current + 1)
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        db.connect(path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == current
    assert raw.execute("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").fetchone()[0] == 0
    raw.close()


def test_a_later_migration_applies_once_and_may_hold_a_trigger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "h.db")
    conn = db.connect(path)
    conn.execute("INSERT INTO cards (template_id, card_json, introduced, due) VALUES ('a', '{}', 1.0, 2.0)")
    conn.close()
    v2 = """
    CREATE TABLE log (n INTEGER);
    CREATE TRIGGER count_cards AFTER INSERT ON cards BEGIN
        INSERT INTO log VALUES (1);
        INSERT INTO log VALUES (2);
    END;
    """
    current = db.SCHEMA_VERSION
    monkeypatch.setattr(db, "MIGRATIONS", (*db.MIGRATIONS, v2))
    monkeypatch.setattr(db, "SCHEMA_VERSION", current + 1)
    conn = db.connect(path)
    conn.execute("INSERT INTO cards (template_id, card_json, introduced, due) VALUES ('b', '{}', 1.0, 2.0)")
    conn.close()
    conn = db.connect(path)  # the new migration again would fail: 'log' exists
    assert conn.execute("PRAGMA user_version").fetchone()[0] == current + 1
    assert conn.execute("SELECT n FROM log").fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT template_id FROM cards").fetchall() == [("a",), ("b",)]
    conn.close()


@pytest.mark.parametrize("version", [db.SCHEMA_VERSION + 1, 1000, -1])
def test_an_unknown_version_is_refused_before_anything_is_written(tmp_path: Path, version: int) -> None:
    path = tmp_path / "h.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {version}")
    raw.close()
    before = path.read_bytes()
    with pytest.raises(db.NewerSchemaError):
        db.connect(str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.db"]


def test_a_file_that_is_not_a_database_is_reported_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    path.write_bytes(b"hello\n")
    with pytest.raises(db.CorruptDatabaseError) as caught:
        db.connect(str(path))
    assert db.is_corrupt(caught.value)
    assert path.read_bytes() == b"hello\n"


@pytest.mark.parametrize("damaged", [False, True])
def test_a_newer_database_in_a_folder_with_uri_characters_is_checked_itself(
    tmp_path: Path, damaged: bool
) -> None:
    folder = tmp_path / "my #1?%20 x"  # unescaped in a file: URI, each of these would name another file
    folder.mkdir()
    path = folder / "h.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE later (x)")
    raw.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 1}")
    raw.close()
    if damaged:  # page 1's b-tree overwritten: only a check of this very file can tell
        data = bytearray(path.read_bytes())
        data[100:4096] = b"\xa5" * (4096 - 100)
        path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(db.CorruptDatabaseError if damaged else db.NewerSchemaError):
        db.connect(str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["h.db"]


def test_magic_followed_by_garbage_is_corrupt_not_newer(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)  # user_version -1 if read as a header
    with pytest.raises(db.CorruptDatabaseError):
        db.connect(str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.db"]


def test_a_version_1_history_gains_the_mistake_title_and_keeps_its_attempts(tmp_path: Path) -> None:
    """A history written before migration 2 opens, gains mistake_title (NULL in old rows), keeps every row."""
    from quizzer.store.history import HistoryStore

    path = tmp_path / "h.db"
    raw = sqlite3.connect(path)
    for statement in db._statements(db.MIGRATIONS[0]):
        raw.execute(statement)
    raw.execute("PRAGMA user_version = 1")
    raw.execute(
        "INSERT INTO attempts (at, mode, session, template_id, topic, minutes, seed, variables, answer,"
        " value, expected, unit, verdict, rel_error, mistake, seconds, hints) VALUES"
        " (1.0, 'drill', 's', 't', 'x', 2.0, 7, '{}', '16M', '16000000', '16384000', 'params', 'wrong',"
        " 0.02, 'forgot-head', 3.0, 0)"
    )
    raw.commit()
    raw.close()
    store = HistoryStore.open(path)
    [old] = store.attempts()
    assert (old.mistake, old.mistake_title, old.answer, old.value) == ("forgot-head", None, "16M", 16_000_000)
    store.record(old.replace(mistake_title="Head left out", at=2.0))
    store.close()
    again = sqlite3.connect(path)
    assert again.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION == 6
    assert again.execute("SELECT mistake_title FROM attempts ORDER BY id").fetchall() == [
        (None,),
        ("Head left out",),
    ]
    again.close()
