"""A file that is not another machine's history, or a history that cannot take it: a message, no change."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quizzer.store import sql
from tests.cli_run import run_cli
from tests.merge.machines import DAY, WALL, Machine, document, tables, write_config


@pytest.fixture
def exported(tmp_path: Path) -> dict[str, Any]:
    """A valid history file's document (from machine A: an attempt, a card, a session mark), decoded."""
    write_config()
    a = Machine(tmp_path / "a.db")
    a.review("shared", "good", WALL)
    a.review("shared", "again", WALL + 2 * DAY)
    a.answer("shared", WALL + 1)
    a.mark("mock-a", WALL, WALL + 60)
    a.close()
    run_cli("export", "--format", "history", "--db", str(a.path), "--output", str(tmp_path / "a.json"))
    return document(tmp_path / "a.json")


@pytest.fixture
def b_db(tmp_path: Path) -> Path:
    """Machine B's history, with a card and an attempt of its own."""
    b = Machine(tmp_path / "b.db")
    b.review("shared", "hard", WALL + DAY)
    b.answer("shared", WALL + DAY)
    b.close()
    return b.path


def edited(doc: dict[str, Any], edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(doc))
    edit(copy)
    return copy


CASES: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    (
        "wrong format",
        lambda d: d.update(format="anki-deck"),
        "not a quizzer history file (its format is 'anki-deck'",
    ),
    ("no format", lambda d: d.pop("format"), "not a quizzer history file (it has no 'format'"),
    (
        "newer version",
        lambda d: d.update(version=2),
        "written by a newer quizzer (history format version 2; this",
    ),
    ("version text", lambda d: d.update(version="1"), "its 'version' is '1'"),
    ("no cards", lambda d: d.pop("cards"), "no 'cards' field"),
    ("unknown field", lambda d: d.update(notes="x"), "unknown field 'notes'"),
    ("attempt without seed", lambda d: d["attempts"][0].pop("seed"), "attempts[0]: no 'seed'"),
    ("attempt verdict", lambda d: d["attempts"][0].update(verdict="meh"), "attempts[0]: 'verdict' is 'meh'"),
    ("attempts not a list", lambda d: d.update(attempts={}), "'attempts' is a list, not a JSON object"),
    (
        "review rating",
        lambda d: d["cards"][0]["reviews"][1].update(rating="meh"),
        "cards[0]: card 'shared': a review's rating is one of again, hard, good, easy, not 'meh'",
    ),
    (
        "review time",
        lambda d: d["cards"][0]["reviews"][0].update(at=-5),
        "cards[0]: card 'shared': 'at' is a time in seconds since the epoch, from 1970 to 2100",
    ),
    ("card without reviews", lambda d: d["cards"][0].pop("reviews"), "cards[0]: no 'reviews'"),
    (
        "base with a card's fields",
        lambda d: d["cards"][0].update(reviews=[{"base": {**d["cards"][0], "card_json": "{}"} | {}}]),
        "cards[0]: card 'shared': a base has exactly card_json, introduced, due, lapses, suspended",
    ),
    ("session without plan", lambda d: d["sessions"][0].pop("plan"), "sessions[0]: no 'plan'"),
]


@pytest.mark.parametrize(("edit", "message"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_history_file_is_named_and_the_history_is_unchanged(
    exported: dict[str, Any],
    b_db: Path,
    tmp_path: Path,
    edit: Callable[[dict[str, Any]], object],
    message: str,
) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(edited(exported, edit)), encoding="utf-8")
    before = tables(b_db)
    ran = run_cli("import", str(file), "--db", str(b_db))
    assert ran.returncode == 2
    assert ran.stderr.startswith(f"quizzer import: {file}: ")
    assert message in ran.stderr
    assert ran.stderr.rstrip().endswith("nothing was imported")
    assert "Traceback" not in ran.stderr
    assert ran.stdout == ""
    assert tables(b_db) == before


def test_a_base_whose_card_fsrs_cannot_read_is_named(
    exported: dict[str, Any], b_db: Path, tmp_path: Path
) -> None:
    card = exported["cards"][0]
    fields = {k: card[k] for k in ("card_json", "introduced", "due", "lapses", "suspended")}
    card["reviews"] = [{"base": {**fields, "card_json": '{"card_id": 1}'}}]
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    before = tables(b_db)
    ran = run_cli("import", str(file), "--db", str(b_db))
    assert ran.returncode == 2
    assert "cards[0]: card 'shared': a base's card_json is not an fsrs card (KeyError" in ran.stderr
    assert tables(b_db) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'{"format": "quizzer-history",',
            "not JSON (Expecting property name enclosed in double quotes at line 1",
        ),
        (b"", "not JSON (Expecting value at line 1, column 1)"),
        (b"\xff\xfe{}", "not UTF-8 text (invalid start byte at byte 0): not a history file"),
        (b'{"at": NaN}', "not JSON quizzer can read (NaN is not a number JSON allows)"),
        (b"[]", "a list of attempts (`quizzer export --format json`), not a history file"),
        (b'"hello"', "not a quizzer history file (a JSON string, not an object)"),
    ],
    ids=["truncated", "empty", "not utf-8", "nan", "json export", "string"],
)
def test_a_file_that_is_not_json_or_not_a_history_is_named(
    b_db: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    file = tmp_path / "bad.json"
    file.write_bytes(content)
    before = tables(b_db)
    ran = run_cli("import", str(file), "--db", str(b_db))
    assert ran.returncode == 2
    assert f"quizzer import: {file}: {message}" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert tables(b_db) == before


def test_a_missing_file_is_named(b_db: Path, tmp_path: Path) -> None:
    ran = run_cli("import", str(tmp_path / "nope.json"), "--db", str(b_db))
    assert ran.returncode == 2
    assert ran.stderr == f"quizzer import: cannot read {tmp_path / 'nope.json'}: No such file or directory\n"


def test_a_write_that_fails_midway_leaves_the_history_as_it_was(
    exported: dict[str, Any], b_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One transaction: the attempt written before the failure is rolled back with the rest."""
    file = tmp_path / "a.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    before = tables(b_db)
    real_write, calls = sql.write, []

    def failing(conn: sqlite3.Connection, item: object) -> None:
        calls.append(item)
        if len(calls) == 2:
            raise sqlite3.OperationalError("disk I/O error")
        real_write(conn, item)  # type: ignore[arg-type]

    monkeypatch.setattr(sql, "write", failing)
    ran = run_cli("import", str(file), "--db", str(b_db))
    assert len(calls) == 2
    assert ran.returncode == 2
    assert ran.stderr == f"quizzer import: cannot use {b_db}: disk I/O error; nothing was imported\n"
    assert tables(b_db) == before


def test_a_history_this_quizzer_cannot_write_is_left_untouched(
    exported: dict[str, Any], b_db: Path, tmp_path: Path
) -> None:
    file = tmp_path / "a.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    conn = sqlite3.connect(b_db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = b_db.read_bytes()
    ran = run_cli("import", str(file), "--db", str(b_db))
    assert ran.returncode == 2
    assert (
        f"quizzer import: the history at {b_db} cannot be written now: {b_db} was made by a newer quizzer"
        in (ran.stderr)
    )
    assert ran.stderr.rstrip().endswith("nothing was imported")
    assert b_db.read_bytes() == before


def test_a_damaged_history_is_set_aside_not_overwritten(exported: dict[str, Any], tmp_path: Path) -> None:
    file = tmp_path / "a.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    damaged = tmp_path / "h.db"
    garbage = b"SQLite format 3\x00" + os.urandom(2000)
    damaged.write_bytes(garbage)
    ran = run_cli("import", str(file), "--db", str(damaged))
    assert ran.returncode == 0, ran.stderr
    assert f"{damaged} was damaged; it was moved to" in ran.stderr
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("h.db.corrupt-")]
    assert aside.read_bytes() == garbage
    assert "1 attempt (0 already here)" in ran.stdout
