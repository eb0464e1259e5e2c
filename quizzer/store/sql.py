"""The SQL of the history tables: attempts and cards written as rows and read back as records."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from quizzer.session.records import Attempt, CardRemoved, CardState, Item, SessionMark

if TYPE_CHECKING:
    from collections.abc import Sequence

#: The attempts columns: Attempt's fields, in their order (records are built by position from them).
_ATTEMPT_COLUMNS = (
    "template_id", "seed", "variables", "answer", "value", "expected", "unit", "verdict", "rel_error",
    "mistake", "seconds", "hints", "mode", "at", "session", "topic", "minutes", "mistake_title", "part",
    "carried",
)  # fmt: skip
_FIELDS = ", ".join(_ATTEMPT_COLUMNS)
_INSERT_ATTEMPT = f"INSERT INTO attempts ({_FIELDS}) VALUES ({', '.join('?' * len(_ATTEMPT_COLUMNS))})"
_SELECT_ATTEMPTS = f"SELECT {_FIELDS} FROM attempts"
_SESSION_COLUMNS = ("session", "mode", "started", "planned", "finished", "plan", "minutes")
_SESSION_FIELDS = ", ".join(_SESSION_COLUMNS)
_UPSERT_SESSION = (
    f"INSERT INTO sessions ({_SESSION_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (session) DO UPDATE SET"
    " finished = excluded.finished"
)
_HAS_SIDE_FILE = "SELECT 1 FROM side_files WHERE digest = ?"
_ADD_SIDE_FILE = "INSERT OR IGNORE INTO side_files (digest, added) VALUES (?, ?)"
_CARD_COLUMNS = ("template_id", "card_json", "introduced", "due", "lapses", "suspended", "review_log")
_CARD_FIELDS = ", ".join(_CARD_COLUMNS)
_UPSERT_CARD = (
    f"INSERT INTO cards ({_CARD_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (template_id) DO UPDATE SET"
    " card_json = excluded.card_json, introduced = excluded.introduced, due = excluded.due,"
    " lapses = excluded.lapses, suspended = excluded.suspended, review_log = excluded.review_log"
)
_DELETE_CARD = "DELETE FROM cards WHERE template_id = ?"


def write(conn: sqlite3.Connection, item: Item) -> None:
    """Insert an attempt, insert or replace a card or a session mark, or drop a card (committed at once in
    autocommit mode)."""
    if isinstance(item, CardState):
        conn.execute(_UPSERT_CARD, tuple(getattr(item, name) for name in _CARD_COLUMNS))
        return
    if isinstance(item, CardRemoved):
        conn.execute(_DELETE_CARD, (item.template_id,))
        return
    if isinstance(item, SessionMark):
        plan = json.dumps(list(item.plan)) if item.plan else None
        conn.execute(
            _UPSERT_SESSION,
            (item.session, item.mode, item.started, item.planned, item.finished, plan, item.minutes),
        )
        return
    values = item.as_dict()
    values["variables"] = json.dumps(item.variables, sort_keys=True)
    values["value"] = None if item.value is None else json.dumps(item.value)
    values["expected"] = json.dumps(item.expected)
    values["carried"] = None if item.carried is None else json.dumps(item.carried, sort_keys=True)
    row = tuple(values[name] for name in _ATTEMPT_COLUMNS)
    conn.execute(_INSERT_ATTEMPT, row)


def has_side_file(conn: sqlite3.Connection, digest: str) -> bool:
    """Whether the side file with this SHA-256 was added to the database already."""
    return conn.execute(_HAS_SIDE_FILE, (digest,)).fetchone() is not None


def write_all(
    conn: sqlite3.Connection,
    items: list[Item],
    side_files: Sequence[tuple[str, list[Item]]] = (),
    *,
    now: float = 0.0,
) -> list[Item]:
    """In one transaction (all or, on an error raised, none): each side file's items, unless its digest says
    the database has them already, and its digest; then ``items``. Returns the items written.

    Nothing is matched attempt by attempt: two identical attempts are two attempts, and a side file added
    twice (its removal failed) adds nothing the second time.
    """
    written: list[Item] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for digest, side_items in side_files:
            if not has_side_file(conn, digest):
                for item in side_items:
                    write(conn, item)
                written += side_items
                conn.execute(_ADD_SIDE_FILE, (digest, now))
        for item in items:
            write(conn, item)
        written += items
        conn.execute("COMMIT")
    except BaseException:
        rollback_quietly(conn)
        raise
    return written


def attempts(conn: sqlite3.Connection, *, since: float | None, mode: str | None) -> list[Attempt]:
    """Attempts in the order they were recorded, ``at >= since`` and of ``mode`` when given."""
    clauses: list[str] = []
    params: list[float | str] = []
    if since is not None:
        clauses.append("at >= ?")
        params.append(since)
    if mode is not None:
        clauses.append("mode = ?")
        params.append(mode)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return _attempts(conn.execute(f"{_SELECT_ATTEMPTS}{where} ORDER BY id", params).fetchall())


def attempts_after(conn: sqlite3.Connection, after_id: int | None) -> tuple[list[Attempt], int | None]:
    """The attempts whose row id is over ``after_id`` (None: every attempt), in the order they were
    recorded, and the last row id (``after_id`` when there is none): the attempts recorded since a read
    that ended at ``after_id``."""
    where, params = ("", ()) if after_id is None else (" WHERE id > ?", (after_id,))
    rows = conn.execute(f"SELECT {_FIELDS}, id FROM attempts{where} ORDER BY id", params).fetchall()
    return _attempts(rows), rows[-1][-1] if rows else after_id


def attempt_count(conn: sqlite3.Connection) -> int:
    """How many attempts there are."""
    return int(conn.execute("SELECT count(*) FROM attempts").fetchone()[0])


def _attempts(rows: list[tuple[Any, ...]]) -> list[Attempt]:
    """The Attempts of ``rows`` (_ATTEMPT_COLUMNS first, in order; a column after them is left out)."""
    # One json.loads per column for all rows, not three per row (3-4x faster for 10k attempts).
    variables = json.loads(f"[{','.join([r[2] for r in rows])}]")
    values = json.loads(f"[{','.join(['null' if r[4] is None else r[4] for r in rows])}]")
    expected = json.loads(f"[{','.join([r[5] for r in rows])}]")
    return list(map(_attempt, rows, variables, values, expected))


def card(conn: sqlite3.Connection, template_id: str) -> CardState | None:
    """The card of ``template_id``, or None."""
    row = conn.execute(f"SELECT {_CARD_FIELDS} FROM cards WHERE template_id = ?", (template_id,)).fetchone()
    return None if row is None else CardState(**dict(zip(_CARD_COLUMNS, row, strict=True)))


def cards(conn: sqlite3.Connection) -> list[CardState]:
    """Every card, by template id."""
    rows = conn.execute(f"SELECT {_CARD_FIELDS} FROM cards ORDER BY template_id")
    return [CardState(**dict(zip(_CARD_COLUMNS, row, strict=True))) for row in rows]


def _attempt(row: tuple[Any, ...], v: dict[str, Any], x: int | float | None, e: int | float) -> Attempt:
    """An Attempt from a row and its decoded JSON columns (variables, value, expected), by position: the
    columns are Attempt's fields in order (a test holds them to it)."""
    carried = row[19]
    return Attempt(
        row[0], row[1], v, row[3], x, e, row[6], row[7], row[8], row[9], row[10], row[11], row[12], row[13],
        row[14], row[15], row[16], row[17], row[18], None if carried is None else json.loads(carried),
    )  # fmt: skip


def rollback_quietly(conn: sqlite3.Connection) -> None:
    """End the open transaction of ``conn`` if there is one (SQLite may already have rolled it back)."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def sessions(conn: sqlite3.Connection) -> list[SessionMark]:
    """Every session mark, by start time."""
    marks = []
    for row in conn.execute(f"SELECT {_SESSION_FIELDS} FROM sessions ORDER BY started"):
        fields = dict(zip(_SESSION_COLUMNS, row, strict=True))
        fields["plan"] = tuple(json.loads(fields["plan"])) if fields["plan"] else ()
        marks.append(SessionMark(**fields))
    return marks
