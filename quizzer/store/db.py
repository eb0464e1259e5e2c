"""SQLite connection for the history store: pragmas and migrations keyed on PRAGMA user_version."""

from __future__ import annotations

import os
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
    # 2: the human title of the matched mistake, shown by Stats and the report instead of its id; the side
    # files already added, by the SHA-256 of their bytes, so one is never added twice.
    """
    ALTER TABLE attempts ADD COLUMN mistake_title TEXT;
    CREATE TABLE side_files (
        digest TEXT PRIMARY KEY,
        added REAL
    );
    """,
    # 3: when a timed session (a mock) started and finished: one never finished was left by a crash.
    """
    CREATE TABLE sessions (
        session TEXT PRIMARY KEY,
        mode TEXT,
        started REAL,
        planned INTEGER,
        finished REAL
    );
    """,
    # 4: interview chains: the part of a multi-part question an attempt answers, and the earlier answers it
    # was graded against when it was graded consistent with them.
    """
    ALTER TABLE attempts ADD COLUMN part INTEGER;
    ALTER TABLE attempts ADD COLUMN carried TEXT;
    """,
    # 5: leeches (a card's study reviews rated "again", and when it was suspended from study) and the
    # templates a session was to ask (a placement drill resumed where it was left) and its time limit (a
    # past mock's report says how much of it was used).
    """
    ALTER TABLE cards ADD COLUMN lapses INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE cards ADD COLUMN suspended REAL;
    ALTER TABLE sessions ADD COLUMN plan TEXT;
    ALTER TABLE sessions ADD COLUMN minutes REAL;
    """,
    # 6: each card's review log (JSON: its reviews, returns to study, and for a card studied before this, its
    # state now as the base): what merging another machine's history replays. NULL: the card's earlier
    # reviews were not logged (every card of an older file).
    """
    ALTER TABLE cards ADD COLUMN review_log TEXT;
    """,
)
#: The schema version this code writes.
SCHEMA_VERSION = len(MIGRATIONS)

_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_SQLITE_BUSY = 5
_MAGIC = b"SQLite format 3\x00"
_URI_ESCAPES = {"%": "%25", "?": "%3F", "#": "%23", " ": "%20"}
_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
#: Table -> columns that a quizzer database of each schema version has (filled on first use).
_SCHEMAS: dict[int, dict[str, set[str]]] = {}


class NewerSchemaError(Exception):
    """The database was made by a newer quizzer (its user_version is above SCHEMA_VERSION)."""


class CorruptDatabaseError(sqlite3.DatabaseError):
    """The file is not a database, or PRAGMA quick_check found damage."""


class ForeignDatabaseError(Exception):
    """The file is a sound SQLite database of another program: it has tables, but not quizzer's."""


def is_corrupt(exc: BaseException) -> bool:
    """Whether an sqlite3 error says the file is damaged or not a database at all."""
    if isinstance(exc, CorruptDatabaseError):
        return True
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.DatabaseError) and code is not None and code & 0xFF in _CORRUPT_CODES


def connect(path: str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if need be), check and migrate the database at ``path``, in autocommit mode.

    Raises NewerSchemaError before anything is written to a newer database, ForeignDatabaseError before
    anything is written to another program's, CorruptDatabaseError for a damaged one, PermissionError for a
    file that cannot be opened for writing (an immutable one, even for root), and sqlite3.OperationalError
    when the file cannot be opened, written or locked.
    """
    _check_version(_header_version(path))  # before SQLite opens it: opening a WAL file can write beside it
    _check_writable(path)
    conn = sqlite3.connect(
        path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _check_version(conn.execute("PRAGMA user_version").fetchone()[0])
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise CorruptDatabaseError("; ".join(problems[:3]))
        _check_ours(conn)  # before WAL: switching the journal mode writes to the file
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
    if len(header) < 100 or not header.startswith(_MAGIC) or not _plausible_header(header):
        raise CorruptDatabaseError("file is not a database")
    version = int.from_bytes(header[60:64], "big", signed=True)
    if not 0 <= version <= SCHEMA_VERSION:
        _check_whole(path)  # only a sound database is "newer": garbage behind the magic is damage
    return version


def file_uri(path: str, query: str) -> str:
    """An SQLite URI for the file at ``path`` with ``query`` (``%``, ``?`` and ``#`` in the path escaped).

    Built by hand: pathlib's as_uri() would cost the verbs 4 ms of imports (pathlib, urllib, ipaddress).

    >>> file_uri("/data/my #1?%.db", "mode=ro")
    'file:///data/my%20%231%3F%25.db?mode=ro'
    """
    absolute = os.path.abspath(path).replace(os.sep, "/")
    escaped = "".join(_URI_ESCAPES.get(c, c) for c in absolute)
    return f"file://{'' if escaped.startswith('/') else '/'}{escaped}?{query}"


def _plausible_header(header: bytes) -> bool:
    """Whether the header fields SQLite insists on hold what SQLite writes (else it answers SQLITE_NOTADB).

    A power-of-two page size from 512 to 65536 (1 means 65536), file format versions 1 or 2, and the payload
    fractions 64, 32, 32: https://www.sqlite.org/fileformat.html#the_database_header
    """
    page = int.from_bytes(header[16:18], "big")
    page_bytes = 65536 if page == 1 else page
    return (
        512 <= page_bytes <= 65536
        and page_bytes & (page_bytes - 1) == 0
        and header[18] in (1, 2)
        and header[19] in (1, 2)
        and header[21:24] == b"\x40\x20\x20"
    )


def _check_whole(path: str) -> None:
    """CorruptDatabaseError unless PRAGMA quick_check passes on ``path``, opened read-only and immutable.

    Immutable, so that nothing is written beside a database we must leave alone (a -wal is not read: the main
    file alone is a sound older state of a WAL database).
    """
    try:
        conn = sqlite3.connect(file_uri(path, "mode=ro&immutable=1"), uri=True, timeout=0)
        try:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if is_corrupt(exc):
            raise CorruptDatabaseError(str(exc)) from None
        raise
    if problems != ["ok"]:
        raise CorruptDatabaseError("; ".join(problems[:3]))


def _check_writable(path: str) -> None:
    """PermissionError if the file at ``path`` exists but cannot be opened for writing.

    SQLite opens such a file read-only without a word, and in WAL mode even its first writes may succeed (into
    the -wal), so the fault would show only later; an immutable file refuses root too.
    """
    if path == ":memory:":
        return
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return
    os.close(fd)


def _check_ours(conn: sqlite3.Connection) -> None:
    """ForeignDatabaseError unless the database is new (version 0, no tables) or has quizzer's tables.

    Read in one transaction: another quizzer may be migrating the same new file at this moment.
    """
    conn.execute("BEGIN")
    try:
        version: int = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [row[0] for row in conn.execute(_TABLES)]
        expected = _schema(version) if 0 < version <= SCHEMA_VERSION else {}
        missing = [
            table
            for table, columns in expected.items()
            if not columns <= {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        ]
    finally:
        conn.execute("COMMIT")
    if version == 0 and not tables:
        return
    if version == 0 or missing:
        listed = ", ".join(tables[:4]) + (", ..." if len(tables) > 4 else "")
        raise ForeignDatabaseError(f"an SQLite database of another program (tables: {listed or 'none'})")


def _schema(version: int) -> dict[str, set[str]]:
    """Table -> column names of a quizzer database at ``version`` (MIGRATIONS[:version] on an empty one)."""
    if version not in _SCHEMAS:
        conn = sqlite3.connect(":memory:")
        try:
            for script in MIGRATIONS[:version]:
                for statement in _statements(script):
                    conn.execute(statement)
            names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            _SCHEMAS[version] = {
                name: {row[1] for row in conn.execute(f"PRAGMA table_info({name})")} for name in names
            }
        finally:
            conn.close()
    return _SCHEMAS[version]


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
