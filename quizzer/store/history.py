"""HistoryStore: attempts and study cards in SQLite; what the file cannot take is held, announced, saved."""

from __future__ import annotations

import _thread
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from quizzer.session.records import Attempt, CardRemoved, CardState, Item, SessionMark
from quizzer.store import db, faults, sql

if TYPE_CHECKING:
    from quizzer.session.srs import Scheduler
    from quizzer.store.history_file import HistoryFile
    from quizzer.store.merge import MergeReport

#: Called as ``on_notice(severity, message)``; severity is "information", "warning" or "error" (Textual's).
Notice = Callable[[str, str], None]
#: While the file fails, each new attempt or card tries it again, waiting at most this long for a lock.
RETRY_BUSY_TIMEOUT_MS = 100

_MEMORY = "history is kept in memory: "
_LATER = "what this session records is saved beside it at exit"
_RETRIED = "it is tried again at each new attempt, and what it never gets is saved beside it at exit"
_T = TypeVar("_T")


class HistoryStore:
    """Attempts and study cards, committed to a database file as they happen.

    When the file fails, changes are held in memory (reads include them) and announced; each later change
    tries the file again and, once it works, writes everything held. close() saves what never got there to a
    side file beside the database (``<db>.unsaved-<time>.jsonl``), which the next open adds back.
    Thread-safe; notices go to ``on_notice`` on the thread that called the store, after its lock is released.
    """

    def __init__(
        self,
        file_path: str | None,
        *,
        on_notice: Notice | None = None,
        busy_timeout_ms: int = db.BUSY_TIMEOUT_MS,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.file_path = file_path
        """The database file this store saves to; None for a store asked to keep history in memory."""
        self.on_notice = on_notice
        """Called as on_notice(severity, message) for each notice; set it to receive the later ones."""
        self.notices: list[tuple[str, str]] = []
        """Every notice so far as (severity, message), oldest first (those before on_notice was set too)."""
        self.warning: str | None = None
        """The last warning or error notice while it still holds (a recovered fault clears it); else None."""
        self.saved_to: str | None = None
        """The side file close() saved the changes the database never got to, if it had to."""
        self._busy_timeout_ms = busy_timeout_ms
        self._wall = wall
        self._file: sqlite3.Connection | None = None  # the database, when it is open
        self._memory: sqlite3.Connection | None = None  # what reads use while the file is not used
        self._held: list[Item] = []  # changes the file has not got, in order
        #: Side files found at open while the file failed: (path, SHA-256, items); their items lead _held.
        self._adopted: list[tuple[str, str, list[Item]]] = []
        self._retry = False  # whether a change may try to open the file again
        self._problem = ""  # why the file is not used, in words
        self._warning_before: str | None = None  # the warning to restore when the file works again
        self._read_failed = False
        self._outbox: list[tuple[str, str]] = []
        self._lock = _thread.RLock()  # threading's RLock, without importing threading
        #: Every attempt read so far, the connection it was read from and its last row id (``attempts``).
        self._known: tuple[sqlite3.Connection, int | None, list[Attempt]] | None = None
        self.guard: Callable[[], None] | None = None
        """Called before every read and write (the app's tests set one that raises on its UI thread)."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        on_notice: Notice | None = None,
        busy_timeout_ms: int | None = None,
        wall: Callable[[], float] = time.time,
    ) -> HistoryStore:
        """The store at ``path``; a broken file is moved aside, one it must not or cannot write means memory.

        Never raises for a bad file: a notice says what happened instead (to ``on_notice``, in ``notices`` and
        in ``warning``). Side files left beside the database by earlier sessions are added to it.
        ``busy_timeout_ms`` defaults to db.BUSY_TIMEOUT_MS; ``wall`` (epoch seconds) dates the names of files
        set aside or saved beside the database.
        """
        path = os.fspath(path)
        timeout_ms = db.BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
        store = cls(path, on_notice=on_notice, busy_timeout_ms=timeout_ms, wall=wall)
        with store._lock:
            store._open_file()
        store._deliver()
        return store

    @classmethod
    def memory(cls) -> HistoryStore:
        """A store that keeps history in memory only (no notices: this was asked for)."""
        store = cls(None)
        store._memory = db.connect_memory()
        return store

    @property
    def saved_to_file(self) -> bool:
        """Whether every change so far is in the database file (False while any is held in memory)."""
        return self._file is not None and self._memory is None

    @property
    def path(self) -> str | None:
        """The database file while everything is saved to it; None while history is kept in memory."""
        return self.file_path if self.saved_to_file else None

    @property
    def pending_count(self) -> int:
        """How many attempts are held in memory, not yet in the database file."""
        return sum(isinstance(item, Attempt) for item in self._held)

    def record(self, attempt: Attempt) -> None:
        """Commit ``attempt`` to the file, or hold it in memory and say so if the file fails; never raises."""
        self._change(attempt)

    def put_card(self, state: CardState) -> None:
        """Insert or replace the card of ``state.template_id``, as record() does; never raises."""
        self._change(state)

    def remove_card(self, template_id: str) -> None:
        """Drop the card of ``template_id`` (its template is new to study again), as record() does."""
        self._change(CardRemoved(template_id))

    def attempts(self, *, since: float | None = None, mode: str | None = None) -> list[Attempt]:
        """Attempts in the order they were recorded (an import puts its own in time order among them);
        ``since`` keeps those with ``at >= since``, ``mode`` those of that mode. Every attempt is read once:
        a later read adds the rows recorded since (here or by another process; attempts are only added, or
        rewritten all at once under higher row ids by an import, so a count that disagrees reads all)."""
        if since is not None:
            return self._read(lambda conn: sql.attempts(conn, since=since, mode=mode), [])
        every: list[Attempt] = self._read(self._every_attempt, [])
        return every if mode is None else [a for a in every if a.mode == mode]

    def _every_attempt(self, conn: sqlite3.Connection) -> list[Attempt]:
        """Every attempt in ``conn``: those read before from it (under the lock), and the rows after them."""
        known, self._known = self._known, None  # dropped if this read fails
        last, before = (known[1], known[2]) if known is not None and known[0] is conn else (None, [])
        added, last = sql.attempts_after(conn, last)
        every = before + added
        if len(every) != sql.attempt_count(conn):  # rows removed, or written under the last id: read all
            every, last = sql.attempts_after(conn, None)
        self._known = (conn, last, every)
        return list(every)

    def count(self) -> int:
        """How many attempts there are."""
        return self._read(lambda conn: int(conn.execute("SELECT count(*) FROM attempts").fetchone()[0]), 0)

    def card(self, template_id: str) -> CardState | None:
        """The card of ``template_id``, or None if it was never studied."""
        return self._read(lambda conn: sql.card(conn, template_id), None)

    def mark_session(self, mark: SessionMark) -> None:
        """Record a timed session's start (``finished`` None) or end; never raises, as ``record``."""
        self._change(mark)

    def sessions(self) -> list[SessionMark]:
        """Every timed session's mark, by start time (one never finished was left unfinished)."""
        return self._read(sql.sessions, [])

    def cards(self) -> list[CardState]:
        """Every card, by template id."""
        return self._read(sql.cards, [])

    def merge(
        self, incoming: HistoryFile, *, scheduler: Scheduler, leech_lapses: int, dry_run: bool = False
    ) -> MergeReport:
        """Merge another machine's history file into the database in one transaction (quizzer.store.merge;
        ``dry_run``: only say what it would add). Raises MergeRefused, nothing written, while the file is
        not in use (history kept in memory) or when the write fails."""
        from quizzer.store.merge import MergeRefused, merge

        if self.guard is not None:
            self.guard()
        with self._lock:
            conn = self._memory if self.file_path is None else self._file  # memory: as it was asked for
            if conn is None or (self.file_path is not None and self._memory is not None):
                problem = self._problem or "the store is closed"
                raise MergeRefused(f"the history at {self.file_path} cannot be written now: {problem}")
            try:
                report = merge(
                    conn, incoming, scheduler=scheduler, leech_lapses=leech_lapses, dry_run=dry_run
                )
            except sqlite3.Error as exc:
                raise MergeRefused(faults.reason(self.file_path or "", exc)) from None
            self._known = None  # rows may have been rewritten in time order
        return report

    def close(self) -> None:
        """Write what is held (a last try), else save it to a side file and say where; close the database."""
        with self._lock:
            if self._held and self.file_path is not None:
                self._write_held(self._busy_timeout_ms)
            if self._held and self.file_path is not None:
                self._save_aside()
            faults.close_quietly(self._file)
            faults.close_quietly(self._memory)
            self._file = self._memory = None
            self._known = None
        self._deliver()

    # --- opening ------------------------------------------------------------------------------------------

    def _open_file(self) -> None:
        """Connect to the file, or set aside a damaged one, or fall back to memory; announce what happened."""
        path = self.file_path
        assert path is not None
        try:
            self._file = db.connect(path, busy_timeout_ms=self._busy_timeout_ms)
        except db.NewerSchemaError:
            self._hold_from_open(f"{path} was made by a newer quizzer", f"it is left untouched; {_LATER}")
        except db.ForeignDatabaseError as exc:
            self._hold_from_open(f"{path} is not a quizzer history: {exc}", f"it is left untouched; {_LATER}")
        except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: a path with a NUL in it
            if db.is_corrupt(exc):
                self._set_aside()
            else:
                self._hold_from_open(faults.reason(path, exc), _RETRIED, retry=True)
        if self._file is not None:
            self._add_side_files()

    def _hold_from_open(self, problem: str, then: str, *, retry: bool = False) -> None:
        """Keep history in memory from the start; ``retry``: from a read-only copy, trying the file again."""
        assert self.file_path is not None
        self._problem, self._retry = problem, retry
        self._memory = (faults.copy_read_only(self.file_path) if retry else None) or db.connect_memory()
        for side, digest, items in self._side_files():  # older than anything this session does: held first
            try:
                if sql.has_side_file(self._memory, digest):  # the file has them: removed once it works
                    items = []
                else:
                    sql.write_all(self._memory, [], [(digest, items)], now=self._wall())  # for reads
            except sqlite3.Error:
                pass  # reads miss them, but they are held
            self._adopted.append((side, digest, items))
            self._held += items
        earlier = f" ({_count(self._held)} saved beside it earlier are held too)" if self._held else ""
        self._announce("warning", f"{_MEMORY}{problem}; {then}{earlier}")

    def _set_aside(self) -> None:
        """Rename a damaged database (and its -wal/-shm) aside, then start a fresh one at the same path."""
        path = self.file_path
        assert path is not None
        aside = faults.aside_name(path, self._wall())
        try:
            os.rename(path, aside)
            for suffix in ("-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.rename(path + suffix, aside + suffix)
        except OSError as exc:
            self._hold_from_open(f"{path} is damaged and could not be moved aside ({exc})", _LATER)
            return
        moved = f"{path} was damaged; it was moved to {aside}"
        try:
            self._file = db.connect(path, busy_timeout_ms=self._busy_timeout_ms)
        except (sqlite3.Error, OSError, db.NewerSchemaError, db.ForeignDatabaseError) as exc:
            problem = faults.reason(path, exc)
            self._hold_from_open(problem, f"{moved} and a new one could not be made; {_RETRIED}", retry=True)
            return
        self._announce("warning", f"{moved} and a new history was started")

    def _add_side_files(self) -> None:
        """Add the side files beside the database to it (one already added adds nothing), then remove them."""
        assert self._file is not None
        assert self.file_path is not None
        for side, digest, items in self._side_files():
            try:
                added = sql.write_all(self._file, [], [(digest, items)], now=self._wall())
            except sqlite3.Error as exc:
                problem = faults.reason(self.file_path, exc)
                self._announce("warning", f"{side} could not be added to the history ({problem}); left as is")
                continue
            try:
                os.remove(side)
                gone = "and the file was removed"
            except OSError as exc:
                gone = f"but the file could not be removed ({exc.strerror}; adding it again adds nothing)"
            if items and not added:
                added_text = f"the {_count(items)} saved in {side} were already in the history, {gone}"
            else:
                added_text = f"{_count(added)} saved in {side} {_were(added)} added to the history {gone}"
            self._announce("information", added_text)

    def _side_files(self) -> list[tuple[str, str, list[Item]]]:
        """The side files beside the database and their items, oldest first; one it cannot read is named."""
        assert self.file_path is not None
        sides = faults.side_files(self.file_path)
        if not sides:
            return []
        from quizzer.store import sidefile  # only now: it loads the export row format and json lines

        out: list[tuple[str, str, list[Item]]] = []
        for side in sides:
            try:
                out.append((side, *sidefile.read(side)))
            except (OSError, ValueError) as exc:
                self._announce("warning", f"{side} could not be read ({exc}); it was left as it is")
        return out

    # --- writing ------------------------------------------------------------------------------------------

    def _change(self, item: Item) -> None:
        """Write ``item`` to the file; or hold it, trying the file again with everything held."""
        if self.guard is not None:
            self.guard()
        with self._lock:
            if self._memory is None and self._file is None:
                raise RuntimeError("the history store is closed")
            if self._memory is None:
                assert self._file is not None
                try:
                    sql.write(self._file, item)
                except sqlite3.Error as exc:
                    self._fall_back(exc)
                    self._hold(item)
                    self._announce(
                        "warning",
                        f"{_MEMORY}{self._problem}; {_count(self._held)} held, written to the file as soon as"
                        " it works again (tried at each new attempt), else saved beside it at exit",
                    )
            elif self.file_path is None:  # memory was asked for: nothing is held for a file
                sql.write(self._memory, item)
            else:
                self._hold(item)
                self._write_held(RETRY_BUSY_TIMEOUT_MS)
        self._deliver()

    def _fall_back(self, exc: sqlite3.Error) -> None:
        """Start holding changes: reads use an in-memory copy of the file, later changes retry it quickly."""
        conn = self._file
        assert conn is not None
        assert self.file_path is not None
        self._problem = faults.reason(self.file_path, exc)
        self._warning_before = self.warning
        self._retry = True
        sql.rollback_quietly(conn)
        self._memory = faults.copy(conn) or db.connect_memory()
        try:
            conn.execute(f"PRAGMA busy_timeout = {RETRY_BUSY_TIMEOUT_MS}")
        except sqlite3.Error:
            pass

    def _hold(self, item: Item) -> None:
        """Keep ``item`` for the file, and in the in-memory copy that reads use."""
        self._held.append(item)
        assert self._memory is not None
        try:
            sql.write(self._memory, item)
        except sqlite3.Error:
            pass  # reads miss it, but it is held: the file or a side file still gets it

    def _write_held(self, busy_timeout_ms: int) -> bool:
        """Try the file with everything held, in one transaction; if it works, use the file again, say so."""
        path = self.file_path
        assert path is not None
        conn = self._file
        try:
            if conn is None:
                if not self._retry:
                    return False
                conn = self._file = db.connect(path, busy_timeout_ms=busy_timeout_ms)
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            adopted = [(digest, items) for _, digest, items in self._adopted]
            session = self._held[sum(len(items) for _, items in adopted) :]
            written = sql.write_all(conn, session, adopted, now=self._wall())  # one transaction
        except (sqlite3.Error, OSError, ValueError, db.NewerSchemaError, db.ForeignDatabaseError) as exc:
            self._problem = faults.reason(path, exc)
            return False
        self._held = []
        removed = self._remove_adopted()
        faults.close_quietly(self._memory)
        self._memory = None
        self._read_failed = False
        try:
            conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        except sqlite3.Error:
            pass
        held = f"{_count(written)} held {_were(written)} written{removed}"
        self._announce("information", f"history is saved to {path} again: the {held}")
        self.warning = self._warning_before
        return True

    def _remove_adopted(self) -> str:
        """Remove the side files whose items are now safe elsewhere; `` (with those of X, now removed)``."""
        removed = []
        for side, _, _ in self._adopted:
            try:
                os.remove(side)
                removed.append(side)
            except OSError:
                pass  # adding it again at the next open adds nothing: its attempts are there
        self._adopted = []
        return f" (with those of {', '.join(removed)}, now removed)" if removed else ""

    def _save_aside(self) -> None:
        """At close: the held changes to a side file, or, if none can be written, to stderr; say which."""
        from quizzer.store import sidefile

        path = self.file_path
        assert path is not None
        held, self._held = self._held, []
        lost = f"{_count(held)} could not be written to {path} because {self._problem}"
        saved, problems = sidefile.save(path, held, self._wall())
        self.saved_to = saved
        if saved is not None:
            self._remove_adopted()  # their items are in the new side file
        if saved is not None and not problems:
            message = f"{lost}; they were saved to {saved} and are added to the history when it next opens"
            self._announce("warning", message)
        elif saved is not None:
            message = (
                f"{lost}, nor beside it ({problems[0]}); they were saved to {saved}: move that file next to"
                f" {path} to have them added when it next opens"
            )
            self._announce("warning", message)
        else:
            for line in sidefile.lines(held):
                print(line, file=sys.stderr)
            sys.stderr.flush()
            self._announce(
                "error",
                f"{lost}, nor to a side file ({'; '.join(problems)}); they were printed above on stderr,"
                " one JSON object a line (the fields of `quizzer export --format json`)",
            )

    # --- reading and notices ------------------------------------------------------------------------------

    def _read(self, read: Callable[[sqlite3.Connection], _T], default: _T) -> _T:
        """``read`` on the memory copy or the file; on an error, ``default`` and (once) an error notice."""
        if self.guard is not None:
            self.guard()
        with self._lock:
            conn = self._memory or self._file
            if conn is None:
                raise RuntimeError("the history store is closed")
            try:
                result = read(conn)
            except (sqlite3.Error, ValueError) as exc:  # ValueError: a row whose JSON was edited badly
                result = default
                if not self._read_failed:
                    self._read_failed = True
                    where = self.path or "memory"
                    self._announce("error", f"the history in {where} could not be read ({exc}); none shown")
        self._deliver()
        return result

    def _announce(self, severity: str, message: str) -> None:
        """Record a notice; it goes to on_notice when the lock is released (_deliver)."""
        self.notices.append((severity, message))
        if severity != "information":
            self.warning = message
        self._outbox.append((severity, message))

    def _deliver(self) -> None:
        """Hand the queued notices to on_notice, outside the lock: the callback may call the store."""
        with self._lock:
            out, self._outbox = self._outbox, []
        callback = self.on_notice
        if callback is not None:
            for severity, message in out:
                callback(severity, message)


def _were(items: list[Item]) -> str:
    """``was`` for one item, else ``were``."""
    return "was" if len(items) == 1 else "were"


def _count(items: list[Item]) -> str:
    """``3 attempts``, ``1 attempt and 2 study cards``, ``no attempts``."""
    n_attempts = sum(isinstance(item, Attempt) for item in items)
    n_cards = sum(isinstance(item, CardState | CardRemoved) for item in items)
    words = [f"{n_attempts} attempt{'' if n_attempts == 1 else 's'}"] if n_attempts or not n_cards else []
    if n_cards:
        words.append(f"{n_cards} study card{'' if n_cards == 1 else 's'}")
    return " and ".join(words)
