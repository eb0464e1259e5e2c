"""CSV export against formula injection (OWASP): a text cell starting with =, +, -, @, tab or carriage return
gets a leading apostrophe; numbers stay numbers; JSON export keeps every text as it was."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from quizzer.bank.loader import load_bank
from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore
from quizzer.store.rows import COLUMNS, to_csv, to_json
from tests.cli_run import run_cli

DATA = Path(__file__).resolve().parent / "data"
MINI = (DATA / "good" / "mini.toml").read_text(encoding="utf-8")

#: The text columns an attacker reaches: a typed (or side-file) answer, a pack's mistake title, a topic.
TEXT_COLUMNS = ("answer", "mistake_title", "topic", "mistake", "session")
#: The formulas of the issue, one for each first character of the rule.
FORMULAS = {
    "=": "=cmd|' /C calc'!A0",
    "+": '+HYPERLINK("http://evil.example","x")',
    "-": "-2+3+cmd|' /C calc'!A0",
    "@": "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t": "\t=1+1",
    "\r": "\r=1+1",
}


def attempt(**changes: object) -> Attempt:
    values: dict[str, object] = {
        "template_id": "mini-product",
        "seed": 1,
        "variables": {"a": 2, "b": 8},
        "answer": "16",
        "value": 16,
        "expected": 16,
        "unit": "count",
        "verdict": "exact",
        "rel_error": 0.0,
        "mistake": None,
        "seconds": 3.5,
        "hints": 0,
        "at": 1_700_000_000.0,
        "topic": "testing",
        "minutes": 1.0,
    }
    values.update(changes)
    return Attempt(**values)  # type: ignore[arg-type]


def read(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames == list(COLUMNS)
    return list(reader)


@pytest.mark.parametrize("first", sorted(FORMULAS), ids=lambda c: repr(c))
@pytest.mark.parametrize("column", TEXT_COLUMNS)
def test_a_text_cell_starting_a_formula_gets_an_apostrophe(first: str, column: str) -> None:
    formula = FORMULAS[first]
    (row,) = read(to_csv([attempt(**{column: formula})]))
    cell = row[column]
    assert cell.startswith("'" + ("\\x0d" if first == "\r" else first)), cell  # CR itself shown as \x0d
    if first != "\r":
        assert cell == "'" + formula


@pytest.mark.parametrize("text", ["16.4M", " =1+1", "a=b", "", "7e9 FLOPs", "x-y"])
def test_other_text_cells_are_written_as_they_are(text: str) -> None:
    (row,) = read(to_csv([attempt(answer=text, mistake_title=text or None)]))
    assert row["answer"] == text
    assert row["mistake_title"] == text


def test_numbers_stay_numbers_negative_ones_included() -> None:
    big = 10**30 + 7
    attempts = [
        attempt(value=-12, expected=16, rel_error=-1.75, verdict="wrong", answer="-12"),
        attempt(value=big, expected=big * 2, rel_error=-0.5, verdict="wrong", seed=-3, part=2),
        attempt(value=0.000125, expected=-1e-300, rel_error=-1.25e300, seconds=-0.0),
    ]
    text = to_csv(attempts)
    raw = list(csv.reader(io.StringIO(text, newline="")))
    header, rows = raw[0], raw[1:]
    column = {name: i for i, name in enumerate(header)}
    assert rows[0][column["rel_error"]] == "-1.75"  # not "'-1.75": a spreadsheet reads a number
    assert rows[0][column["value"]] == "-12"
    assert rows[0][column["answer"]] == "'-12"  # the typed answer is text, and text gets the rule
    assert rows[1][column["value"]] == str(big)
    assert rows[1][column["rel_error"]] == "-0.5"
    assert rows[1][column["seed"]] == "-3"
    for row, a in zip(rows, attempts, strict=True):
        for name in ("value", "expected", "rel_error", "seconds", "at", "minutes", "seed", "hints"):
            number = getattr(a, name)
            cell = row[column[name]]
            assert not cell.startswith("'"), (name, cell)
            assert (int(cell) if isinstance(number, int) else float(cell)) == number, (name, cell)


def test_the_csv_reads_back_as_written_but_for_the_apostrophes() -> None:
    attempts = [
        attempt(
            answer=FORMULAS["="],
            mistake_title=FORMULAS["@"],
            mistake="added",
            verdict="wrong",
            rel_error=-0.4,
        ),
        attempt(answer="1.3B", topic="-topic", session="+s", carried={"1": -5}, part=2),
        attempt(answer='line one\nline two, "quoted"', mistake_title="tab\tinside"),
    ]
    rows = read(to_csv(attempts))
    assert len(rows) == len(attempts)
    for row, a in zip(rows, attempts, strict=True):
        for name in COLUMNS:
            if name == "at_iso":
                continue
            original = getattr(a, name)
            cell = row[name]
            if original is None:
                assert cell == ""
            elif isinstance(original, dict):
                assert json.loads(cell) == original
            elif isinstance(original, str):
                assert cell == (
                    "'" + original if original[:1] in ("=", "+", "-", "@", "\t", "\r") else original
                )
            else:
                assert float(cell) == original


def test_json_export_keeps_the_texts_as_they_were() -> None:
    attempts = [attempt(answer=f, mistake_title=f) for f in FORMULAS.values()]
    rows = json.loads(to_json(attempts))
    assert [r["answer"] for r in rows] == list(FORMULAS.values())
    assert [r["mistake_title"] for r in rows] == list(FORMULAS.values())
    assert "'=" in to_csv(attempts)  # while the CSV of the same attempts is escaped


def test_export_of_a_pack_mistake_titled_as_a_formula(tmp_path: Path) -> None:
    """End to end: a pack's mistake titled =HYPERLINK(...), matched in `quizzer plain`, exported as CSV."""
    title = '=HYPERLINK("http://evil.example","click")'
    pack = tmp_path / "pack.toml"
    pack.write_text(
        MINI.replace('feedback = "You', f'title = {json.dumps(title)}\nfeedback = "You'), encoding="utf-8"
    )
    instance = load_bank([str(pack)]).generate("mini-product", 1)
    slip = instance.variables["a"] + instance.variables["b"]  # the mistake's answer, a + b
    db = tmp_path / "history.sqlite3"
    ran = run_cli(
        "plain", "--questions", str(pack), "--template", "mini-product", "--seed", "1", "--count", "1",
        "--db", str(db), stdin=f"{slip}\n",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "out.csv"
    ran = run_cli("export", "--format", "csv", "--db", str(db), "--output", str(out))
    assert ran.returncode == 0, ran.stderr
    (row,) = read(out.read_text(encoding="utf-8"))
    assert row["mistake_title"] == "'" + title
    assert row["verdict"] == "wrong"
    stdout = run_cli("export", "--format", "csv", "--db", str(db)).stdout
    assert stdout == out.read_text(encoding="utf-8")
    assert (
        json.loads(run_cli("export", "--format", "json", "--db", str(db)).stdout)[0]["mistake_title"] == title
    )


def test_a_side_file_answer_reaches_the_csv_as_text(tmp_path: Path) -> None:
    """The issue's crafted answer, recorded as any attempt is, exported through the verb."""
    db = tmp_path / "history.sqlite3"
    store = HistoryStore.open(str(db))
    try:
        store.record(attempt(answer="=cmd|' /C calc'!A0", value=None, verdict="unparsed", rel_error=None))
    finally:
        store.close()
    (row,) = read(run_cli("export", "--format", "csv", "--db", str(db)).stdout)
    assert row["answer"] == "'=cmd|' /C calc'!A0"
