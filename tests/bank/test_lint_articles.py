"""The articles lint: "a 8-bit code" as an instance shows it, planted in a small pack and named with the
instance that shows it; wording with no article before the number, the right article, and a text not
shown are not findings."""

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
id = "codes"
title = "Articles fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "{prompt} How many bytes do {{n_values}} values take?"
explanation = "{{derivation}} {explanation}"
tldr = "{{answer}}."
[template.variables]
bits = {{ choices = [4, 6, 8] }}
n_values = {{ choices = [1024, 4096] }}
[template.answer]
expr = "n_values * bits // 8"
unit = "bytes"

[[template.mistakes]]
name = "bits-as-bytes"
answer = "n_values * bits"
when = "bits < 8"
feedback = "{feedback}"
"""

CLEAN = {
    "prompt": "Each value is a code of {bits} bits.",
    "explanation": "An 8-bit byte holds 8 / {bits} codes; a 64-bit word holds more.",
    "feedback": "That counts bits: a {bits}-bit code is a fraction of a byte.",  # never shown at 8 bits
}


def _findings(tmp_path: Path, **fields: str) -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(PACK.format(**{**CLEAN, **fields}), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, _ = check_template(bank.get("codes"), range(40), lints=chosen(only=("articles",)))
    return problems


def test_the_clean_fixture_has_no_finding(tmp_path: Path) -> None:
    """No article before the drawn number, the right one before a number written out, and a mistake that
    says "a {bits}-bit code" posed only below 8 bits."""
    assert _findings(tmp_path) == []


@pytest.mark.parametrize(
    ("field", "text", "where", "read"),
    [
        ("prompt", "Each value is a {bits}-bit code.", "prompt", "a 8-bit"),
        ("explanation", "Each value is **a** **{bits}**-bit code.", "explanation", "a 8-bit"),
        ("explanation", "A {bits}-bit code per value.", "explanation", "A 8-bit"),
        ("explanation", "Each value is an {bits}-bit code.", "explanation", "an 4-bit"),
        ("explanation", "Think of a 8-bit byte.", "explanation", "a 8-bit"),  # written out
        ("explanation", "A batch of a 11,000-token prompt.", "explanation", "a 11,000-token"),
    ],
)
def test_an_article_that_misfits_its_number_is_named_with_its_instance(
    tmp_path: Path, field: str, text: str, where: str, read: str
) -> None:
    (problem,) = _findings(tmp_path, **{field: text})
    assert problem.field == where
    assert f"reads '{read}" in problem.message.replace("**", "")  # bold is read through
    assert "reword so that no article comes before it" in problem.message
    instance_id = problem.message.split(" at ")[1].split(",")[0]
    seed = int(instance_id.split("#")[1])
    shown = generate(load_bank([str(tmp_path / "pack.toml")]).get("codes"), seed)
    assert read in (shown.prompt + shown.explanation).replace("**", "")  # the instance named reads it


@pytest.mark.parametrize(
    "text",
    [
        "Each value is an 8-bit code or a 4-bit one.",  # right, both
        "A 1,800-token prompt and a 110-layer stack.",  # one thousand..., one hundred...
        "Plan A: 8 GPUs; area 8 mm².",  # no article before the number
        "Write {{bits}} as a name, a {{bits}}-bit code.",  # braces written out: no number shown
    ],
)
def test_no_misfit_no_finding(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, explanation=text) == []
