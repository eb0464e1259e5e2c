"""The plurals lint: a placeholder then a plural noun that an instance makes "1 chips", planted in a small
pack and named with the instance that shows it; the plural(word) style, an operand, a numbered label and
a text not shown at 1 are not findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank

PACK = """
[[template]]
id = "chips"
title = "Plurals fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A model is sharded over {prompt}. How many bytes does each chip hold?"
explanation = "{{derivation}} {explanation}"
tldr = "{{answer}}."
[template.variables]
n_gpus = {{ choices = [1, 2, 4] }}
n_bytes = {{ choices = [1024, 4096] }}
[template.answer]
expr = "n_bytes // n_gpus"
unit = "bytes"

[[template.mistakes]]
name = "not-divided"
answer = "n_bytes"
when = "n_gpus > 1"
feedback = "{feedback}"
"""

CLEAN = {
    "prompt": "{n_gpus:plural(chip)}",
    "explanation": "Divide by the chips.",
    "feedback": "That is the whole model: divide it by the {n_gpus} chips.",  # not shown at 1 chip
}


def _findings(tmp_path: Path, **fields: str) -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(PACK.format(**{**CLEAN, **fields}), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, _ = check_template(bank.get("chips"), range(40), lints=chosen(only=("plurals",)))
    return problems


def test_the_clean_fixture_has_no_finding(tmp_path: Path) -> None:
    """plural(chip) writes "1 chip"; the mistake that says "{n_gpus} chips" is posed only for 2 or more
    (its feedback never reads "1 chips"), though another text shows "1 chips" in the same instance."""
    assert _findings(tmp_path) == []
    assert _findings(tmp_path, explanation="2 × {n_gpus} chips") == []


@pytest.mark.parametrize(
    ("field", "text", "where"),
    [
        ("prompt", "**{n_gpus}** chips", "prompt"),
        ("explanation", "Each of the {n_gpus} chips holds a share.", "explanation"),
    ],
)
def test_a_count_that_reads_1_chips_is_named_with_its_instance(
    tmp_path: Path, field: str, text: str, where: str
) -> None:
    (problem,) = _findings(tmp_path, **{field: text})
    assert problem.field == where
    assert "'{n_gpus} chips'" in problem.message
    assert "write {n_gpus:plural(chip)}" in problem.message
    instance_id = problem.message.split(" at ")[1].split(" ")[0]
    seed = int(instance_id.split("#")[1])
    bank = load_bank([str(tmp_path / "pack.toml")])
    shown = generate(bank.get("chips"), seed)
    assert shown.variables["n_gpus"] == 1  # the instance named does read "1 chips"
    assert "1 chips" in (shown.prompt + shown.explanation).replace("**", "")


@pytest.mark.parametrize(
    "text",
    [
        "the product 2 × {n_gpus} chips",  # an operand: the noun counts the product
        "ZeRO stage {n_gpus} partitions the state",  # a label it numbers, and a verb
        "{n_gpus} is the count",  # no plural noun
        "{{n_gpus}} chips",  # a brace written out, no placeholder
    ],
)
def test_no_count_no_finding(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, explanation=text) == []
