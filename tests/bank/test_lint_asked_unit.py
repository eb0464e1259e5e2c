"""The asked-unit lint: a prompt that asks "how many bytes" while a bare number is read in a scaled unit."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.asked_unit import unit_named
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank
from quizzer.grading.bands import Tolerance
from quizzer.grading.context import GradeContext
from quizzer.grading.grade import grade

TEMPLATE = """
[[template]]
id = "asked"
title = "Asked-unit fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
prompt = "A state of 36 layers × 2,162,688 bytes. How many **bytes** does one sequence keep?{said}"
conventions = [{convention}]
[template.answer]
expr = "36 * 2162688"
unit = "bytes"
display = "MiB"
"""


def _findings(tmp_path: Path, said: str = "", convention: str = "") -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(TEMPLATE.format(said=said, convention=convention), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get("asked"), range(2), lints=chosen(only=("asked-unit",)))
    assert count == 2
    return problems


def test_the_trap_it_finds_is_real() -> None:
    """Typed as the prompt asks (the exact bytes, no unit), the answer is read as MiB and graded wrong."""
    context = GradeContext("MiB", None, None, None, False)
    verdict = grade("77856768", 77_856_768, "bytes", Tolerance("rel", 0.01), context=context)
    assert verdict.kind == "wrong"


def test_a_prompt_asking_bytes_with_a_mib_display_and_nothing_said_is_found(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path)
    assert (problem.template_id, problem.field) == ("asked", "prompt")
    assert "asks 'how many bytes' but a bare number is read as MiB" in problem.message
    assert "Answer in MiB." in problem.message


def test_answer_in_the_display_unit_or_a_bare_number_rule_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, said=" Answer in MiB.") == []
    assert _findings(tmp_path, convention='"A bare number is read as MiB."') == []


def test_a_value_printed_in_the_unit_does_not_say_how_to_answer() -> None:
    assert not unit_named("How many bytes (the state alone is 74.25 MiB)?", "MiB")
    assert unit_named("How many bytes? Answer in MiB.", "MiB")
    assert unit_named("Give it in MiB.", "MiB")
