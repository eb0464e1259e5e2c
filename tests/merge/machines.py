"""Machines for the merge tests: a history each, studied the way a study session commits its reviews.

``Machine.review`` does what StudySession's commit does, written out here rather than called: fsrs's review
through the Scheduler, then a leech's suspension by Anki's rule (at LEECH_LAPSES lapses, then at every half
as many more), so the single store that saw every review is built without the code under test.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from quizzer.session.leeches import returned_to_study
from quizzer.session.records import Attempt, CardState, SessionMark
from quizzer.session.srs import Scheduler
from quizzer.store.history import HistoryStore

WALL = 1_750_000_000.0
DAY = 86_400.0
#: The leech threshold the tests' config sets (and their own rule uses).
LEECH_LAPSES = 4


def is_leech(lapses: int) -> bool:
    """Anki's rule, written out: the threshold, then every half threshold more."""
    return lapses >= LEECH_LAPSES and (lapses - LEECH_LAPSES) % (LEECH_LAPSES // 2) == 0


class Machine:
    """One machine's history file, with what its user does on it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = HistoryStore.open(path)

    def review(self, template_id: str, rating: str, at: float, seconds: float = 20.0) -> CardState:
        """A study review committed at ``at``, as a study session commits one."""
        state = Scheduler().review(self.store.card(template_id), template_id, rating, at, seconds=seconds)
        if rating == "again" and is_leech(state.lapses):
            state = state.replace(suspended=at)
        self.store.put_card(state)
        return state

    def return_leech(self, template_id: str, at: float) -> None:
        """The leech back in study at ``at`` (Stats' "return to study")."""
        card = self.store.card(template_id)
        assert card is not None
        assert card.suspended is not None
        self.store.put_card(returned_to_study(card, at))

    def answer(self, template_id: str, at: float, answer: str = "16M", **fields: Any) -> Attempt:
        """An attempt recorded at ``at``."""
        attempt = Attempt(
            template_id, 7, {"n": 1}, answer, 16e6, 16.4e6, "params", "close", 0.025, None, 30.0, 0,
            "drill", at, f"drill-{self.path.stem}", "sizing", 2.0,
        ).replace(**fields)  # fmt: skip
        self.store.record(attempt)
        return attempt

    def mark(self, session: str, started: float, finished: float | None) -> SessionMark:
        mark = SessionMark(session, "mock", started, 5, finished, ("a", "b"), 20.0)
        self.store.mark_session(mark)
        return mark

    def close(self) -> None:
        self.store.close()


def tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the database at ``path`` (row ids included): what "unchanged" compares."""
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        return {name: conn.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall() for name in names}
    finally:
        conn.close()


def write_config(leech_lapses: int = LEECH_LAPSES) -> None:
    """This machine's config.toml (QUIZZER_CONFIG, a fresh path per test) with the tests' leech threshold."""
    Path(os.environ["QUIZZER_CONFIG"]).write_text(f"leech_lapses = {leech_lapses}\n", encoding="utf-8")


def document(path: Path) -> dict[str, Any]:
    """A history file, decoded."""
    decoded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return decoded
