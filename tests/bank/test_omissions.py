"""The omission lint: each step of the derivation left out in turn, and how that grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.check.lints import scope
from quizzer.bank.check.omissions import omissions, used_variables
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_bank, check_template
from quizzer.bank.loader import load_bank
from quizzer.bank.read.schema import Template
from tests.builtin_bank import builtin_bank
from tests.sampling import sampled

DATA = Path(__file__).resolve().parent.parent / "data"
OMISSION = (DATA / "lint" / "omission.toml").read_text(encoding="utf-8")


def load(tmp_path: Path, text: str = OMISSION) -> Template:
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    return load_bank([str(tmp_path / "pack.toml")]).get("omission-overhead")


def lint(text: str, tmp_path: Path, seeds: int = 10, *, on: bool = True) -> list[tuple[str | None, str]]:
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    report = check_bank(
        load_bank([str(tmp_path / "pack.toml")]), seeds, lints=chosen(() if on else ("omissions",))
    )
    return [(p.field, p.message) for p in report.problems]


def test_steps_of_an_expression() -> None:
    template = load_bank([str(DATA / "lint" / "omission.toml")]).get("omission-overhead")
    found = [(o.step, o.how, o.variant.source) for o in omissions(scope(template, 1))]
    assert found == [
        ("1.005 * n * b", "a term, set to 0", "(0) + extra"),
        ("1.005", "a factor, set to 1", "(1) * n * b + extra"),
        ("n", "a factor, set to 1", "1.005 * (1) * b + extra"),
        ("b", "a factor, set to 1", "1.005 * n * (1) + extra"),
        ("extra", "a term, set to 0", "1.005 * n * b + (0)"),
    ]


def test_calculator_arguments_and_derived_variables_are_steps(tmp_path: Path) -> None:
    text = OMISSION.replace('expr = "1.005 * n * b + extra"', 'expr = "weights_bytes(total, dtype)"').replace(
        'extra = { expr = "n * b // 50" }',
        'extra = { expr = "n * b // 50" }\nhidden = { expr = "n // 10" }\ntotal = { expr = "n + hidden" }\n'
        'dtype = { choices = ["bf16"] }',
    )
    template = load(tmp_path, text.replace("8 * 1.005 * n * b + extra", "8 * weights_bytes(total, dtype)"))
    steps = {(o.step, o.how) for o in omissions(scope(template, 1))}
    assert ("total", "argument 1 of weights_bytes, set to 1") in steps
    assert ("total", "argument 1 of weights_bytes, set to 0") in steps
    assert ("hidden", "a term in variables.total, set to 0") in steps
    assert ("10", "a divisor in variables.hidden, set to 1") in steps  # a floor division too
    assert not any(step == "dtype" for step, _ in steps)  # text is no number to leave out
    shown_is_given = used_variables(scope(template, 1))  # extra is shown: a given
    assert [v.name for v in shown_is_given] == ["hidden", "total"]


def test_an_overhead_inside_the_band_and_an_unnamed_close_term_are_reported(tmp_path: Path) -> None:
    problems = lint(OMISSION, tmp_path)
    assert [field for field, _ in problems] == ["answer.expr", "answer.expr"]
    silent, unnamed = (message for _, message in problems)
    assert silent.startswith(
        "leaving out '1.005' (a factor, set to 1) still grades correct at seed 0 (value "
    )
    assert "declare it in omissions_ok with a reason" in silent
    assert unnamed.startswith("leaving out 'extra' (a term, set to 0) grades close at seed 0 (value ")
    assert "no mistake says what was left out" in unnamed


def test_the_lint_is_off_without_its_flag(tmp_path: Path) -> None:
    assert lint(OMISSION, tmp_path, on=False) == []


def test_declared_omissions_are_accepted_and_a_mistake_names_the_close_one(tmp_path: Path) -> None:
    text = OMISSION.replace(
        "tolerance = { rel = 0.01 }",
        'tolerance = { rel = 0.01 }\n\n[[template.mistakes]]\nname = "no-metadata"\n'
        'answer = "1.005 * n * b"\nfeedback = "You left out the metadata."',
    ).replace(
        'prompt = "', 'omissions_ok = [{ step = "1.005", why = "the overhead is a footnote" }]\nprompt = "'
    )
    assert lint(text, tmp_path) == []


def test_a_declaration_that_names_no_step_is_reported(tmp_path: Path) -> None:
    text = OMISSION.replace('prompt = "', 'omissions_ok = [{ step = "1.05", why = "typo" }]\nprompt = "')
    problems = lint(text, tmp_path)
    assert ("omissions_ok[0].step", problems[-1][1]) == problems[-1]
    assert problems[-1][1].startswith(
        "'1.05' is no step of the answer's derivation; the steps are: '1.005', "
    )


def test_a_step_that_changes_nothing_is_no_omission(tmp_path: Path) -> None:
    text = OMISSION.replace("b = { choices = [2, 4] }", "b = { choices = [1] }")
    assert not any("'b'" in message for _, message in lint(text, tmp_path))


def test_the_built_in_bank_loads_without_problems() -> None:
    """What ``check_bank`` reports before checking any template: every file reads, every template is valid."""
    assert builtin_bank().problems() == []


@pytest.mark.parametrize("template_id", sampled(builtin_bank().ids()))
def test_each_built_in_template_passes_the_check_without_the_lint(template_id: str) -> None:
    """``quizzer check questions --no-omissions --seeds 3`` one template at a time (so xdist spreads them):
    today's third of the templates in the dev run, all of them in CI (tests/sampling.py)."""
    problems, count = check_template(builtin_bank().get(template_id), range(3), lints=())
    assert [str(p) for p in problems] == []
    assert count == 3


def test_the_lint_stays_inside_the_evaluation_budget() -> None:
    """A long sum, each term left out in turn, costs more than a small budget: the lint stops once."""
    from quizzer.bank.check.lints import OmissionLint
    from quizzer.bank.generate.render import generate

    (template,) = load_bank([str(DATA / "lint" / "omission_budget.toml")]).templates()
    lint = OmissionLint(template, steps=5_000)
    count = len(lint.active)
    assert count * template.main.answer.size > 5_000
    for seed in range(3):
        lint.visit(generate(template, seed), seed)
    stopped = [p for p in lint.problems() if "the omission lint stopped" in p.message]
    assert [p.message for p in stopped] == [
        f"seed 0: the omission lint stopped: its {count} omissions exceed the evaluation budget of "
        "5,000 steps for one instance"
    ]


def test_a_long_sum_is_cut_to_the_variants_one_template_may_parse() -> None:
    bank = load_bank([str(DATA / "lint" / "omission_budget.toml")])
    report = check_bank(bank, seeds_per_template=2)
    cut = [p.message for p in report.problems if "tried the first" in p.message]
    assert len(cut) == 1
    assert "characters (split it into expr variables)" in cut[0]


def test_the_variants_one_template_may_parse_are_bounded() -> None:
    from quizzer.bank.check.omissions import omissions_within

    (template,) = load_bank([str(DATA / "lint" / "omission_budget.toml")]).templates()
    size = len(template.main.answer.source)
    found, complete = omissions_within(scope(template, 1), limit=10 * size)
    assert not complete
    assert len(found) == 9  # each variant is the expression with one term replaced: about its length
    small = load_bank([str(DATA / "lint" / "omission.toml")]).get("omission-overhead")
    found, complete = omissions_within(scope(small, 1))
    assert complete
    assert [o.variant.source for o in found] == [o.variant.source for o in omissions(scope(small, 1))]
