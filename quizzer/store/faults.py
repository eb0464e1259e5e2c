"""When the history file fails: the cause in words, in-memory copies of it, names for files set aside."""

from __future__ import annotations

import errno
import os
import sqlite3
import time

from quizzer.store import db

#: A side file is named ``<database>.unsaved-<YYYYmmdd-HHMMSS>[.N].jsonl`` (quizzer.store.sidefile writes it).
SIDE_MARK, SIDE_SUFFIX = ".unsaved-", ".jsonl"
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL = 8, 10, 13
_OS_REASONS = {
    errno.ENOSPC: "the disk holding {path} is full",
    errno.EPERM: "{path} cannot be written: operation not permitted, as for an immutable file",
    errno.EACCES: "{path} cannot be written: permission denied",
    errno.EROFS: "{path} is on a read-only file system",
}


def reason(path: str, exc: BaseException) -> str:
    """Why ``path`` cannot be used, in words, from an sqlite3 error or an OSError."""
    if isinstance(exc, OSError) and exc.errno in _OS_REASONS:
        return _OS_REASONS[exc.errno].format(path=path)
    if isinstance(exc, OSError):
        return f"cannot open {path}: {exc.strerror or exc}"
    if isinstance(exc, (db.NewerSchemaError, db.ForeignDatabaseError)):
        return f"{path} is no longer a history this quizzer can write: {exc}"
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code in _BUSY_CODES or "locked" in text:
        return f"{path} is locked by another program"
    if code == _SQLITE_FULL or "disk is full" in text:
        return f"the disk holding {path} is full"
    if code in (_SQLITE_READONLY, _SQLITE_IOERR) or "readonly" in text:
        unwritable = _unwritable(path)  # SQLite says "disk I/O error" when an open -wal became immutable
        if unwritable is not None:
            return unwritable
        if code == _SQLITE_READONLY or "readonly" in text:
            return f"{path} is read-only"
    return f"cannot use {path}: {text}"


def _unwritable(path: str) -> str | None:
    """What stops the database or its -wal being opened for writing, in words; None if nothing does."""
    for name in (path, f"{path}-wal"):
        try:
            os.close(os.open(name, os.O_RDWR))
        except FileNotFoundError:
            continue
        except OSError as exc:
            if exc.errno in _OS_REASONS:
                return _OS_REASONS[exc.errno].format(path=name)
    return None


def aside_name(path: str, now: float) -> str:
    """``<path>.corrupt-<YYYYmmdd-HHMMSS>`` in local time, with ``.2``, ``.3``... if that is taken."""
    base = f"{path}.corrupt-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"
    name, n = base, 1
    while any(os.path.lexists(name + suffix) for suffix in ("", "-wal", "-shm")):
        n += 1
        name = f"{base}.{n}"
    return name


def side_files(db_path: str) -> list[str]:
    """The side files beside the database at ``db_path``, oldest first."""
    folder, base = os.path.split(db_path)
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    prefix = base + SIDE_MARK
    return sorted(os.path.join(folder, n) for n in names if n.startswith(prefix) and n.endswith(SIDE_SUFFIX))


def close_quietly(conn: sqlite3.Connection | None) -> None:
    """Close ``conn``; a failed checkpoint (a full disk) leaves the -wal for the next open to use."""
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass


def _give_up_when_busy(status: int, remaining: int, total: int) -> None:
    """Connection.backup's progress hook: its loop retries a locked source forever, so stop it instead."""
    if status & 0xFF in _BUSY_CODES:
        raise sqlite3.OperationalError("database is locked")


def copy(source: sqlite3.Connection) -> sqlite3.Connection | None:
    """An in-memory copy of ``source``, migrated to the current schema; None if it cannot be read now."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        source.backup(conn, progress=_give_up_when_busy)
        db.migrate(conn)
    except (sqlite3.Error, db.NewerSchemaError):
        conn.close()
        return None
    return conn


def copy_read_only(path: str) -> sqlite3.Connection | None:
    """An in-memory copy of the database at ``path``, opened read-only and without waiting for locks.

    With no -wal or -journal file nobody is writing it, so it is opened immutable (a read-only reader of a WAL
    database would leave empty -wal and -shm files beside it); the copy is checked, in case a writer came.
    """
    if not os.path.isfile(path):
        return None
    writing = any(os.path.exists(f"{path}{suffix}") for suffix in ("-wal", "-journal"))
    flags = "mode=ro" if writing else "mode=ro&immutable=1"
    try:
        source = sqlite3.connect(db.file_uri(path, flags), uri=True, timeout=0)
    except sqlite3.Error:
        return None
    try:
        conn = copy(source)
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
