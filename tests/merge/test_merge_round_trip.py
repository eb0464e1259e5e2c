"""One history on two machines: A exports, B imports (and back); cards equal a store that saw every review."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from quizzer.store.history import HistoryStore
from tests.cli_run import run_cli
from tests.merge.machines import DAY, WALL, Machine, document, tables, write_config

#: (machine, template, rating or "returned", day): what was done where, in no particular order.
EVENTS = [
    ("A", "shared", "good", 0.0),
    ("A", "shared", "again", 3.0),
    ("A", "shared", "good", 10.0),
    ("B", "shared", "hard", 1.0),
    ("B", "shared", "good", 5.0),
    ("B", "shared", "easy", 12.0),
    ("A", "a-only", "good", 0.04),
    ("A", "a-only", "easy", 4.0),
    ("B", "b-only", "good", 2.0),
    # two lapses on each machine: neither suspends it, the four together do (the threshold is 4)
    ("A", "leech", "again", 0.0),
    ("A", "leech", "again", 2.0),
    ("B", "leech", "again", 1.0),
    ("B", "leech", "again", 3.0),
    # a leech on B, returned to study there, then reviewed on A (which never saw it before)
    ("B", "back", "again", 6.0),
    ("B", "back", "again", 7.0),
    ("B", "back", "again", 8.0),
    ("B", "back", "again", 9.0),
    ("B", "back", "returned", 20.0),
    ("A", "back", "good", 25.0),
]


def play(machine: Machine, events: list[tuple[str, str, str, float]]) -> None:
    """The events, in time order, on ``machine``."""
    for _, template_id, what, day in sorted(events, key=lambda e: e[3]):
        if what == "returned":
            machine.return_leech(template_id, WALL + day * DAY)
        else:
            machine.review(template_id, what, WALL + day * DAY, seconds=10 + day)


@pytest.fixture
def machines(tmp_path: Path) -> Callable[[], tuple[Path, Path, Path]]:
    """Builds A, B (each with its own events and attempts) and C, the single store that saw both machines'
    reviews in time order; returns their database paths, all closed."""

    def build() -> tuple[Path, Path, Path]:
        write_config()
        paths = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "c.db"
        a, b, c = (Machine(p) for p in paths)
        play(a, [e for e in EVENTS if e[0] == "A"])
        play(b, [e for e in EVENTS if e[0] == "B"])
        play(c, EVENTS)
        for day in (0.0, 3.0, 10.0):
            a.answer("shared", WALL + day * DAY + 0.25)
        for day in (1.0, 5.0):
            b.answer("shared", WALL + day * DAY + 0.5, answer="17M")
        a.mark("mock-a", WALL, WALL + 600)
        b.mark("mock-b", WALL + DAY, WALL + DAY + 900)
        for m in (a, b, c):
            m.close()
        return paths

    return build


def cards(path: Path) -> dict[str, object]:
    store = HistoryStore.open(path)
    try:
        return {c.template_id: c for c in store.cards()}
    finally:
        store.close()


def read(path: Path) -> HistoryStore:
    return HistoryStore.open(path)


def test_b_imports_a_and_has_its_attempts_and_both_machines_reviews(
    machines: Callable[[], tuple[Path, Path, Path]], tmp_path: Path
) -> None:
    a_db, b_db, c_db = machines()
    a_before, b_before = read(a_db), read(b_db)
    a_attempts, b_attempts = a_before.attempts(), b_before.attempts()
    a_before.close()
    b_before.close()
    export = run_cli("export", "--format", "history", "--db", str(a_db), "--output", str(tmp_path / "a.json"))
    assert export.returncode == 0, export.stderr
    assert "2 session" not in export.stderr
    assert "the history (3 attempts, 4 study cards" in export.stderr

    ran = run_cli("import", str(tmp_path / "a.json"), "--db", str(b_db))
    assert ran.returncode == 0, ran.stderr
    assert "3 attempts (0 already here), placed among yours in the order they were answered" in ran.stdout
    assert "1 new study card, 3 cards here rescheduled" in ran.stdout  # a-only new; shared, leech, back
    assert "leeches: 1 card now suspended, 0 cards back in study" in ran.stdout

    merged = read(b_db)
    try:
        got = merged.attempts()
        assert sorted(got, key=lambda x: x.at) == got  # in the order answered, not appended after B's
        assert sorted(got, key=lambda x: x.at) == sorted(a_attempts + b_attempts, key=lambda x: x.at)
        assert [m.session for m in merged.sessions()] == ["mock-a", "mock-b"]
    finally:
        merged.close()
    single = cards(c_db)
    assert cards(b_db) == single
    leech, back = single["leech"], single["back"]
    assert leech.suspended == WALL + 3 * DAY
    assert leech.lapses == 4
    assert back.suspended is None
    assert back.introduced == WALL + 6 * DAY


def test_the_merge_converges_both_ways(
    machines: Callable[[], tuple[Path, Path, Path]], tmp_path: Path
) -> None:
    """A imports B's export after B imported A's: both hold the same history, the single store's cards."""
    a_db, b_db, c_db = machines()
    assert run_cli("export", "--format", "history", "--db", str(a_db), "--output", str(tmp_path / "a.json"))
    assert run_cli("import", str(tmp_path / "a.json"), "--db", str(b_db)).returncode == 0
    assert run_cli("export", "--format", "history", "--db", str(b_db), "--output", str(tmp_path / "b.json"))
    back = run_cli("import", str(tmp_path / "b.json"), "--db", str(a_db))
    assert back.returncode == 0, back.stderr
    assert "2 attempts (3 already here)" in back.stdout
    assert cards(a_db) == cards(b_db) == cards(c_db)
    a, b = read(a_db), read(b_db)
    try:
        assert a.attempts() == b.attempts()
        assert a.sessions() == b.sessions()
    finally:
        a.close()
        b.close()


def test_a_second_import_changes_nothing_and_says_so(
    machines: Callable[[], tuple[Path, Path, Path]], tmp_path: Path
) -> None:
    a_db, b_db, _ = machines()
    file = tmp_path / "a.json"
    run_cli("export", "--format", "history", "--db", str(a_db), "--output", str(file))
    assert run_cli("import", str(file), "--db", str(b_db)).returncode == 0
    after_first = tables(b_db)
    again = run_cli("import", str(file), "--db", str(b_db))
    assert again.returncode == 0
    assert "adds nothing: this history has all of it; nothing changed" in again.stdout
    assert tables(b_db) == after_first


def test_a_dry_run_says_what_would_be_added_and_changes_nothing(
    machines: Callable[[], tuple[Path, Path, Path]], tmp_path: Path
) -> None:
    a_db, b_db, _ = machines()
    file = tmp_path / "a.json"
    run_cli("export", "--format", "history", "--db", str(a_db), "--output", str(file))
    before = tables(b_db)
    dry = run_cli("import", str(file), "--dry-run", "--db", str(b_db))
    assert dry.returncode == 0
    assert "would add:" in dry.stdout
    assert "3 attempts (0 already here)" in dry.stdout
    assert "nothing was changed (--dry-run)" in dry.stdout
    assert tables(b_db) == before
    real = run_cli("import", str(file), "--db", str(b_db))
    assert real.stdout.replace("added:", "would add:") == dry.stdout.replace(
        "\nnothing was changed (--dry-run)", ""
    )


def test_a_mock_left_unfinished_here_takes_the_other_machines_finish(tmp_path: Path) -> None:
    write_config()
    a, b = Machine(tmp_path / "a.db"), Machine(tmp_path / "b.db")
    a.mark("mock-a", WALL, None)
    a.close()
    b.close()
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    run_cli("export", "--format", "history", "--db", str(a.path), "--output", str(first))
    assert "1 session mark" in run_cli("import", str(first), "--db", str(b.path)).stdout
    a = Machine(a.path)
    a.mark("mock-a", WALL, WALL + 1200)  # finished on A after B took the first export
    a.close()
    run_cli("export", "--format", "history", "--db", str(a.path), "--output", str(second))
    ran = run_cli("import", str(second), "--db", str(b.path))
    assert "0 session marks, 1 unfinished here now finished" in ran.stdout
    store = read(b.path)
    try:
        assert [(m.session, m.finished, m.plan, m.minutes) for m in store.sessions()] == [
            ("mock-a", WALL + 1200, ("a", "b"), 20.0)
        ]
    finally:
        store.close()


def test_the_history_file_holds_every_table_but_the_side_file_digests(
    machines: Callable[[], tuple[Path, Path, Path]], tmp_path: Path
) -> None:
    """A table added to the store must be exported or named as left out here (and in history_file's
    docstring)."""
    a_db, _, _ = machines()
    file = tmp_path / "a.json"
    run_cli("export", "--format", "history", "--db", str(a_db), "--output", str(file))
    doc = document(file)
    exported = {"attempts": "attempts", "cards": "cards", "sessions": "sessions"}
    left_out = {"side_files"}
    assert set(tables(a_db)) == set(exported) | left_out
    assert (doc["format"], doc["version"]) == ("quizzer-history", 1)
    assert isinstance(doc["machine"], str)
    assert doc["machine"]
    assert len(doc["attempts"]) == 3
    assert len(doc["sessions"]) == 1
    shared = next(c for c in doc["cards"] if c["template_id"] == "shared")
    assert [(r["at"], r["rating"]) for r in shared["reviews"]] == [
        (WALL, "good"),
        (WALL + 3 * DAY, "again"),
        (WALL + 10 * DAY, "good"),
    ]
