"""The layers in scope of a later part come from a model that part draws when part 1 has none."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "later-model-layers"
title = "KV cache of a model"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "A batch of {batch} sequences: how many sequences?"
explanation = "As given."
tldr = "The batch."
answer = { expr = "batch", unit = "count" }
[template.variables]
batch = { choices = [2, 4] }
[[template.parts]]
prompt = "With {model_title}: how many bytes of K and V per token, in bf16?"
explanation = "Two tensors per layer."
tldr = "2 × L × kv × d × 2."
answer = { expr = "2 * model_n_layers * model_n_kv_heads * model_head_dim * 2", unit = "bytes" }
[template.parts.variables]
model = { preset = ["llama-3.1-8b", "llama-3-70b"] }
"""


def test_a_later_parts_model_gives_its_layers_when_part_one_has_none(tmp_path: Path) -> None:
    (tmp_path / "q.toml").write_text(TEMPLATE)
    (template,) = load_bank([str(tmp_path)]).templates()
    seen = set()
    for seed in range(12):
        instance = generate(template, seed)
        first, second = instance.parts
        assert first.layers is None  # part 1 names no model
        layers = {"llama-3.1-8b": 32, "llama-3-70b": 80}[second.variables["model"]]  # their configs
        assert second.layers == layers
        seen.add(layers)
    assert seen == {32, 80}
