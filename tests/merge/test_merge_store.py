"""The merge in the store: what makes an attempt the same one, time order, an older history file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from quizzer.session.records import Attempt
from quizzer.session.srs import Scheduler
from quizzer.store import db
from quizzer.store.history import HistoryStore
from quizzer.store.history_file import HistoryFile, parse
from quizzer.store.merge import MergeReport
from tests.cli_run import run_cli
from tests.merge.machines import DAY, WALL, Machine, document, write_config

ATTEMPT = Attempt(
    "t", 7, {"n": 1}, "16M", 16e6, 16.4e6, "params", "close", 0.025, None, 30.0, 0, "drill", WALL, "drill-1"
)


def file_of(*attempts: Attempt) -> HistoryFile:
    return HistoryFile("other", WALL, attempts, {}, ())


def merged(store: HistoryStore, incoming: HistoryFile, *, dry_run: bool = False) -> MergeReport:
    return store.merge(incoming, scheduler=Scheduler(), leech_lapses=8, dry_run=dry_run)


def test_an_attempt_is_the_same_one_by_its_instance_answer_mode_session_and_microsecond() -> None:
    store = HistoryStore.memory()
    store.record(ATTEMPT)
    same = ATTEMPT.replace(at=WALL + 4e-7, seconds=99.0, verdict="wrong", topic="other")  # same microsecond
    others = [
        ATTEMPT.replace(at=WALL + 2e-6),
        ATTEMPT.replace(seed=8),
        ATTEMPT.replace(part=2),
        ATTEMPT.replace(answer="16.4M"),
        ATTEMPT.replace(mode="study"),
        ATTEMPT.replace(session="drill-2"),
        ATTEMPT.replace(template_id="u"),
    ]
    report = merged(store, file_of(same, *others))
    assert (report.attempts_added, report.attempts_known) == (len(others), 1)
    assert store.count() == 1 + len(others)


def test_identical_attempts_are_as_many_as_on_the_side_with_more() -> None:
    store = HistoryStore.memory()
    store.record(ATTEMPT)
    store.record(ATTEMPT)
    report = merged(store, file_of(ATTEMPT, ATTEMPT, ATTEMPT))
    assert (report.attempts_added, report.attempts_known) == (1, 2)
    assert merged(store, file_of(ATTEMPT, ATTEMPT, ATTEMPT)).changes == 0
    assert store.count() == 3


def test_a_dry_run_reports_the_same_and_writes_nothing() -> None:
    store = HistoryStore.memory()
    incoming = file_of(ATTEMPT, ATTEMPT.replace(at=WALL - 10))
    dry = merged(store, incoming, dry_run=True)
    assert store.count() == 0
    assert merged(store, incoming) == dry
    assert store.count() == 2


def test_a_reader_that_read_before_the_import_reads_the_attempts_in_time_order_after(tmp_path: Path) -> None:
    """The import rewrites the rows in time order; a store that remembered rows by id reads them all again."""
    path = tmp_path / "h.db"
    reader = HistoryStore.open(path)
    for day in (1, 3, 5):
        reader.record(ATTEMPT.replace(at=WALL + day * DAY))
    assert len(reader.attempts()) == 3  # remembered
    importer = HistoryStore.open(path)
    report = merged(importer, file_of(*(ATTEMPT.replace(at=WALL + d * DAY, answer="x") for d in (0, 2, 4))))
    importer.close()
    assert report.reordered
    seen = reader.attempts()
    assert [a.at for a in seen] == [WALL + d * DAY for d in range(6)]
    assert [a.answer for a in seen] == ["x", "16M"] * 3
    reader.close()


def test_attempts_after_this_historys_last_are_appended_without_a_rewrite(tmp_path: Path) -> None:
    store = HistoryStore.open(tmp_path / "h.db")
    store.record(ATTEMPT)
    report = merged(store, file_of(ATTEMPT.replace(at=WALL + 1)))
    assert not report.reordered
    assert report.attempts_added == 1
    conn = sqlite3.connect(tmp_path / "h.db")
    assert [r[0] for r in conn.execute("SELECT id FROM attempts ORDER BY id")] == [1, 2]
    conn.close()
    store.close()


def old_history(path: Path) -> str:
    """A history file of schema 5 (before review logs): a card reviewed twice, an attempt. Returns the
    card's fsrs JSON."""
    card = Scheduler().review(None, "old", "good", WALL)
    card = Scheduler().review(card, "old", "again", WALL + 2 * DAY)
    raw = sqlite3.connect(path)
    for script in db.MIGRATIONS[:5]:
        for statement in db._statements(script):
            raw.execute(statement)
    raw.execute("PRAGMA user_version = 5")
    raw.execute(
        "INSERT INTO cards (template_id, card_json, introduced, due, lapses, suspended)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        ("old", card.card_json, card.introduced, card.due, card.lapses, None),
    )
    raw.execute(
        "INSERT INTO attempts (at, mode, session, template_id, topic, minutes, seed, variables, answer,"
        " value, expected, unit, verdict, rel_error, mistake, seconds, hints)"
        " VALUES (?, 'drill', 's', 'old', 'x', 2.0, 7, '{}', '16M', '16000000', '16384000', 'params',"
        " 'close', 0.02, NULL, 3.0, 0)",
        (WALL + 60,),
    )
    raw.commit()
    raw.close()
    return card.card_json


def test_an_older_history_is_migrated_and_merged_from_its_cards_as_they_were(tmp_path: Path) -> None:
    """Schema 5 -> 6: its card has no log; another machine's later reviews are replayed on its state."""
    write_config()
    old_db = tmp_path / "old.db"
    card_json = old_history(old_db)
    new = Machine(tmp_path / "new.db")
    new.review("old", "hard", WALL + DAY)  # before the old card's last review: already in its state
    new.review("old", "good", WALL + 9 * DAY)
    new.close()
    run_cli("export", "--format", "history", "--db", str(new.path), "--output", str(tmp_path / "new.json"))
    ran = run_cli("import", str(tmp_path / "new.json"), "--db", str(old_db))
    assert ran.returncode == 0, ran.stderr
    store = HistoryStore.open(old_db)
    [card] = store.cards()
    assert [a.template_id for a in store.attempts()] == ["old"]
    store.close()
    before = Scheduler().review(None, "old", "good", WALL)
    before = Scheduler().review(before, "old", "again", WALL + 2 * DAY)
    assert before.card_json == card_json
    expected = Scheduler().review(before, "old", "good", WALL + 9 * DAY, seconds=20.0)
    assert (card.card_json, card.due, card.introduced, card.lapses) == (
        expected.card_json,
        expected.due,
        WALL,
        1,
    )
    conn = sqlite3.connect(old_db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    conn.close()


def test_an_older_historys_export_carries_each_card_as_its_base(tmp_path: Path) -> None:
    old_db = tmp_path / "old.db"
    card_json = old_history(old_db)
    assert run_cli("export", "--format", "history", "--db", str(old_db), "--output", str(tmp_path / "o.json"))
    doc = document(tmp_path / "o.json")
    [card] = doc["cards"]
    assert card["reviews"] == [
        {
            "base": {
                "card_json": card_json,
                "introduced": WALL,
                "due": card["due"],
                "lapses": 1,
                "suspended": None,
            }
        }
    ]
    empty = HistoryStore.open(tmp_path / "empty.db")
    report = merged(empty, parse(doc))
    assert report.cards_added == 1
    [copied] = empty.cards()
    assert (copied.card_json, copied.introduced, copied.due, copied.lapses) == (
        card_json,
        WALL,
        card["due"],
        1,
    )
    empty.close()


def test_a_history_file_written_by_the_export_parses_to_what_the_store_holds(tmp_path: Path) -> None:
    m = Machine(tmp_path / "m.db")
    m.review("t", "good", WALL)
    attempt = m.answer("t", WALL + 1, part=2, carried={"1": 5}, mistake_title="Head left out")
    mark = m.mark("mock-1", WALL, None)
    m.close()
    run_cli("export", "--format", "history", "--db", str(m.path), "--output", str(tmp_path / "m.json"))
    text = (tmp_path / "m.json").read_text(encoding="utf-8")
    back = parse(json.loads(text))
    assert back.attempts == (attempt,)
    assert back.sessions == (mark,)
    assert [e["rating"] for e in back.logs["t"]] == ["good"]
