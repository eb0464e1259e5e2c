"""The history verbs, stats and export, run as subprocesses against a database filled through HistoryStore."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore

BIG = 10**30 + 7  # beyond float and int64: must survive exactly

#: Attempt's fields in order, with at_iso after at (written out, not taken from the code under test).
COLUMNS = [
    "template_id",
    "seed",
    "variables",
    "answer",
    "value",
    "expected",
    "unit",
    "verdict",
    "rel_error",
    "mistake",
    "seconds",
    "hints",
    "mode",
    "at",
    "at_iso",
    "session",
    "topic",
    "minutes",
    "mistake_title",
    "part",
    "carried",
]


def run(*args: str, env: dict[str, str] | None = None, home: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "QUIZZER_DB"}
    return subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "XDG_DATA_HOME": str(home), "HOME": str(home), **(env or {})},
    )


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def recorded() -> list[Attempt]:
    """Three attempts made seconds ago: two topics, one big-integer answer, one named mistake."""
    now = time.time()
    common = dict(unit="", hints=0, mode="drill", session="s1")
    return [
        Attempt(
            template_id="embedding-table-params",
            seed=12,
            variables={"vocab_size": 32000, "d_model": 512, "tied": True, "big": BIG},
            answer="16.4M",
            value=16_400_000,
            expected=16_384_000,
            verdict="correct",
            rel_error=0.0009765625,
            mistake=None,
            seconds=84.0,
            at=now - 30.25,
            topic="params",
            minutes=2.0,
            **common,
        ),
        Attempt(
            template_id="kv-cache-bytes",
            seed=3,
            variables={"dtype": "bf16", "n_layers": 32},
            answer="1e30",
            value=BIG,
            expected=BIG * 2,
            verdict="wrong",
            rel_error=0.5,
            mistake="bits-for-bytes",
            mistake_title="Bits counted as bytes",
            seconds=30.5,
            at=now - 20.5,
            topic="memory",
            minutes=3.0,
            **{**common, "unit": "bytes"},
        ),
        Attempt(
            template_id="kv-cache-bytes",
            seed=4,
            variables={"dtype": "fp8", "n_layers": 2},
            answer="",
            value=None,
            expected=4096,
            verdict="skipped",
            rel_error=None,
            mistake=None,
            seconds=5.0,
            at=now - 10.75,
            topic="memory",
            minutes=3.0,
            **{**common, "unit": "bytes"},
        ),
    ]


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[Attempt]]:
    path = tmp_path / "history.sqlite3"
    attempts = recorded()
    store = HistoryStore.open(str(path))
    assert store.warning is None
    for a in attempts:
        store.record(a)
    store.close()
    return path, attempts


def test_stats_text(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, _ = history
    out = ok(run("stats", "--db", str(db), home=tmp_path)).stdout
    assert "2 attempts, 1 right (50%), 1 skipped" in out  # a skip is not an answer
    assert "Practised 1 day in a row up to today (longest: 1 day in a row)" in out
    lines = out.splitlines()
    memory = next(line for line in lines if line.strip().startswith("memory"))
    params = next(line for line in lines if line.strip().startswith("params"))
    assert lines.index(memory) < lines.index(params)  # the weaker topic first
    # memory: 0 of 1 right (the skip is left out), 30.5 s = 0.5 min, expected 3 minutes
    assert memory.split()[1:3] == ["1", "0%"]
    assert "0.5 min / 3.0 min" in memory
    assert "1.4 min / 2.0 min" in params  # 84 s against 2 minutes
    assert "Bits counted as bytes" in out  # the title, not the id
    assert "bits-for-bytes" not in out
    assert "kv-cache-bytes" in out.split("Bits counted as bytes", 1)[1].splitlines()[0]
    assert max(len(line) for line in lines) <= 80
    today = time.strftime("%Y-%m-%d", time.localtime(time.time() - 10.75))
    assert next(line for line in lines if line.strip().startswith(today)).split()[2] == "1/2"


def test_stats_json(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, _ = history
    data = json.loads(ok(run("stats", "--json", "--days", "5", "--db", str(db), home=tmp_path)).stdout)
    assert set(data) == {
        "attempts",
        "right",
        "accuracy",
        "topics",
        "mistakes",
        "days",
        "current_streak_days",
        "longest_streak_days",
        "first_at",
        "last_at",
        "skipped",
        "unfinished_mocks",
        "parts",
        "heatmap",
        "by_difficulty",
        "leeches",
        "mocks",
        "top_slip",
    }
    assert data["parts"] == []  # no chain in this history
    assert (data["leeches"], data["mocks"]) == ([], [])  # no card suspended, no mock taken
    assert (data["attempts"], data["right"], data["skipped"], data["current_streak_days"]) == (2, 1, 1, 1)
    assert data["longest_streak_days"] == 1
    assert data["accuracy"] == pytest.approx(1 / 2)
    assert [(t["topic"], t["attempts"], t["right"]) for t in data["topics"]] == [
        ("memory", 1, 0),
        ("params", 1, 1),
    ]
    assert data["topics"][0]["skipped"] == 1
    assert data["topics"][0]["median_seconds"] == pytest.approx(30.5)
    assert data["topics"][0]["median_expected_seconds"] == pytest.approx(180.0)
    assert data["mistakes"] == [
        {
            "name": "bits-for-bytes",
            "count": 1,
            "template_ids": ["kv-cache-bytes"],
            "title": "Bits counted as bytes",
        }
    ]
    assert len(data["days"]) == 5
    assert sum(d["attempts"] for d in data["days"]) == 2


def test_stats_rejects_a_bad_days(tmp_path: Path) -> None:
    proc = run("stats", "--days", "0", "--db", str(tmp_path / "h.sqlite3"), home=tmp_path)
    assert proc.returncode == 2
    assert "--days" in proc.stderr
    assert "Traceback" not in proc.stderr


def _as_attempt(row: dict[str, object]) -> Attempt:
    return Attempt(**{k: v for k, v in row.items() if k != "at_iso"})


def test_export_json_round_trip(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, attempts = history
    proc = ok(run("export", "--format", "json", "--db", str(db), home=tmp_path))
    rows = json.loads(proc.stdout)
    assert [list(r) for r in rows] == [COLUMNS] * 3
    assert sorted((_as_attempt(r) for r in rows), key=lambda a: a.at) == attempts
    assert rows[0]["variables"]["big"] == BIG
    assert any(r["value"] == BIG and r["expected"] == 2 * BIG for r in rows)
    for r in rows:
        expected_iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(r["at"]))
        assert r["at_iso"].startswith(expected_iso)
        assert r["at_iso"].endswith("Z")


def test_export_csv(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, attempts = history
    proc = ok(run("export", "--format", "csv", "--db", str(db), home=tmp_path))
    reader = csv.DictReader(io.StringIO(proc.stdout))
    assert reader.fieldnames == COLUMNS
    rows = sorted(reader, key=lambda r: float(r["at"]))
    assert len(rows) == 3
    for row, a in zip(rows, attempts, strict=True):
        assert row["template_id"] == a.template_id
        assert int(row["seed"]) == a.seed
        assert json.loads(row["variables"]) == a.variables
        assert row["verdict"] == a.verdict
        assert float(row["at"]) == a.at
        assert float(row["seconds"]) == a.seconds
        assert row["mistake"] == (a.mistake or "")
    assert int(rows[1]["value"]) == BIG
    assert int(rows[1]["expected"]) == 2 * BIG
    assert rows[2]["value"] == ""
    assert rows[2]["rel_error"] == ""


def test_export_output_file(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, attempts = history
    target = tmp_path / "out.json"
    proc = ok(run("export", "--format", "json", "--output", str(target), "--db", str(db), home=tmp_path))
    assert proc.stdout == ""
    assert "3 attempts" in proc.stderr
    assert str(target) in proc.stderr
    rows = json.loads(target.read_text(encoding="utf-8"))
    assert sorted((_as_attempt(r) for r in rows), key=lambda a: a.at) == attempts


def test_export_needs_a_format(tmp_path: Path) -> None:
    proc = run("export", "--db", str(tmp_path / "h.sqlite3"), home=tmp_path)
    assert proc.returncode == 2
    assert "--format" in proc.stderr


def test_empty_database(tmp_path: Path) -> None:
    db = str(tmp_path / "empty.sqlite3")
    text = ok(run("stats", "--db", db, home=tmp_path)).stdout
    assert "No attempts" in text
    assert "quizzer drill" in text
    assert "quizzer plain" in text
    data = json.loads(ok(run("stats", "--json", "--db", db, home=tmp_path)).stdout)
    assert (data["attempts"], data["topics"], data["current_streak_days"]) == (0, [], 0)
    assert (data["longest_streak_days"], data["by_difficulty"]) == (0, [])
    assert len(data["heatmap"]) >= 25 * 7 + 1
    assert not any(d["attempts"] for d in data["heatmap"])
    assert len(data["days"]) == 14
    assert json.loads(ok(run("export", "--format", "json", "--db", db, home=tmp_path)).stdout) == []
    assert ok(run("export", "--format", "csv", "--db", db, home=tmp_path)).stdout.splitlines() == [
        ",".join(COLUMNS)
    ]


def test_quizzer_db_env_is_honoured(history: tuple[Path, list[Attempt]], tmp_path: Path) -> None:
    db, _ = history
    proc = ok(run("stats", "--json", home=tmp_path, env={"QUIZZER_DB": str(db)}))
    assert json.loads(proc.stdout)["attempts"] == 2
    # --db wins over the environment
    other = tmp_path / "other.sqlite3"
    proc = ok(
        run("export", "--format", "json", "--db", str(other), home=tmp_path, env={"QUIZZER_DB": str(db)})
    )
    assert json.loads(proc.stdout) == []


def test_corrupt_database_warns_and_exits_0(tmp_path: Path) -> None:
    db = tmp_path / "corrupt.sqlite3"
    for args in (["stats"], ["stats", "--json"], ["export", "--format", "csv"]):
        db.write_bytes(b"this is not a database at all\n" * 200)  # the store moves a damaged file aside
        proc = run(*args, "--db", str(db), home=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith("quizzer: warning: ")
        assert str(db) in proc.stderr
        if args == ["stats"]:
            assert "No attempts" in proc.stdout
        elif args == ["stats", "--json"]:
            assert json.loads(proc.stdout)["attempts"] == 0
        else:
            assert proc.stdout.splitlines() == [",".join(COLUMNS)]


def _foreign(path: Path, user_version: int, table: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute(f"INSERT INTO {table} (body) VALUES ('not yours')")
    conn.commit()
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.close()


#: Each verb on a database that is no history: what stdout must be (an empty report, not an error).
EMPTY_OUTPUT = {
    ("stats",): lambda out: "No attempts" in out,
    ("stats", "--json"): lambda out: json.loads(out)["attempts"] == 0,
    ("export", "--format", "csv"): lambda out: out.splitlines() == [",".join(COLUMNS)],
    ("export", "--format", "json"): lambda out: json.loads(out) == [],
}


@pytest.mark.parametrize(
    ("user_version", "table"),
    [(0, "notes"), (1, "attempts"), (1, "notes")],  # version 1 with our table name but not our columns
)
def test_another_programs_database_is_one_warning_never_a_traceback(
    tmp_path: Path, user_version: int, table: str
) -> None:
    db = tmp_path / "app.db"
    _foreign(db, user_version, table)
    before = db.read_bytes()
    for args, fine in EMPTY_OUTPUT.items():
        proc = run(*args, "--db", str(db), home=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        (line,) = proc.stderr.splitlines()
        assert line.startswith(f"quizzer: warning: history is kept in memory: {db} is not a quizzer history")
        assert f"(tables: {table})" in line
        assert "left untouched" in line
        assert fine(proc.stdout), (args, proc.stdout)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("app.db")) == ["app.db"]


def test_garbage_behind_the_sqlite_magic_is_moved_aside_not_called_newer(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    junk = b"SQLite format 3\x00" + b"A" * 4080  # reads as user_version 0x41414141
    db.write_bytes(junk)
    proc = ok(run("stats", "--json", "--db", str(db), home=tmp_path))
    (line,) = proc.stderr.splitlines()
    (aside,) = tmp_path.glob("history.sqlite3.corrupt-*")
    assert (
        line == f"quizzer: warning: {db} was damaged; it was moved to {aside} and a new history was started"
    )
    assert aside.read_bytes() == junk
    assert json.loads(proc.stdout)["attempts"] == 0


def test_a_side_file_beside_the_history_is_added_by_the_next_verb(
    history: tuple[Path, list[Attempt]], tmp_path: Path
) -> None:
    db, attempts = history
    late = attempts[0].replace(session="s2", at=attempts[0].at + 1.0, answer="16M")
    side = db.parent / f"{db.name}.unsaved-20250101-120000.jsonl"
    side.write_text(
        json.dumps({**late.as_dict(), "at_iso": "2025-01-01T12:00:00.000Z"}) + "\n", encoding="utf-8"
    )
    proc = ok(run("export", "--format", "json", "--db", str(db), home=tmp_path))
    assert (
        proc.stderr
        == f"quizzer: 1 attempt saved in {side} was added to the history and the file was removed\n"
    )
    rows = json.loads(proc.stdout)
    assert len(rows) == 4
    assert _as_attempt(rows[-1]) == late
    assert not side.exists()
    proc = ok(run("export", "--format", "json", "--db", str(db), home=tmp_path))
    assert (proc.stderr, len(json.loads(proc.stdout))) == ("", 4)


PACK = """
[[template]]
id = "cli-stats-easy"
difficulty = "easy"

[[template]]
id = "cli-stats-hard"
difficulty = "hard"
"""


def _at(template_id: str, verdict: str, at: float) -> Attempt:
    return Attempt(template_id, 1, {}, "1", 1, 1, "", verdict, None, None, 10.0, 0, at=at, topic="t")


def test_stats_by_difficulty_streaks_and_heatmap(tmp_path: Path) -> None:
    pack = tmp_path / "pack.toml"
    pack.write_text(PACK, encoding="utf-8")
    db = tmp_path / "h.sqlite3"
    now = time.time()
    midnight = now - now % 86_400  # UTC, pinned below: today's four attempts fall on one day
    store = HistoryStore.open(str(db))
    # two easy answers (one right) and one hard (right) today; a template not in any pack;
    # and three days in a row, 40 to 38 days ago (the longest streak, in the past)
    for a in (
        _at("cli-stats-easy", "exact", midnight),
        _at("cli-stats-easy", "wrong", midnight + 0.001),
        _at("cli-stats-hard", "correct", midnight + 0.002),
        _at("not-in-any-pack", "exact", midnight + 0.003),
        *(_at("not-in-any-pack", "exact", now - k * 86_400) for k in (38, 39, 40)),
    ):
        store.record(a)
    store.close()
    env = {"QUIZZER_QUESTIONS": str(pack), "TZ": "UTC"}
    data = json.loads(ok(run("stats", "--json", "--db", str(db), env=env, home=tmp_path)).stdout)
    assert [(d["difficulty"], d["attempts"], d["right"]) for d in data["by_difficulty"]] == [
        ("easy", 2, 1),
        ("hard", 1, 1),
    ]
    assert (data["current_streak_days"], data["longest_streak_days"]) == (1, 3)
    today = time.strftime("%Y-%m-%d", time.gmtime(midnight))
    heat = {d["day"]: d["attempts"] for d in data["heatmap"]}
    assert heat[today] == 4
    assert sum(heat.values()) == 7
    assert set(data["heatmap"][0]) == {"day", "attempts", "right"}
    text = ok(run("stats", "--db", str(db), env=env, home=tmp_path)).stdout
    assert "Practised 1 day in a row up to today (longest: 3 days in a row)" in text
    lines = text.splitlines()
    easy = next(line for line in lines if line.strip().startswith("easy"))
    hard = next(line for line in lines if line.strip().startswith("hard"))
    assert easy.split()[1:3] == ["2", "50%"]
    assert hard.split()[1:3] == ["1", "100%"]
    assert lines.index(easy) < lines.index(hard)
    assert max(len(line) for line in lines) <= 80
