"""Schema 5 in the store: a card's lapses and suspension, a removed card, a session's plan and time limit;
a version 4 history gains them with its rows kept; side files of both versions read back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from quizzer.session.records import CardRemoved, CardState, SessionMark
from quizzer.store import db, sidefile
from quizzer.store.history import HistoryStore


def test_lapses_suspension_plan_and_minutes_read_back(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    store = HistoryStore.open(path)
    store.put_card(CardState("a", "{}", 1.0, 2.0, lapses=8, suspended=3.5))
    store.put_card(CardState("b", "{}", 1.0, 2.0))
    store.mark_session(SessionMark("p1", "placement", 10.0, 3, plan=("x", "y", "z")))
    store.mark_session(SessionMark("m1", "mock", 20.0, 8, minutes=12.5))
    store.mark_session(SessionMark("p1", "placement", 10.0, 3, finished=30.0))  # the end: plan kept
    store.close()
    again = HistoryStore.open(path)
    assert again.cards() == [CardState("a", "{}", 1.0, 2.0, 8, 3.5), CardState("b", "{}", 1.0, 2.0, 0, None)]
    assert again.sessions() == [
        SessionMark("p1", "placement", 10.0, 3, 30.0, ("x", "y", "z")),
        SessionMark("m1", "mock", 20.0, 8, minutes=12.5),
    ]
    again.close()


def test_a_removed_card_is_gone_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    store = HistoryStore.open(path)
    store.put_card(CardState("a", "{}", 1.0, 2.0))
    store.put_card(CardState("b", "{}", 1.0, 2.0))
    store.remove_card("a")
    store.remove_card("never-there")  # nothing to drop: no error
    store.close()
    again = HistoryStore.open(path)
    assert [c.template_id for c in again.cards()] == ["b"]
    again.close()


def test_a_version_4_history_gains_the_new_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    raw = sqlite3.connect(path)
    for script in db.MIGRATIONS[:4]:
        for statement in db._statements(script):
            raw.execute(statement)
    raw.execute("PRAGMA user_version = 4")
    raw.execute("INSERT INTO cards VALUES ('old', '{}', 1.0, 2.0)")
    raw.execute("INSERT INTO sessions VALUES ('m0', 'mock', 5.0, 8, 9.0)")
    raw.commit()
    raw.close()
    store = HistoryStore.open(path)
    assert store.cards() == [CardState("old", "{}", 1.0, 2.0, lapses=0, suspended=None)]
    assert store.sessions() == [SessionMark("m0", "mock", 5.0, 8, 9.0, plan=(), minutes=None)]
    store.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION == 6
    check.close()


def test_removed_cards_plans_and_leeches_survive_a_side_file(tmp_path: Path) -> None:
    items = [
        CardState("a", "{}", 1.0, 2.0, lapses=9, suspended=4.0),
        CardRemoved("b"),
        SessionMark("p1", "placement", 1.0, 2, plan=("x", "y"), minutes=None),
        SessionMark("m1", "mock", 1.0, 2, minutes=20.0),
    ]
    saved, problems = sidefile.save(str(tmp_path / "h.db"), list(items), 0.0)
    assert saved is not None
    assert problems == []
    _, read = sidefile.read(saved)
    assert read == items


def test_a_side_file_written_before_version_5_still_reads(tmp_path: Path) -> None:
    side = tmp_path / "h.db.unsaved-20260101-000000.jsonl"
    lines = [
        {"card": {"template_id": "a", "card_json": "{}", "introduced": 1.0, "due": 2.0}},
        {"session": {"session": "m1", "mode": "mock", "started": 1.0, "planned": 8, "finished": None}},
    ]
    side.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, read = sidefile.read(str(side))
    assert read == [CardState("a", "{}", 1.0, 2.0), SessionMark("m1", "mock", 1.0, 8)]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ({"card_removed": {"template_id": 3}}, "a removed card needs exactly a template_id"),
        (
            {"card": {"template_id": "a", "card_json": "{}", "introduced": 1.0, "due": 2.0, "lapses": "8"}},
            "lapses",
        ),
        (
            {"card": {"template_id": "a", "card_json": "{}", "introduced": 1.0, "due": 2.0, "x": 1}},
            "a card needs",
        ),
        (
            {
                "session": {
                    "session": "m",
                    "mode": "mock",
                    "started": 1,
                    "planned": 2,
                    "finished": None,
                    "plan": [1],
                }
            },
            "plan is a list of template ids",
        ),
    ],
)
def test_a_bad_line_of_the_new_kinds_is_named(tmp_path: Path, line: dict[str, object], says: str) -> None:
    side = tmp_path / "h.db.unsaved-20260101-000000.jsonl"
    side.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match="line 1") as info:
        sidefile.read(str(side))
    assert says in str(info.value)
