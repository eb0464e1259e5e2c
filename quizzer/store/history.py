"""HistoryStore: attempts and study cards in SQLite, kept in memory when the file cannot be used."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quizzer.session.records import Attempt, CardState
from quizzer.store import db

#: The attempts columns in Attempt's field order: a row builds an Attempt positionally (Record's fast path).
_FIELDS = (
    "template_id, seed, variables, answer, value, expected, unit, verdict, rel_error, mistake, seconds,"
    " hints, mode, at, session, topic, minutes"
)
_INSERT_ATTEMPT = f"INSERT INTO attempts ({_FIELDS}) VALUES ({', '.join('?' * 17)})"
_SELECT_ATTEMPTS = f"SELECT {_FIELDS} FROM attempts"
_CARD_FIELDS = "template_id, card_json, introduced, due"
_UPSERT_CARD = (
    f"INSERT INTO cards ({_CARD_FIELDS}) VALUES (?, ?, ?, ?) ON CONFLICT (template_id) DO UPDATE SET"
    " card_json = excluded.card_json, introduced = excluded.introduced, due = excluded.due"
)
_MEMORY = "history is kept in memory for this session: "
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED


class HistoryStore:
    """Attempts and study cards, saved to a database file as they happen (or kept in memory)."""

    def __init__(self, conn: sqlite3.Connection, path: str | None, warning: str | None = None) -> None:
        self._conn = conn
        self.path = path
        """The database file; None when history is kept in memory only."""
        self.warning = warning
        """One line for the user when history is not saved to the file or a broken file was moved."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int | None = None,
        wall: Callable[[], float] = time.time,
    ) -> HistoryStore:
        """The store at ``path``; a broken file is moved aside, one it must not or cannot write means memory.

        Never raises for a bad file: ``warning`` says what happened instead. ``busy_timeout_ms`` defaults to
        db.BUSY_TIMEOUT_MS; ``wall`` (epoch seconds) dates the name a broken file is moved to.
        """
        path = os.fspath(path)
        timeout_ms = db.BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
        try:
            return cls(db.connect(path, busy_timeout_ms=timeout_ms), path)
        except db.NewerSchemaError:
            return cls._in_memory(path, f"{path} was made by a newer quizzer; left untouched", copy=False)
        except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: a path with a NUL in it
            if db.is_corrupt(exc):
                return cls._set_aside(path, timeout_ms, wall)
            return cls._in_memory(path, _reason(path, exc))

    @classmethod
    def memory(cls) -> HistoryStore:
        """A store that keeps history in memory only (no warning: this was asked for)."""
        return cls(db.connect_memory(), None)

    @classmethod
    def _in_memory(cls, path: str, reason: str, *, copy: bool = True) -> HistoryStore:
        """An in-memory store holding a read-only copy of ``path`` when one can be read at once."""
        conn = (_copy_read_only(path) if copy else None) or db.connect_memory()
        return cls(conn, None, _MEMORY + reason)

    @classmethod
    def _set_aside(cls, path: str, timeout_ms: int, wall: Callable[[], float]) -> HistoryStore:
        """Rename a damaged database (and its -wal/-shm) aside, then start a fresh one at ``path``."""
        aside = _aside_name(path, wall())
        try:
            os.rename(path, aside)
            for suffix in ("-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.rename(path + suffix, aside + suffix)
        except OSError as exc:
            return cls._in_memory(path, f"{path} is damaged and could not be moved aside ({exc})", copy=False)
        moved = f"{path} was damaged; it was moved to {aside}"
        try:
            store = cls(db.connect(path, busy_timeout_ms=timeout_ms), path)
        except (sqlite3.Error, db.NewerSchemaError) as exc:
            return cls._in_memory(path, f"{moved} and a new one could not be made ({exc})", copy=False)
        store.warning = f"{moved} and a new history was started"
        return store

    def record(self, attempt: Attempt) -> None:
        """Save ``attempt`` and commit. On a write error, switch to memory and keep it there; never raises."""
        a = attempt
        row = (
            a.template_id,
            a.seed,
            json.dumps(a.variables, sort_keys=True),
            a.answer,
            None if a.value is None else json.dumps(a.value),
            json.dumps(a.expected),
            a.unit,
            a.verdict,
            a.rel_error,
            a.mistake,
            a.seconds,
            a.hints,
            a.mode,
            a.at,
            a.session,
            a.topic,
            a.minutes,
        )
        self._write(_INSERT_ATTEMPT, row)

    def put_card(self, state: CardState) -> None:
        """Insert or replace the card of ``state.template_id`` and commit; never raises an sqlite3 error."""
        self._write(_UPSERT_CARD, (state.template_id, state.card_json, state.introduced, state.due))

    def attempts(self, *, since: float | None = None, mode: str | None = None) -> list[Attempt]:
        """Attempts in the order they were recorded; ``since`` keeps those with ``at >= since``."""
        clauses, params = [], []
        if since is not None:
            clauses.append("at >= ?")
            params.append(since)
        if mode is not None:
            clauses.append("mode = ?")
            params.append(mode)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._conn.execute(f"{_SELECT_ATTEMPTS}{where} ORDER BY id", params).fetchall()
        # One json.loads per column for all rows, not three per row (3-4x faster for 10k attempts).
        variables = json.loads(f"[{','.join([r[2] for r in rows])}]")
        values = json.loads(f"[{','.join(['null' if r[4] is None else r[4] for r in rows])}]")
        expected = json.loads(f"[{','.join([r[5] for r in rows])}]")
        return list(map(_attempt, rows, variables, values, expected))

    def count(self) -> int:
        """How many attempts there are."""
        return self._conn.execute("SELECT count(*) FROM attempts").fetchone()[0]

    def card(self, template_id: str) -> CardState | None:
        """The card of ``template_id``, or None if it was never studied."""
        row = self._conn.execute(
            f"SELECT {_CARD_FIELDS} FROM cards WHERE template_id = ?", (template_id,)
        ).fetchone()
        return None if row is None else CardState(*row)

    def cards(self) -> list[CardState]:
        """Every card, by template id."""
        rows = self._conn.execute(f"SELECT {_CARD_FIELDS} FROM cards ORDER BY template_id").fetchall()
        return [CardState(*row) for row in rows]

    def close(self) -> None:
        """Close the database (a WAL file is checkpointed and removed by SQLite)."""
        self._conn.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        """Run one statement in autocommit mode (committed when it returns); on failure, go to memory."""
        try:
            self._conn.execute(sql, params)
            return
        except sqlite3.Error as exc:
            if self.path is None:
                self.warning = f"{_MEMORY}a change could not be kept ({exc})"
                return
            self._to_memory(_reason(self.path, exc))
        try:
            self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            self.warning = f"{self.warning}; a change could not be kept ({exc})"

    def _to_memory(self, reason: str) -> None:
        """Carry on in memory from a copy of what the file holds (or from nothing if it cannot be copied)."""
        old = self._conn
        try:
            if old.in_transaction:
                old.execute("ROLLBACK")
            conn = _copy(old)
        except sqlite3.Error:
            conn = None
        self._conn = conn or db.connect_memory()
        self.path = None
        self.warning = _MEMORY + reason
        try:
            old.close()
        except sqlite3.Error:
            pass


def _attempt(row: tuple[Any, ...], v: dict[str, Any], x: int | float | None, e: int | float) -> Attempt:
    """An Attempt from a row and its decoded JSON columns, all positional (Record's fast path)."""
    t, seed, _, ans, _, _, unit, verdict, rel, mis, secs, hints, mode, at, ses, topic, mins = row
    return Attempt(t, seed, v, ans, x, e, unit, verdict, rel, mis, secs, hints, mode, at, ses, topic, mins)


def _reason(path: str, exc: BaseException) -> str:
    """Why ``path`` cannot be used, in words, from an sqlite3 error."""
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc)
    if (code is not None and code & 0xFF in _BUSY_CODES) or "locked" in text:
        return f"{path} is locked by another program"
    if (code is not None and code & 0xFF == 8) or "readonly" in text:  # SQLITE_READONLY
        return f"{path} is read-only"
    return f"cannot open {path} ({text})"


def _aside_name(path: str, now: float) -> str:
    """``<path>.corrupt-<YYYYmmdd-HHMMSS>`` in local time, with ``.2``, ``.3``... if that is taken."""
    base = f"{path}.corrupt-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"
    name, n = base, 1
    while any(os.path.lexists(name + suffix) for suffix in ("", "-wal", "-shm")):
        n += 1
        name = f"{base}.{n}"
    return name


def _give_up_when_busy(status: int, remaining: int, total: int) -> None:
    """Connection.backup's progress hook: its loop retries a locked source forever, so stop it instead."""
    if status & 0xFF in _BUSY_CODES:
        raise sqlite3.OperationalError("database is locked")


def _copy(source: sqlite3.Connection) -> sqlite3.Connection | None:
    """An in-memory copy of ``source``, migrated to the current schema; None if it cannot be read now."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        source.backup(conn, progress=_give_up_when_busy)
        db.migrate(conn)
    except (sqlite3.Error, db.NewerSchemaError):
        conn.close()
        return None
    return conn


def _copy_read_only(path: str) -> sqlite3.Connection | None:
    """An in-memory copy of the database at ``path``, opened read-only and without waiting for locks.

    With no -wal or -journal file nobody is writing it, so it is opened immutable (a read-only reader of a WAL
    database would leave empty -wal and -shm files beside it); the copy is checked, in case a writer came.
    """
    if not os.path.isfile(path):
        return None
    writing = any(os.path.exists(f"{path}{suffix}") for suffix in ("-wal", "-journal"))
    flags = "mode=ro" if writing else "mode=ro&immutable=1"
    try:
        source = sqlite3.connect(f"{Path(path).absolute().as_uri()}?{flags}", uri=True, timeout=0)
    except sqlite3.Error:
        return None
    try:
        conn = _copy(source)
    finally:
        source.close()
    try:
        if conn is not None and conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]:
            return conn
    except sqlite3.Error:
        pass
    if conn is not None:
        conn.close()
    return None
