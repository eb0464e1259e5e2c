"""A part's figures, answer shown and tolerance sentence are kept by the numbers they follow from."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.generate import render
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "kept-figures"
title = "GPT-3 XL"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "How many parameters does GPT-3 XL hold ({other} is another count)?"
explanation = "Count them."
tldr = "Count."
answer = { expr = "1315723264", unit = "params", tolerance = { rel = 0.05 } }
mistakes = [{ name = "other", answer = "other", feedback = "That is the other count." }]

[template.variables]
other = { choices = [1290000000, 3000000000] }
"""


def test_the_figures_follow_the_mistakes_values_and_are_kept_for_the_same_numbers(tmp_path: Path) -> None:
    """1,315,723,264 within 5%: 1.3B at two figures is nearer a mistake of 1.29e9 than the answer, so
    three figures are needed beside it, two beside 3e9 (by hand: |1.3e9 - 1.29e9| = 1e7 < 1.57e7)."""
    (tmp_path / "q.toml").write_text(TEMPLATE)
    (template,) = load_bank([str(tmp_path)]).templates()
    seen = {}
    for seed in range(30):
        instance = generate(template, seed)
        other = instance.variables["other"]
        seen[other] = (instance.needed_figures, instance.display, instance.tolerance_text)
        render._figures(template).clear()  # made afresh: the same figures, answer shown and sentence
        render._said(template).clear()
        again = generate(template, seed)
        assert (again.needed_figures, again.display, again.tolerance_text) == seen[other]
    assert seen == {
        1_290_000_000: (
            3,
            "1,315,723,264 params (1.32B)",
            "Answers within 5% are correct (give at least three significant figures).",
        ),
        3_000_000_000: (
            2,
            "1,315,723,264 params (1.32B)",
            "Answers within 5% are correct (give at least two significant figures).",
        ),
    }
