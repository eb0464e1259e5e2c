"""The slip-pairs lint: a written mistake that, with a built-in slip, always lands on the answer."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "pairs"
title = "Slip-pairs fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
prompt = "A forward pass over {{n}} tokens of a model of 1,000 parameters: how many FLOPs?"
[template.variables]
n = {{ range = [1000, 1999] }}
[template.answer]
expr = "2 * 1000 * n"
unit = "FLOPs"
tolerance = {{ rel = 0.05 }}
[[template.mistakes]]
name = "padded"
answer = "{mistake}"
feedback = "That pads every sequence."
"""


def _findings(tmp_path: Path, mistake: str) -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(TEMPLATE.format(mistake=mistake), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, _ = check_template(bank.get("pairs"), range(20), lints=chosen(only=("slip-pairs",)))
    return problems


def test_a_mistake_that_with_a_slip_always_lands_on_the_answer_is_found(tmp_path: Path) -> None:
    """1.9× or 2.08× the answer (by the parity of n), halved by MACs for FLOPs: 0.95× or 1.04×, inside
    the 5% band on every draw, and not one factor the grader could call arithmetic."""
    (problem,) = _findings(tmp_path, "2 * 1000 * n * (1.9 if n % 2 else 2.08)")
    assert (problem.template_id, problem.field) == ("pairs", "mistakes[0]")
    assert "'padded' together with the slip 'MACs for FLOPs' lands on the answer" in problem.message


def test_a_mistake_one_factor_off_is_arithmetic_not_a_finding(tmp_path: Path) -> None:
    """Twice the answer, with MACs for FLOPs, is the answer: arithmetic, not the template's doing."""
    assert _findings(tmp_path, "4 * 1000 * n") == []


def test_a_mistake_that_lands_apart_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, "2 * 1000 * n + 3 * n * n") == []
