"""HistoryStore: what goes in comes out exactly, filters, cards, and every fault the file can have."""

from __future__ import annotations

import datetime
import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from quizzer.session.records import Attempt, CardState
from quizzer.store import db
from quizzer.store.history import HistoryStore

IN_MEMORY = "history is kept in memory: "


def attempt(i: int, **changes: Any) -> Attempt:
    """A distinct attempt per ``i``, with a FLOP count too big for 64 bits."""
    fields: dict[str, Any] = {
        "template_id": f"template-{i % 3}",
        "seed": i,
        "variables": {"n_layers": 24 + i, "ratio": 0.5 + i, "name": f"model {i}", "tied": i % 2 == 0},
        "answer": f"{i}e23",
        "value": i * 10**23,
        "expected": 3 * 10**23 + i,
        "unit": "FLOPs",
        "verdict": "close",
        "rel_error": 0.01 * i,
        "mistake": None,
        "seconds": 1.5 + i,
        "hints": i % 2,
        "mode": "drill",
        "at": 1_700_000_000.25 + i,
        "session": "s1",
        "topic": "flops",
        "minutes": 2.0,
    }
    return Attempt(**{**fields, **changes})


def exact(a: Attempt) -> list[tuple[str, type, Any]]:
    """Every field with its type (1 == 1.0, but an int must come back an int and a float a float)."""
    out: list[tuple[str, type, Any]] = []
    for name, value in a.as_dict().items():
        if name == "variables":
            value = sorted((k, type(v).__name__, v) for k, v in value.items())
        out.append((name, type(value), value))
    return out


def rows_in_file(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM attempts").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "history.db"


@pytest.fixture
def saved(path: Path) -> list[Attempt]:
    """Two attempts already in the file at ``path`` (closed cleanly)."""
    store = HistoryStore.open(str(path))
    made = [attempt(1), attempt(2)]
    for a in made:
        store.record(a)
    store.close()
    return made


def test_attempts_come_back_exactly_after_reopening(path: Path) -> None:
    made = [
        attempt(0),
        attempt(1, value=None, verdict="skipped", answer="", rel_error=None, mode="mock"),
        attempt(2, value=2.5e23, expected=3.0e23, mistake="forgot-backward", verdict="wrong"),
        attempt(3, value=10**30, expected=-(10**30) - 1, variables={"big": 10**40, "x": 1.0}),
    ]
    store = HistoryStore.open(str(path))
    assert (store.path, store.warning) == (str(path), None)
    for a in made:
        store.record(a)
    store.close()
    again = HistoryStore.open(str(path))
    got = again.attempts()
    assert [exact(a) for a in got] == [exact(a) for a in made]
    assert again.count() == 4
    assert type(got[2].value) is float
    assert type(got[3].expected) is int
    again.close()


def test_attempts_filter_by_since_and_mode_in_insertion_order(path: Path) -> None:
    store = HistoryStore.open(str(path))
    made = [
        attempt(0, at=300.0, mode="drill"),
        attempt(1, at=100.0, mode="mock"),
        attempt(2, at=200.0, mode="drill"),
        attempt(3, at=199.5, mode="mock"),
        attempt(4, at=250.0, mode="mock"),
    ]
    for a in made:
        store.record(a)
    assert store.attempts() == made
    assert store.attempts(since=200.0) == [made[0], made[2], made[4]]
    assert store.attempts(mode="mock") == [made[1], made[3], made[4]]
    assert store.attempts(since=200.0, mode="mock") == [made[4]]
    assert store.attempts(since=301.0) == []
    assert store.attempts(mode="study") == []
    store.close()


def test_cards_are_upserted_and_read_back(path: Path) -> None:
    store = HistoryStore.open(str(path))
    assert store.card("a") is None
    assert store.cards() == []
    first = CardState("b", '{"state": 1}', 100.0, 200.0)
    store.put_card(first)
    store.put_card(CardState("a", '{"state": 2}', 50.0, 60.5))
    changed = first.replace(card_json='{"state": 3}', due=900.0)
    store.put_card(changed)
    store.close()
    again = HistoryStore.open(str(path))
    assert again.card("b") == changed
    assert again.card("missing") is None
    assert again.cards() == [CardState("a", '{"state": 2}', 50.0, 60.5), changed]
    again.close()


def test_a_memory_store_works_without_a_warning() -> None:
    store = HistoryStore.memory()
    store.record(attempt(1))
    store.put_card(CardState("a", "{}", 1.0, 2.0))
    assert (store.path, store.warning) == (None, None)
    assert store.attempts() == [attempt(1)]
    assert store.count() == 1
    assert store.cards() == [CardState("a", "{}", 1.0, 2.0)]
    store.close()


# --- a damaged file is moved aside, never deleted ---------------------------------------------------------


def _asides(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.iterdir() if re.fullmatch(rf"{path.name}\.corrupt-.*", p.name))


def test_a_file_that_is_not_a_database_is_moved_aside_with_its_wal_and_shm(path: Path) -> None:
    junk = b"these are my notes, not a database\n" * 200
    path.write_bytes(junk)
    Path(f"{path}-wal").write_bytes(b"wal junk")
    Path(f"{path}-shm").write_bytes(b"shm junk")
    wall = 1_750_000_000.0
    store = HistoryStore.open(str(path), wall=lambda: wall)
    stamp = datetime.datetime.fromtimestamp(wall).strftime("%Y%m%d-%H%M%S")
    aside = path.parent / f"{path.name}.corrupt-{stamp}"
    assert aside.read_bytes() == junk
    assert Path(f"{aside}-wal").read_bytes() == b"wal junk"
    assert Path(f"{aside}-shm").read_bytes() == b"shm junk"
    assert store.path == str(path)
    assert store.warning is not None
    assert str(aside) in store.warning
    store.record(attempt(1))
    store.close()
    again = HistoryStore.open(str(path))
    assert (again.warning, again.attempts()) == (None, [attempt(1)])
    again.close()


def test_a_database_with_damaged_pages_is_moved_aside(path: Path) -> None:
    store = HistoryStore.open(str(path))
    for i in range(400):
        store.record(attempt(i))
    store.close()
    data = bytearray(path.read_bytes())
    page_bytes = int.from_bytes(data[16:18], "big")
    assert len(data) > 6 * page_bytes
    data[3 * page_bytes : 5 * page_bytes] = b"\xa5" * (2 * page_bytes)  # pages 4 and 5: garbage
    path.write_bytes(bytes(data))
    check = sqlite3.connect(path)
    try:
        result = [row[0] for row in check.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        result = [str(exc)]
    finally:
        check.close()
    assert result != ["ok"]  # the file really is damaged
    store = HistoryStore.open(str(path))
    (aside,) = _asides(path)
    assert aside.read_bytes() == bytes(data)
    assert store.warning is not None
    assert str(aside) in store.warning
    assert (store.path, store.count()) == (str(path), 0)
    store.close()


def test_a_second_damaged_file_in_the_same_second_gets_its_own_name(path: Path) -> None:
    for junk in (b"first junk " * 100, b"second junk " * 100):
        path.write_bytes(junk)
        HistoryStore.open(str(path), wall=lambda: 1_750_000_000.0).close()
    first, second = _asides(path)
    assert {first.read_bytes(), second.read_bytes()} == {b"first junk " * 100, b"second junk " * 100}


# --- files we must not or cannot write: memory, and the file left alone -----------------------------------


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _sides(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.unsaved-*.jsonl"))


def _side_attempts(side: Path) -> list[Attempt]:
    rows = [json.loads(line) for line in side.read_text(encoding="utf-8").splitlines()]
    return [Attempt(**{k: v for k, v in row.items() if k != "at_iso"}) for row in rows]


def test_an_unopenable_path_means_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be\n")
    store = HistoryStore.open(str(blocker / "history.db"))
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    store.record(attempt(1))
    store.put_card(CardState("a", "{}", 1.0, 2.0))
    assert store.attempts() == [attempt(1)]
    assert store.cards() == [CardState("a", "{}", 1.0, 2.0)]
    store.close()
    assert _snapshot(tmp_path) == {"not-a-folder": b"a file where a folder should be\n"}


@pytest.mark.parametrize("journal_mode", ["delete", "wal"])
def test_a_newer_database_is_left_untouched(path: Path, journal_mode: str) -> None:
    made = sqlite3.connect(path)
    made.execute(f"PRAGMA journal_mode = {journal_mode}")
    made.execute("CREATE TABLE attempts_v9 (id INTEGER PRIMARY KEY, stuff TEXT)")
    made.execute("INSERT INTO attempts_v9 (stuff) VALUES ('from the future')")
    made.commit()
    made.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 7}")
    made.close()
    before = _snapshot(path.parent)
    store = HistoryStore.open(str(path))
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    assert "newer quizzer" in store.warning
    assert "left untouched" in store.warning
    store.record(attempt(1))
    assert store.attempts() == [attempt(1)]
    store.close()
    (side,) = _sides(path)  # what the session recorded is saved beside it, never into it
    assert _snapshot(path.parent) == {**before, side.name: side.read_bytes()}
    assert _side_attempts(side) == [attempt(1)]
    assert store.warning is not None
    assert str(side) in store.warning


def test_a_read_only_database_means_memory_with_a_copy_of_it(
    path: Path, saved: list[Attempt], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tests run as root, for whom chmod 0444 does not stop a write: so the connect step raises what
    # SQLite raises for a read-only file.
    def read_only(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    before = _snapshot(path.parent)
    monkeypatch.setattr(db, "connect", read_only)
    store = HistoryStore.open(str(path))
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    assert "read-only" in store.warning
    assert store.attempts() == saved
    store.record(attempt(3))
    assert store.attempts() == [*saved, attempt(3)]
    store.close()
    (side,) = _sides(path)
    assert _snapshot(path.parent) == {**before, side.name: side.read_bytes()}
    assert _side_attempts(side) == [attempt(3)]


def test_a_rollback_journal_database_locked_by_another_process_means_memory(path: Path) -> None:
    made = sqlite3.connect(path)
    made.execute("CREATE TABLE notes (x)")
    made.commit()
    made.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO notes VALUES (1)")
    started = time.monotonic()
    store = HistoryStore.open(str(path), busy_timeout_ms=50)
    assert time.monotonic() - started < 3.0  # gave up on the lock rather than waiting on it
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    assert "locked" in store.warning
    store.record(attempt(1))
    assert store.attempts() == [attempt(1)]
    store.close()  # still locked: saved beside it
    (side,) = _sides(path)
    assert _side_attempts(side) == [attempt(1)]
    other.execute("COMMIT")
    assert other.execute("SELECT count(*) FROM notes").fetchone()[0] == 1
    assert other.execute("PRAGMA user_version").fetchone()[0] == 0  # not migrated by the locked-out store
    other.close()


def test_a_wal_database_locked_by_another_writer_means_memory_with_a_copy(
    path: Path, saved: list[Attempt]
) -> None:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    store = HistoryStore.open(str(path), busy_timeout_ms=50)
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    assert "locked" in store.warning
    assert store.attempts() == saved
    store.record(attempt(3))
    assert store.count() == 3
    store.close()  # still locked: saved beside it
    other.execute("ROLLBACK")
    other.close()
    assert rows_in_file(path) == 2
    (side,) = _sides(path)
    assert _side_attempts(side) == [attempt(3)]


# --- a write that fails later -----------------------------------------------------------------------------


def test_a_record_that_cannot_be_written_moves_to_memory_and_keeps_everything(
    path: Path, saved: list[Attempt]
) -> None:
    store = HistoryStore.open(str(path), busy_timeout_ms=50)
    store.put_card(CardState("a", "{}", 1.0, 2.0))
    assert store.warning is None
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock past the busy timeout
    store.record(attempt(3))  # does not raise
    assert store.path is None
    assert store.warning is not None
    assert store.warning.startswith(IN_MEMORY)
    assert "locked" in store.warning
    assert store.attempts() == [*saved, attempt(3)]
    assert store.cards() == [CardState("a", "{}", 1.0, 2.0)]
    store.record(attempt(4))
    assert store.count() == 4
    other.execute("ROLLBACK")
    other.close()
    store.close()  # the lock is gone: the held attempts land in the file at close
    assert rows_in_file(path) == 4
    assert _sides(path) == []


def test_a_card_that_cannot_be_written_moves_to_memory_and_keeps_it(path: Path, saved: list[Attempt]) -> None:
    store = HistoryStore.open(str(path), busy_timeout_ms=50)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    store.put_card(CardState("a", "{}", 1.0, 2.0))
    assert store.path is None
    assert store.warning is not None
    assert store.cards() == [CardState("a", "{}", 1.0, 2.0)]
    assert store.attempts() == saved
    other.execute("ROLLBACK")
    other.close()
    store.close()
    again = HistoryStore.open(str(path))
    assert again.cards() == [CardState("a", "{}", 1.0, 2.0)]
    again.close()


def test_the_file_is_written_in_wal_mode_and_each_record_is_committed(path: Path) -> None:
    store = HistoryStore.open(str(path))
    store.record(attempt(1))
    reader = sqlite3.connect(path)  # another connection sees it at once: it was committed
    assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert reader.execute("SELECT count(*) FROM attempts").fetchone()[0] == 1
    reader.close()
    store.close()


def test_session_marks_are_kept_and_a_finish_replaces_the_start(tmp_path: Path) -> None:
    from quizzer.session.records import SessionMark

    path = tmp_path / "h.db"
    store = HistoryStore.open(path)
    store.mark_session(SessionMark("m1", "mock", 10.0, 8))
    store.mark_session(SessionMark("m2", "mock", 20.0, 4))
    store.mark_session(SessionMark("m1", "mock", 10.0, 8, finished=99.0))
    store.close()
    again = HistoryStore.open(path)
    assert again.sessions() == [SessionMark("m1", "mock", 10.0, 8, 99.0), SessionMark("m2", "mock", 20.0, 4)]
    again.close()


def test_a_session_mark_survives_a_side_file(tmp_path: Path) -> None:
    from quizzer.session.records import CardState, SessionMark
    from quizzer.store import sidefile

    items = [SessionMark("m1", "mock", 10.0, 8), CardState("t", "{}", 1.0, 2.0)]
    saved, problems = sidefile.save(str(tmp_path / "h.db"), list(items), 0.0)
    assert saved is not None
    assert problems == []
    _, read = sidefile.read(saved)
    assert read == items


def test_a_chain_part_and_its_carried_answers_read_back(tmp_path: Path) -> None:
    from quizzer.session.records import Attempt

    path = tmp_path / "h.db"
    store = HistoryStore.open(path)
    part = Attempt("kv-chain", 3, {}, "12", 12, 24, "count", "consistent", 0.5, None, 9.0, 0, part=2)
    store.record(part.replace(carried={"1": 10**30 + 7}))
    store.record(part.replace(part=None, carried=None))
    store.close()
    again = HistoryStore.open(path)
    first, second = again.attempts()
    assert (first.part, first.carried) == (2, {"1": 10**30 + 7})  # exact, however big
    assert (second.part, second.carried) == (None, None)
    again.close()
