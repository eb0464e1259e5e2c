"""Control characters in pack texts, file names and the history: `check` names them (file, template, field),
the loader refuses the template and shows its table with escapes, and no verb writes one to the terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.bank import loader
from quizzer.bank.check.run import check_bank
from quizzer.bank.loader import load_bank
from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore
from tests.cli_run import run_cli

DATA = Path(__file__).resolve().parent.parent / "data"
MINI = (DATA / "good" / "mini.toml").read_text(encoding="utf-8")
PLANTED = DATA / "hostile" / "control_chars.toml"
REPO = Path(__file__).resolve().parents[2]

#: Bytes a terminal may act on (tab 0x09 and newline 0x0a are allowed), as the issue lists them.
C0_BYTES = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
#: C1 characters (U+0080 to U+009F: U+009B is a one-character CSI), found in the decoded text.
C1_CHARS = re.compile("[\x80-\x9f]")


def assert_no_control(output: bytes, what: str) -> None:
    """No C0 byte but tab and newline, no ESC, and no C1 character (as UTF-8 or as a raw 0x9b byte alone)."""
    found = C0_BYTES.search(output)
    if found is not None:
        around = output[max(0, found.start() - 40) : found.end() + 40]
        pytest.fail(f"{what}: {found.group()!r} at byte {found.start()}: {around!r}")
    text = output.decode("utf-8", "replace")
    assert C1_CHARS.search(text) is None, f"{what}: a C1 character in {text!r}"
    assert "\ufffd" not in text, f"{what}: bytes that are not UTF-8 (a lone 0x9b?) in {output!r}"


def planted(tmp_path: Path, text: str, name: str = "pack.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


#: (how to plant "\u001b" in mini.toml, the field the problem must name)
PLANTS = [
    (('title = "A product"', 'title = "A \\u001b]0;pwned\\u0007product"'), "title"),
    (('prompt = "What', 'prompt = "\\u001b[2JWhat'), "prompt"),
    (('tldr = "{answer}"', 'tldr = "{answer}\\u001b[8m"'), "tldr"),
    (('explanation = """Multiply.', 'explanation = """Multiply.\\u001bP'), "explanation"),
    (('tldr = "{answer}"', 'tldr = "{answer}"\nconventions = ["ok", "x\\u001b[31m"]'), "conventions[1]"),
    (('tldr = "{answer}"', 'tldr = "{answer}"\nnudges = ["\\u001b]52;c;eA==\\u0007"]'), "nudges[0]"),
    (('tldr = "{answer}"', 'tldr = "{answer}"\nmemory_aid = "\\u001b[5m"'), "memory_aid"),
    (('feedback = "You', 'title = "=HYPERLINK(1)\\u001b[8m"\nfeedback = "You'), "mistakes[0].title"),
    (('feedback = "You', 'feedback = "\\u001b]52;c;eA==\\u0007You'), "mistakes[0].feedback"),
    (
        ("b = { log2 = [8, 64] }", 'b = { log2 = [8, 64] }\nd = { choices = ["bf16", "fp8\\u001b[5m"] }'),
        "variables.d.choices[1]",
    ),
]


@pytest.mark.parametrize(("plant", "field"), PLANTS, ids=[field for _, field in PLANTS])
def test_check_names_a_control_character_by_file_template_and_field(
    tmp_path: Path, plant: tuple[str, str], field: str
) -> None:
    old, new = plant
    assert old in MINI
    path = planted(tmp_path, MINI.replace(old, new, 1))
    report = check_bank(load_bank([str(path)]), seeds_per_template=2)
    assert [(p.path, p.template_id, p.field) for p in report.problems] == [(str(path), "mini-product", field)]
    assert "control character" in report.problems[0].message


#: Every control character the rule covers, as a TOML escape, and the two texts may hold.
CONTROLS = [0x00, 0x07, 0x08, 0x0B, 0x0C, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x9B, 0x9D, 0x9F]


@pytest.mark.parametrize("code", CONTROLS, ids=[f"U+{c:04X}" for c in CONTROLS])
def test_each_control_character_is_a_problem(tmp_path: Path, code: int) -> None:
    path = planted(tmp_path, MINI.replace('title = "A product"', f'title = "A \\u{code:04x}product"'))
    bank = load_bank([str(path)])
    (problem,) = bank.problems()
    assert (problem.template_id, problem.field) == ("mini-product", "title")
    assert bank.templates() == []


def test_tab_and_newline_are_text(tmp_path: Path) -> None:
    path = planted(tmp_path, MINI.replace('title = "A product"', 'title = "A\\tproduct"\nnudges = ["a\\nb"]'))
    bank = load_bank([str(path)])
    assert bank.problems() == []
    assert bank.get("mini-product").title == "A\tproduct"


def test_the_planted_fixture_is_named_by_the_check_verb_with_escapes() -> None:
    ran = run_cli("check", str(PLANTED), "--seeds", "2")
    assert ran.returncode == 1
    assert f"{PLANTED}: template 'control-chars': field 'title': holds a control character" in ran.stdout
    assert_no_control((ran.stdout + ran.stderr).encode("utf-8"), "check")


def test_peek_shows_the_table_with_visible_escapes() -> None:
    """What reads a table as written (Stats' leech titles, the guide's topics) never gets the raw text."""
    bank = load_bank([str(PLANTED)])
    raw = bank.peek("control-chars")
    assert raw is not None
    assert raw["title"] == "Hostile: \\x1b]0;pwned\\x07control-chars"
    assert raw["mistakes"][0]["feedback"].startswith("\\x1b]52;c;")
    assert C0_BYTES.search(json.dumps(raw, ensure_ascii=False).encode("utf-8")) is None
    assert C1_CHARS.search(json.dumps(raw, ensure_ascii=False)) is None


def test_a_pack_file_named_with_control_characters_is_named_escaped_and_skipped(tmp_path: Path) -> None:
    name = "evil\x1b]0;pwned\x07.toml"
    planted(tmp_path, MINI, name)
    planted(tmp_path, MINI.replace("mini-product", "other-product"), "fine.toml")
    bank = load_bank([str(tmp_path)])
    (problem,) = bank.problems()
    assert problem.path == str(tmp_path / "evil\\x1b]0;pwned\\x07.toml")
    assert "control character" in problem.message
    assert [t.id for t in bank.templates()] == ["other-product"]
    alone = load_bank([str(tmp_path / name)])  # named as a file of its own (--questions FILE)
    assert [p.path for p in alone.problems()] == [problem.path]
    assert alone.templates() == []


def _quizzer(*args: str, stdin: bytes = b"") -> bytes:
    """``python -m quizzer ARGS``: its stdout and stderr, as the terminal would get them."""
    ran = subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    return ran.stdout + ran.stderr


@pytest.fixture
def hostile_pack(tmp_path: Path) -> Path:
    """The planted fixture, a valid template, and a file whose name is an escape sequence."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "control_chars.toml").write_bytes(PLANTED.read_bytes())
    planted(pack, MINI)
    planted(pack, MINI.replace("mini-product", "named-product"), "\x1b]0;pwned\x07\x1b[2J.toml")
    return pack


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["list", "--topic", "testing"], b"\\x1b]0;pwned\\x07\\x1b[2J.toml"),  # the file name, in a warning
        (["list", "--topic", "testing", "--json"], b"template 'control-chars': field 'title'"),
        (["show", "control-chars#1"], b"holds a control character"),
        (["show", "control-chars#1", "--json"], b"holds a control character"),
        (["show", "mini-product#1"], b"What is 14"),
        (["plain", "--template", "control-chars", "--seed", "1"], b"holds a control character"),
        (["plain", "--topic", "testing", "--count", "2", "--seed", "1"], b"\\x1b]0;pwned"),
    ],
    ids=[
        "list",
        "list --json",
        "show",
        "show --json",
        "show a valid one",
        "plain --template",
        "plain --topic",
    ],
)
def test_list_show_and_plain_write_no_control_character_from_a_planted_pack(
    hostile_pack: Path, args: list[str], shown: bytes
) -> None:
    output = _quizzer(*args, "--questions", str(hostile_pack), stdin=b"12\n\n")
    assert_no_control(output, " ".join(args))
    assert shown in output  # what the verb was to say, so that saying nothing cannot pass


@pytest.mark.parametrize(
    "args",
    [["show", "control-chars#1"], ["plain", "--template", "control-chars", "--seed", "1", "--count", "1"]],
    ids=" ".join,
)
def test_output_is_escaped_even_when_a_control_character_gets_past_the_loader(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    """Plant a loader that lets control characters through: the verbs' output is still escaped, so the
    terminal gets the visible ``\\x1b``, never ESC."""
    monkeypatch.setattr(loader, "neutralised", lambda raw: (raw, []), raising=False)
    ran = run_cli(*args, "--questions", str(PLANTED), stdin="1\n")
    assert ran.returncode == 0, ran.stderr
    assert "\\x1b[2J\\x1b[HWhat is" in ran.stdout  # the prompt, escaped
    assert_no_control((ran.stdout + ran.stderr).encode("utf-8"), " ".join(args))


def _attempt(**changes: object) -> Attempt:
    values: dict[str, object] = {
        "template_id": "mini-product",
        "seed": 1,
        "variables": {"a": 2, "b": 8},
        "answer": "\x1b]0;pwned\x07=cmd|' /C calc'!A0",
        "value": None,
        "expected": 16,
        "unit": "count",
        "verdict": "wrong",
        "rel_error": None,
        "mistake": "added",
        "seconds": 3.0,
        "hints": 0,
        "at": 1_700_000_000.0,
        "topic": "testing\x1b[2J",
        "minutes": 1.0,
        "mistake_title": "\x1b]52;c;cHduZWQ=\x07Added\x9b31m",
    }
    values.update(changes)
    return Attempt(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["stats"], b"testing\\x1b[2J"),
        (["stats", "--json"], b"testing\\u001b[2J"),  # JSON escapes them itself
        (["export", "--format", "csv"], b"testing\\x1b[2J"),
        (["export", "--format", "json"], b"testing\\u001b[2J"),
    ],
    ids=["stats", "stats --json", "export csv", "export json"],
)
def test_history_text_is_written_escaped(tmp_path: Path, args: list[str], shown: bytes) -> None:
    """Answers, topics and mistake titles from a history (an imported side file can hold anything)."""
    db = tmp_path / "history.sqlite3"
    store = HistoryStore.open(str(db))
    try:
        for i in range(3):
            store.record(_attempt(seed=i, at=1_700_000_000.0 + i))
    finally:
        store.close()
    output = _quizzer(*args, "--db", str(db))
    assert_no_control(output, " ".join(args))
    assert shown in output


def test_the_csv_export_escapes_the_same_characters_as_the_terminal() -> None:
    """rows.py holds its own copy of the rule (the store imports no bank): they must not drift apart."""
    from quizzer.bank.read.control import CONTROL
    from quizzer.store.rows import csv_cell

    for code in range(0x3000):
        character = chr(code)
        escaped = bool(CONTROL.search(character))
        assert (csv_cell("a" + character) != "a" + character) == escaped, hex(code)


#: Code points, the control characters and their neighbours drawn often, surrogates left out (not text).
CODE_POINTS = st.one_of(st.integers(0, 0xA0), st.integers(0, 0x10FFFF)).filter(
    lambda c: not 0xD800 <= c <= 0xDFFF
)


@given(CODE_POINTS, st.sampled_from(["u", "U", "raw"]))
def test_any_character_in_a_title_is_kept_or_refused_as_the_rule_says(code: int, how: str) -> None:
    """Written as a TOML escape or as itself: a control character (but tab and newline) makes the template a
    named problem, any other character is the title's own (the loader's quick scan of a file misses none)."""
    character = chr(code)
    written = {"u": f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}", "U": f"\\U{code:08x}"}
    text = MINI.replace('title = "A product"', f'title = "A {written.get(how, character)}product"')
    with tempfile.TemporaryDirectory() as tmp:
        path = planted(Path(tmp), text)
        bank = load_bank([str(path)])
        problems = bank.problems()
        if how == "raw" and problems and problems[0].template_id is None:
            return  # TOML itself refuses the character written as it is (a syntax error)
        if code in (0x09, 0x0A) or not (code < 0x20 or 0x7F <= code <= 0x9F):
            assert problems == []
            assert bank.get("mini-product").title == f"A {character}product"
        else:
            assert [(p.template_id, p.field) for p in problems] == [("mini-product", "title")]


def test_no_problem_says_a_control_character_it_read(tmp_path: Path) -> None:
    """Problems are shown on Home too, where nothing escapes them: every one is written with escapes."""
    plants = {
        "id.toml": MINI.replace('id = "mini-product"', 'id = "mini\\u001b]0;x\\u0007"'),
        "key.toml": MINI.replace(
            "[template.variables]", '[template.variables]\n"c\\u001b[2J" = { range = [1, 2] }'
        ),
        "top.toml": '"\\u001b]0;x\\u0007" = 1\n' + MINI.replace("mini-product", "top-product"),
        "text.toml": MINI.replace("mini-product", "text-product").replace('"A product"', '"\\u009b2J"'),
        "name\x1b[2J.toml": MINI.replace("mini-product", "name-product"),
    }
    for name, text in plants.items():
        planted(tmp_path, text, name)
    problems = load_bank([str(tmp_path)]).problems()
    assert len(problems) >= len(plants)
    for problem in problems:
        shown = str(problem)
        assert C0_BYTES.search(shown.encode("utf-8")) is None, shown
        assert C1_CHARS.search(shown) is None, shown
        assert problem.field is None or C1_CHARS.search(problem.field) is None
