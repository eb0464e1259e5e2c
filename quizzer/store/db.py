"""SQLite connection for the history store: pragmas and migrations keyed on PRAGMA user_version."""

from __future__ import annotations

import sqlite3
import time

#: How long a statement waits for another process's lock before it fails.
BUSY_TIMEOUT_MS = 5000

#: The schema, one script per version: MIGRATIONS[i] takes user_version i to i + 1. Append; never edit.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        at REAL,
        mode TEXT,
        session TEXT,
        template_id TEXT,
        topic TEXT,
        minutes REAL,
        seed INTEGER,
        variables TEXT,  -- JSON object, sort_keys
        answer TEXT,
        value TEXT,  -- JSON number (exact for big ints) or NULL
        expected TEXT,  -- JSON number
        unit TEXT,
        verdict TEXT,
        rel_error REAL,
        mistake TEXT,
        seconds REAL,
        hints INTEGER
    );
    CREATE INDEX attempts_template_at ON attempts (template_id, at);
    CREATE INDEX attempts_at ON attempts (at);
    CREATE TABLE cards (
        template_id TEXT PRIMARY KEY,
        card_json TEXT,
        introduced REAL,
        due REAL
    );
    """,
)
#: The schema version this code writes.
SCHEMA_VERSION = len(MIGRATIONS)

_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_SQLITE_BUSY = 5


class NewerSchemaError(Exception):
    """The database was made by a newer quizzer (its user_version is above SCHEMA_VERSION)."""


class CorruptDatabaseError(sqlite3.DatabaseError):
    """The file is not a database, or PRAGMA quick_check found damage."""


def is_corrupt(exc: BaseException) -> bool:
    """Whether an sqlite3 error says the file is damaged or not a database at all."""
    if isinstance(exc, CorruptDatabaseError):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.DatabaseError) and code is not None and code & 0xFF in _CORRUPT_CODES


def connect(path: str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if need be), check and migrate the database at ``path``, in autocommit mode.

    Raises NewerSchemaError before anything is written to a newer database, CorruptDatabaseError for a
    damaged one, and sqlite3.OperationalError when the file cannot be opened, written or locked.
    """
    _check_version(_header_version(path))  # before SQLite opens it: opening a WAL file can write beside it
    conn = sqlite3.connect(
        path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _check_version(conn.execute("PRAGMA user_version").fetchone()[0])
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise CorruptDatabaseError("; ".join(problems[:3]))
        if path != ":memory:":
            _use_wal(conn, time.monotonic() + busy_timeout_ms / 1000)
            conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def connect_memory() -> sqlite3.Connection:
    """A fresh in-memory database with the current schema."""
    return connect(":memory:")


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema up to SCHEMA_VERSION, one transaction per migration.

    Each transaction takes the write lock first and reads the version again, so two processes opening a new
    file at once apply every migration once. With nothing to do this still takes and releases the write lock:
    a database we could not write to fails here, at open, rather than at the first attempt.
    """
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version: int = conn.execute("PRAGMA user_version").fetchone()[0]
            _check_version(version)
            if version == SCHEMA_VERSION:
                conn.execute("COMMIT")
                return
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _use_wal(conn: sqlite3.Connection, deadline: float) -> None:
    """Switch to WAL, retrying until ``deadline`` (monotonic seconds) while another connection holds a lock.

    SQLite answers SQLITE_BUSY to this pragma at once, without its busy handler, when another process is
    opening or migrating the same new file.
    """
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == _SQLITE_BUSY
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _header_version(path: str) -> int | None:
    """The user_version in the header of the file at ``path``; None if there is no file or it is empty.

    A non-empty file without SQLite's header is CorruptDatabaseError here, before SQLite opens it: SQLite
    would delete a -wal and -shm beside it when the connection closed.
    """
    if path == ":memory:":
        return None
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError:
        return None  # no file yet, or one SQLite will fail to open and say why
    if not header:
        return None
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise CorruptDatabaseError("file is not a database")
    return int.from_bytes(header[60:64], "big", signed=True)


def _check_version(version: int | None) -> None:
    """NewerSchemaError if this code does not know ``version`` (a negative one included)."""
    if version is not None and not 0 <= version <= SCHEMA_VERSION:
        raise NewerSchemaError(f"schema version {version}, this quizzer knows {SCHEMA_VERSION}")


def _statements(script: str) -> list[str]:
    """The statements of an SQL script, split where sqlite3 says a statement is complete."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements
