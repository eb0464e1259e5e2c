"""Hostile packs: one small fixture per fault, each a named problem (file, template, field); the rest loads,
and `check` stays within its evaluation budget."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.bank.check.run import check_bank
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import Budget
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank
from tests.builtin_bank import builtin_bank

DATA = Path(__file__).resolve().parent.parent / "data"
HOSTILE = DATA / "hostile"
GOOD = DATA / "good"
QUESTIONS = Path(__file__).resolve().parents[2] / "questions"

#: fixture -> (template id, field, part of the message, when it is found: "load" = by every verb that
#: validates (list, plain, the TUI's Home), "generate" = by `check` and by the verb that makes the instance)
CASES = {
    "not_utf8": (None, None, "is not UTF-8 text: byte 0xd7 at line 12, column 23", "load"),
    "deep_toml": (None, None, "arrays or tables nest too deeply to read", "load"),
    "huge_toml_integer": (None, None, "an integer in it has more than 4,300 digits", "load"),
    "long_expression": (
        "long-expression",
        "answer.expr",
        "4,003 characters long; the limit is 2,000",
        "load",
    ),
    "deep_expression": ("deep-expression", "answer.expr", "nests deeper than 100 levels", "load"),
    "unknown_style": ("unknown-style", "prompt", "{a:bogus}: unknown style 'bogus'", "load"),
    "unknown_format": (
        "unknown-format",
        "variables.a.format",
        "unknown style 'sii' (did you mean 'si'?)",
        "load",
    ),
    "non_finite_choice": (
        "non-finite-choice",
        "variables.a.choices[1]",
        "nan is not a finite number",
        "load",
    ),
    "text_mistake": ("text-mistake", "mistakes[0].answer", "can give text; it must give a number", "load"),
    "bad_display": ("bad-display", "answer.display", "'GiB' cannot be read as a unit of 'count'", "load"),
    "non_finite": ("non-finite", "answer.expr", "the result inf is not a finite number", "generate"),
    "too_large_answer": ("too-large-answer", "answer.expr", "too large to show or grade", "generate"),
    "too_large_placeholder": ("too-large-placeholder", "prompt", "cannot show {x}", "generate"),
    "huge_round": (
        "huge-round",
        "answer.expr",
        "-1,000,000,000 digits is beyond the limit of ±100",
        "generate",
    ),
    "squarings": ("squarings", "variables.x12.expr", "the result has more than 10,000 bits", "generate"),
    "over_budget": (
        "over-budget",
        "constraints",
        "exceeds the evaluation budget of 100,000 steps",
        "generate",
    ),
    "text_flood": ("text-flood", "prompt", "the texts of one instance pass 100,000 characters", "generate"),
    "control_chars": (
        "control-chars",
        "title",
        "holds a control character (so do prompt, conventions[0]",
        "load",
    ),
}


def test_every_hostile_fixture_has_a_case() -> None:
    assert sorted(p.stem for p in HOSTILE.glob("*.toml")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_file_is_one_named_problem_and_the_rest_loads(name: str) -> None:
    template_id, field, message, stage = CASES[name]
    path = str(HOSTILE / f"{name}.toml")
    bank = load_bank([str(GOOD), path])
    assert "mini-product" in [t.id for t in bank.templates()]
    load_problems = bank.problems()
    report = check_bank(bank, seeds_per_template=3)
    ours = [p for p in report.problems if p.path == path]
    assert len(ours) == 1, report.problems
    (problem,) = ours
    assert len(report.problems) == 1  # the good pack stays clean
    assert (problem.template_id, problem.field) == (template_id, field)
    assert message in problem.message
    assert str(problem).startswith(path + ": ")
    if stage == "load":
        assert load_problems == [problem]
    else:  # valid as written: only making an instance shows it, and that names the template
        assert load_problems == []
        with pytest.raises(TemplateError) as caught:
            bank.generate(template_id, 0)
        assert caught.value.template_id == template_id
        assert caught.value.path == path
        assert bank.problems() == [caught.value]  # kept, so Home or a verb can list it afterwards


def test_check_counts_its_work_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every instance and every acceptance estimate is charged to a budget of its own, so the work of `check`
    over a template is at most (seeds + 1) budgets however hostile the template."""
    charged: list[int] = []
    original = Budget.charge

    def counting(self: Budget, steps: int) -> None:
        charged.append(steps)
        original(self, steps)

    monkeypatch.setattr(Budget, "charge", counting)
    seeds = 3
    for name in sorted(CASES):
        charged.clear()
        check_bank(load_bank([str(HOSTILE / f"{name}.toml")]), seeds_per_template=seeds)
        assert sum(charged) <= (seeds + 1) * 100_000 + max(charged, default=0), name
    charged.clear()
    with pytest.raises(TemplateError, match="evaluation budget"):
        generate(load_bank([str(HOSTILE / "over_budget.toml")]).get("over-budget"), 0)
    assert 100_000 < sum(charged) <= 100_000 + max(charged)  # it stopped at the first charge past the budget


def test_a_file_over_the_size_limit_is_named_and_not_read(tmp_path: Path) -> None:
    mini = (GOOD / "mini.toml").read_text(encoding="utf-8")
    big = tmp_path / "big.toml"
    big.write_text(mini + "\n" + "#" * (1 << 20), encoding="utf-8")
    (tmp_path / "small.toml").write_text(mini.replace("mini-product", "small-product"), encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert bank.scanned_ids() == ["small-product"]  # the big file was not scanned for ids either
    (problem,) = bank.problems()
    assert problem.path == str(big)
    assert "over the limit of 1,048,576 bytes (1 MiB)" in problem.message
    assert [t.id for t in bank.templates()] == ["small-product"]


def test_a_file_at_the_size_limit_loads(tmp_path: Path) -> None:
    mini = (GOOD / "mini.toml").read_text(encoding="utf-8")
    data = (mini + "\n").encode("utf-8")
    (tmp_path / "full.toml").write_bytes(data + b"#" * ((1 << 20) - len(data)))
    bank = load_bank([str(tmp_path)])
    assert [t.id for t in bank.templates()] == ["mini-product"]
    assert bank.problems() == []


@pytest.mark.usefixtures("validated_once")  # the built-in tables parsed once per process (tests/conftest.py)
def test_the_built_in_bank_loads_beside_every_hostile_file() -> None:
    alone = builtin_bank()
    both = load_bank([str(QUESTIONS), str(HOSTILE)])
    built_in = [t.id for t in alone.templates()]
    assert built_in
    assert [t.id for t in both.templates()][: len(built_in)] == built_in
    assert {p.path for p in both.problems()} == {
        str(HOSTILE / f"{n}.toml") for n, case in CASES.items() if case[3] == "load"
    }


def test_bank_methods_raise_nothing_but_their_documented_errors() -> None:
    """What Home and every verb call on a bank: nothing a pack holds makes these raise."""
    bank = load_bank([str(HOSTILE), str(GOOD), str(HOSTILE / "missing")])
    assert bank.scanned_ids()
    for template_id in bank.scanned_ids():
        assert (template_id in bank) == (bank.peek(template_id) is not None)
        try:
            bank.get(template_id)
        except (TemplateError, KeyError):
            pass
    assert len(bank.templates()) == len(bank) > 0
    problems = bank.problems()
    assert all(isinstance(p, TemplateError) and str(p).startswith(p.path) for p in problems)
    assert any("no such file or folder" in p.message for p in problems)


def test_an_unreadable_file_is_why_its_ids_are_missing() -> None:
    bank = load_bank([str(HOSTILE / "not_utf8.toml")])
    assert "not-utf8" not in bank
    problem = bank.why_missing("not-utf8")
    assert problem is not None
    assert "not UTF-8" in problem.message
    assert bank.why_missing("mini-product") is None


@pytest.mark.parametrize(
    ("variables", "mistake", "what"),
    [
        ('dtype = { choices = ["bf16", "fp32"] }', "dtype", "text"),
        ('dtype = { choices = ["bf16", "fp32"] }', "a if a > 3 else dtype", "text"),
        ('dtype = { choices = ["bf16", "fp32"] }', "max(a, dtype)", "text"),
        ("", "a > 3", "true/false"),
        ('m = { preset = ["gpt2"] }', "m_norm", "text"),
        ('m = { preset = ["gpt2"] }', "m_tie_embeddings", "true/false"),
    ],
)
def test_a_mistake_that_can_give_a_non_number_is_refused_before_any_grading(
    tmp_path: Path, variables: str, mistake: str, what: str
) -> None:
    text = (
        (GOOD / "mini.toml")
        .read_text(encoding="utf-8")
        .replace("b = { log2 = [8, 64] }", f"b = {{ log2 = [8, 64] }}\n{variables}")
        .replace('answer = "a + b"', f'answer = "{mistake}"')
    )
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    (problem,) = load_bank([str(tmp_path)]).problems()
    assert problem.field == "mistakes[0].answer"
    assert f"can give {what}; it must give a number" in problem.message


def test_a_numeric_mistake_built_from_text_and_flags_is_accepted(tmp_path: Path) -> None:
    text = (
        (GOOD / "mini.toml")
        .read_text(encoding="utf-8")
        .replace(
            "b = { log2 = [8, 64] }",
            'b = { log2 = [8, 64] }\ntied = { bool = true }\nm = { preset = ["gpt2"] }',
        )
        .replace('answer = "a + b"', 'answer = "a + b + (m_d_model if tied else 0)"')
    )
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert bank.problems() == []
    instance = bank.generate("mini-product", 3)
    assert all(isinstance(m.value, int | float) for m in instance.mistakes)


@pytest.mark.parametrize(
    ("value", "message"),
    [("1e999", "not a finite number"), ("nan", "not a finite number"), ("9" * 500, "is not a number")],
)
def test_an_override_beyond_the_limits_is_named(value: str, message: str) -> None:
    bank = load_bank([str(GOOD)])
    with pytest.raises(TemplateError, match=message) as caught:
        bank.generate("mini-product", 1, {"a": value})
    assert caught.value.field == "variables.a"
    assert bank.problems() == []  # the value given was wrong, not the template


def _load_text(data: bytes) -> tuple[list[str], list[TemplateError]]:
    """Load ``data`` as a pack file beside the good pack; make one instance of each template it holds."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "pack.toml").write_bytes(data)
        bank = load_bank([tmp, str(GOOD)])
        ids = [t.id for t in bank.templates()]
        for template_id in ids:
            try:
                bank.generate(template_id, 0)
            except TemplateError:
                pass
        return ids, bank.problems()


@given(st.binary(max_size=400))
def test_any_bytes_in_a_pack_file_are_at_most_problems(data: bytes) -> None:
    ids, problems = _load_text(data)
    assert "mini-product" in ids
    assert all(p.path.endswith("pack.toml") for p in problems)


_MINI = (GOOD / "mini.toml").read_text(encoding="utf-8").replace("mini-product", "fuzzed")


@given(st.integers(0, len(_MINI) - 1), st.text(max_size=30))
def test_a_template_edited_anywhere_is_at_most_a_named_problem(at: int, inserted: str) -> None:
    ids, problems = _load_text((_MINI[:at] + inserted + _MINI[at:]).encode("utf-8", "surrogatepass"))
    assert "mini-product" in ids
    assert all(str(p).startswith(p.path + ": ") and p.path.endswith("pack.toml") for p in problems)


def test_a_problem_quoting_a_huge_value_stays_short(tmp_path: Path) -> None:
    text = (
        (GOOD / "mini.toml")
        .read_text(encoding="utf-8")
        .replace("minutes = 1", f'minutes = "{"x" * 100_000}"')
    )
    text = text.replace('prompt = "', f'{"k" * 5000} = 1\nprompt = "')
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    (problem,) = load_bank([str(tmp_path)]).problems()
    assert problem.field is not None
    assert problem.field.startswith("kkk")
    assert len(problem.field) == 200
    assert len(str(problem)) < 1_500
