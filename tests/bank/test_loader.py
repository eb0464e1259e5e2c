"""Loader and check: one bad fixture per error kind, each message naming file, template and field."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quizzer.bank.check.run import check_bank, check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank
from quizzer.paths import questions_dir

DATA = Path(__file__).resolve().parent.parent / "data"
BAD = DATA / "bad"


def only_problem(name: str) -> TemplateError:
    bank = load_bank([str(BAD / name)])
    problems = bank.problems()
    assert len(problems) == 1, problems
    return problems[0]


def test_toml_syntax_error_names_file_line_and_column() -> None:
    problem = only_problem("syntax.toml")
    assert problem.path.endswith("syntax.toml")
    assert "TOML syntax error" in str(problem)
    assert "line 3" in str(problem)
    assert "column" in str(problem)


@pytest.mark.parametrize(
    ("name", "template_id", "field", "message"),
    [
        ("wrong_type.toml", "wrong-type", "minutes", "expected an integer or a number, got str ('two')"),
        ("unknown_key.toml", "unknown-key", "promt", "unknown key (did you mean 'prompt'?)"),
        (
            "unknown_calculator.toml",
            "unknown-calculator",
            "answer.expr",
            "unknown calculator 'embeding_params' (did you mean 'embedding_params'?)",
        ),
        ("unsafe_expression.toml", "unsafe-expression", "answer.expr", "attribute access"),
        (
            "unknown_placeholder.toml",
            "unknown-placeholder",
            "prompt",
            "unknown placeholder {vocab} (did you mean 'vocab_size'?)",
        ),
        ("misplaced_key.toml", "misplaced-key", "answer.prompt", "move it above the first [table] header"),
    ],
)
def test_schema_errors_name_file_template_and_field(
    name: str, template_id: str, field: str, message: str
) -> None:
    problem = only_problem(name)
    assert problem.path.endswith(name)
    assert problem.template_id == template_id
    assert problem.field == field
    assert message in problem.message
    assert str(problem).startswith(f"{problem.path}: template {template_id!r}: field {field!r}: ")


def test_unsatisfiable_constraint_is_reported_by_check() -> None:
    bank = load_bank([str(BAD / "unsatisfiable.toml")])
    (template,) = bank.templates()
    problems, instances = check_template(template, range(5))
    assert instances == 0
    assert [p.field for p in problems] == ["constraints"]
    assert "unsatisfiable" in problems[0].message
    assert problems[0].template_id == "unsatisfiable"


def test_mistake_inside_the_tolerance_is_reported_by_check() -> None:
    bank = load_bank([str(BAD / "mistake_inside.toml")])
    report = check_bank(bank, seeds_per_template=5)
    assert len(report.problems) == 1
    problem = report.problems[0]
    assert problem.field == "mistakes[0].answer"
    assert "inside the tolerance" in problem.message
    assert problem.path.endswith("mistake_inside.toml")


def test_a_bad_template_never_stops_the_others(tmp_path: Path) -> None:
    good = (DATA / "good" / "mini.toml").read_text()
    bad = (BAD / "wrong_type.toml").read_text()
    (tmp_path / "pack.toml").write_text(good + "\n" + bad)
    bank = load_bank([str(tmp_path)])
    assert [t.id for t in bank.templates()] == ["mini-product"]
    assert [p.template_id for p in bank.problems()] == ["wrong-type"]


def test_duplicate_ids_across_packs_are_reported_not_shadowed(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "copy.toml").write_text((DATA / "good" / "mini.toml").read_text().replace("a × b", "b × a"))
    bank = load_bank([str(DATA / "good"), str(other)])
    assert bank.get("mini-product").path.endswith("mini.toml")
    (problem,) = bank.problems()
    assert problem.template_id == "mini-product"
    assert "already used by" in problem.message
    assert problem.path.endswith("copy.toml")


def test_missing_folder_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    bank = load_bank([str(tmp_path / "nope")])
    assert len(bank) == 0
    assert "no such file or folder" in str(bank.problems()[0])


def test_good_pack_checks_clean() -> None:
    report = check_bank(load_bank([str(DATA / "good")]), seeds_per_template=20)
    assert report.problems == ()
    assert report.templates == 1
    assert report.instances == 20


def test_mistake_when_limits_a_mistake_to_some_instances(tmp_path: Path) -> None:
    text = (
        (DATA / "good" / "mini.toml")
        .read_text()
        .replace(
            'feedback = "You added {a} and {b}."',
            'feedback = "You added {a} and {b}."\nwhen = "a > 10"',
        )
    )
    (tmp_path / "when.toml").write_text(text)
    (template,) = load_bank([str(tmp_path)]).templates()
    from quizzer.bank.generate.render import generate

    small = generate(template, 0, {"a": 4})
    large = generate(template, 0, {"a": 12})
    assert small.mistakes == ()
    assert [m.value for m in large.mistakes] == [12 + large.variables["b"]]


def test_mistake_names_are_unique(tmp_path: Path) -> None:
    text = (DATA / "good" / "mini.toml").read_text() + (
        '\n[[template.mistakes]]\nname = "mistake-1"\nanswer = "a - b"\nfeedback = "again"\n'
    )
    (tmp_path / "dup.toml").write_text(text)
    (problem,) = load_bank([str(tmp_path)]).problems()
    assert problem.field == "mistakes[1].name"
    assert "used twice" in problem.message


def test_a_broken_derived_variable_is_reported_as_such(tmp_path: Path) -> None:
    text = (
        (DATA / "good" / "mini.toml")
        .read_text()
        .replace("b = { log2 = [8, 64] }", "b = { log2 = [8, 64] }\nc = { expr = \"'x' + a\" }")
        .replace('answer = "a + b"', 'answer = "a + b"')
        .replace('expr = "a * b"', 'expr = "a * b"')
    )
    text = text.replace('What is {a} × {b}?"', 'What is {a} × {b}?"\nconstraints = ["a > 1"]')
    (tmp_path / "broken.toml").write_text(text)
    (template,) = load_bank([str(tmp_path)]).templates()
    problems, instances = check_template(template, range(3))
    assert instances == 0
    assert "unsatisfiable" not in problems[0].message
    assert "'x' + a" in problems[0].message


def test_scanned_ids_need_no_parsing_and_peek_parses_one_file(tmp_path: Path) -> None:
    mini = (DATA / "good" / "mini.toml").read_text()
    (tmp_path / "a.toml").write_text(mini)
    (tmp_path / "b.toml").write_text("this is not TOML [")
    bank = load_bank([str(tmp_path)])
    assert bank.scanned_ids() == ["mini-product"]
    assert bank.file_problems == []  # b.toml is not parsed yet
    raw = bank.peek("mini-product")
    assert raw is not None
    assert raw["id"] == "mini-product"
    assert bank.file_problems == []  # still only a.toml parsed
    assert bank.peek("nope") is None
    assert "TOML syntax error" in str(bank.file_problems[0])  # looking for an unknown id parses everything


def test_an_id_the_scan_cannot_see_is_a_problem_not_a_silent_gap(tmp_path: Path) -> None:
    (tmp_path / "inline.toml").write_text('template = [{ id = "inline", title = "x" }]\n')
    bank = load_bank([str(tmp_path)])
    assert bank.scanned_ids() == []
    (problem,) = bank.problems()
    assert problem.template_id == "inline"
    assert problem.field == "id"
    assert "line of its own" in problem.message


def test_a_quoted_id_key_is_scanned(tmp_path: Path) -> None:
    mini = (DATA / "good" / "mini.toml").read_text().replace('id = "mini-product"', '"id" = "mini-product"')
    (tmp_path / "quoted.toml").write_text(mini)
    bank = load_bank([str(tmp_path)])
    assert bank.scanned_ids() == ["mini-product"]
    assert [t.id for t in bank.templates()] == ["mini-product"]


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_checked_in_processes_the_problems_are_the_same_and_in_order(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`quizzer check` checks templates in a process pool: the same problems, in the same order, whether
    the workers are forked with the bank (Linux) or load it themselves (elsewhere)."""
    monkeypatch.setattr(sys, "platform", platform)
    paths = [str(DATA / "lint"), str(DATA / "good")]
    alone = check_bank(load_bank(paths), seeds_per_template=5)
    pooled = check_bank(load_bank(paths), seeds_per_template=5, workers=2, paths=paths)
    assert alone.problems  # the lint fixtures hold findings: the comparison is not of two empty lists
    assert [str(p) for p in pooled.problems] == [str(p) for p in alone.problems]
    assert (pooled.templates, pooled.instances) == (alone.templates, alone.instances)


def test_peek_keeps_the_scalar_fields_once_the_template_is_validated() -> None:
    """Before validation peek gives the table as written; after, its scalar fields alone (what its readers
    take: title, topic, difficulty), the tables and arrays the Template now holds let go."""
    bank = load_bank([questions_dir()])
    written = dict(bank.peek("kv-cache-bytes") or {})
    assert isinstance(written["answer"], dict)
    assert isinstance(written["variables"], dict)
    bank.get("kv-cache-bytes")
    kept = bank.peek("kv-cache-bytes")
    assert kept == {k: v for k, v in written.items() if isinstance(v, (str, int, float, bool))}
    assert {"id", "title", "topic", "difficulty"} <= set(kept)
