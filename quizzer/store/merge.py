"""Merging another machine's history file into this database, in one transaction, each record once.

- An attempt is the same one when its template, seed, part, answer, mode, session and the time it was
  answered (to the microsecond) are the same: what one person typing on one machine cannot repeat. A file
  adds only what this history lacks (two identical attempts on one side are two, on both sides still two).
  Attempts are kept in the order they were answered: when the file's come before this history's last, every
  row is rewritten in time order (under new row ids, so a reader that remembers ids reads all again).
- A study card gains the reviews (and returns to study) its log lacks, then is replayed from its whole log
  through fsrs with this machine's desired retention and leech threshold (quizzer.session.replay); a card
  the file adds nothing to is left as it is.
- A session mark is added if its id is new here; one left unfinished here takes the file's finish.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Hashable

from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.session.records import Attempt, CardState, Item, SessionMark
from quizzer.session.replay import merge as merge_log
from quizzer.session.replay import replay
from quizzer.session.srs import Scheduler
from quizzer.store import sql
from quizzer.store.history_file import HistoryFile

_KEYS = "SELECT template_id, seed, part, answer, mode, session, at FROM attempts"


class MergeRefused(QuizzerError):
    """The history cannot take a merge now (it is not open for writing, or the write failed): nothing
    was written."""


class MergeReport(Record):
    """What merging a history file adds (or, for a dry run, would add)."""

    attempts_added: int = 0
    attempts_known: int = 0
    """The file's attempts this history has already."""
    cards_added: int = 0
    """Study cards new here."""
    cards_changed: int = 0
    """Cards here whose log gained reviews from the file (replayed)."""
    reviews_added: int = 0
    leeches_added: int = 0
    """Cards suspended as leeches after the merge that were not before (or not here)."""
    leeches_returned: int = 0
    """Cards suspended here before the merge that are back in study after it."""
    sessions_added: int = 0
    sessions_finished: int = 0
    """Session marks left unfinished here that the file finishes."""
    reordered: bool = False
    """The attempts were rewritten in time order (the file's came before this history's last)."""

    @property
    def changes(self) -> int:
        """How many records the merge adds or changes (0: the file adds nothing)."""
        return (
            self.attempts_added + self.cards_added + self.cards_changed + self.sessions_added
            + self.sessions_finished
        )  # fmt: skip


def attempt_key(a: Attempt) -> Hashable:
    """What makes two attempts the same one (``at`` to the microsecond)."""
    return (a.template_id, a.seed, a.part, a.answer, a.mode, a.session, round(a.at * 1e6))


def merge(
    conn: sqlite3.Connection,
    incoming: HistoryFile,
    *,
    scheduler: Scheduler,
    leech_lapses: int,
    dry_run: bool,
) -> MergeReport:
    """Merge ``incoming`` into ``conn`` in one transaction (all or, on an error raised, none), or for a
    ``dry_run`` only say what it would add. Raises sqlite3.Error when the database fails (nothing written)."""
    conn.execute("BEGIN" if dry_run else "BEGIN IMMEDIATE")
    try:
        attempts, known, reordered = _attempts(conn, incoming.attempts)
        cards, counts = _cards(conn, incoming, scheduler, leech_lapses)
        marks, added_marks, finished = _sessions(conn, incoming.sessions)
        report = MergeReport(
            len(attempts), known, *counts, added_marks, finished, reordered=reordered and bool(attempts)
        )
        if dry_run:
            conn.execute("ROLLBACK")
            return report
        items: list[Item] = [*attempts, *cards, *marks]
        for item in items:
            sql.write(conn, item)
        if report.reordered:
            _rewrite_in_time_order(conn)
        conn.execute("COMMIT")
    except BaseException:
        sql.rollback_quietly(conn)
        raise
    return report


def _attempts(conn: sqlite3.Connection, theirs: tuple[Attempt, ...]) -> tuple[list[Attempt], int, bool]:
    """The file's attempts this history lacks, how many it has, and whether any new one is older than
    this history's last."""
    here: Counter[Hashable] = Counter()
    latest = float("-inf")
    for template_id, seed, part, answer, mode, session, at in conn.execute(_KEYS):
        here[(template_id, seed, part, answer, mode, session, round(at * 1e6))] += 1
        latest = max(latest, at)
    new: list[Attempt] = []
    for attempt in theirs:
        key = attempt_key(attempt)
        if here[key] > 0:
            here[key] -= 1
        else:
            new.append(attempt)
    return new, len(theirs) - len(new), any(a.at < latest for a in new)


def _cards(
    conn: sqlite3.Connection, incoming: HistoryFile, scheduler: Scheduler, leech_lapses: int
) -> tuple[list[CardState], tuple[int, int, int, int, int]]:
    """The cards the file changes, replayed, and (added, changed, reviews added, leeches added, returned)."""
    out: list[CardState] = []
    added = changed = reviews = leeches = returned = 0
    for template_id, entries in incoming.logs.items():
        mine = sql.card(conn, template_id)
        merged = merge_log(mine, entries)
        if merged.added == 0:
            continue
        card = replay(template_id, merged.entries, scheduler, leech_lapses=leech_lapses)
        if card is None or card == mine:
            continue
        out.append(card)
        added += mine is None
        changed += mine is not None
        reviews += merged.reviews
        was_leech = mine is not None and mine.suspended is not None
        leeches += card.suspended is not None and not was_leech
        returned += was_leech and card.suspended is None
    return out, (added, changed, reviews, leeches, returned)


def _sessions(
    conn: sqlite3.Connection, theirs: tuple[SessionMark, ...]
) -> tuple[list[SessionMark], int, int]:
    """The marks to write, how many are new here, and how many finish one left unfinished here."""
    here = {m.session: m for m in sql.sessions(conn)}
    out: list[SessionMark] = []
    added = finished = 0
    for mark in theirs:
        mine = here.get(mark.session)
        if mine is None:
            here[mark.session] = mark
            out.append(mark)
            added += 1
        elif mine.finished is None and mark.finished is not None:
            here[mark.session] = mine.replace(finished=mark.finished)
            out.append(here[mark.session])  # the upsert sets only its finish
            finished += 1
    return out, added, finished


def _rewrite_in_time_order(conn: sqlite3.Connection) -> None:
    """Every attempt again, in the order answered (then as recorded), under row ids above the old ones."""
    columns = ", ".join(row[1] for row in conn.execute("PRAGMA table_info(attempts)") if row[1] != "id")
    (top,) = conn.execute("SELECT max(id) FROM attempts").fetchone()
    conn.execute(f"INSERT INTO attempts ({columns}) SELECT {columns} FROM attempts ORDER BY at, id")
    conn.execute("DELETE FROM attempts WHERE id <= ?", (top,))
