"""The derivation's last row in words: calculator results by their labels, never a call or Python syntax."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.generate.render import generate
from quizzer.bank.loader import Bank, load_bank
from quizzer.core import CALCULATORS
from quizzer.core.trace import num
from tests.builtin_bank import builtin_bank, builtin_instance

CALL = re.compile(r"\b(" + "|".join(sorted(CALCULATORS, key=len, reverse=True)) + r")\(")
PYTHON = re.compile(r"\*|//|\bif\b|\belse\b|'|\bTrue\b|\bFalse\b")


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


@pytest.mark.parametrize("template_id", bank().ids())
def test_no_derivation_row_shows_a_call_or_python(template_id: str) -> None:
    for seed in range(8):
        for step in builtin_instance(template_id, seed).derivation:
            for text in (step.label, step.formula, step.substituted):
                assert not CALL.search(text), (seed, text)
                assert not PYTHON.search(text), (seed, text)


def test_a_sum_of_calculator_results_names_each_by_its_label() -> None:
    inst = generate(bank().get("int4-weights-kv-cache-memory"), 3)
    answer = inst.derivation[-1]
    left, right = answer.substituted.split(" + ")
    labels = answer.formula.split(" + ")
    assert len(labels) == 2
    # Each label is the label of a step earlier in the derivation whose value is the number beside it.
    for label, value in zip(labels, (left, right), strict=True):
        assert any(s.label == label and num(s.value) == value for s in inst.derivation[:-1]), (label, value)
    assert int(left.replace(",", "")) + int(right.replace(",", "")) == inst.value


def write(tmp_path: Path, expr: str, variables: str) -> Bank:
    (tmp_path / "pack.toml").write_text(
        f"""
[[template]]
id = "formula"
title = "Formula"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "?"
explanation = "x"
tldr = "x"

[template.variables]
{variables}

[template.answer]
expr = "{expr}"
unit = "count"
""",
        encoding="utf-8",
    )
    return load_bank([str(tmp_path / "pack.toml")])


@pytest.mark.parametrize(
    ("expr", "formula", "substituted"),
    [
        ("a * b ** 2", "tokens per row × b ^ 2", "6 × 4 ^ 2"),
        ("(a + b) // b", "⌊(tokens per row + b) / b⌋", "⌊(6 + 4) / 4⌋"),
        ("ceil(a / b)", "⌈tokens per row / b⌉", "⌈6 / 4⌉"),
        ("a if flag else b", "tokens per row", "6"),
        ("b if not flag else a - b", "tokens per row - b", "6 - 4"),
        ("a - (b - 1)", "tokens per row - (b - 1)", "6 - (4 - 1)"),
        ("2 ** (a - b)", "2 ^ (tokens per row - b)", "2 ^ (6 - 4)"),
        ("max(a, b) % 4 + 1", "max(tokens per row, b) mod 4 + 1", "max(6, 4) mod 4 + 1"),
    ],
)
def test_expressions_in_words(tmp_path: Path, expr: str, formula: str, substituted: str) -> None:
    variables = (
        'a = { choices = [6], label = "tokens per row" }\nb = { choices = [4] }\nflag = { choices = [true] }'
    )
    template = write(tmp_path, expr, variables).get("formula")
    last = generate(template, 1).derivation[-1]
    assert (last.label, last.formula, last.substituted) == ("Answer", formula, substituted)


def test_a_call_wrapped_in_arithmetic_shows_its_label(tmp_path: Path) -> None:
    bank = write(tmp_path, "2 * embedding_params(v, d)", "v = { choices = [100] }\nd = { choices = [8] }")
    template = bank.get("formula")
    inst = generate(template, 1)
    table_step = inst.derivation[0]
    assert inst.derivation[-1].formula == f"2 × {table_step.label}"
    assert inst.derivation[-1].substituted == f"2 × {num(table_step.value)}"
    assert inst.value == 2 * 100 * 8
