"""The dead-text lint: a comparison with a text its variable can never hold (collectives' '3D torus')."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "torus"
title = "Dead-text fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
prompt = "A ring of {{n_chips}} chips on {{topology}}. How many hops does a shard take around it?"
constraints = ["n_chips == 16 or topology == {text}"]
[template.variables]
links = {{ choices = [4, 6] }}
n_chips = {{ choices = [4, 8, 16] }}
topology = {{ expr = "'a 3D torus' if links >= 6 else 'a 2D torus'" }}
[template.answer]
expr = "n_chips - 1"
unit = "count"
"""


def _bank(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "pack.toml"
    path.write_text(TEMPLATE.format(text=text), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    return bank


def _findings(tmp_path: Path, text: str) -> list[TemplateError]:
    problems, _ = check_template(
        _bank(tmp_path, text).get("torus"), range(3), lints=chosen(only=("dead-text",))
    )
    return problems


def test_the_trap_is_real(tmp_path: Path) -> None:
    """'3D torus' is never the text: every draw is 16 chips, on a 3D torus too."""
    bank = _bank(tmp_path, "'3D torus'")
    assert {bank.generate("torus", seed).variables["n_chips"] for seed in range(40)} == {16}


def test_a_text_the_expression_never_gives_is_found(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, "'3D torus'")
    assert (problem.template_id, problem.field) == ("torus", "constraints[0]")
    assert "'3D torus', a text it can never hold" in problem.message
    assert "'a 2D torus', 'a 3D torus'" in problem.message


def test_a_text_it_gives_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, "'a 3D torus'") == []


def test_a_drawn_variable_is_left_alone(tmp_path: Path) -> None:
    """A choices variable takes any value with --set: comparing it with a text not drawn is not dead."""
    text = TEMPLATE.replace("n_chips == 16 or topology == {text}", "dtype == 'fp8' or n_chips > 2")
    text = text.replace("[template.variables]", "[template.variables]\ndtype = {{ choices = ['bf16'] }}")
    path = tmp_path / "pack.toml"
    path.write_text(text.format(), encoding="utf-8")
    bank = load_bank([str(path)])
    problems, _ = check_template(bank.get("torus"), range(3), lints=chosen(only=("dead-text",)))
    assert problems == []
