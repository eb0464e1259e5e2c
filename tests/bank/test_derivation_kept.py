"""A template's derivations are kept by the numbers the answer reads: the same numbers, the same rows."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.generate.derivation import derive, template_labels
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "kept-derivation"
title = "Embedding table"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "vocab {vocab}, d_model {d_model}: how many parameters does the table hold?"
explanation = "Rows times columns."
tldr = "V × d."
answer = { expr = "embedding_params(vocab, d_model) + extra", unit = "params" }
[template.variables]
vocab = { choices = [32000, 50257] }
d_model = { choices = [512] }
extra = { range = [0, 3] }
"""


def test_the_same_numbers_give_the_kept_derivation_and_others_their_own(tmp_path: Path) -> None:
    (tmp_path / "q.toml").write_text(TEMPLATE)
    (template,) = load_bank([str(tmp_path)]).templates()
    made = {}
    for seed in range(40):
        instance = generate(template, seed)
        key = (instance.variables["vocab"], instance.variables["extra"])
        rows = instance.parts[0].derivation
        if key in made:
            assert rows is made[key]  # kept: not made again
        made[key] = rows
        env = dict(instance.variables)
        fresh = derive(template, template.main.answer, "params", env, template_labels(template), "answer")
        assert fresh == (instance.value, rows)  # what it would be made afresh
        assert rows[-1].value == key[0] * 512 + key[1]  # by hand: V × d + extra
    assert len(made) == 8  # every pair drawn, each with its own rows
    assert len({id(rows) for rows in made.values()}) == 8
